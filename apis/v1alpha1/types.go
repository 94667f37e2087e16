/*
Copyright 2026 The provider-devops Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// SecretKeySelector names one key of a Secret. Unlike Crossplane's common
// selector the namespace is optional: a namespaced ProviderConfig may only read
// Secrets from its own namespace, so there it defaults to (and must equal) that
// namespace. A ClusterProviderConfig must name it.
type SecretKeySelector struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Namespace of the Secret. Defaults to the ProviderConfig's namespace;
	// required for a ClusterProviderConfig.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`

	// Key within the Secret's data.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key"`
}

// Credentials tells the provider where to read a backend's credentials.
// +kubebuilder:validation:XValidation:rule="self.source != 'Secret' || has(self.secretRef)",message="secretRef is required when source is Secret"
// +kubebuilder:validation:XValidation:rule="self.source != 'Environment' || has(self.env)",message="env is required when source is Environment"
// +kubebuilder:validation:XValidation:rule="self.source != 'Filesystem' || has(self.fs)",message="fs is required when source is Filesystem"
type Credentials struct {
	// Source of the credentials.
	// +kubebuilder:validation:Enum=None;Secret;Environment;Filesystem
	// +kubebuilder:default=Secret
	Source xpv2.CredentialsSource `json:"source"`

	// SecretRef selects the Secret key holding the credentials.
	// +optional
	SecretRef *SecretKeySelector `json:"secretRef,omitempty"`

	// Env names an environment variable of the provider process holding the
	// credentials.
	// +optional
	Env *xpv2.EnvSelector `json:"env,omitempty"`

	// Fs names a file in the provider's filesystem holding the credentials.
	// +optional
	Fs *xpv2.FsSelector `json:"fs,omitempty"`
}

// TLSConfig is how the provider verifies a backend's certificate: the same
// two fields in every section.
type TLSConfig struct {
	// InsecureSkipTLSVerify disables TLS certificate verification. Use only
	// for test servers.
	// +optional
	InsecureSkipTLSVerify bool `json:"insecureSkipTLSVerify,omitempty"`

	// CABundle is a PEM bundle of the certificate authorities that sign
	// the server's certificate (a private CA). Default: the system's roots.
	// +kubebuilder:validation:MaxLength=262144
	// +kubebuilder:validation:XValidation:rule="self.contains('-----BEGIN CERTIFICATE-----')",message="caBundle must hold PEM certificates (-----BEGIN CERTIFICATE-----)"
	// +optional
	CABundle string `json:"caBundle,omitempty"`
}

// JenkinsConfig connects to one Jenkins controller. The credentials are JSON:
// {"username": "...", "token": "<API token>"}.
// +kubebuilder:validation:XValidation:rule="!(has(self.insecureSkipTLSVerify) && self.insecureSkipTLSVerify && has(self.caBundle))",message="set either insecureSkipTLSVerify or caBundle, not both"
type JenkinsConfig struct {
	// URL of the Jenkins controller, e.g. https://jenkins.example.com/.
	// +kubebuilder:validation:Pattern=`^https?://[^\s/?#]+([/?#][^\s]*)?$`
	// +kubebuilder:validation:MaxLength=2048
	URL string `json:"url"`

	TLSConfig `json:",inline"`

	// Credentials: JSON {"username", "token"}.
	Credentials Credentials `json:"credentials"`

	// RootFolder pins the pipelines that use this config below one folder,
	// e.g. "teams/shop": a JenkinsPipeline whose folder is not this folder
	// or one below it is refused, and the provider creates folders only
	// below it (the root itself must exist). Jobs inherit the credentials
	// of their folders, so a team's root folder holding the team's
	// credentials is what keeps them to the team. Empty: no limit.
	// "{namespace}" stands for the namespace of the resource reconciled,
	// which gives each namespace its own root through one
	// ClusterProviderConfig (e.g. "teams/{namespace}").
	// +kubebuilder:validation:Pattern=`^([A-Za-z0-9_]|\{namespace\})([A-Za-z0-9_.-]|\{namespace\})*(/([A-Za-z0-9_]|\{namespace\})([A-Za-z0-9_.-]|\{namespace\})*)*$`
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="!self.contains('..')",message="rootFolder must not contain '..'"
	// +optional
	RootFolder string `json:"rootFolder,omitempty"`

	// AllowedCredentialIDs are the Jenkins credential ids (shell globs,
	// e.g. "shop-*") that pipelines using this config may name in
	// source.scm.credentialsId and JenkinsCredentials may create; any
	// other id is refused. Empty: no limit.
	// "{namespace}" stands for the resource's namespace.
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:Pattern=`^([A-Za-z0-9_.@*?\[\]-]|\{namespace\})+$`
	// +kubebuilder:validation:items:MaxLength=255
	// +listType=set
	// +optional
	AllowedCredentialIDs []string `json:"allowedCredentialIds,omitempty"`

	// AllowGlobalCredentials lets JenkinsCredentials without a folder
	// write to Jenkins' global (system) credential store, which every job
	// can use. Honoured only in a ClusterProviderConfig without a
	// rootFolder: a namespaced ProviderConfig never reaches the global
	// store. Default false: credentials go into folders only.
	// +optional
	AllowGlobalCredentials bool `json:"allowGlobalCredentials,omitempty"`

	// DeployUsers are the RabbitMQ users that may build the pipelines using
	// this config through deploy requests: a request is authorised by its
	// AMQP user_id property, which the broker checks against the user that
	// published it. Empty: deploy requests are refused. "{namespace}"
	// stands for the pipeline's namespace, so one ClusterProviderConfig
	// can let each namespace's CI user build only its own pipelines (e.g.
	// "ci-{namespace}").
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:Pattern=`^[^\s,]{1,255}$`
	// +listType=set
	// +optional
	DeployUsers []string `json:"deployUsers,omitempty"`
}

// ArgoCDConfig connects to one Argo CD API server. The credentials are a
// bearer token (an Argo CD account or project token), as plain text.
// +kubebuilder:validation:XValidation:rule="!(has(self.insecureSkipTLSVerify) && self.insecureSkipTLSVerify && has(self.caBundle))",message="set either insecureSkipTLSVerify or caBundle, not both"
type ArgoCDConfig struct {
	// URL of the Argo CD API server, e.g. https://argocd.example.com.
	// +kubebuilder:validation:Pattern=`^https?://[^\s/?#]+([/?#][^\s]*)?$`
	// +kubebuilder:validation:MaxLength=2048
	URL string `json:"url"`

	TLSConfig `json:",inline"`

	// Namespace Argo CD runs in (its control-plane namespace), where the
	// provider creates and looks up Applications. With apps in any namespace
	// enabled, an Application of the same name in another namespace is not
	// ours and is never touched.
	// +kubebuilder:default=argocd
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// Credentials: the bearer token.
	Credentials Credentials `json:"credentials"`

	// Tenancy bounds what namespaced resources may ask of Argo CD through a
	// ClusterProviderConfig, whose token is the platform's and usually
	// strong. It applies to every ClusterProviderConfig, with the defaults
	// below when unset; a ProviderConfig may not set it (its token is the
	// namespace's own, bounded by Argo CD's RBAC).
	// +optional
	Tenancy *ArgoCDTenancy `json:"tenancy,omitempty"`
}

// ArgoCDTenancy bounds, per namespace, the AppProjects that ArgoProjects
// create through a ClusterProviderConfig, and makes ArgoApplications and
// ArgoRepositories use only AppProjects an ArgoProject of their own
// namespace manages. "{namespace}" in a pattern stands for the namespace
// of the resource being reconciled.
type ArgoCDTenancy struct {
	// DestinationNamespaces are the namespaces (shell globs) an AppProject
	// may deploy to. Default: ["{namespace}", "{namespace}--*"] ("--", so
	// that namespace "team" cannot reach namespace "team-b"). A
	// destination that is itself a glob must be matched as written, so
	// "shop-*" needs a pattern such as "shop-*" or "*".
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9*?{}\[\]-]{1,80}$`
	// +listType=atomic
	// +optional
	DestinationNamespaces []string `json:"destinationNamespaces,omitempty"`

	// DestinationClusters are the clusters (shell globs of the server URL
	// or the cluster name) an AppProject may deploy to. Default: ["*"],
	// every cluster Argo CD knows.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=2048
	// +listType=atomic
	// +optional
	DestinationClusters []string `json:"destinationClusters,omitempty"`

	// ClusterResources are the cluster-scoped kinds an AppProject may
	// allow ("*" matches any group or kind). Default: none.
	// +kubebuilder:validation:MaxItems=64
	// +listType=atomic
	// +optional
	ClusterResources []ArgoCDGroupKind `json:"clusterResources,omitempty"`

	// ProjectNames are the AppProject names (shell globs) an ArgoProject
	// may create or manage. Default: ["{namespace}.*"] (a DevOpsProject's
	// AppProject is "<namespace>.<name>"): no namespace name holds a dot,
	// so one namespace cannot take a name another's project will need,
	// as "{namespace}-*" let "team" take "team-b"'s. An ArgoProject that
	// already holds an AppProject under a name no longer allowed keeps it.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9*?{}\[\].-]{1,253}$`
	// +listType=atomic
	// +optional
	ProjectNames []string `json:"projectNames,omitempty"`

	// SourceRepos are the repository URLs (shell globs) an AppProject may
	// list in sourceRepos. Default: ["*"]. Restrict it when Argo CD holds
	// credentials that are not project-scoped (credential templates or
	// repositories without a project), which any project whose
	// sourceRepos match them can use.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=2048
	// +listType=atomic
	// +optional
	SourceRepos []string `json:"sourceRepos,omitempty"`
}

// ArgoCDGroupKind names a kind of Kubernetes resource; "" is the core
// group, "*" any.
type ArgoCDGroupKind struct {
	// Group, "" for the core group.
	// +kubebuilder:validation:Pattern=`^(\*|[a-z0-9.-]*)$`
	// +kubebuilder:validation:MaxLength=253
	Group string `json:"group"`
	// Kind, e.g. Namespace.
	// +kubebuilder:validation:Pattern=`^(\*|[A-Za-z][A-Za-z0-9]*)$`
	// +kubebuilder:validation:MaxLength=63
	Kind string `json:"kind"`
}

// DNSProviderKind selects a libdns provider.
// +kubebuilder:validation:Enum=godaddy;rfc2136
type DNSProviderKind string

// DNS provider kinds.
const (
	DNSProviderGoDaddy DNSProviderKind = "godaddy"
	DNSProviderRFC2136 DNSProviderKind = "rfc2136"
)

// RFC2136Options configures dynamic updates (RFC 2136) signed with TSIG.
type RFC2136Options struct {
	// Server is the host:port of the primary name server accepting updates.
	// +kubebuilder:validation:Pattern=`^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):[0-9]{1,5}$`
	Server string `json:"server"`

	// KeyName is the TSIG key name.
	// +kubebuilder:validation:MinLength=1
	KeyName string `json:"keyName"`

	// KeyAlgorithm is the TSIG algorithm.
	// +kubebuilder:validation:Enum=hmac-sha256;hmac-sha512;hmac-sha1
	// +kubebuilder:default=hmac-sha256
	// +optional
	KeyAlgorithm string `json:"keyAlgorithm,omitempty"`
}

// GoDaddyOptions configures the GoDaddy Domains API.
type GoDaddyOptions struct {
	// URL of the API: https://api.godaddy.com, or https://api.ote-godaddy.com
	// for GoDaddy's test environment.
	// +kubebuilder:validation:Pattern=`^https?://[^\s/?#]+/?$`
	// +kubebuilder:default="https://api.godaddy.com"
	// +optional
	URL string `json:"url,omitempty"`
}

// DNSConfig connects to a DNS provider through libdns. Credentials are the
// provider's secret: for godaddy "key:secret"; for rfc2136 the base64 TSIG
// secret.
// +kubebuilder:validation:XValidation:rule="self.provider != 'rfc2136' || has(self.rfc2136)",message="rfc2136 options are required when provider is rfc2136"
// +kubebuilder:validation:XValidation:rule="!(has(self.insecureSkipTLSVerify) && self.insecureSkipTLSVerify && has(self.caBundle))",message="set either insecureSkipTLSVerify or caBundle, not both"
// +kubebuilder:validation:XValidation:rule="self.provider != 'rfc2136' || !((has(self.insecureSkipTLSVerify) && self.insecureSkipTLSVerify) || has(self.caBundle))",message="insecureSkipTLSVerify and caBundle are for HTTPS providers (godaddy); RFC 2136 updates are signed with TSIG, not sent over TLS"
type DNSConfig struct {
	// Provider selects the DNS backend.
	Provider DNSProviderKind `json:"provider"`

	// RFC2136 holds the options for provider rfc2136.
	// +optional
	RFC2136 *RFC2136Options `json:"rfc2136,omitempty"`

	// GoDaddy holds the options for provider godaddy.
	// +optional
	GoDaddy *GoDaddyOptions `json:"godaddy,omitempty"`

	// Credentials: the provider's secret (see the type's description).
	Credentials Credentials `json:"credentials"`

	// TLS of an HTTPS provider's API (godaddy).
	TLSConfig `json:",inline"`

	// Tenancy bounds what namespaced DNSRecords may ask through a
	// ClusterProviderConfig, whose zone credentials are the platform's. It
	// applies to every ClusterProviderConfig, with the defaults below when
	// unset; a ProviderConfig may not set it.
	// +optional
	Tenancy *DNSTenancy `json:"tenancy,omitempty"`
}

// DNSTenancy bounds, per namespace, the record sets DNSRecords may manage
// through a ClusterProviderConfig. "{namespace}" in a pattern stands for
// the namespace of the resource being reconciled.
type DNSTenancy struct {
	// Names are the record names, relative to the zone, a namespace may
	// manage (shell globs; "*" also matches dots). Default: ["*"], every
	// name but those that speak for the whole zone, which only the
	// pattern "@" allows: the apex, a top-level "*", and underscore labels
	// right under the apex (_acme-challenge, _dmarc, sel._domainkey).
	// Through a ClusterProviderConfig a new record set is also refused at,
	// above or below any record set this namespace does not own.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9_*?{}\[\].@-]{1,253}$`
	// +listType=atomic
	// +optional
	Names []string `json:"names,omitempty"`

	// Types are the record types a namespace may manage. Default: A, AAAA,
	// CNAME, TXT, MX and SRV; not NS (a delegation hands the name and
	// everything below it to the servers it names) nor CAA (which decides
	// who may issue certificates for everything below it).
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:Enum=A;AAAA;CNAME;TXT;MX;NS;SRV;CAA
	// +listType=atomic
	// +optional
	Types []string `json:"types,omitempty"`

	// AdoptExisting lets DNSRecords take over record sets no DNSRecord
	// owns (spec.forProvider.adoptExisting). Default false: through a
	// ClusterProviderConfig the platform's own records (www, MX, a
	// delegation) are never adopted by a namespace.
	// +optional
	AdoptExisting bool `json:"adoptExisting,omitempty"`
}

// RegistryKind selects the registry API.
// +kubebuilder:validation:Enum=dockerhub;harbor;oci
type RegistryKind string

// Registry kinds.
const (
	RegistryDockerHub RegistryKind = "dockerhub"
	RegistryHarbor    RegistryKind = "harbor"
	RegistryOCI       RegistryKind = "oci"
)

// RegistryConfig connects to a container registry. Credentials are JSON:
// {"username": "...", "password": "..."} (a personal access token works as the
// password for Docker Hub and a robot secret for Harbor).
// +kubebuilder:validation:XValidation:rule="self.kind == 'dockerhub' || has(self.url)",message="url is required for harbor and oci registries"
// +kubebuilder:validation:XValidation:rule="!(has(self.insecureSkipTLSVerify) && self.insecureSkipTLSVerify && has(self.caBundle))",message="set either insecureSkipTLSVerify or caBundle, not both"
type RegistryConfig struct {
	// Kind of registry API.
	Kind RegistryKind `json:"kind"`

	// URL of the registry API. Defaults to Docker Hub's for kind dockerhub.
	// +optional
	// +kubebuilder:validation:Pattern=`^https?://[^\s/?#]+([/?#][^\s]*)?$`
	// +kubebuilder:validation:MaxLength=2048
	URL string `json:"url,omitempty"`

	TLSConfig `json:",inline"`

	// Credentials: JSON {"username", "password"}.
	Credentials Credentials `json:"credentials"`

	// Tenancy bounds what namespaced RegistryRepos may ask through a
	// ClusterProviderConfig, whose registry credentials are the
	// platform's. It applies to every ClusterProviderConfig, with the
	// defaults below when unset; a ProviderConfig may not set it.
	// +optional
	Tenancy *RegistryTenancy `json:"tenancy,omitempty"`
}

// RegistryTenancy bounds, per namespace, the repositories RegistryRepos may
// manage through a ClusterProviderConfig. "{namespace}" in a pattern stands
// for the namespace of the resource being reconciled.
type RegistryTenancy struct {
	// Repositories are the repositories, as "<namespace>/<name>" (Docker
	// Hub organisation, Harbor project or OCI path prefix, then the name;
	// shell globs, "*" also matching "/"), a namespace may manage. Default:
	// ["{namespace}/*"]: those in a registry namespace named like the
	// Kubernetes namespace (a prefix rule such as "*/{namespace}-*" would
	// let namespace "team" manage "acme/team-b-shop").
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9._*?{}\[\]/-]{1,512}$`
	// +listType=atomic
	// +optional
	Repositories []string `json:"repositories,omitempty"`

	// AdoptExisting lets RegistryRepos take over repositories no
	// RegistryRepo owns (spec.forProvider.adoptExisting). Default false:
	// through a ClusterProviderConfig the platform's own repositories are
	// never adopted by a namespace.
	// +optional
	AdoptExisting bool `json:"adoptExisting,omitempty"`
}

// ForgeKind is the API of a git forge.
// +kubebuilder:validation:Enum=gitea
type ForgeKind string

// Forge kinds. Forgejo serves Gitea's API: use gitea.
const (
	ForgeGitea ForgeKind = "gitea"
)

// ForgeConfig connects to the git forge whose pull requests
// ForgeRepositories watch and report to. Credentials are an API token
// that reads the repositories' pull requests and writes their commit
// statuses and comments.
// +kubebuilder:validation:XValidation:rule="!(has(self.insecureSkipTLSVerify) && self.insecureSkipTLSVerify && has(self.caBundle))",message="set either insecureSkipTLSVerify or caBundle, not both"
type ForgeConfig struct {
	// Kind of forge API.
	// +kubebuilder:default=gitea
	// +optional
	Kind ForgeKind `json:"kind,omitempty"`

	// URL of the forge, e.g. https://git.example.com (its API is under
	// /api/v1).
	// +kubebuilder:validation:Pattern=`^https?://[^\s/?#]+([/?#][^\s]*)?$`
	// +kubebuilder:validation:MaxLength=2048
	URL string `json:"url"`

	TLSConfig `json:",inline"`

	// Credentials: the API token.
	Credentials Credentials `json:"credentials"`

	// Tenancy bounds what namespaced ForgeRepositories may ask through a
	// ClusterProviderConfig, whose token is the platform's. It applies to
	// every ClusterProviderConfig, with the defaults below when unset; a
	// ProviderConfig may not set it.
	// +optional
	Tenancy *ForgeTenancy `json:"tenancy,omitempty"`
}

// ForgeTenancy bounds, per namespace, the repositories ForgeRepositories
// may watch through a ClusterProviderConfig. "{namespace}" in a pattern
// stands for the namespace of the resource being reconciled.
type ForgeTenancy struct {
	// Repositories are the repositories, as "<owner>/<name>" (shell
	// globs), a namespace may watch and post statuses and comments to.
	// Default: ["{namespace}/*"], those of the forge organisation named
	// like the Kubernetes namespace.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:Pattern=`^[A-Za-z0-9._*?{}\[\]/-]{1,512}$`
	// +listType=atomic
	// +optional
	Repositories []string `json:"repositories,omitempty"`

	// AllowForks lets ForgeRepositories list pull requests from forks
	// (spec.forProvider.pullRequests.forkAuthors). Default false: a
	// preview of a fork builds its author's code with the project's
	// credentials, so through the platform's config no namespace may
	// opt in unless the platform does.
	// +optional
	AllowForks bool `json:"allowForks,omitempty"`
}

// EventsConfig points the provider at a RabbitMQ broker for its event stream.
// The credentials are the AMQP URL, e.g. amqps://user:pass@host:5671/vhost.
// +kubebuilder:validation:XValidation:rule="!(has(self.insecureSkipTLSVerify) && self.insecureSkipTLSVerify && has(self.caBundle))",message="set either insecureSkipTLSVerify or caBundle, not both"
type EventsConfig struct {
	// Exchange is the durable topic exchange events are published to.
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_.:-]{1,255}$`
	// +kubebuilder:default=devops.events
	// +optional
	Exchange string `json:"exchange,omitempty"`

	// Credentials: the AMQP URL.
	Credentials Credentials `json:"credentials"`

	// TLS of an amqps:// connection.
	TLSConfig `json:",inline"`
}

// ProviderConfigSpec describes one environment's backends. Each section is
// optional; a managed resource whose backend section is missing reports so in
// its Synced condition.
// +kubebuilder:validation:XValidation:rule="has(self.jenkins) || has(self.argocd) || has(self.dns) || has(self.registry) || has(self.events) || has(self.forge)",message="configure at least one of jenkins, argocd, dns, registry, events or forge"
type ProviderConfigSpec struct {
	// Jenkins controller used by JenkinsPipelines.
	// +optional
	Jenkins *JenkinsConfig `json:"jenkins,omitempty"`

	// ArgoCD API server used by ArgoApplications.
	// +optional
	ArgoCD *ArgoCDConfig `json:"argocd,omitempty"`

	// DNS provider used by DNSRecords.
	// +optional
	DNS *DNSConfig `json:"dns,omitempty"`

	// Registry used by RegistryRepos.
	// +optional
	Registry *RegistryConfig `json:"registry,omitempty"`

	// Events configures the RabbitMQ event stream.
	// +optional
	Events *EventsConfig `json:"events,omitempty"`

	// Forge (Gitea, Forgejo) whose pull requests ForgeRepositories watch.
	// +optional
	Forge *ForgeConfig `json:"forge,omitempty"`

	// AllowedNamespaces (ClusterProviderConfig only) are the namespaces,
	// as shell globs ("team-*", "*"), whose managed resources may use this
	// config, its credentials included. Empty: none. A namespace is a
	// tenant: without this any tenant could name the platform's config.
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9*?\[\]-]{1,63}$`
	// +listType=set
	// +optional
	AllowedNamespaces []string `json:"allowedNamespaces,omitempty"`

	// InitializeUsers (ProviderConfig only) are the RabbitMQ users that may
	// create and update DevOpsProjects in this namespace through
	// DevOpsInitialize messages: a message is authorised by its AMQP
	// user_id property, which the broker checks against the user that
	// published it, and only by the ProviderConfig the project names
	// (spec.providerConfigRef of kind ProviderConfig, or
	// spec.providerConfigName), or by the namespace's "default" when it
	// names none or a ClusterProviderConfig. Empty:
	// such messages are refused. "{namespace}" stands for this namespace,
	// so the same ProviderConfig in every namespace can let each
	// namespace's CI user write only its own projects (e.g.
	// "ci-{namespace}").
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:Pattern=`^[^\s,]{1,255}$`
	// +listType=set
	// +optional
	InitializeUsers []string `json:"initializeUsers,omitempty"`
}

// A ProviderConfigStatus reflects the observed state of a ProviderConfig.
type ProviderConfigStatus struct {
	xpv2.ProviderConfigStatus `json:",inline"`
}

// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="JENKINS",type="string",JSONPath=".spec.jenkins.url",priority=1
// +kubebuilder:printcolumn:name="ARGOCD",type="string",JSONPath=".spec.argocd.url",priority=1
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,provider,devops}

// A ProviderConfig configures the backends for managed resources in its own
// namespace. It may only read Secrets from that namespace: a namespace is a
// tenant, and the provider's own environment and files (its service-account
// token among them) are the platform's, so the credential sources
// Environment and Filesystem are refused here (by the API server and again
// by the provider) and kept for ClusterProviderConfig.
type ProviderConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +kubebuilder:validation:XValidation:rule="!has(self.jenkins) || self.jenkins.credentials.source in ['Secret', 'None']",message="a namespaced ProviderConfig takes credentials only from a Secret in its own namespace (or None): Environment and Filesystem read the provider's own environment and files and are allowed only in a ClusterProviderConfig",fieldPath=".jenkins.credentials.source"
	// +kubebuilder:validation:XValidation:rule="!has(self.argocd) || self.argocd.credentials.source in ['Secret', 'None']",message="a namespaced ProviderConfig takes credentials only from a Secret in its own namespace (or None): Environment and Filesystem read the provider's own environment and files and are allowed only in a ClusterProviderConfig",fieldPath=".argocd.credentials.source"
	// +kubebuilder:validation:XValidation:rule="!has(self.dns) || self.dns.credentials.source in ['Secret', 'None']",message="a namespaced ProviderConfig takes credentials only from a Secret in its own namespace (or None): Environment and Filesystem read the provider's own environment and files and are allowed only in a ClusterProviderConfig",fieldPath=".dns.credentials.source"
	// +kubebuilder:validation:XValidation:rule="!has(self.registry) || self.registry.credentials.source in ['Secret', 'None']",message="a namespaced ProviderConfig takes credentials only from a Secret in its own namespace (or None): Environment and Filesystem read the provider's own environment and files and are allowed only in a ClusterProviderConfig",fieldPath=".registry.credentials.source"
	// +kubebuilder:validation:XValidation:rule="!has(self.events) || self.events.credentials.source in ['Secret', 'None']",message="a namespaced ProviderConfig takes credentials only from a Secret in its own namespace (or None): Environment and Filesystem read the provider's own environment and files and are allowed only in a ClusterProviderConfig",fieldPath=".events.credentials.source"
	// +kubebuilder:validation:XValidation:rule="!has(self.forge) || self.forge.credentials.source in ['Secret', 'None']",message="a namespaced ProviderConfig takes credentials only from a Secret in its own namespace (or None): Environment and Filesystem read the provider's own environment and files and are allowed only in a ClusterProviderConfig",fieldPath=".forge.credentials.source"
	// +kubebuilder:validation:XValidation:rule="!has(self.forge) || !has(self.forge.tenancy)",message="forge.tenancy is for a ClusterProviderConfig: a ProviderConfig's forge token is the namespace's own",fieldPath=".forge.tenancy"
	// +kubebuilder:validation:XValidation:rule="!has(self.argocd) || !has(self.argocd.tenancy)",message="argocd.tenancy is for a ClusterProviderConfig: a ProviderConfig's token is the namespace's own, bounded by Argo CD's RBAC",fieldPath=".argocd.tenancy"
	// +kubebuilder:validation:XValidation:rule="!has(self.registry) || !has(self.registry.tenancy)",message="registry.tenancy is for a ClusterProviderConfig: a ProviderConfig's registry credentials are the namespace's own",fieldPath=".registry.tenancy"
	// +kubebuilder:validation:XValidation:rule="!has(self.dns) || !has(self.dns.tenancy)",message="dns.tenancy is for a ClusterProviderConfig: a ProviderConfig's zone credentials are the namespace's own",fieldPath=".dns.tenancy"
	// +kubebuilder:validation:XValidation:rule="!has(self.allowedNamespaces)",message="allowedNamespaces is for a ClusterProviderConfig: a ProviderConfig serves its own namespace only",fieldPath=".allowedNamespaces"
	Spec   ProviderConfigSpec   `json:"spec"`
	Status ProviderConfigStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ProviderConfigList contains a list of ProviderConfig.
type ProviderConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ProviderConfig `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="JENKINS",type="string",JSONPath=".spec.jenkins.url",priority=1
// +kubebuilder:printcolumn:name="ARGOCD",type="string",JSONPath=".spec.argocd.url",priority=1
// +kubebuilder:resource:scope=Cluster,categories={crossplane,provider,devops}

// A ClusterProviderConfig configures backends for managed resources in the
// namespaces its spec.allowedNamespaces names (none by default). Its Secret
// references must name their namespace.
type ClusterProviderConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +kubebuilder:validation:XValidation:rule="!has(self.initializeUsers)",message="initializeUsers is for a namespaced ProviderConfig: a namespace's own ProviderConfig says who may write its DevOpsProjects, also those whose resources use a ClusterProviderConfig",fieldPath=".initializeUsers"
	Spec   ProviderConfigSpec   `json:"spec"`
	Status ProviderConfigStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterProviderConfigList contains a list of ClusterProviderConfig.
type ClusterProviderConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterProviderConfig `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="CONFIG-NAME",type="string",JSONPath=".providerConfigRef.name"
// +kubebuilder:printcolumn:name="RESOURCE-KIND",type="string",JSONPath=".resourceRef.kind"
// +kubebuilder:printcolumn:name="RESOURCE-NAME",type="string",JSONPath=".resourceRef.name"
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,provider,devops}

// A ProviderConfigUsage records that a managed resource uses a ProviderConfig,
// so the ProviderConfig cannot be deleted from under it.
type ProviderConfigUsage struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	xpv2.TypedProviderConfigUsage `json:",inline"`
}

// +kubebuilder:object:root=true

// ProviderConfigUsageList contains a list of ProviderConfigUsage.
type ProviderConfigUsageList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ProviderConfigUsage `json:"items"`
}

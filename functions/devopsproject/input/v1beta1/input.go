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

// Package v1beta1 is the input of function-devopsproject: the defaults a
// platform team sets once in its Composition.
// +kubebuilder:object:generate=true
// +groupName=devopsproject.fn.freeleaps.io
// +versionName=v1beta1
package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Input configures the function. Every field has a default.
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:categories=crossplane
type Input struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// RegistryVisibility of a project's repository when its spec does not
	// say.
	// +kubebuilder:validation:Enum=public;private
	// +kubebuilder:default=private
	// +optional
	RegistryVisibility string `json:"registryVisibility,omitempty"`

	// DNSRecordTTL in seconds of every environment's DNS record.
	// +kubebuilder:validation:Minimum=30
	// +kubebuilder:default=300
	// +optional
	DNSRecordTTL int64 `json:"dnsRecordTTL,omitempty"`

	// DefaultTTL applies to environments whose name matches
	// PreviewPattern and that set no ttl; empty means such environments
	// never expire unless they set a ttl.
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +optional
	DefaultTTL string `json:"defaultTTL,omitempty"`

	// PreviewPattern is a regular expression that must match an
	// environment's whole name (it is anchored) for DefaultTTL to apply.
	// Whether an environment gets the default ttl is decided once, when it
	// first appears, and kept in its status: editing the pattern later
	// never gives an existing environment a ttl.
	// +kubebuilder:default="(pr|preview)-[a-z0-9-]+"
	// +optional
	PreviewPattern string `json:"previewPattern,omitempty"`

	// ProtectedEnvironments never get DefaultTTL, whatever PreviewPattern
	// says.
	// +kubebuilder:default={"prod","production","main"}
	// +kubebuilder:validation:MaxItems=64
	// +listType=set
	// +optional
	ProtectedEnvironments []string `json:"protectedEnvironments,omitempty"`

	// ExpiryWarning is how long before expiry an environment is
	// ExpiringSoon (at most half its ttl).
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:default="1h"
	// +optional
	ExpiryWarning string `json:"expiryWarning,omitempty"`

	// IngressAddress is what environments' DNS names point to when a
	// DevOpsProject sets no spec.dns.target: the ingress controller's
	// load-balancer address (an A or AAAA record) or host name (a CNAME).
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9:.-]+$`
	// +optional
	IngressAddress string `json:"ingressAddress,omitempty"`

	// IngressClasses a project may name in ingress.className; empty: any
	// (a project then may also name none, the cluster's default).
	// +kubebuilder:validation:MaxItems=32
	// +listType=set
	// +optional
	IngressClasses []string `json:"ingressClasses,omitempty"`

	// ClusterIssuers a project may name in ingress.issuer; empty: any.
	// Issuers of an environment's own namespace are always allowed.
	// +kubebuilder:validation:MaxItems=32
	// +listType=set
	// +optional
	ClusterIssuers []string `json:"clusterIssuers,omitempty"`

	// TTLStart is when an environment's ttl starts to run: Creation (it
	// expires ttl after it first appeared, or after its last renewal), or
	// LastDeployment (ttl after its last successful DeployRun, and from
	// creation or renewal until it has one, whichever is later: a preview
	// that is deployed to stays, one left alone goes; the replaced
	// operator's behaviour).
	// +kubebuilder:validation:Enum=Creation;LastDeployment
	// +kubebuilder:default=Creation
	// +optional
	TTLStart string `json:"ttlStart,omitempty"`

	// PollInterval is the response TTL: how soon Crossplane runs the
	// function again when nothing is due earlier.
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:default="1m"
	// +optional
	PollInterval string `json:"pollInterval,omitempty"`

	// TeardownOrder lists an environment's kinds in the order they must be
	// deleted: the provider leaves each kind's external object alone until
	// the environment's resource of the kind before it is gone (the
	// devops.freeleaps.io/delete-after annotation).
	// +kubebuilder:default={"DNSRecord","ArgoApplication","JenkinsPipeline"}
	// +kubebuilder:validation:items:Enum=DNSRecord;ArgoApplication;JenkinsPipeline
	// +optional
	TeardownOrder []string `json:"teardownOrder,omitempty"`

	// ArgoCDClusterResources are the cluster-scoped kinds the Argo CD
	// AppProject composed for each DevOpsProject lets its applications
	// create. Empty: none, and the environments' namespaces must exist
	// (applications do not create them). List {group: "", kind: Namespace}
	// to let applications create their namespaces (CreateNamespace=true).
	// +kubebuilder:validation:MaxItems=64
	// +listType=atomic
	// +optional
	ArgoCDClusterResources []GroupKind `json:"argoCDClusterResources,omitempty"`

	// ProviderConfigRef is the config the managed resources of a project
	// that names none use (spec.providerConfigRef, or the older
	// spec.providerConfigName). A platform that keeps every backend
	// credential to itself names its ClusterProviderConfig here, so teams
	// need no Secret and no ProviderConfig of their own. Default: the
	// ProviderConfig "default" of the project's namespace.
	// +optional
	ProviderConfigRef *ProviderConfigRef `json:"providerConfigRef,omitempty"`

	// DestinationNamespaces are the namespaces (shell globs) the
	// environments of a project on a ClusterProviderConfig may deploy to;
	// "{namespace}" stands for the project's namespace. A project naming
	// another is refused with a message naming this rule. Keep it equal to
	// (or narrower than) the ClusterProviderConfig's
	// spec.argocd.tenancy.destinationNamespaces, which the provider
	// enforces again on the AppProject. Such a project's environments
	// deploy to "<namespace>--<project>-<environment>" unless they say.
	// Default: ["{namespace}", "{namespace}--*"], the provider's default
	// ("--": namespace "team" must not reach namespace "team-b").
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9*?{}\[\]-]{1,80}$`
	// +listType=atomic
	// +optional
	DestinationNamespaces []string `json:"destinationNamespaces,omitempty"`

	// PipelineFolder is the Jenkins folder of a project on a
	// ClusterProviderConfig that names none in spec.pipeline.folder:
	// "{namespace}" stands for the project's namespace and "{project}" for
	// its name. With a ClusterProviderConfig whose jenkins.rootFolder is
	// "teams/{namespace}", "teams/{namespace}/{project}" keeps every
	// team's jobs in its own folder without the team knowing the layout.
	// Default, and always for a project on its namespace's ProviderConfig
	// (whose folders were named so before this field): "{project}".
	// +kubebuilder:validation:Pattern=`^([A-Za-z0-9_]|\{namespace\}|\{project\})([A-Za-z0-9_.-]|\{namespace\}|\{project\})*(/([A-Za-z0-9_]|\{namespace\}|\{project\})([A-Za-z0-9_.-]|\{namespace\}|\{project\})*)*$`
	// +kubebuilder:validation:MaxLength=256
	// +optional
	PipelineFolder string `json:"pipelineFolder,omitempty"`

	// DestinationClusters are the clusters (shell globs of the server URL)
	// the environments of a project on a ClusterProviderConfig may deploy
	// to. Default: ["*"].
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=2048
	// +listType=atomic
	// +optional
	DestinationClusters []string `json:"destinationClusters,omitempty"`
}

// ProviderConfigRef names a ProviderConfig of the project's namespace or a
// ClusterProviderConfig.
type ProviderConfigRef struct {
	// Kind: ClusterProviderConfig (the platform's) or ProviderConfig (the
	// project's namespace's own).
	// +kubebuilder:validation:Enum=ClusterProviderConfig;ProviderConfig
	Kind string `json:"kind"`
	// Name of the config.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`
	Name string `json:"name"`
}

// GroupKind names a Kubernetes kind; "" is the core group.
type GroupKind struct {
	// Group, e.g. rbac.authorization.k8s.io; "" for the core group.
	// +kubebuilder:validation:Pattern=`^[a-z0-9.-]*$`
	// +kubebuilder:validation:MaxLength=253
	Group string `json:"group"`
	// Kind, e.g. Namespace.
	// +kubebuilder:validation:Pattern=`^[A-Z][A-Za-z0-9]*$`
	// +kubebuilder:validation:MaxLength=63
	Kind string `json:"kind"`
}

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

// HelmParameter overrides one Helm value.
type HelmParameter struct {
	// Name of the value, e.g. image.tag.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Value to set.
	// +kubebuilder:validation:MaxLength=4096
	Value string `json:"value"`
	// ForceString keeps the value a string.
	// +optional
	ForceString bool `json:"forceString,omitempty"`
}

// HelmSource holds Helm options of the source.
type HelmSource struct {
	// ReleaseName overrides the release name (default: the application name).
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=53
	// +optional
	ReleaseName string `json:"releaseName,omitempty"`
	// ValueFiles relative to the source path.
	// +kubebuilder:validation:MaxItems=32
	// +listType=atomic
	// +optional
	ValueFiles []string `json:"valueFiles,omitempty"`
	// Values is an inline values.yaml.
	// +kubebuilder:validation:MaxLength=65536
	// +optional
	Values string `json:"values,omitempty"`
	// Parameters override individual values.
	// +kubebuilder:validation:MaxItems=128
	// +listType=map
	// +listMapKey=name
	// +optional
	Parameters []HelmParameter `json:"parameters,omitempty"`
}

// KustomizeSource holds Kustomize options of the source.
type KustomizeSource struct {
	// NamePrefix prepended to resources.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	NamePrefix string `json:"namePrefix,omitempty"`
	// NameSuffix appended to resources.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	NameSuffix string `json:"nameSuffix,omitempty"`
	// Images overrides, e.g. "registry/app:1.2.3".
	// +kubebuilder:validation:MaxItems=64
	// +listType=atomic
	// +optional
	Images []string `json:"images,omitempty"`
	// Patches applied to the rendered manifests (Argo CD's
	// kustomize.patches): strategic-merge or JSON 6902 patches, each on
	// the resources its target selects.
	// +kubebuilder:validation:MaxItems=32
	// +listType=atomic
	// +optional
	Patches []KustomizePatch `json:"patches,omitempty"`
}

// KustomizePatch is one patch of a Kustomize source.
type KustomizePatch struct {
	// Patch is a strategic-merge patch (a partial object) or a JSON 6902
	// patch (a list of operations), in YAML or JSON.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=65536
	Patch string `json:"patch"`
	// Target selects the resources patched; without one, a strategic-merge
	// patch applies to the resource it names.
	// +optional
	Target *KustomizeSelector `json:"target,omitempty"`
}

// KustomizeSelector selects resources by kind, name and labels.
type KustomizeSelector struct {
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Group string `json:"group,omitempty"`
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Version string `json:"version,omitempty"`
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Kind string `json:"kind,omitempty"`
	// Name, a regular expression.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Name string `json:"name,omitempty"`
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	LabelSelector string `json:"labelSelector,omitempty"`
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	AnnotationSelector string `json:"annotationSelector,omitempty"`
}

// ApplicationSource is where Argo CD reads manifests from.
// +kubebuilder:validation:XValidation:rule="!(has(self.helm) && has(self.kustomize))",message="set at most one of source.helm or source.kustomize"
// +kubebuilder:validation:XValidation:rule="has(self.path) || has(self.chart)",message="set source.path (Git) or source.chart (Helm repository)"
type ApplicationSource struct {
	// RepoURL of the Git or Helm repository.
	// +kubebuilder:validation:Pattern=`^(https?://[^\s/?#]+[^\s]*|ssh://[^\s/?#]+/[^\s]+|oci://[^\s]+|[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s]+)$`
	// +kubebuilder:validation:MaxLength=2048
	RepoURL string `json:"repoURL"`
	// Path inside a Git repository.
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="!self.split('/').exists(s, s == '..')",message="path must stay inside the repository (no '..' segments)"
	// +optional
	Path string `json:"path,omitempty"`
	// Chart name in a Helm repository.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Chart string `json:"chart,omitempty"`
	// TargetRevision: branch, tag, commit or chart version.
	// +kubebuilder:default=HEAD
	// +kubebuilder:validation:MaxLength=255
	// +optional
	TargetRevision string `json:"targetRevision,omitempty"`
	// Helm options.
	// +optional
	Helm *HelmSource `json:"helm,omitempty"`
	// Kustomize options.
	// +optional
	Kustomize *KustomizeSource `json:"kustomize,omitempty"`
}

// ApplicationDestination is the cluster and namespace to deploy to: exactly
// one of server or name.
// +kubebuilder:validation:XValidation:rule="has(self.server) != has(self.name)",message="set exactly one of destination.server or destination.name"
type ApplicationDestination struct {
	// Server is the cluster's API URL, e.g. https://kubernetes.default.svc.
	// +kubebuilder:validation:Pattern=`^https?://[^\s/?#]+([/?#][^\s]*)?$`
	// +optional
	Server string `json:"server,omitempty"`
	// Name of the cluster as registered in Argo CD.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Name string `json:"name,omitempty"`
	// Namespace to deploy into.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// Automated sync options.
type Automated struct {
	// Prune deletes resources no longer in Git.
	// +optional
	Prune bool `json:"prune,omitempty"`
	// SelfHeal reverts changes made in the cluster.
	// +optional
	SelfHeal bool `json:"selfHeal,omitempty"`
	// AllowEmpty allows syncing to an empty set of resources.
	// +optional
	AllowEmpty bool `json:"allowEmpty,omitempty"`
}

// Backoff of sync retries.
type Backoff struct {
	// Duration of the first wait, e.g. 5s.
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	// +optional
	Duration string `json:"duration,omitempty"`
	// Factor multiplies the wait after each failure.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	// +optional
	Factor *int64 `json:"factor,omitempty"`
	// MaxDuration caps the wait, e.g. 3m.
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	// +optional
	MaxDuration string `json:"maxDuration,omitempty"`
}

// RetryStrategy of failed syncs.
type RetryStrategy struct {
	// Limit of retries; negative means unlimited.
	// +kubebuilder:validation:Minimum=-1
	// +kubebuilder:validation:Maximum=100
	// +optional
	Limit int64 `json:"limit,omitempty"`
	// Backoff between retries.
	// +optional
	Backoff *Backoff `json:"backoff,omitempty"`
}

// SyncPolicy of the application.
type SyncPolicy struct {
	// Automated sync; omit for manual sync.
	// +optional
	Automated *Automated `json:"automated,omitempty"`
	// SyncOptions such as CreateNamespace=true.
	// +kubebuilder:validation:MaxItems=32
	// +listType=set
	// +kubebuilder:validation:items:Pattern=`^[A-Za-z]+=[A-Za-z0-9-]+$`
	// +optional
	SyncOptions []string `json:"syncOptions,omitempty"`
	// Retry failed syncs.
	// +optional
	Retry *RetryStrategy `json:"retry,omitempty"`
}

// ArgoApplicationParameters are the Application fields this resource manages.
type ArgoApplicationParameters struct {
	// Project the application belongs to: an AppProject name (a DNS
	// subdomain; a DevOpsProject's is "<namespace>.<name>").
	// +kubebuilder:default=default
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Project string `json:"project,omitempty"`

	// Source of the manifests.
	Source ApplicationSource `json:"source"`

	// Destination cluster and namespace.
	Destination ApplicationDestination `json:"destination"`

	// SyncPolicy of the application.
	// +optional
	SyncPolicy *SyncPolicy `json:"syncPolicy,omitempty"`

	// Cascade deletes the application's Kubernetes resources when the
	// application is deleted (Argo CD's resources finalizer). With false only
	// the Application object is removed and the workloads stay.
	// +kubebuilder:default=true
	// +optional
	Cascade *bool `json:"cascade,omitempty"`

	// AdoptExisting lets this resource take over an application of its
	// name that carries no owner label (one made by hand or by the Kopf
	// operator): the label is written and the managed fields, project
	// included, are patched in place. Nothing is deleted or recreated and
	// no sync is started. An application another resource's label names is
	// never taken over, nor one in another namespace's project, nor (through
	// a ClusterProviderConfig) one deploying where the namespace may not.
	// Default false: such an application is refused in Synced and left
	// untouched.
	// +optional
	AdoptExisting bool `json:"adoptExisting,omitempty"`
}

// ArgoApplicationObservation is the small part of Application status a user
// acts on.
type ArgoApplicationObservation struct {
	// URL of the application in the Argo CD UI.
	URL string `json:"url,omitempty"`
	// SyncStatus: Synced, OutOfSync or Unknown.
	SyncStatus string `json:"syncStatus,omitempty"`
	// Revision the application is synced to.
	Revision string `json:"revision,omitempty"`
	// HealthStatus: Healthy, Progressing, Degraded, Suspended, Missing, Unknown.
	HealthStatus string `json:"healthStatus,omitempty"`
	// HealthMessage explains a non-healthy status.
	HealthMessage string `json:"healthMessage,omitempty"`
	// OperationPhase of the last sync: Running, Succeeded, Failed, Error, Terminating.
	OperationPhase string `json:"operationPhase,omitempty"`
	// OperationMessage of the last sync.
	OperationMessage string `json:"operationMessage,omitempty"`
}

// An ArgoApplicationSpec defines the desired state of an ArgoApplication.
type ArgoApplicationSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	ForProvider              ArgoApplicationParameters `json:"forProvider"`
}

// An ArgoApplicationStatus represents the observed state of an ArgoApplication.
type ArgoApplicationStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 ArgoApplicationObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// An ArgoApplication is an Argo CD Application managed through the Argo CD
// API. Its external name is the application name.
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXTERNAL-NAME",type="string",JSONPath=".metadata.annotations.crossplane\\.io/external-name"
// +kubebuilder:printcolumn:name="SYNC",type="string",JSONPath=".status.atProvider.syncStatus"
// +kubebuilder:printcolumn:name="HEALTH",type="string",JSONPath=".status.atProvider.healthStatus"
// +kubebuilder:printcolumn:name="REPO",type="string",JSONPath=".spec.forProvider.source.repoURL",priority=1
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,devops}
type ArgoApplication struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ArgoApplicationSpec   `json:"spec"`
	Status ArgoApplicationStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ArgoApplicationList contains a list of ArgoApplication.
type ArgoApplicationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ArgoApplication `json:"items"`
}

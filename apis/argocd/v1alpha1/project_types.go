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

// ProjectDestination is a cluster and namespace an AppProject's
// applications may deploy to: exactly one of server or name. The namespace
// may be a glob (Argo CD matches it), e.g. "shop-*".
// +kubebuilder:validation:XValidation:rule="has(self.server) != has(self.name)",message="set exactly one of server or name"
type ProjectDestination struct {
	// Server is the cluster's API URL, e.g. https://kubernetes.default.svc.
	// +kubebuilder:validation:Pattern=`^https?://[^\s/?#]+([/?#][^\s]*)?$`
	// +kubebuilder:validation:MaxLength=2048
	// +optional
	Server string `json:"server,omitempty"`
	// Name of the cluster as registered in Argo CD.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Name string `json:"name,omitempty"`
	// Namespace, or a glob of namespaces.
	// +kubebuilder:validation:Pattern=`^[a-z0-9*?]([-a-z0-9*?]*[a-z0-9*?])?$`
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace"`
}

// ProjectGroupKind names a kind of Kubernetes resource; "" is the core
// group, "*" any.
type ProjectGroupKind struct {
	// Group of the kind, e.g. networking.k8s.io; "" for the core group.
	// +kubebuilder:validation:Pattern=`^(\*|[a-z0-9.-]*)$`
	// +kubebuilder:validation:MaxLength=253
	Group string `json:"group"`
	// Kind, e.g. Namespace.
	// +kubebuilder:validation:Pattern=`^(\*|[A-Za-z][A-Za-z0-9]*)$`
	// +kubebuilder:validation:MaxLength=63
	Kind string `json:"kind"`
}

// ProjectRole is a role of the AppProject: its policies and the SSO groups
// bound to it. Argo CD accepts only policies on the project's own
// applications ("p, proj:<project>:<role>, applications, <action>,
// <project>/<app>, allow|deny"). Tokens issued for the role through Argo CD
// are kept.
type ProjectRole struct {
	// Name of the role.
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9]([-_a-zA-Z0-9]*[a-zA-Z0-9])?$`
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
	// Description of the role.
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Description string `json:"description,omitempty"`
	// Policies in Casbin CSV form.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=512
	// +listType=atomic
	// +optional
	Policies []string `json:"policies,omitempty"`
	// Groups (SSO claims) bound to the role.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=253
	// +listType=set
	// +optional
	Groups []string `json:"groups,omitempty"`
}

// ArgoProjectParameters are the AppProject fields this resource manages.
type ArgoProjectParameters struct {
	// Description of the project.
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Description string `json:"description,omitempty"`

	// SourceRepos are the repository URLs (globs allowed) the project's
	// applications may deploy from.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=2048
	// +listType=set
	SourceRepos []string `json:"sourceRepos"`

	// Destinations the project's applications may deploy to.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +listType=atomic
	Destinations []ProjectDestination `json:"destinations"`

	// ClusterResourceWhitelist are the cluster-scoped kinds the project's
	// applications may create. Empty: none (Namespaces neither: use
	// CreateNamespace only where a kind {"", Namespace} is listed).
	// +kubebuilder:validation:MaxItems=64
	// +listType=atomic
	// +optional
	ClusterResourceWhitelist []ProjectGroupKind `json:"clusterResourceWhitelist,omitempty"`

	// NamespaceResourceBlacklist are namespaced kinds the project's
	// applications may not create, e.g. ResourceQuota.
	// +kubebuilder:validation:MaxItems=64
	// +listType=atomic
	// +optional
	NamespaceResourceBlacklist []ProjectGroupKind `json:"namespaceResourceBlacklist,omitempty"`

	// SourceNamespaces are the namespaces (globs) outside Argo CD's own in
	// which Applications of this project may live (apps in any namespace).
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=63
	// +listType=set
	// +optional
	SourceNamespaces []string `json:"sourceNamespaces,omitempty"`

	// Roles of the project.
	// +kubebuilder:validation:MaxItems=32
	// +listType=map
	// +listMapKey=name
	// +optional
	Roles []ProjectRole `json:"roles,omitempty"`
}

// ArgoProjectObservation is what Argo CD reports of the project.
type ArgoProjectObservation struct {
	// URL of the project in the Argo CD UI.
	URL string `json:"url,omitempty"`
	// RevokedRoleTokens counts the role tokens revoked when this resource
	// took over a project it did not create: whoever made the project
	// may have issued them. Issue new ones with the Argo CD CLI.
	RevokedRoleTokens int `json:"revokedRoleTokens,omitempty"`
}

// An ArgoProjectSpec defines the desired state of an ArgoProject.
type ArgoProjectSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	ForProvider              ArgoProjectParameters `json:"forProvider"`
}

// An ArgoProjectStatus represents the observed state of an ArgoProject.
type ArgoProjectStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 ArgoProjectObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// An ArgoProject is an Argo CD AppProject managed through the Argo CD API:
// the repositories, destinations and kinds its applications may use. Its
// external name is the project name.
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXTERNAL-NAME",type="string",JSONPath=".metadata.annotations.crossplane\\.io/external-name"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,devops}
type ArgoProject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ArgoProjectSpec   `json:"spec"`
	Status ArgoProjectStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ArgoProjectList contains a list of ArgoProject.
type ArgoProjectList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ArgoProject `json:"items"`
}

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

// RepositoryType is the kind of repository Argo CD reads.
// +kubebuilder:validation:Enum=git;helm
type RepositoryType string

// Repository types.
const (
	RepositoryGit  RepositoryType = "git"
	RepositoryHelm RepositoryType = "helm"
)

// Keys of an ArgoRepository's credentials Secret, the names Argo CD uses in
// its own repository Secrets.
const (
	RepositoryKeyUsername      = "username"
	RepositoryKeyPassword      = "password"
	RepositoryKeySSHPrivateKey = "sshPrivateKey"
)

// RepositorySecretReference names a Secret in the resource's own namespace.
type RepositorySecretReference struct {
	// Name of the Secret.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// ArgoRepositoryParameters are the Argo CD repository fields this resource
// manages.
// +kubebuilder:validation:XValidation:rule="!has(self.type) || self.type != 'helm' || self.url.startsWith('https://')",message="a helm repository URL must be https://",fieldPath=".url"
type ArgoRepositoryParameters struct {
	// URL of the repository: https://… (user and password) or ssh://… and
	// user@host:path (SSH key); a helm repository is https only. Immutable.
	// The host part holds no percent escape and at most one @: git
	// decodes a URL before it dials, so an escaped / or @ would name
	// another host than the one every check here reads.
	// +kubebuilder:validation:Pattern=`^(https://[^\s/?#@%]+/[^\s]*|ssh://([^\s/?#@%]+@)?[^\s/?#@%]+/[^\s]+|[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s]+)$`
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="url is immutable: create another ArgoRepository"
	URL string `json:"url"`

	// Type of the repository.
	// +kubebuilder:default=git
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="type is immutable"
	// +optional
	Type RepositoryType `json:"type,omitempty"`

	// Project is the Argo CD AppProject the repository and its credentials
	// belong to: only that project's applications use them (a project-scoped
	// repository), so one team's credentials never serve another team's
	// applications. Immutable.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="project is immutable: create another ArgoRepository"
	Project string `json:"project"`

	// Insecure skips verification of the server's TLS certificate or SSH
	// host key.
	// +optional
	Insecure bool `json:"insecure,omitempty"`

	// EnableLFS fetches Git LFS objects.
	// +optional
	EnableLFS bool `json:"enableLfs,omitempty"`

	// CredentialsSecretRef is a Secret in this resource's namespace with the
	// keys username and password (https) or sshPrivateKey (ssh). It must
	// carry the label devops.freeleaps.io/git-repository: "true", its
	// owner's consent to Argo CD sending it to this URL; without it nothing
	// is sent. Unset: a public repository. A change of the Secret is
	// written to Argo CD at the next poll.
	// +optional
	CredentialsSecretRef *RepositorySecretReference `json:"credentialsSecretRef,omitempty"`
}

// ArgoRepositoryObservation is what Argo CD reports of the repository.
type ArgoRepositoryObservation struct {
	// ConnectionStatus is Argo CD's last connection test: Successful or
	// Failed (Argo CD caches it for a while).
	ConnectionStatus string `json:"connectionStatus,omitempty"`
	// ConnectionMessage says why the connection failed.
	ConnectionMessage string `json:"connectionMessage,omitempty"`
	// CredentialsVersion identifies the credentials Secret (uid and
	// resourceVersion, never its content) last written to Argo CD, which
	// does not return credentials: when the Secret changes, they are
	// written again.
	CredentialsVersion string `json:"credentialsVersion,omitempty"`
	// WrittenAt is when the provider last wrote the repository. A failed
	// connection test Argo CD made before then is stale (Argo CD caches
	// it): the provider has it test again once.
	WrittenAt *metav1.Time `json:"writtenAt,omitempty"`
}

// An ArgoRepositorySpec defines the desired state of an ArgoRepository.
type ArgoRepositorySpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	ForProvider              ArgoRepositoryParameters `json:"forProvider"`
}

// An ArgoRepositoryStatus represents the observed state of an ArgoRepository.
type ArgoRepositoryStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 ArgoRepositoryObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// An ArgoRepository is a repository Argo CD reads, with its credentials,
// registered for one AppProject through the Argo CD API. Its external name
// is the repository URL.
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXTERNAL-NAME",type="string",JSONPath=".metadata.annotations.crossplane\\.io/external-name"
// +kubebuilder:printcolumn:name="PROJECT",type="string",JSONPath=".spec.forProvider.project"
// +kubebuilder:printcolumn:name="CONNECTION",type="string",JSONPath=".status.atProvider.connectionStatus"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,devops}
type ArgoRepository struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ArgoRepositorySpec   `json:"spec"`
	Status ArgoRepositoryStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ArgoRepositoryList contains a list of ArgoRepository.
type ArgoRepositoryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ArgoRepository `json:"items"`
}

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

// Visibility of a repository.
// +kubebuilder:validation:Enum=public;private
type Visibility string

// Visibilities.
const (
	VisibilityPublic  Visibility = "public"
	VisibilityPrivate Visibility = "private"
)

// HarborOptions apply only to Harbor registries.
type HarborOptions struct {
	// CreateProject creates the Harbor project (the namespace) when
	// missing, private. Through a ClusterProviderConfig only a project its
	// spec.registry.tenancy.repositories name exactly (no glob in the
	// project segment, as in the default {namespace}/*) is created: ask the
	// platform team for any other.
	// +optional
	CreateProject bool `json:"createProject,omitempty"`
	// StorageQuotaBytes of a project this resource creates; -1 is unlimited.
	// Refused through a ClusterProviderConfig: a project made with the
	// platform's account gets the quota Harbor gives it.
	// +kubebuilder:validation:Minimum=-1
	// +optional
	StorageQuotaBytes *int64 `json:"storageQuotaBytes,omitempty"`
	// ImmutableTags forbids overwriting pushed tags (a project-wide rule).
	// +optional
	ImmutableTags bool `json:"immutableTags,omitempty"`
}

// RegistryRepoParameters describe one image repository.
type RegistryRepoParameters struct {
	// Namespace (Docker Hub organisation or user, Harbor project, OCI path
	// prefix) the repository lives in.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]+([._-][a-z0-9]+)*$`
	// +kubebuilder:validation:MaxLength=255
	Namespace string `json:"namespace"`

	// Name of the repository inside the namespace; lower case, may contain
	// "/" (not on Docker Hub).
	// +kubebuilder:validation:Pattern=`^[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*(/[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*)*$`
	// +kubebuilder:validation:MaxLength=255
	Name string `json:"name"`

	// Visibility of the repository. On Harbor visibility is the project's:
	// it is set only on a project this resource creates through a
	// namespaced ProviderConfig (one created through a
	// ClusterProviderConfig stays private, for the platform team to
	// change), and any other project's is left as it is
	// (status.atProvider.visibility shows it).
	// +kubebuilder:default=private
	// +optional
	Visibility Visibility `json:"visibility,omitempty"`

	// Description of the repository (Docker Hub short description).
	// +kubebuilder:validation:MaxLength=100
	// +optional
	Description string `json:"description,omitempty"`

	// Harbor options.
	// +optional
	Harbor *HarborOptions `json:"harbor,omitempty"`

	// DeleteImages lets deleting this resource delete a repository that
	// holds images, and the images. Default false: such a repository is
	// kept and the deletion waits, saying how many tags it holds, until
	// this is set or the management policies drop Delete (which orphans
	// the repository). On Docker Hub, which does not report tags in one
	// read, every repository counts as holding images.
	// +optional
	DeleteImages bool `json:"deleteImages,omitempty"`

	// AdoptExisting lets this resource take over a repository that exists
	// and that no RegistryRepo owns (a Docker Hub repository made by hand,
	// a Harbor repository pushed before this resource was created). Default
	// false: such a repository is refused in Synced and left untouched.
	// The owner is recorded on the repository (Docker Hub: a comment line
	// in its README; Harbor: in its description); a repository another
	// RegistryRepo owns is never taken over. An OCI registry keeps no such
	// text: there a repository that already holds images when this
	// resource first observes it counts as one no RegistryRepo owns, and
	// one first observed empty is claimed (status.atProvider.fullName).
	// +optional
	AdoptExisting bool `json:"adoptExisting,omitempty"`
}

// RegistryRepoObservation is what the registry reports.
type RegistryRepoObservation struct {
	// URL to pull from, e.g. registry.example.com/team/app.
	URL string `json:"url,omitempty"`
	// FullName is namespace/name. On an OCI registry, which records no
	// owner, it is recorded only for a repository this resource claimed
	// (first observed empty, or adopted): until then one holding images
	// is not this resource's.
	FullName string `json:"fullName,omitempty"`
	// TagCount of the repository (Harbor: artifacts); absent where the
	// registry does not tell in one read (Docker Hub).
	TagCount *int64 `json:"tagCount,omitempty"`
	// LastPushed is when an image was last pushed, where the API says.
	LastPushed *metav1.Time `json:"lastPushed,omitempty"`
	// CreatedProject is true when this resource created its Harbor project.
	// Only then does it manage the project's visibility, which is shared by
	// every repository in the project.
	CreatedProject bool `json:"createdProject,omitempty"`
	// Visibility of the Harbor project, which this resource manages only
	// when it created the project.
	Visibility Visibility `json:"visibility,omitempty"`
}

// A RegistryRepoSpec defines the desired state of a RegistryRepo.
type RegistryRepoSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	ForProvider              RegistryRepoParameters `json:"forProvider"`
}

// A RegistryRepoStatus represents the observed state of a RegistryRepo.
type RegistryRepoStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 RegistryRepoObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// A RegistryRepo is a container image repository on Docker Hub, Harbor or an
// OCI distribution registry. Its external name is "namespace/name".
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXTERNAL-NAME",type="string",JSONPath=".metadata.annotations.crossplane\\.io/external-name"
// +kubebuilder:printcolumn:name="URL",type="string",JSONPath=".status.atProvider.url"
// +kubebuilder:printcolumn:name="TAGS",type="integer",JSONPath=".status.atProvider.tagCount",priority=1
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,path=registryrepos,singular=registryrepo,categories={crossplane,managed,devops}
type RegistryRepo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RegistryRepoSpec   `json:"spec"`
	Status RegistryRepoStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// RegistryRepoList contains a list of RegistryRepo.
type RegistryRepoList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []RegistryRepo `json:"items"`
}

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

// ReportState is the state of a commit status.
// +kubebuilder:validation:Enum=pending;success;failure;error
type ReportState string

// Report states, as forges name them.
const (
	ReportPending ReportState = "pending"
	ReportSuccess ReportState = "success"
	ReportFailure ReportState = "failure"
	ReportError   ReportState = "error"
)

// PullRequestSelector says which open pull requests are listed.
type PullRequestSelector struct {
	// Labels a pull request must all carry to be listed. Empty: every
	// open pull request.
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=255
	// +listType=set
	// +optional
	Labels []string `json:"labels,omitempty"`

	// ForkAuthors are the forge logins whose pull requests from forks
	// are listed: the author and the fork's owner must both be named
	// (whoever may push to the fork writes the code). Empty, the default:
	// no pull request from a fork is (a preview builds its author's code
	// with the project's credentials).
	// Through a ClusterProviderConfig the platform must allow forks too
	// (spec.forge.tenancy.allowForks).
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:Pattern=`^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$`
	// +listType=set
	// +optional
	ForkAuthors []string `json:"forkAuthors,omitempty"`

	// Max is how many pull requests are listed, the oldest first; the
	// others are counted in status.atProvider.skipped.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=50
	// +kubebuilder:default=5
	// +optional
	Max *int32 `json:"max,omitempty"`
}

// PullRequestReport is what to post on one pull request: a commit status
// on its head and, when Comment is set, one comment kept up to date.
type PullRequestReport struct {
	// Number of the pull request.
	// +kubebuilder:validation:Minimum=1
	Number int64 `json:"number"`

	// SHA of the commit the status is for (the pull request's head).
	// +kubebuilder:validation:Pattern=`^([0-9a-f]{40}|[0-9a-f]{64})$`
	SHA string `json:"sha"`

	// State of the commit status.
	State ReportState `json:"state"`

	// TargetURL the status links to (the preview, or the build).
	// +kubebuilder:validation:Pattern=`^https?://[^\s]+$`
	// +kubebuilder:validation:MaxLength=2048
	// +optional
	TargetURL string `json:"targetURL,omitempty"`

	// Description of the status, one line.
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Description string `json:"description,omitempty"`

	// Comment is the body (Markdown) of the one comment this resource
	// keeps on the pull request, edited in place whenever it changes.
	// Empty: no comment is posted.
	// +kubebuilder:validation:MaxLength=8192
	// +optional
	Comment string `json:"comment,omitempty"`
}

// ForgeRepositoryParameters name the repository and what to watch and post.
type ForgeRepositoryParameters struct {
	// Repository on the forge, as <owner>/<name>.
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}/[A-Za-z0-9_.-]{1,100}$`
	// +kubebuilder:validation:XValidation:rule="!self.endsWith('.git') && !self.contains('/.') && !self.contains('..')",message="repository is <owner>/<name>, without .git"
	Repository string `json:"repository"`

	// PullRequests says which open pull requests status.atProvider lists.
	// +kubebuilder:default={}
	// +optional
	PullRequests PullRequestSelector `json:"pullRequests,omitempty"`

	// StatusContext names the commit statuses this resource posts; a
	// forge keeps one status per context and commit.
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9][A-Za-z0-9 _./:-]{0,99}$`
	// +kubebuilder:default=devops/preview
	// +optional
	StatusContext string `json:"statusContext,omitempty"`

	// Reports to post, one per pull request. A report for a pull request
	// that is no longer open is not posted.
	// +kubebuilder:validation:MaxItems=50
	// +listType=map
	// +listMapKey=number
	// +optional
	Reports []PullRequestReport `json:"reports,omitempty"`
}

// PullRequest is an open pull request the selector lists.
type PullRequest struct {
	Number int64 `json:"number"`
	// Title, at most 256 characters of it.
	Title string `json:"title,omitempty"`
	// Author is the login of who opened it.
	Author string `json:"author,omitempty"`
	// URL of the pull request's page.
	URL string `json:"url,omitempty"`
	// HeadRef is the branch it proposes; HeadSHA its head commit.
	HeadRef string `json:"headRef,omitempty"`
	HeadSHA string `json:"headSHA"`
	// BaseRef is the branch it would merge into.
	BaseRef string `json:"baseRef,omitempty"`
	// Fork is true when its head is in another repository; HeadRef is
	// then that repository's branch, which this one serves as
	// refs/pull/<number>/head.
	Fork bool `json:"fork,omitempty"`
}

// SkippedPullRequest is an open pull request carrying the labels that is
// not listed, and why.
type SkippedPullRequest struct {
	Number int64 `json:"number"`
	// Reason: Max (more than spec.forProvider.pullRequests.max are
	// open) or Fork (its author is not in forkAuthors, or forks are not
	// allowed).
	Reason string `json:"reason"`
}

// Reasons a pull request is skipped.
const (
	SkippedMax  = "Max"
	SkippedFork = "Fork"
)

// Reported is what was last posted on a pull request.
type Reported struct {
	Number int64 `json:"number"`
	// Digest of the report as posted: a changed report is posted again.
	Digest string `json:"digest"`
	// CommentID is the id of the comment this resource keeps there.
	// +optional
	CommentID int64 `json:"commentID,omitempty"`
	// At is when it was posted.
	// +optional
	At *metav1.Time `json:"at,omitempty"`
}

// ForgeRepositoryObservation is what the forge reports.
type ForgeRepositoryObservation struct {
	// PullRequests listed: open, carrying the labels, not from a fork
	// unless its author is allowed, at most max, oldest first.
	// +listType=map
	// +listMapKey=number
	// +optional
	PullRequests []PullRequest `json:"pullRequests,omitempty"`
	// Skipped are the open pull requests carrying the labels that are
	// not listed.
	// +listType=map
	// +listMapKey=number
	// +optional
	Skipped []SkippedPullRequest `json:"skipped,omitempty"`
	// Reported is what was last posted on each pull request.
	// +listType=map
	// +listMapKey=number
	// +optional
	Reported []Reported `json:"reported,omitempty"`
	// ObservedAt is when the pull requests were last listed.
	// +optional
	ObservedAt *metav1.Time `json:"observedAt,omitempty"`
}

// A ForgeRepositorySpec defines the desired state of a ForgeRepository.
type ForgeRepositorySpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	ForProvider              ForgeRepositoryParameters `json:"forProvider"`
}

// A ForgeRepositoryStatus represents the observed state of a ForgeRepository.
type ForgeRepositoryStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 ForgeRepositoryObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// A ForgeRepository watches a repository's open pull requests on a git
// forge (Gitea, Forgejo) and posts commit statuses and one comment per
// pull request. It creates and deletes nothing on the forge: deleting it
// leaves the repository, its statuses and its comments as they are. Its
// external name is "<owner>/<name>".
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="REPOSITORY",type="string",JSONPath=".spec.forProvider.repository"
// +kubebuilder:printcolumn:name="PULL-REQUESTS",type="string",JSONPath=".status.atProvider.pullRequests[*].number"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,path=forgerepositories,singular=forgerepository,categories={crossplane,managed,devops}
type ForgeRepository struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ForgeRepositorySpec   `json:"spec"`
	Status ForgeRepositoryStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ForgeRepositoryList contains a list of ForgeRepository.
type ForgeRepositoryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ForgeRepository `json:"items"`
}

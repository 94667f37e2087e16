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
	"reflect"
	"regexp"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// DeployPhase is where a deployment is.
// +kubebuilder:validation:Enum=Pending;Building;Deploying;Verifying;Succeeded;Failed
type DeployPhase string

// Phases of a deployment, in order; Succeeded and Failed are final.
const (
	DeployPending   DeployPhase = "Pending"
	DeployBuilding  DeployPhase = "Building"
	DeployDeploying DeployPhase = "Deploying"
	DeployVerifying DeployPhase = "Verifying"
	DeploySucceeded DeployPhase = "Succeeded"
	DeployFailed    DeployPhase = "Failed"
)

// Final is true for Succeeded and Failed.
func (p DeployPhase) Final() bool { return p == DeploySucceeded || p == DeployFailed }

// DeployTimeouts bound each phase. A phase that takes longer fails the
// deployment, naming the phase.
type DeployTimeouts struct {
	// Pending bounds the wait for an earlier deployment of the same
	// environment to finish.
	// +kubebuilder:default="1h"
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s') && duration(self) <= duration('24h')",message="a timeout is between 1s and 24h"
	// +optional
	Pending *metav1.Duration `json:"pending,omitempty"`
	// Build bounds the Jenkins build, from the request to its result.
	// +kubebuilder:default="30m"
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s') && duration(self) <= duration('24h')",message="a timeout is between 1s and 24h"
	// +optional
	Build *metav1.Duration `json:"build,omitempty"`
	// Deploy bounds the Argo CD sync operation.
	// +kubebuilder:default="10m"
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s') && duration(self) <= duration('24h')",message="a timeout is between 1s and 24h"
	// +optional
	Deploy *metav1.Duration `json:"deploy,omitempty"`
	// Verify bounds the wait for the application to be Synced at the
	// deployed revision and Healthy.
	// +kubebuilder:default="10m"
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s') && duration(self) <= duration('24h')",message="a timeout is between 1s and 24h"
	// +optional
	Verify *metav1.Duration `json:"verify,omitempty"`
}

// DeployRunSpec is what to deploy where. Only the timeouts can change: a
// new deployment is a new DeployRun.
// +kubebuilder:validation:XValidation:rule="self.project == oldSelf.project && self.environment == oldSelf.environment && (has(self.revision) ? has(oldSelf.revision) && self.revision == oldSelf.revision : !has(oldSelf.revision)) && (has(self.parameters) ? has(oldSelf.parameters) && self.parameters == oldSelf.parameters : !has(oldSelf.parameters)) && (has(self.requestedBy) ? has(oldSelf.requestedBy) && self.requestedBy == oldSelf.requestedBy : !has(oldSelf.requestedBy)) && (has(self.requestID) ? has(oldSelf.requestID) && self.requestID == oldSelf.requestID : !has(oldSelf.requestID))",message="what a DeployRun deploys cannot change (only spec.timeouts can): create a new DeployRun to deploy again"
type DeployRunSpec struct {
	// Project is the DevOpsProject's name, in this namespace.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=63
	Project string `json:"project"`

	// Environment of the project to deploy.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=63
	Environment string `json:"environment"`

	// Revision to build: a git branch or tag name (main, release/1.2,
	// refs/tags/v1.2) or commit id. It is passed to the build as its
	// REVISION parameter, which the pipeline then declares. Empty builds
	// the pipeline's default.
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_][A-Za-z0-9._/-]*$`
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="!self.contains('..') && !self.contains('//') && !self.endsWith('/') && !self.endsWith('.') && !self.endsWith('.lock') && !self.contains('/.') && !self.contains('.lock/')",message="revision must be a git ref name (as git check-ref-format allows) or a commit id"
	// +optional
	Revision string `json:"revision,omitempty"`

	// Parameters of the build, each declared by the pipeline.
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="!('REVISION' in self)",message="set spec.revision, not parameters.REVISION"
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 128 && size(self[k]) <= 1024)",message="parameter names are at most 128 characters and values at most 1024"
	// +optional
	Parameters map[string]string `json:"parameters,omitempty"`

	// Timeouts of the phases.
	// +kubebuilder:default={}
	// +optional
	Timeouts DeployTimeouts `json:"timeouts,omitempty"`

	// RequestedBy is who asked for the deployment. The provider sets it
	// for deploy requests from the broker ("amqp:<user>", the user
	// RabbitMQ authenticated). On a DeployRun created with kubectl it is
	// what the creator wrote: see docs/deployments.md for the admission
	// policy that makes it the authenticated Kubernetes user.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	RequestedBy string `json:"requestedBy,omitempty"`

	// RequestID is the id of the request this deployment answers: the
	// broker request's id, else <namespace>/<message id>, or any id a
	// client chooses. It is the deployment id of events (with the
	// DeployRun's name when empty).
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9._:/-]+$`
	// +kubebuilder:validation:MaxLength=253
	// +optional
	RequestID string `json:"requestID,omitempty"`
}

// DeployBuild is the Jenkins build of a deployment.
type DeployBuild struct {
	// Request is the buildRequest set on the environment's JenkinsPipeline.
	Request string `json:"request,omitempty"`
	// Pipeline is the JenkinsPipeline's name.
	Pipeline string `json:"pipeline,omitempty"`
	// Job is the Jenkins job's full path when the build was asked for:
	// a pipeline pointed at another job meanwhile fails the deployment
	// rather than follow another job's build of the same number.
	// +optional
	Job string `json:"job,omitempty"`
	// AfterBuild is the job's last build number when the build was asked
	// for: the deployment's build is a later one.
	// +optional
	AfterBuild int64 `json:"afterBuild,omitempty"`
	// QueueItem is Jenkins' queue item id of the build.
	// +optional
	QueueItem int64 `json:"queueItem,omitempty"`
	// Number of the build, once it started.
	// +optional
	Number int64 `json:"number,omitempty"`
	// URL of the build.
	// +optional
	URL string `json:"url,omitempty"`
	// Result of the build: SUCCESS, FAILURE, UNSTABLE, ABORTED.
	// +optional
	Result string `json:"result,omitempty"`
	// Revision the build reported it produced (a line "revision=<ref>" in
	// its description); empty when it reported none.
	// +optional
	Revision string `json:"revision,omitempty"`
	// StartedAt is when Jenkins started the build (its timestamp); with
	// the deployment's startedAt it says how long the build was queued.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// FinishedAt is when the build ended, by Jenkins' own duration.
	// +optional
	FinishedAt *metav1.Time `json:"finishedAt,omitempty"`
}

// DeploySync is the Argo CD sync of a deployment.
type DeploySync struct {
	// Application is the ArgoApplication's name.
	Application string `json:"application,omitempty"`
	// ExternalName is the Argo CD application's name when the sync was
	// first asked for.
	// +optional
	ExternalName string `json:"externalName,omitempty"`
	// Revision asked of Argo CD: the build's revision, else spec.revision;
	// empty means the application's target revision.
	// +optional
	Revision string `json:"revision,omitempty"`
	// StartedAt is when the sync was asked for.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// Attempt is the number of the sync asked for: an operation Argo CD
	// could not run (phase Error: a repository it could not fetch, for
	// one) is asked for again, up to 3 times. Empty: the first.
	// +optional
	Attempt int32 `json:"attempt,omitempty"`
	// Phase of the sync operation (Running, Succeeded, Failed, Error).
	// +optional
	Phase string `json:"phase,omitempty"`
	// SyncedRevision is the commit Argo CD synced.
	// +optional
	SyncedRevision string `json:"syncedRevision,omitempty"`
	// Health of the application at the last look.
	// +optional
	Health string `json:"health,omitempty"`
	// OperationStartedAt and OperationFinishedAt are when Argo CD started
	// and ended the sync operation, as Argo CD reports them: what lies
	// between startedAt and OperationStartedAt, and after
	// OperationFinishedAt, is the deployment's own time.
	// +optional
	OperationStartedAt *metav1.Time `json:"operationStartedAt,omitempty"`
	// +optional
	OperationFinishedAt *metav1.Time `json:"operationFinishedAt,omitempty"`
}

// DeployTransition is one phase change.
type DeployTransition struct {
	Phase DeployPhase `json:"phase"`
	At    metav1.Time `json:"at"`
	// +optional
	Message string `json:"message,omitempty"`
}

// DeployRunStatus is how the deployment goes.
type DeployRunStatus struct {
	// Phase the deployment is in.
	// +optional
	Phase DeployPhase `json:"phase,omitempty"`
	// FailedPhase is the phase a failed deployment failed in.
	// +optional
	FailedPhase DeployPhase `json:"failedPhase,omitempty"`
	// Message says what happens now or, for a failure, what to fix.
	// +optional
	Message string `json:"message,omitempty"`
	// StartedAt is when the deployment left Pending.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// FinishedAt is when it reached Succeeded or Failed.
	// +optional
	FinishedAt *metav1.Time `json:"finishedAt,omitempty"`
	// Build is the Jenkins build.
	// +optional
	Build *DeployBuild `json:"build,omitempty"`
	// Sync is the Argo CD sync.
	// +optional
	Sync *DeploySync `json:"sync,omitempty"`
	// URL the environment is live at, once Succeeded.
	// +optional
	URL string `json:"url,omitempty"`
	// PhaseStartedAt is when the current phase began, to the microsecond
	// (the timeline keeps seconds): a phase's trace span starts there,
	// whichever replica ends it.
	// +optional
	PhaseStartedAt *metav1.MicroTime `json:"phaseStartedAt,omitempty"`
	// TraceID is the id of the deployment's trace, when the provider
	// exports traces (OTEL_EXPORTER_OTLP_ENDPOINT): the deploy request's
	// trace when it carried a traceparent.
	// +optional
	TraceID string `json:"traceID,omitempty"`
	// Timeline of the phases, oldest first.
	// +kubebuilder:validation:MaxItems=16
	// +listType=atomic
	// +optional
	Timeline []DeployTransition `json:"timeline,omitempty"`
}

// +kubebuilder:object:root=true

// A DeployRun is one deployment of one environment of a DevOpsProject: a
// Jenkins build of a revision, an Argo CD sync to what it built, and a
// check that the application is Synced and Healthy. Create one (or send a
// DevOpsReconcile message) to deploy; the last deployments of each
// environment are kept as its history.
// +kubebuilder:printcolumn:name="PROJECT",type="string",JSONPath=".spec.project"
// +kubebuilder:printcolumn:name="ENVIRONMENT",type="string",JSONPath=".spec.environment"
// +kubebuilder:printcolumn:name="REVISION",type="string",JSONPath=".spec.revision"
// +kubebuilder:printcolumn:name="PHASE",type="string",JSONPath=".status.phase"
// +kubebuilder:printcolumn:name="BUILD",type="integer",JSONPath=".status.build.number"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.sync.syncedRevision",priority=1
// +kubebuilder:printcolumn:name="URL",type="string",JSONPath=".status.url"
// +kubebuilder:printcolumn:name="MESSAGE",type="string",JSONPath=".status.message",priority=1
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={devops},shortName=dr
type DeployRun struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DeployRunSpec   `json:"spec"`
	Status DeployRunStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// DeployRunList contains a list of DeployRun.
type DeployRunList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DeployRun `json:"items"`
}

// DeployRun type metadata.
var (
	DeployRunKind             = reflect.TypeOf(DeployRun{}).Name()
	DeployRunGroupKind        = schema.GroupKind{Group: Group, Kind: DeployRunKind}.String()
	DeployRunGroupVersionKind = SchemeGroupVersion.WithKind(DeployRunKind)
)

func init() {
	SchemeBuilder.Register(&DeployRun{}, &DeployRunList{})
}

// refChars are the characters a revision may hold: enough for branch and
// tag names and commit ids, and nothing a shell, Groovy string or URL gives
// a meaning to.
var refChars = regexp.MustCompile(`^[A-Za-z0-9._/-]{1,255}$`)

// IsRevision is true for a git ref name that git check-ref-format accepts
// (restricted to refChars) or a commit id: what spec.revision's schema
// allows.
func IsRevision(r string) bool {
	if !refChars.MatchString(r) || strings.HasPrefix(r, "-") || strings.HasSuffix(r, "/") ||
		strings.HasSuffix(r, ".") || strings.Contains(r, "..") || strings.Contains(r, "//") {
		return false
	}
	for _, c := range strings.Split(r, "/") {
		if strings.HasPrefix(c, ".") || strings.HasSuffix(c, ".lock") {
			return false
		}
	}
	return true
}

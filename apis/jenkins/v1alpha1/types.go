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
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// SCMSource builds the pipeline from a Jenkinsfile in a Git repository
// (Jenkins' CpsScmFlowDefinition with GitSCM).
type SCMSource struct {
	// URL of the Git repository (https, ssh:// or scp-like git@host:path),
	// without a password: it is written into the job in clear, and Jenkins
	// logs it; the credential belongs in credentialsId.
	// +kubebuilder:validation:Pattern=`^(https?://[^\s/?#@]+/[^\s]+|ssh://([^\s/?#@:]+@)?[^\s/?#@]+/[^\s]+|[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s]+)$`
	// +kubebuilder:validation:MaxLength=2048
	URL string `json:"url"`

	// Branch to build.
	// +kubebuilder:default=main
	// +kubebuilder:validation:Pattern=`^[^\s~^:?*\[\\]+$`
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Branch string `json:"branch,omitempty"`

	// ScriptPath is the Jenkinsfile's path inside the repository.
	// +kubebuilder:default=Jenkinsfile
	// +kubebuilder:validation:Pattern=`^[^/\s][^\s]*$`
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="!self.split('/').exists(s, s == '..')",message="scriptPath must stay inside the repository (no '..' segments)"
	// +optional
	ScriptPath string `json:"scriptPath,omitempty"`

	// CredentialsID is the id of a Jenkins credential used to check out the
	// repository. Jenkins holds the secret; this is only its id.
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_.@-]+$`
	// +kubebuilder:validation:MaxLength=255
	// +optional
	CredentialsID string `json:"credentialsId,omitempty"`

	// Lightweight checkout reads only the Jenkinsfile instead of cloning.
	// +kubebuilder:default=true
	// +optional
	Lightweight *bool `json:"lightweight,omitempty"`
}

// BuildFileSource is a declared build kept in a file of a Git repository,
// read by the provider (not by Jenkins) over HTTPS at every poll: the
// Kopf operator's project configuration file, read every 5 minutes.
type BuildFileSource struct {
	// URL of the Git repository, over HTTPS (smart HTTP), without
	// credentials in it. Its host must be one the platform lets tenants
	// reach (--tenant-backend-hosts, --tenant-backend-networks).
	// +kubebuilder:validation:Pattern=`^https://[^\s/?#@]+/[^\s?#]+$`
	// +kubebuilder:validation:MaxLength=2048
	URL string `json:"url"`

	// Branch the file is read from.
	// +kubebuilder:default=main
	// +kubebuilder:validation:Pattern=`^[^\s~^:?*\[\\]+$`
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Branch string `json:"branch,omitempty"`

	// Path of the file inside the repository: YAML of the shape of
	// source.build.
	// +kubebuilder:default=".devops/pipeline.yaml"
	// +kubebuilder:validation:Pattern=`^[^/\s][^\s]*$`
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="!self.split('/').exists(s, s == '..' || s == '.' || s == '')",message="path must stay inside the repository (no empty, '.' or '..' segments)"
	// +optional
	Path string `json:"path,omitempty"`

	// CredentialsSecretRef is a Secret in this resource's namespace with
	// the user name and password (or token) that read the repository.
	// None reads it anonymously. The Secret must carry the label
	// devops.freeleaps.io/git-repository: "true", its owner's consent to
	// its being sent to the repository's server.
	// +optional
	CredentialsSecretRef *CredentialSecretRef `json:"credentialsSecretRef,omitempty"`

	// Defaults fill in what the file's stages leave out, before the file
	// is validated: a DevOpsProject's build file, like its inline build,
	// checks out the project's repository and pushes to its registry
	// repository without naming them.
	// +optional
	Defaults *BuildFileDefaults `json:"defaults,omitempty"`
}

// BuildFileDefaults are what a build file's stages leave out.
type BuildFileDefaults struct {
	// Checkout fills a checkout stage without url: its url, and its
	// branch and credentialsId when the stage sets none.
	// +optional
	Checkout *CheckoutStage `json:"checkout,omitempty"`

	// Image fills an image stage's registry and repository when it sets
	// none.
	// +optional
	Image *ImageTarget `json:"image,omitempty"`
}

// ImageTarget is where an image stage pushes.
type ImageTarget struct {
	// Registry host (and port), as an image stage's.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?$`
	// +optional
	Registry string `json:"registry,omitempty"`

	// Repository inside the registry, as an image stage's.
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[a-z0-9]+([._-][a-z0-9]+)*(/[a-z0-9]+([._-][a-z0-9]+)*)*$`
	// +optional
	Repository string `json:"repository,omitempty"`
}

// PipelineSource says where the pipeline script comes from: exactly one of
// scm, script, build or buildFile.
// +kubebuilder:validation:XValidation:rule="[has(self.scm), has(self.script), has(self.build), has(self.buildFile)].filter(x, x).size() == 1",message="set exactly one of source.scm, source.script, source.build or source.buildFile"
type PipelineSource struct {
	// SCM reads the Jenkinsfile from Git.
	// +optional
	SCM *SCMSource `json:"scm,omitempty"`

	// Script is an inline pipeline script, run in the Groovy sandbox.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=262144
	// +optional
	Script *string `json:"script,omitempty"`

	// Build is a declared build; the provider writes its Declarative
	// Pipeline script and keeps it as the job's inline script.
	// +optional
	Build *PipelineBuild `json:"build,omitempty"`

	// BuildFile is a declared build read from a file in a Git repository
	// at every poll. While the file cannot be read or is not a valid
	// build, the job keeps the pipeline of the last good one.
	// +optional
	BuildFile *BuildFileSource `json:"buildFile,omitempty"`
}

// ParameterType is a Jenkins build parameter type.
// +kubebuilder:validation:Enum=string;text;boolean;choice
type ParameterType string

// Parameter types.
const (
	ParameterString  ParameterType = "string"
	ParameterText    ParameterType = "text"
	ParameterBoolean ParameterType = "boolean"
	ParameterChoice  ParameterType = "choice"
)

// Parameter is a build parameter of the job.
// +kubebuilder:validation:XValidation:rule="self.type != 'choice' || (has(self.choices) && size(self.choices) > 0)",message="a choice parameter needs choices"
// +kubebuilder:validation:XValidation:rule="self.type != 'boolean' || !has(self.default) || self.default in ['true', 'false']",message="a boolean parameter's default must be 'true' or 'false'"
type Parameter struct {
	// Name of the parameter, as the pipeline reads it (params.NAME).
	// +kubebuilder:validation:Pattern=`^[A-Za-z_][A-Za-z0-9_]*$`
	// +kubebuilder:validation:MaxLength=128
	Name string `json:"name"`

	// Type of the parameter.
	// +kubebuilder:default=string
	// +optional
	Type ParameterType `json:"type,omitempty"`

	// Default value.
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	Default *string `json:"default,omitempty"`

	// Description shown in Jenkins.
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	Description string `json:"description,omitempty"`

	// Choices of a choice parameter; the first is the default.
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +optional
	Choices []string `json:"choices,omitempty"`
}

// Triggers start builds on a schedule or after other jobs.
type Triggers struct {
	// Cron is a Jenkins cron spec (five fields, H allowed), e.g. "H 2 * * *".
	// +kubebuilder:validation:Pattern=`^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|\S+(\s+\S+){4})$`
	// +kubebuilder:validation:MaxLength=256
	// +optional
	Cron string `json:"cron,omitempty"`

	// PollSCM is a cron spec for polling the repository for changes.
	// +kubebuilder:validation:Pattern=`^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|\S+(\s+\S+){4})$`
	// +kubebuilder:validation:MaxLength=256
	// +optional
	PollSCM string `json:"pollSCM,omitempty"`

	// Upstream are jobs (full paths from the Jenkins root, below the
	// ProviderConfig's root folder) whose successful builds start one of
	// this job.
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=768
	// +kubebuilder:validation:items:Pattern=`^[A-Za-z0-9_][A-Za-z0-9_.-]*(/[A-Za-z0-9_][A-Za-z0-9_.-]*)*$`
	// +listType=set
	// +optional
	Upstream []string `json:"upstream,omitempty"`
}

// JenkinsPipelineParameters are the fields of a Jenkins Pipeline job this
// resource manages. folder and name form the job's path (its external name)
// and cannot change: Jenkins has no atomic move, so a new path means a new
// resource.
// +kubebuilder:validation:XValidation:rule="has(self.folder) == has(oldSelf.folder) && (!has(self.folder) || self.folder == oldSelf.folder) && has(self.name) == has(oldSelf.name) && (!has(self.name) || self.name == oldSelf.name)",message="folder and name are immutable: they are the job's path in Jenkins; create a new JenkinsPipeline to move a job"
// +kubebuilder:validation:XValidation:rule="!has(self.buildParameters) || self.buildParameters.all(k, has(self.parameters) && self.parameters.exists(p, p.name == k))",message="every buildParameters name must be declared in parameters"
type JenkinsPipelineParameters struct {
	// Folder path the job lives in, e.g. "team/shop". Missing folders are
	// created. Empty means the Jenkins root.
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_][A-Za-z0-9_.-]*(/[A-Za-z0-9_][A-Za-z0-9_.-]*)*$`
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="!self.contains('..')",message="folder must not contain '..'"
	// +optional
	Folder string `json:"folder,omitempty"`

	// Name of the job inside the folder. Defaults to the resource's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`
	// +optional
	Name string `json:"name,omitempty"`

	// Description of the job.
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	Description string `json:"description,omitempty"`

	// Source of the pipeline script.
	Source PipelineSource `json:"source"`

	// Parameters of the job.
	// +kubebuilder:validation:MaxItems=64
	// +listType=map
	// +listMapKey=name
	// +optional
	Parameters []Parameter `json:"parameters,omitempty"`

	// Triggers of the job.
	// +optional
	Triggers *Triggers `json:"triggers,omitempty"`

	// Disabled jobs accept no builds.
	// +optional
	Disabled bool `json:"disabled,omitempty"`

	// AdoptExisting lets this resource take over a job that already exists
	// at its path and carries no owner line (one made by hand or by the
	// Kopf operator): the owner line is added to its description and the
	// managed fields are corrected in place, so the job keeps its builds.
	// A job whose description names another JenkinsPipeline is never taken
	// over. Default false: such a job is refused in Synced and left
	// untouched.
	// +optional
	AdoptExisting bool `json:"adoptExisting,omitempty"`

	// BuildRequest is a token: whenever it changes to a new non-empty value,
	// exactly one build is queued (with the parameters' defaults). The value
	// handled last is recorded in status.atProvider.handledBuildRequest.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	BuildRequest string `json:"buildRequest,omitempty"`

	// BuildParameters are passed to the build a new buildRequest queues,
	// overriding the declared parameters' defaults. Each name must be
	// declared in parameters. Changing them alone queues nothing.
	// +kubebuilder:validation:MaxProperties=64
	// +optional
	BuildParameters map[string]string `json:"buildParameters,omitempty"`
}

// BuildObservation is what Jenkins reports of a build.
type BuildObservation struct {
	// Number of the build.
	Number int64 `json:"number,omitempty"`
	// Result: SUCCESS, FAILURE, UNSTABLE, ABORTED, or empty while running.
	Result string `json:"result,omitempty"`
	// Building is true while the build runs.
	Building bool `json:"building,omitempty"`
	// URL of the build.
	URL string `json:"url,omitempty"`
	// Timestamp the build started.
	Timestamp *metav1.Time `json:"timestamp,omitempty"`
}

// JenkinsPipelineObservation is what a user needs to act on.
type JenkinsPipelineObservation struct {
	// URL of the job.
	URL string `json:"url,omitempty"`
	// LastBuild of the job.
	LastBuild *BuildObservation `json:"lastBuild,omitempty"`
	// InQueue is true while a build waits in the queue.
	InQueue bool `json:"inQueue,omitempty"`
	// HandledBuildRequest is the last spec.forProvider.buildRequest for which
	// a build was queued.
	HandledBuildRequest string `json:"handledBuildRequest,omitempty"`
	// HandledBuildQueueItem is Jenkins' queue item id of the build queued
	// for handledBuildRequest, when Jenkins named it (0 otherwise): a
	// DeployRun follows its build through it.
	// +optional
	HandledBuildQueueItem int64 `json:"handledBuildQueueItem,omitempty"`
	// HandledBuildNumber is the number of the build for handledBuildRequest
	// when it was found after a lost answer (0 otherwise).
	// +optional
	HandledBuildNumber int64 `json:"handledBuildNumber,omitempty"`
	// UnconfirmedBuild is set while Jenkins has not confirmed queueing the
	// build for handledBuildRequest: recorded before the request is sent,
	// cleared by Jenkins's answer. Still set after a crash or a lost answer,
	// it makes the next reconcile look for the build (in the queue, or
	// among the builds after afterBuild, by parameters) before queueing it
	// again, so the request builds once.
	// +optional
	UnconfirmedBuild *UnconfirmedBuild `json:"unconfirmedBuild,omitempty"`
	// BuildFileCommit is the commit of spec.forProvider.source.buildFile
	// the job's pipeline was last written from.
	// +optional
	BuildFileCommit string `json:"buildFileCommit,omitempty"`
	// CreatedFolders lists the folders this resource created, so deletion
	// removes only those (and only when empty).
	// +listType=atomic
	CreatedFolders []string `json:"createdFolders,omitempty"`
}

// A JenkinsPipelineSpec defines the desired state of a JenkinsPipeline.
type JenkinsPipelineSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	ForProvider              JenkinsPipelineParameters `json:"forProvider"`
}

// A JenkinsPipelineStatus represents the observed state of a JenkinsPipeline.
type JenkinsPipelineStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 JenkinsPipelineObservation `json:"atProvider,omitempty"`

	// Deployments of the pipeline's environment, as the DeployRun
	// controller records them: the one running and the last one that
	// succeeded. The composition function reports them in the
	// DevOpsProject's status (and can run a preview's ttl from the last).
	// +optional
	Deployments *PipelineDeployments `json:"deployments,omitempty"`
}

// PipelineDeployments are an environment's current and last successful
// deployments.
type PipelineDeployments struct {
	// Current is the deployment running now (past Pending, not final).
	// +optional
	Current *DeploymentSummary `json:"current,omitempty"`
	// LastSucceeded is the deployment that succeeded last.
	// +optional
	LastSucceeded *DeploymentSummary `json:"lastSucceeded,omitempty"`
}

// DeploymentSummary names one DeployRun and where it stands.
type DeploymentSummary struct {
	// Name of the DeployRun, in the pipeline's namespace.
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Phase of the DeployRun.
	// +kubebuilder:validation:MaxLength=32
	// +optional
	Phase string `json:"phase,omitempty"`
	// Revision asked for (spec.revision), or the one the build reported.
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Revision string `json:"revision,omitempty"`
	// StartedAt is when its build was asked for.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// FinishedAt is when it succeeded or failed.
	// +optional
	FinishedAt *metav1.Time `json:"finishedAt,omitempty"`
	// URL where the environment is live, once it succeeded.
	// +kubebuilder:validation:MaxLength=2048
	// +optional
	URL string `json:"url,omitempty"`
}

// +kubebuilder:object:root=true

// A JenkinsPipeline is a Jenkins Pipeline job inside (optionally nested)
// folders. Its external name is the job's full path, e.g. team/shop/alpha.
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXTERNAL-NAME",type="string",JSONPath=".metadata.annotations.crossplane\\.io/external-name"
// +kubebuilder:printcolumn:name="URL",type="string",JSONPath=".status.atProvider.url"
// +kubebuilder:printcolumn:name="LAST-BUILD",type="string",JSONPath=".status.atProvider.lastBuild.result",priority=1
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,devops}
type JenkinsPipeline struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   JenkinsPipelineSpec   `json:"spec"`
	Status JenkinsPipelineStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// JenkinsPipelineList contains a list of JenkinsPipeline.
type JenkinsPipelineList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []JenkinsPipeline `json:"items"`
}

// RevisionParameter is the pipeline parameter a deploy request's revision
// fills; pipelines that accept deploy requests declare it.
const RevisionParameter = "REVISION"

// UnconfirmedBuild is a build request sent without Jenkins's answer yet.
type UnconfirmedBuild struct {
	// Request is the buildRequest it was sent for.
	Request string `json:"request"`
	// SentAt is when it was sent.
	SentAt metav1.Time `json:"sentAt"`
	// AfterBuild is the job's last build number when it was sent: the
	// build looked for is a later one.
	// +optional
	AfterBuild int64 `json:"afterBuild,omitempty"`
}

// Check holds a build parameter's value to the parameter's type: one of a
// choice parameter's choices, true or false for a boolean. It returns why
// the value does not fit, or "".
func (p Parameter) Check(v string) string {
	quoted := v
	if len(quoted) > 80 {
		quoted = quoted[:80] + "..."
	}
	switch p.Type {
	case ParameterChoice:
		if !slices.Contains(p.Choices, v) {
			return fmt.Sprintf("%q is not one of its choices (%s)", quoted, strings.Join(p.Choices, ", "))
		}
	case ParameterBoolean:
		if v != "true" && v != "false" {
			return fmt.Sprintf("%q is not true or false", quoted)
		}
	case ParameterString, ParameterText:
		// Any value fits.
	}
	return ""
}

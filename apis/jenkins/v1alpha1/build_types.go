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

// PipelineBuild is a build declared field by field, from which the provider
// writes a Declarative Pipeline script (internal/clients/jenkins/declarative)
// and stores it as the job's inline, sandboxed script. It takes the place of
// the operator's JenkinsSetting.
//
// It declares no parameters and no triggers: those stay on the job
// (spec.forProvider.parameters and triggers). A Declarative script's
// parameters {} and triggers {} blocks rewrite the job's properties every
// time it runs, so the provider and Jenkins would correct each other's
// "drift" forever.
// +kubebuilder:validation:XValidation:rule="!self.stages.exists(s, has(s.when)) || self.stages.exists(s, has(s.checkout))",message="a stage's when.branch compares the branch a checkout stage checks out: add a checkout stage"
type PipelineBuild struct {
	// Agent the build runs on; absent: any agent.
	// +optional
	Agent *BuildAgent `json:"agent,omitempty"`

	// Environment variables of every stage, by name. Values are written
	// into the job's script in clear: a secret belongs in a Jenkins
	// credential (an image stage's credentialsId), never here.
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^[A-Za-z_][A-Za-z0-9_]{0,127}$'))",message="environment variable names are letters, digits and '_', not starting with a digit, at most 128 characters"
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(self[k]) <= 4096)",message="an environment value is at most 4096 characters"
	// +optional
	Environment map[string]string `json:"environment,omitempty"`

	// Options of the build.
	// +optional
	Options *BuildOptions `json:"options,omitempty"`

	// Stages run in order.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	// +listType=map
	// +listMapKey=name
	Stages []BuildStage `json:"stages"`

	// Post runs shell commands after the stages.
	// +optional
	Post *BuildPost `json:"post,omitempty"`
}

// BuildAgent is where the build runs: at most one of label and
// dockerImage; neither means any agent.
// +kubebuilder:validation:XValidation:rule="!(has(self.label) && has(self.dockerImage))",message="set at most one of agent.label and agent.dockerImage"
type BuildAgent struct {
	// Label expression of the agents that may run the build, e.g.
	// "linux && docker".
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_.:|&!() -]+$`
	// +optional
	Label string `json:"label,omitempty"`

	// DockerImage runs the build inside a container of this image (the
	// Docker Pipeline plugin), e.g. "golang:1.22".
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9][A-Za-z0-9._/:@-]*$`
	// +optional
	DockerImage string `json:"dockerImage,omitempty"`
}

// BuildOptions are Declarative Pipeline options.
type BuildOptions struct {
	// TimeoutMinutes aborts a build running longer.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10080
	// +optional
	TimeoutMinutes int32 `json:"timeoutMinutes,omitempty"`

	// KeepBuilds is how many builds Jenkins keeps (buildDiscarder).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +optional
	KeepBuilds int32 `json:"keepBuilds,omitempty"`

	// DisableConcurrentBuilds makes a build wait for the running one.
	// +optional
	DisableConcurrentBuilds bool `json:"disableConcurrentBuilds,omitempty"`
}

// BuildStage is one stage: a name and exactly one of checkout, sh, image
// and deploy.
// +kubebuilder:validation:XValidation:rule="[has(self.checkout), has(self.sh), has(self.image), has(self.deploy)].filter(x, x).size() == 1",message="a stage sets exactly one of checkout, sh, image and deploy"
type BuildStage struct {
	// Name of the stage, as Jenkins shows it.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9][A-Za-z0-9 ._-]*$`
	Name string `json:"name"`

	// When limits the stage to a branch.
	// +optional
	When *StageWhen `json:"when,omitempty"`

	// Checkout clones a Git repository into the workspace.
	// +optional
	Checkout *CheckoutStage `json:"checkout,omitempty"`

	// Sh runs shell commands, one sh step each, in order.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=8192
	// +kubebuilder:validation:items:MinLength=1
	// +listType=atomic
	// +optional
	Sh []string `json:"sh,omitempty"`

	// Image builds an image with docker and pushes it.
	// +optional
	Image *ImageStage `json:"image,omitempty"`

	// Deploy hands the build over to what deploys it.
	// +optional
	Deploy *DeployStage `json:"deploy,omitempty"`
}

// StageWhen is a stage's condition.
type StageWhen struct {
	// Branch the stage runs for: it runs only when the build's checkout
	// stage checked out this branch (exactly this name).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[^\s~^:?*\[\\]+$`
	Branch string `json:"branch"`
}

// CheckoutStage clones a Git repository (the git step), then checks out
// the job's REVISION parameter when a build sets it (a deploy request
// does), so a build of a given revision builds that revision.
type CheckoutStage struct {
	// URL of the Git repository (https, ssh:// or scp-like git@host:path),
	// without a password: it is written into the job in clear, and Jenkins
	// logs it; the credential belongs in credentialsId.
	// +kubebuilder:validation:Pattern=`^(https?://[^\s/?#@]+/[^\s]+|ssh://([^\s/?#@:]+@)?[^\s/?#@]+/[^\s]+|[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s]+)$`
	// +kubebuilder:validation:MaxLength=2048
	URL string `json:"url"`

	// Branch to check out.
	// +kubebuilder:default=main
	// +kubebuilder:validation:Pattern=`^[^\s~^:?*\[\\]+$`
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Branch string `json:"branch,omitempty"`

	// CredentialsID is the id of the Jenkins credential that reads the
	// repository. Jenkins holds the secret; this is only its id.
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_.@-]+$`
	// +kubebuilder:validation:MaxLength=255
	// +optional
	CredentialsID string `json:"credentialsId,omitempty"`
}

// ImageStage builds an image from a Dockerfile and pushes it to
// registry/repository:tag, logging in with a Jenkins username/password
// credential.
type ImageStage struct {
	// Registry host (and port), e.g. harbor.example.com.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?$`
	Registry string `json:"registry"`

	// Repository inside the registry, e.g. team/shop.
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[a-z0-9]+([._-][a-z0-9]+)*(/[a-z0-9]+([._-][a-z0-9]+)*)*$`
	Repository string `json:"repository"`

	// Tag of the image: letters, digits, '.', '_', '-' and references
	// ${NAME} to the build's environment variables, e.g.
	// "${BUILD_NUMBER}" or "v1-${GIT_COMMIT}". The shell expands them.
	// +kubebuilder:default="${BUILD_NUMBER}"
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:Pattern=`^([A-Za-z0-9_.-]|\$\{[A-Za-z_][A-Za-z0-9_]*\})+$`
	// +optional
	Tag string `json:"tag,omitempty"`

	// Dockerfile's path in the workspace: relative, no whitespace, no ".."
	// segment. (A pattern, not a CEL rule: a DevOpsProject holds up to
	// 64 builds of 32 stages, and CEL's cost budget would not allow it.)
	// +kubebuilder:default=Dockerfile
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^([^/\s.][^/\s]*|\.[^/\s.][^/\s]*|\.|\.\.[^/\s]+)(/([^/\s.][^/\s]*|\.[^/\s.][^/\s]*|\.|\.\.[^/\s]+))*/?$`
	// +optional
	Dockerfile string `json:"dockerfile,omitempty"`

	// Context directory of the build in the workspace: relative, no
	// whitespace, no ".." segment.
	// +kubebuilder:default="."
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^([^/\s.][^/\s]*|\.[^/\s.][^/\s]*|\.|\.\.[^/\s]+)(/([^/\s.][^/\s]*|\.[^/\s.][^/\s]*|\.|\.\.[^/\s]+))*/?$`
	// +optional
	Context string `json:"context,omitempty"`

	// CredentialsID is the id of the Jenkins username/password credential
	// that pushes to the registry; absent: push without logging in.
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_.@-]+$`
	// +kubebuilder:validation:MaxLength=255
	// +optional
	CredentialsID string `json:"credentialsId,omitempty"`
}

// DeployStage hands the build over. Deploying itself is not the build's
// job here: Argo CD deploys what the build pushed. Without job the stage
// only records the hand-off in the log; with job it starts that Jenkins job
// and waits for it.
type DeployStage struct {
	// Job is the full path from the Jenkins root of a job to build, e.g.
	// team/shop/deploy. It must be below the ProviderConfig's root folder.
	// +kubebuilder:validation:MaxLength=768
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_][A-Za-z0-9_.-]*(/[A-Za-z0-9_][A-Za-z0-9_.-]*)*$`
	// +optional
	Job string `json:"job,omitempty"`
}

// BuildPost runs shell commands once the stages end.
type BuildPost struct {
	// Always runs whatever the result.
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=8192
	// +listType=atomic
	// +optional
	Always []string `json:"always,omitempty"`

	// Success runs when the build succeeded.
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=8192
	// +listType=atomic
	// +optional
	Success []string `json:"success,omitempty"`

	// Failure runs when the build failed.
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=8192
	// +listType=atomic
	// +optional
	Failure []string `json:"failure,omitempty"`
}

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

package migrate

// The DevOpsProject written, typed so its YAML keeps a readable field
// order. Its schema is package/configuration/xrd.yaml; a unit test
// validates every golden output against it.

// ProjectAPIVersion and ProjectKind are this project's DevOpsProject.
const (
	ProjectAPIVersion = "platform.freeleaps.io/v1alpha1"
	ProjectKind       = "DevOpsProject"
	// AnnotationMigratedFrom names the operator object a DevOpsProject was
	// made from: "<apiVersion> <kind> <namespace>/<name>".
	AnnotationMigratedFrom = "devops.freeleaps.io/migrated-from"
)

// Project is a DevOpsProject.
type Project struct {
	APIVersion string      `json:"apiVersion"`
	Kind       string      `json:"kind"`
	Metadata   Metadata    `json:"metadata"`
	Spec       ProjectSpec `json:"spec"`
}

// Metadata of a Project.
type Metadata struct {
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// ProjectSpec is the part of the DevOpsProject's spec a migration sets.
type ProjectSpec struct {
	ProviderConfigRef *ConfigRef    `json:"providerConfigRef,omitempty"`
	AdoptExisting     Adopt         `json:"adoptExisting"`
	Git               Git           `json:"git"`
	Registry          Registry      `json:"registry"`
	Pipeline          *Pipeline     `json:"pipeline,omitempty"`
	DNS               DNS           `json:"dns"`
	Source            *Source       `json:"source,omitempty"`
	Environments      []Environment `json:"environments"`
}

// ConfigRef names the ProviderConfig or ClusterProviderConfig.
type ConfigRef struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// Adopt is spec.adoptExisting.
type Adopt struct {
	Pipelines    bool `json:"pipelines"`
	Applications bool `json:"applications"`
	DNSRecords   bool `json:"dnsRecords"`
	Registry     bool `json:"registry"`
}

// Git is spec.git.
type Git struct {
	URL                  string     `json:"url"`
	Branch               string     `json:"branch,omitempty"`
	JenkinsCredentialsID string     `json:"jenkinsCredentialsId,omitempty"`
	CredentialsSecretRef *SecretRef `json:"credentialsSecretRef,omitempty"`
}

// SecretRef names a Secret of the project's namespace; never its content.
type SecretRef struct {
	Name string `json:"name"`
}

// Registry is spec.registry.
type Registry struct {
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	Visibility string `json:"visibility,omitempty"`
}

// Pipeline is spec.pipeline.
type Pipeline struct {
	Folder     string `json:"folder,omitempty"`
	ScriptPath string `json:"scriptPath,omitempty"`
	// BuildFile is the operator's configuration file in the repository.
	BuildFile string `json:"buildFile,omitempty"`
	// Build is a JenkinsSetting's inline configuration, as written there
	// (a typed build would write its required fields the project fills
	// in as empty strings).
	Build map[string]any `json:"build,omitempty"`
}

// DNS is spec.dns.
type DNS struct {
	Zone   string `json:"zone"`
	Target string `json:"target,omitempty"`
	Type   string `json:"type,omitempty"`
}

// Source is spec.source.
type Source struct {
	Type string `json:"type"`
}

// Environment is one of spec.environments.
type Environment struct {
	Name            string `json:"name"`
	Domain          string `json:"domain"`
	ApplicationName string `json:"applicationName,omitempty"`
	Path            string `json:"path,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	Cluster         string `json:"cluster,omitempty"`
	SourceType      string `json:"sourceType,omitempty"`
}

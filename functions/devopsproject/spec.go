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

package main

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
)

// ProjectSpec is the spec of a DevOpsProject (and of the legacy
// XDevOpsProject). The XRD's schema validates it first; validate repeats
// the checks a schema cannot make, so a Composition used with an older XRD
// still fails clearly.
type ProjectSpec struct {
	// ProviderConfigRef, or the older ProviderConfigName (a
	// ProviderConfig), names the config of the managed resources; neither:
	// the Composition input's default.
	ProviderConfigRef  *ConfigRef   `json:"providerConfigRef,omitempty"`
	ProviderConfigName string       `json:"providerConfigName"`
	Git                GitSpec      `json:"git"`
	Registry           RegistrySpec `json:"registry"`
	Pipeline           PipelineSpec `json:"pipeline"`
	DNS                DNSSpec      `json:"dns"`
	// Source and Ingress apply to every environment unless it overrides
	// them.
	Source       SourceSpec    `json:"source"`
	Ingress      *IngressSpec  `json:"ingress,omitempty"`
	Environments []Environment `json:"environments"`
	// AdoptExisting asks, per kind, to take over existing backend objects
	// nobody owns (see the managed resources' adoptExisting).
	AdoptExisting AdoptSpec `json:"adoptExisting"`
	// Previews are environments the project makes by itself, one per
	// open pull request (previews.go).
	Previews PreviewsSpec `json:"previews"`
}

// AdoptSpec names the kinds whose existing, unowned backend objects a
// project takes over. One switch per kind, not one for all: a migration
// may adopt the operator's jobs and applications yet want a DNS name no
// one else holds created fresh.
type AdoptSpec struct {
	Pipelines    bool `json:"pipelines"`
	Applications bool `json:"applications"`
	DNSRecords   bool `json:"dnsRecords"`
	Registry     bool `json:"registry"`
}

// ConfigRef names a ProviderConfig of the project's namespace or a
// ClusterProviderConfig.
type ConfigRef struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

var configName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)

func (r ConfigRef) validate(path string) error {
	if r.Kind != KindProviderConfig && r.Kind != KindClusterProviderConfig {
		return fieldErr(path+".kind", "%q must be ClusterProviderConfig or ProviderConfig", r.Kind)
	}
	if !configName.MatchString(r.Name) {
		return fieldErr(path+".name", "%q is not the name of a config", r.Name)
	}
	return nil
}

// configOf is the config the project's managed resources use: its
// spec.providerConfigRef, its spec.providerConfigName (a ProviderConfig),
// or the Composition input's default.
func (s *ProjectSpec) configOf(in *settings) ConfigRef {
	switch {
	case s.ProviderConfigRef != nil:
		return *s.ProviderConfigRef
	case s.ProviderConfigName != "":
		return ConfigRef{Kind: KindProviderConfig, Name: s.ProviderConfigName}
	default:
		return in.config
	}
}

// GitSpec is the project's repository.
type GitSpec struct {
	URL    string `json:"url"`
	Branch string `json:"branch"`
	// JenkinsCredentialsID is the Jenkins credential that reads the
	// repository.
	JenkinsCredentialsID string `json:"jenkinsCredentialsId"`
	// CredentialsSecretRef is the Secret Argo CD reads the repository
	// with; nil for a public repository.
	CredentialsSecretRef *SecretRef `json:"credentialsSecretRef,omitempty"`
}

// SecretRef names a Secret in the project's namespace.
type SecretRef struct {
	Name string `json:"name"`
}

// RegistrySpec is the project's image repository.
type RegistrySpec struct {
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	Visibility string `json:"visibility"`
	// DeletionPolicy Delete lets deleting the project delete the
	// repository and its images; default Orphan keeps them.
	DeletionPolicy string `json:"deletionPolicy"`
	// AdoptExisting takes over an existing repository no RegistryRepo owns.
	AdoptExisting bool `json:"adoptExisting"`
	// CredentialsSecretRef is a username/password Secret the pipelines
	// push images with; nil: image stages name their own credential.
	CredentialsSecretRef *SecretRef `json:"credentialsSecretRef,omitempty"`
}

// PipelineSpec places the Jenkins jobs and says what they run: the
// repository's Jenkinsfile at ScriptPath, or a declared Build.
type PipelineSpec struct {
	ScriptPath string `json:"scriptPath"`
	Folder     string `json:"folder"`
	// Build is the declared build of every environment's job (the XRD's
	// schema is the JenkinsPipeline CRD's, hack/xrd-build-schema.py);
	// ScriptPath is then unused.
	Build *jenkinsv1alpha1.PipelineBuild `json:"build,omitempty"`
	// BuildFile is the path of the declared build in spec.git, read by
	// the provider at every poll (source.buildFile); it replaces Build
	// (the XRD allows one) and ScriptPath.
	BuildFile string `json:"buildFile,omitempty"`
	// Parameters are added to every environment's job after ENVIRONMENT
	// and REVISION, which they may not name again.
	Parameters []jenkinsv1alpha1.Parameter `json:"parameters,omitempty"`
	// Triggers are every environment's job's triggers.
	Triggers *jenkinsv1alpha1.Triggers `json:"triggers,omitempty"`
}

// EnvironmentPipeline overrides spec.pipeline for one environment.
type EnvironmentPipeline struct {
	// Build replaces spec.pipeline.build whole.
	Build *jenkinsv1alpha1.PipelineBuild `json:"build,omitempty"`
	// Parameters, when set (even empty), replace spec.pipeline.parameters
	// whole.
	Parameters []jenkinsv1alpha1.Parameter `json:"parameters,omitempty"`
	// Triggers, when set, replace spec.pipeline.triggers whole.
	Triggers *jenkinsv1alpha1.Triggers `json:"triggers,omitempty"`
}

// DNSSpec says where environments' names point.
type DNSSpec struct {
	Zone   string `json:"zone"`
	Target string `json:"target"`
	Type   string `json:"type"`
}

// Environment is one deployment of the project.
type Environment struct {
	Name   string `json:"name"`
	Domain string `json:"domain"`
	Path   string `json:"path"`
	// ApplicationName is the Argo CD application's name; empty: the
	// default, or the name an existing environment has.
	ApplicationName string   `json:"applicationName"`
	Namespace       string   `json:"namespace"`
	Cluster         string   `json:"cluster"`
	TTL             string   `json:"ttl"`
	Retain          []string `json:"retain"`
	// DeletionPolicy is what removing the environment (or deleting the
	// project) does to its Jenkins job, Argo CD application and DNS
	// record: Orphan keeps them, Delete deletes them. Default: Orphan
	// without a ttl, Delete with one.
	DeletionPolicy string `json:"deletionPolicy"`
	// SourceType overrides spec.source.type.
	SourceType string `json:"sourceType"`
	// RenewOnDeploy lets a deploy request for the environment renew it
	// once it expired, as the replaced operator's deploy did: the provider
	// sets the renew annotation and the deployment waits for the
	// environment to come back. Off: such a request is refused.
	RenewOnDeploy bool `json:"renewOnDeploy"`
	// Ingress overrides spec.ingress field by field.
	Ingress *IngressSpec `json:"ingress,omitempty"`
	// Pipeline overrides spec.pipeline.
	Pipeline *EnvironmentPipeline `json:"pipeline,omitempty"`

	// preview is the pull request a preview environment (never one of
	// spec.environments) is made for.
	preview *preview
}

// Deletion policies of an environment or of the registry.
const (
	PolicyDelete = "Delete"
	PolicyOrphan = "Orphan"
)

var (
	dnsLabel       = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	fqdn           = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\.)+[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\.?$`)
	appNamePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)
	sshURL         = regexp.MustCompile(`^(ssh://[^\s]+|[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s]+)$`)
)

// Kinds an environment may retain at expiry.
var retainable = map[string]bool{KindPipeline: true, KindApp: true, KindDNS: true} //nolint:gochecknoglobals // read-only table

// fieldError names the field at fault.
type fieldError struct {
	path, msg string
}

func (e fieldError) Error() string { return e.path + ": " + e.msg }

func fieldErr(path, format string, a ...any) error {
	return fieldError{path: path, msg: fmt.Sprintf(format, a...)}
}

// validate checks what the function relies on and returns the first
// problem, naming its field.
func (s *ProjectSpec) validate() error {
	if err := s.validateProviderConfig(); err != nil {
		return err
	}
	if err := validateGitURL(s.Git.URL); err != nil {
		return err
	}
	if err := s.validateDeletionPolicies(); err != nil {
		return err
	}
	if err := s.validateRefs(); err != nil {
		return err
	}
	zone := strings.TrimSuffix(strings.ToLower(s.DNS.Zone), ".")
	if !fqdn.MatchString(zone) {
		return fieldErr("spec.dns.zone", "%q is not a DNS zone name", s.DNS.Zone)
	}
	switch s.Source.Type {
	case "", SourceDirectory, SourceHelm, SourceKustomize:
	default:
		return fieldErr("spec.source.type", "%q must be Directory, Helm or Kustomize", s.Source.Type)
	}
	if err := validateIngress("spec.ingress", s.Ingress); err != nil {
		return err
	}
	if err := validateParameters("spec.pipeline.parameters", s.Pipeline.Parameters); err != nil {
		return err
	}
	if err := s.validateEnvironments(zone); err != nil {
		return err
	}
	return s.validatePreviews(zone)
}

// validateParameters refuses a declared parameter named as one the
// function gives every job: Jenkins would get the name twice.
func validateParameters(path string, ps []jenkinsv1alpha1.Parameter) error {
	for i, p := range ps {
		if p.Name == envParameter || p.Name == jenkinsv1alpha1.RevisionParameter {
			return fieldErr(fmt.Sprintf("%s[%d].name", path, i), "%q is a parameter every job already has; name yours otherwise", p.Name)
		}
	}
	return nil
}

// validateProviderConfig checks that at most one way of naming the
// config is used, and the reference if it is.
func (s *ProjectSpec) validateProviderConfig() error {
	r := s.ProviderConfigRef
	if r == nil {
		return nil
	}
	if s.ProviderConfigName != "" {
		return fieldErr("spec.providerConfigRef", "set either providerConfigRef or providerConfigName, not both")
	}
	return r.validate("spec.providerConfigRef")
}

// validateGitURL checks that the repository is an https or ssh URL
// without credentials.
func validateGitURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		return fieldErr("spec.git.url", "is required")
	case sshURL.MatchString(raw):
	case err != nil || u.Scheme != "https" || u.Host == "":
		return fieldErr("spec.git.url", "%q must be an https:// or ssh URL", raw)
	case u.User != nil:
		// Never echo it: the user part may be a password or token.
		return fieldErr("spec.git.url", "must not carry a user or password (it would be copied to Jenkins and Argo CD in clear): put them in the Secret spec.git.credentialsSecretRef names")
	}
	return nil
}

// validateDeletionPolicies checks the registry's policy, then each
// environment's.
func (s *ProjectSpec) validateDeletionPolicies() error {
	if p := s.Registry.DeletionPolicy; !validPolicy(p) {
		return fieldErr("spec.registry.deletionPolicy", "%q must be Delete or Orphan", p)
	}
	for i, e := range s.Environments {
		if p := e.DeletionPolicy; !validPolicy(p) {
			return fieldErr(fmt.Sprintf("spec.environments[%d].deletionPolicy", i), "%q must be Delete or Orphan", p)
		}
	}
	return nil
}

// validPolicy is true for a deletion policy that is unset, Delete or
// Orphan.
func validPolicy(p string) bool { return p == "" || p == PolicyDelete || p == PolicyOrphan }

// validateRefs checks that the credentials Secrets and the registry
// repository are named.
func (s *ProjectSpec) validateRefs() error {
	if r := s.Git.CredentialsSecretRef; r != nil && r.Name == "" {
		return fieldErr("spec.git.credentialsSecretRef.name", "is required")
	}
	if r := s.Registry.CredentialsSecretRef; r != nil && r.Name == "" {
		return fieldErr("spec.registry.credentialsSecretRef.name", "is required")
	}
	if s.Registry.Namespace == "" || s.Registry.Name == "" {
		return fieldErr("spec.registry", "namespace and name are required")
	}
	return nil
}

// validateEnvironments checks that there is at least one environment,
// each named once, and each environment in turn.
func (s *ProjectSpec) validateEnvironments(zone string) error {
	if len(s.Environments) == 0 {
		return fieldErr("spec.environments", "at least one environment is required")
	}
	seen := map[string]int{}
	for i, e := range s.Environments {
		p := fmt.Sprintf("spec.environments[%d]", i)
		if !dnsLabel.MatchString(e.Name) {
			return fieldErr(p+".name", "%q must be a DNS label (lower case letters, digits and '-', at most 63)", e.Name)
		}
		if j, dup := seen[e.Name]; dup {
			return fieldErr(p+".name", "%q is already the name of spec.environments[%d]", e.Name, j)
		}
		seen[e.Name] = i
		if err := s.validateEnvironment(p, e, zone); err != nil {
			return err
		}
	}
	return nil
}

// validateEnvironment checks one environment, at path p, past its name.
func (s *ProjectSpec) validateEnvironment(p string, e Environment, zone string) error {
	d := strings.TrimSuffix(strings.ToLower(e.Domain), ".")
	if !fqdn.MatchString(d) {
		return fieldErr(p+".domain", "%q is not a domain name", e.Domain)
	}
	if d != zone && !strings.HasSuffix(d, "."+zone) {
		return fieldErr(p+".domain", "%q is not inside the zone %q", e.Domain, zone)
	}
	if e.TTL != "" {
		ttl, err := time.ParseDuration(e.TTL)
		if err != nil || ttl < time.Minute {
			return fieldErr(p+".ttl", "%q must be a duration of at least 1m, such as 72h", e.TTL)
		}
	}
	if n := e.ApplicationName; n != "" && !appNamePattern.MatchString(n) {
		return fieldErr(p+".applicationName", "%q is not an Argo CD application name (lower case letters, digits, '-' and '.', at most 253)", n)
	}
	if strings.ContainsAny(e.Cluster, `*?[]{}!\`) {
		// The AppProject lists it as a destination: a pattern there
		// would open every cluster it matches.
		return fieldErr(p+".cluster", "%q must be one cluster's API server URL, not a pattern", e.Cluster)
	}
	for k, kind := range e.Retain {
		if !retainable[kind] {
			return fieldErr(fmt.Sprintf("%s.retain[%d]", p, k), "%q is not one of JenkinsPipeline, ArgoApplication, DNSRecord", kind)
		}
	}
	if e.Pipeline != nil {
		if err := validateParameters(p+".pipeline.parameters", e.Pipeline.Parameters); err != nil {
			return err
		}
	}
	if err := validateIngress(p+".ingress", e.Ingress); err != nil {
		return err
	}
	return validateEnvIngress(p, sourceTypeOf(s.Source, e), ingressOf(s.Ingress, e.Ingress))
}

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

// Package jenkinspipeline reconciles JenkinsPipeline managed resources
// against Jenkins.
package jenkinspipeline

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
	"github.com/freeleaps/provider-devops/internal/clients/gitfile"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins/declarative"
	"github.com/freeleaps/provider-devops/internal/clients/netguard"
	"github.com/freeleaps/provider-devops/internal/clients/retryafter"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/events/vocab"
)

const errNewClient = "cannot create the Jenkins client from ProviderConfig"

// Descriptor describes the JenkinsPipeline kind to the shared controller setup.
var Descriptor = mrcontroller.Descriptor[*v1alpha1.JenkinsPipeline]{ //nolint:gochecknoglobals // read-only descriptor of the kind
	GroupKind:        v1alpha1.JenkinsPipelineGroupKind,
	GroupVersionKind: v1alpha1.JenkinsPipelineGroupVersionKind,
	New:              func() *v1alpha1.JenkinsPipeline { return &v1alpha1.JenkinsPipeline{} },
	NewList:          func() resource.ManagedList { return &v1alpha1.JenkinsPipelineList{} },
	ExternalName:     (*v1alpha1.JenkinsPipeline).DefaultExternalName,
	Busy: func(cr *v1alpha1.JenkinsPipeline) bool {
		w := Work(cr.Status.AtProvider)
		return w != nil && w.Running
	},
	URL:  func(cr *v1alpha1.JenkinsPipeline) string { return cr.Status.AtProvider.URL },
	Work: func(cr *v1alpha1.JenkinsPipeline) *vocab.Work { return Work(cr.Status.AtProvider) },
}

// Client is the part of Jenkins the controller uses.
type Client interface {
	Get(ctx context.Context, path string) (*jenkins.Job, error)
	Create(ctx context.Context, path string, p jenkins.Pipeline) ([]string, error)
	Update(ctx context.Context, path string, p jenkins.Pipeline, observed []byte) error
	Delete(ctx context.Context, path string, createdFolders []string) error
	Build(ctx context.Context, path string, parameterized bool, params map[string]string) (int64, error)
	// FindBuild looks for a build queued after a build number, by
	// parameters.
	FindBuild(ctx context.Context, path string, params map[string]string, after int64) (string, error)
}

// NewConnector returns the connector. guard is the platform's rule for
// namespaced configs' connections; newClient builds the Jenkins client, nil
// means the real one.
func NewConnector(kube client.Client, guard *netguard.Guard, newClient func(jenkins.Config) (Client, error)) managed.TypedExternalConnector[*v1alpha1.JenkinsPipeline] {
	if newClient == nil {
		newClient = func(c jenkins.Config) (Client, error) { return jenkins.New(c) }
	}
	return &connector{
		kube: kube,
		// A build file's repository is the tenant's to name, whatever
		// ProviderConfig the resource uses: always guarded.
		files:      gitfile.NewReader(httpapi.TLS{Tenant: true, Guard: guard}, declarative.MaxFileSize),
		configs:    backendconfig.Resolver{Kube: kube, Usage: backendconfig.NewUsageTracker(kube), Guard: guard},
		newClient:  newClient,
		retryAfter: retryafter.New(nil),
		transports: httpapi.NewTransports(),
	}
}

type connector struct {
	kube    client.Client
	configs backendconfig.Resolver
	// retryAfter and transports are shared by every client this
	// connector builds: a Retry-After holds all resources using that
	// server, and a poll reuses the last one's connections.
	retryAfter *retryafter.Gate
	transports *httpapi.Transports
	newClient  func(jenkins.Config) (Client, error)
	files      BuildFiles
}

// Connect reads the ProviderConfig's jenkins section and credentials.
func (c *connector) Connect(ctx context.Context, cr *v1alpha1.JenkinsPipeline) (managed.TypedExternalClient[*v1alpha1.JenkinsPipeline], error) {
	cfg, pc, limits, refused, err := clientConfig(ctx, c.configs, cr)
	if err != nil {
		return nil, err
	}
	if refused != nil {
		return mrcontroller.Refused[*v1alpha1.JenkinsPipeline](refused), nil
	}
	cfg.RetryAfter, cfg.Transports = c.retryAfter, c.transports
	cl, err := c.newClient(cfg)
	if err != nil {
		return nil, errors.Wrapf(err, "%s %s", errNewClient, pc)
	}
	return &external{client: cl, kube: c.kube, now: time.Now, files: c.files, limits: limits}, nil
}

// ClientConfig is the configuration of a Jenkins client for cr, from its
// ProviderConfig, after the checks its controller makes: a DeployRun
// follows the pipeline's builds through it. It records no usage (the
// pipeline's controller does). guard is the platform's rule for namespaced
// configs' connections.
func ClientConfig(ctx context.Context, kube client.Reader, guard *netguard.Guard, cr *v1alpha1.JenkinsPipeline) (jenkins.Config, error) {
	cfg, _, _, refused, err := clientConfig(ctx, backendconfig.Resolver{Kube: kube, Guard: guard}, cr)
	if err == nil && refused != nil {
		err = refused
	}
	return cfg, err
}

// clientConfig returns cr's client configuration and the limits of its
// ProviderConfig's Jenkins section for cr's namespace, or why the
// ProviderConfig refuses cr (refused), or why it cannot be read (err).
func clientConfig(ctx context.Context, r backendconfig.Resolver, cr *v1alpha1.JenkinsPipeline) (cfg jenkins.Config, pc *backendconfig.Config, limits *pcv1alpha1.JenkinsConfig, refused, err error) {
	kube := r.Kube
	pc, s, err := backendconfig.Section(ctx, r, cr, "jenkins", func(s *pcv1alpha1.ProviderConfigSpec) *pcv1alpha1.JenkinsConfig { return s.Jenkins })
	if err != nil {
		return cfg, nil, nil, nil, err
	}
	data, err := pc.Credentials(ctx, kube, "spec.jenkins.credentials", s.Credentials)
	if err != nil {
		return cfg, nil, nil, nil, err
	}
	user, token, err := jenkins.ParseCredentials(data)
	if err != nil {
		return cfg, nil, nil, nil, errors.Wrapf(err, "spec.jenkins.credentials of %s", pc)
	}
	s = ForNamespace(s, cr.GetNamespace())
	if err := allowed(cr, s); err != nil {
		return cfg, pc, nil, errors.Wrapf(err, "refused by %s", pc), nil
	}
	return jenkins.Config{URL: s.URL, Username: user, Token: token, TLS: pc.TLS(s.TLSConfig), Root: s.RootFolder}, pc, s, nil, nil
}

// ForNamespace returns s with "{namespace}" in its root folder and allowed
// credential ids replaced by ns: the limits of s for a resource in ns.
func ForNamespace(s *pcv1alpha1.JenkinsConfig, ns string) *pcv1alpha1.JenkinsConfig {
	out := *s
	out.RootFolder = strings.ReplaceAll(s.RootFolder, "{namespace}", ns)
	out.AllowedCredentialIDs = backendconfig.ExpandNamespace(s.AllowedCredentialIDs, nil, ns)
	return &out
}

// allowed checks cr against the limits of its ProviderConfig's Jenkins
// section: the job's path (its external name, which a user may set) below
// the root folder, and the checkout credential id among the allowed ones.
func allowed(cr *v1alpha1.JenkinsPipeline, s *pcv1alpha1.JenkinsConfig) error {
	p := meta.GetExternalName(cr)
	if p == "" {
		p = JobPath(cr)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, "?#%\\") {
			return errors.Errorf("job path %q has an empty, '.' or '..' segment or a character Jenkins URLs give a meaning to", p)
		}
	}
	if dir, _ := path.Split(p); s.RootFolder != "" && !jenkins.Below(dir, s.RootFolder) {
		return errors.Errorf("job %q is outside the root folder %q (spec.jenkins.rootFolder): set spec.forProvider.folder to %q or a folder below it", p, s.RootFolder, s.RootFolder)
	}
	if err := jobsBelowRoot(cr.Spec.ForProvider, s.RootFolder); err != nil {
		return err
	}
	for _, c := range credentialIDs(cr.Spec.ForProvider.Source) {
		if err := CredentialIDAllowed(s, c.id, "spec.forProvider.source."+c.field); err != nil {
			return err
		}
	}
	return nil
}

// CredentialIDAllowed checks a Jenkins credential id, which field names in
// messages, against the allowed ids of s (already ForNamespace): the one
// rule for pipelines naming credentials and JenkinsCredentials creating
// them.
func CredentialIDAllowed(s *pcv1alpha1.JenkinsConfig, id, field string) error {
	if len(s.AllowedCredentialIDs) == 0 {
		return nil
	}
	for _, pat := range s.AllowedCredentialIDs {
		if ok, _ := path.Match(pat, id); ok {
			return nil
		}
	}
	return errors.Errorf("credentials id %q in %s is not allowed (spec.jenkins.allowedCredentialIds: %s)", id, field, strings.Join(s.AllowedCredentialIDs, ", "))
}

// jobsBelowRoot checks that the other jobs a pipeline names (upstream
// triggers, deploy stages) are below root: a tenant's job must neither
// start nor follow another tenant's.
func jobsBelowRoot(p v1alpha1.JenkinsPipelineParameters, root string) error {
	if root == "" {
		return nil
	}
	if t := p.Triggers; t != nil {
		for i, u := range t.Upstream {
			if !jenkins.Below(path.Dir(u), root) {
				return errors.Errorf("spec.forProvider.triggers.upstream[%d] %q is outside the root folder %q (spec.jenkins.rootFolder)", i, u, root)
			}
		}
	}
	if b := p.Source.Build; b != nil {
		for i, st := range b.Stages {
			if st.Deploy != nil && st.Deploy.Job != "" && !jenkins.Below(path.Dir(st.Deploy.Job), root) {
				return errors.Errorf("spec.forProvider.source.build.stages[%d].deploy.job %q is outside the root folder %q (spec.jenkins.rootFolder)", i, st.Deploy.Job, root)
			}
		}
	}
	return nil
}

// credentialUse is a Jenkins credential id and the field naming it.
type credentialUse struct{ field, id string }

// credentialIDs are the Jenkins credential ids src names, in field order:
// the checkout's, and a declared build's checkout and image stages'.
func credentialIDs(src v1alpha1.PipelineSource) []credentialUse {
	var out []credentialUse
	if src.SCM != nil && src.SCM.CredentialsID != "" {
		out = append(out, credentialUse{"scm.credentialsId", src.SCM.CredentialsID})
	}
	if src.Build == nil {
		return out
	}
	for i, st := range src.Build.Stages {
		switch {
		case st.Checkout != nil && st.Checkout.CredentialsID != "":
			out = append(out, credentialUse{fmt.Sprintf("build.stages[%d].checkout.credentialsId", i), st.Checkout.CredentialsID})
		case st.Image != nil && st.Image.CredentialsID != "":
			out = append(out, credentialUse{fmt.Sprintf("build.stages[%d].image.credentialsId", i), st.Image.CredentialsID})
		}
	}
	return out
}

// Work is the pipeline's build in progress, or its last finished build.
func Work(o v1alpha1.JenkinsPipelineObservation) *vocab.Work {
	b := o.LastBuild
	switch {
	case b != nil && b.Building:
		return &vocab.Work{ID: fmt.Sprintf("build #%d", b.Number), Running: true, Status: vocab.StatusRunning, Phase: "BUILDING", Message: fmt.Sprintf("build #%d running", b.Number), URL: b.URL}
	case o.InQueue:
		next := int64(1)
		if b != nil {
			next = b.Number + 1
		}
		return &vocab.Work{ID: fmt.Sprintf("build #%d", next), Running: true, Status: vocab.StatusRunning, Phase: "QUEUED", Message: "build waiting in the Jenkins queue", URL: o.URL}
	case b == nil || b.Result == "":
		return nil
	}
	status := vocab.StatusFailed
	if b.Result == "SUCCESS" {
		status = vocab.StatusSucceeded
	}
	return &vocab.Work{ID: fmt.Sprintf("build #%d", b.Number), Status: status, Phase: b.Result, Message: fmt.Sprintf("build #%d finished: %s", b.Number, b.Result), URL: b.URL}
}

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

// Package jenkinscredential reconciles JenkinsCredential managed resources:
// credentials in the store of a Jenkins folder, with values from a Secret
// in the resource's own namespace.
package jenkinscredential

import (
	"context"
	"regexp"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
	"github.com/freeleaps/provider-devops/internal/clients/netguard"
	"github.com/freeleaps/provider-devops/internal/clients/retryafter"
	"github.com/freeleaps/provider-devops/internal/controller/jenkinspipeline"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
)

const (
	errNewClient      = "cannot create the Jenkins client from ProviderConfig"
	errFmtBadID       = "credential id %q (the external name) must be letters, digits, '_', '.' or '-', and not '.' or '..'"
	errFmtOutsideRoot = "folder %q is outside the root folder %q (spec.jenkins.rootFolder): set spec.forProvider.folder to %q or a folder below it"
	errFmtGlobal      = "a JenkinsCredential without spec.forProvider.folder goes into Jenkins' global store, which every job can use: only a ClusterProviderConfig with spec.jenkins.allowGlobalCredentials and no rootFolder allows it; set spec.forProvider.folder (%s)"
)

// Descriptor describes the JenkinsCredential kind to the shared controller
// setup.
var Descriptor = mrcontroller.Descriptor[*v1alpha1.JenkinsCredential]{ //nolint:gochecknoglobals // read-only descriptor of the kind
	GroupKind:        v1alpha1.JenkinsCredentialGroupKind,
	GroupVersionKind: v1alpha1.JenkinsCredentialGroupVersionKind,
	New:              func() *v1alpha1.JenkinsCredential { return &v1alpha1.JenkinsCredential{} },
	NewList:          func() resource.ManagedList { return &v1alpha1.JenkinsCredentialList{} },
	ExternalName:     (*v1alpha1.JenkinsCredential).DefaultExternalName,
	URL:              func(cr *v1alpha1.JenkinsCredential) string { return cr.Status.AtProvider.URL },
}

// Client is the part of Jenkins the controller uses.
type Client interface {
	GetCredential(ctx context.Context, folder, id string) (*jenkins.Credential, error)
	CreateCredential(ctx context.Context, folder string, c jenkins.Credential) error
	UpdateCredential(ctx context.Context, folder string, c jenkins.Credential) error
	DeleteCredential(ctx context.Context, folder, id string) error
	CredentialURL(folder, id string) string
}

// NewConnector returns the connector. guard is the platform's rule for
// namespaced configs' connections; newClient builds the Jenkins client, nil
// means the real one.
func NewConnector(kube client.Client, guard *netguard.Guard, newClient func(jenkins.Config) (Client, error)) managed.TypedExternalConnector[*v1alpha1.JenkinsCredential] {
	if newClient == nil {
		newClient = func(c jenkins.Config) (Client, error) { return jenkins.New(c) }
	}
	return &connector{
		kube:       kube,
		configs:    backendconfig.Resolver{Kube: kube, Usage: backendconfig.NewUsageTracker(kube), Guard: guard},
		newClient:  newClient,
		retryAfter: retryafter.New(nil),
		transports: httpapi.NewTransports(),
	}
}

type connector struct {
	kube       client.Client
	configs    backendconfig.Resolver
	retryAfter *retryafter.Gate
	transports *httpapi.Transports
	newClient  func(jenkins.Config) (Client, error)
}

// Connect reads the ProviderConfig's jenkins section and credentials, and
// checks the credential against the config's limits.
func (c *connector) Connect(ctx context.Context, cr *v1alpha1.JenkinsCredential) (managed.TypedExternalClient[*v1alpha1.JenkinsCredential], error) {
	pc, s, err := backendconfig.Section(ctx, c.configs, cr, "jenkins", func(s *pcv1alpha1.ProviderConfigSpec) *pcv1alpha1.JenkinsConfig { return s.Jenkins })
	if err != nil {
		return nil, err
	}
	data, err := pc.Credentials(ctx, c.kube, "spec.jenkins.credentials", s.Credentials)
	if err != nil {
		return nil, err
	}
	user, token, err := jenkins.ParseCredentials(data)
	if err != nil {
		return nil, errors.Wrapf(err, "spec.jenkins.credentials of %s", pc)
	}
	s = jenkinspipeline.ForNamespace(s, cr.GetNamespace())
	if err := allowed(cr, s, pc.Namespace == ""); err != nil {
		return mrcontroller.Refused[*v1alpha1.JenkinsCredential](errors.Wrapf(err, "refused by %s", pc)), nil
	}
	cl, err := c.newClient(jenkins.Config{URL: s.URL, Username: user, Token: token, TLS: pc.TLS(s.TLSConfig), Root: s.RootFolder, RetryAfter: c.retryAfter, Transports: c.transports})
	if err != nil {
		return nil, errors.Wrapf(err, "%s %s", errNewClient, pc)
	}
	return &external{client: cl, kube: c.kube, key: HashKey(token, cr)}, nil
}

var validID = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,255}$`)

// allowed checks cr against the limits of its config's Jenkins section (s,
// already for cr's namespace): the id among the allowed ids, the folder
// below the root folder, and the global store only where a
// ClusterProviderConfig (cluster) allows it.
func allowed(cr *v1alpha1.JenkinsCredential, s *pcv1alpha1.JenkinsConfig, cluster bool) error {
	id := meta.GetExternalName(cr)
	if id == "" {
		id = ID(cr)
	}
	// "." and ".." are URL segments that name the store, not a credential.
	if !validID.MatchString(id) || id == "." || id == ".." {
		return errors.Errorf(errFmtBadID, id)
	}
	folder := cr.Spec.ForProvider.Folder
	switch {
	case folder == "" && (!cluster || !s.AllowGlobalCredentials || s.RootFolder != ""):
		why := "a namespaced ProviderConfig never allows it"
		if cluster {
			why = "this ClusterProviderConfig does not allow it"
		}
		return errors.Errorf(errFmtGlobal, why)
	case folder != "" && s.RootFolder != "" && !jenkins.Below(folder, s.RootFolder):
		return errors.Errorf(errFmtOutsideRoot, folder, s.RootFolder, s.RootFolder)
	}
	return jenkinspipeline.CredentialIDAllowed(s, id, "the external name (spec.forProvider.id)")
}

// ID is the credential's id: spec.forProvider.id, or else the resource's
// name. It becomes the external name when the resource is first
// reconciled.
func ID(cr *v1alpha1.JenkinsCredential) string {
	return cr.DefaultExternalName()
}

// Owner is how a credential names the resource that manages it.
func Owner(cr *v1alpha1.JenkinsCredential) string {
	return cr.GetNamespace() + "/" + cr.GetName()
}

// WithSecretWatch is the kind's descriptor with a watch of Secrets: a
// JenkinsCredential is reconciled as soon as its Secret changes, instead of
// at the next poll. Only Secrets' metadata is watched and cached, but that
// needs list and watch on every Secret in the cluster, which the provider
// otherwise does without (--watch-credential-secrets turns it on).
func WithSecretWatch(d mrcontroller.Descriptor[*v1alpha1.JenkinsCredential]) mrcontroller.Descriptor[*v1alpha1.JenkinsCredential] {
	d.Watch = &mrcontroller.Watch{Object: &corev1.Secret{}, Map: UsersOfSecret}
	return d
}

// UsersOfSecret are the JenkinsCredentials in the Secret's namespace whose
// secretRef names it: the only ones that may read it.
func UsersOfSecret(ctx context.Context, kube client.Reader, s client.Object) []reconcile.Request {
	l := &v1alpha1.JenkinsCredentialList{}
	if err := kube.List(ctx, l, client.InNamespace(s.GetNamespace())); err != nil {
		// The poll still finds the change.
		return nil
	}
	var out []reconcile.Request
	for _, cr := range l.Items {
		if cr.Spec.ForProvider.SecretRef.Name == s.GetName() {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: cr.GetNamespace(), Name: cr.GetName()}})
		}
	}
	return out
}

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

package argorepository

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/controller/argoaccess"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
)

const (
	errGet             = "cannot observe the Argo CD repository"
	errCreate          = "cannot create the Argo CD repository"
	errUpdate          = "cannot update the Argo CD repository"
	errDelete          = "cannot delete the Argo CD repository"
	errFmtNotOwned     = "Argo CD repository %q of project %q exists and is not managed by this resource (its name is %q, not %q): it was left untouched. Remove it in Argo CD, or give it that name to let this resource adopt it"
	errFmtExists       = "Argo CD repository %q of project %q already exists with other settings and is not managed by this resource: it was left untouched"
	errFmtNeedsKeys    = "spec.forProvider.credentialsSecretRef: Secret %s/%s has no key %s: %s"
	errFmtExternalName = "annotation %s %q is not spec.forProvider.url %q: an ArgoRepository's external name is its URL; remove the annotation"
	errFmtSSHOnly      = "spec.forProvider.credentialsSecretRef: Secret %s/%s holds %s, but %q is not an SSH URL (ssh://… or user@host:path): an SSH key is used only over SSH"
	// errFmtNotOptedIn names the Secret and the label, never a value.
	errFmtNotOptedIn = "spec.forProvider.credentialsSecretRef: Secret %[2]q in namespace %[1]q has not consented to being registered in Argo CD, which sends it to the repository URL: " +
		"whoever owns the Secret (someone allowed to read it, not the author of this resource) must label it: " +
		"kubectl label secret -n %[1]s %[2]s %[3]s=%[4]s. Nothing was sent to Argo CD; a repository already registered is left as it is"
	errFmtURLNotListed = "spec.forProvider.credentialsSecretRef: Secret %[2]q in namespace %[1]q consents to being sent only to the repositories its annotation %[3]s lists, and this one is not among them: " +
		"whoever owns the Secret may add it. Nothing was sent to Argo CD; a repository already registered is left as it is"
)

// Secrets reads a Secret of the resource's namespace.
type Secrets interface {
	Secret(ctx context.Context, namespace, name string) (*corev1.Secret, error)
}

type external struct {
	client  Client
	secrets Secrets
	// tenancy, when set, limits the repository to its namespace's
	// projects.
	tenancy *argoaccess.Tenancy
	now     func() time.Time
	// mayRefresh is true when a forced connection test may be asked for
	// now (they are rate-limited per Argo CD); nil allows every one.
	mayRefresh func() bool
}

// Marker is the Argo CD repository name that marks it as managed by cr. The
// API keeps no labels on repositories; the name is the one free field it
// returns.
func Marker(cr *v1alpha1.ArgoRepository) string {
	return "provider-devops " + cr.GetNamespace() + "/" + cr.GetName()
}

// IsSSH is true for an SSH repository URL (ssh://… or user@host:path).
func IsSSH(u string) bool {
	return strings.HasPrefix(u, "ssh://") || (!strings.Contains(u, "://") && strings.Contains(u, "@"))
}

func repoType(t v1alpha1.RepositoryType) string {
	if t == "" {
		return string(v1alpha1.RepositoryGit)
	}
	return string(t)
}

// credentials are what the Secret holds for the repository, and the
// Secret's version. Secret: never log or print them.
type credentials struct {
	username, password, sshPrivateKey string
	version                           string
}

// OptedIn reports whether s consents to being registered in Argo CD: the
// label contract.LabelGitRepository set to "true". Whoever can label a
// Secret can read it already; whoever can only create an ArgoRepository
// (or a DevOpsProject) in its namespace may not have been allowed to, and
// chooses the URL Argo CD sends the Secret to.
func OptedIn(s *corev1.Secret) bool {
	return contract.GitRepositoryConsented(s.GetLabels())
}

// credentialsOf reads and checks the credentials Secret, which must have
// opted in (OptedIn) before any value is read; nil without one.
func (e *external) credentialsOf(ctx context.Context, cr *v1alpha1.ArgoRepository) (*credentials, error) {
	ref := cr.Spec.ForProvider.CredentialsSecretRef
	if ref == nil {
		return nil, nil
	}
	ns := cr.GetNamespace()
	s, err := e.secrets.Secret(ctx, ns, ref.Name)
	if err != nil {
		return nil, err
	}
	if !OptedIn(s) {
		return nil, errors.Errorf(errFmtNotOptedIn, ns, ref.Name, contract.LabelGitRepository, contract.ValueGitRepository)
	}
	if !contract.GitRepositoryURLConsented(s.GetAnnotations(), meta.GetExternalName(cr)) {
		return nil, errors.Errorf(errFmtURLNotListed, ns, ref.Name, contract.AnnotationGitRepositoryURLs)
	}
	c := &credentials{
		username:      string(s.Data[v1alpha1.RepositoryKeyUsername]),
		password:      string(s.Data[v1alpha1.RepositoryKeyPassword]),
		sshPrivateKey: string(s.Data[v1alpha1.RepositoryKeySSHPrivateKey]),
		version:       string(s.GetUID()) + "/" + s.GetResourceVersion(),
	}
	url := meta.GetExternalName(cr)
	switch {
	case IsSSH(url) && c.sshPrivateKey == "":
		return nil, errors.Errorf(errFmtNeedsKeys, ns, ref.Name, v1alpha1.RepositoryKeySSHPrivateKey, "an SSH repository needs its private key")
	case IsSSH(url):
		c.username, c.password = "", ""
	case c.sshPrivateKey != "":
		return nil, errors.Errorf(errFmtSSHOnly, ns, ref.Name, v1alpha1.RepositoryKeySSHPrivateKey, url)
	case c.username == "":
		return nil, errors.Errorf(errFmtNeedsKeys, ns, ref.Name, v1alpha1.RepositoryKeyUsername, "an https repository needs username and password")
	case c.password == "":
		return nil, errors.Errorf(errFmtNeedsKeys, ns, ref.Name, v1alpha1.RepositoryKeyPassword, "an https repository needs username and password")
	}
	return c, nil
}

// Desired is the repository cr asks for, with creds (nil: none).
func Desired(cr *v1alpha1.ArgoRepository, creds *credentials) *argocd.Repository {
	p := cr.Spec.ForProvider
	r := &argocd.Repository{
		Repo: meta.GetExternalName(cr), Type: repoType(p.Type), Name: Marker(cr), Project: p.Project,
		Insecure: p.Insecure, EnableLFS: p.EnableLFS,
	}
	if creds != nil {
		r.Username, r.Password, r.SSHPrivateKey = creds.username, creds.password, creds.sshPrivateKey
	}
	return r
}

// Observe reads the repository once, and the credentials Secret's version.
func (e *external) Observe(ctx context.Context, cr *v1alpha1.ArgoRepository) (managed.ExternalObservation, error) {
	url, project := meta.GetExternalName(cr), cr.Spec.ForProvider.Project
	// The external name is the URL; an annotation naming another one
	// would bypass spec.forProvider.url's validation and immutability.
	if !argocd.SameRepoURL(url, cr.Spec.ForProvider.URL) {
		if meta.WasDeleted(cr) {
			return managed.ExternalObservation{ResourceExists: false}, nil
		}
		return managed.ExternalObservation{}, errors.Errorf(errFmtExternalName, meta.AnnotationKeyExternalName, url, cr.Spec.ForProvider.URL)
	}
	r, refreshWaits, err := e.get(ctx, cr, url, project)
	if argocd.IsNotFound(err) {
		return managed.ExternalObservation{ResourceExists: false}, nil
	}
	if err != nil {
		return managed.ExternalObservation{}, errors.Wrap(err, errGet)
	}
	if r.Name != Marker(cr) {
		if exists, err := e.another(ctx, cr, r); !exists || err != nil {
			return managed.ExternalObservation{ResourceExists: exists}, err
		}
	}
	o := &cr.Status.AtProvider
	o.ConnectionStatus, o.ConnectionMessage = r.ConnectionState.Status, r.ConnectionState.Message
	cr.SetConditions(connection(r.ConnectionState, refreshWaits))
	if meta.WasDeleted(cr) {
		return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, nil
	}
	creds, err := e.credentialsOf(ctx, cr)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	diff := drift(r, Desired(cr, creds))
	// Argo CD never returns credentials: what was written is known by the
	// Secret's version recorded at the last write.
	if v := version(creds); v != o.CredentialsVersion {
		diff = append(diff, "credentials: the Secret changed since they were last written")
	}
	return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: len(diff) == 0, Diff: strings.Join(diff, "; ")}, nil
}

// get reads the repository, and again with a forced connection test when
// the last one may predate the provider's last write and the limiter lets
// it (refreshWaits when it does not).
func (e *external) get(ctx context.Context, cr *v1alpha1.ArgoRepository, url, project string) (r *argocd.Repository, refreshWaits bool, err error) {
	r, err = e.client.GetRepository(ctx, url, project, false)
	if err != nil || !stale(r.ConnectionState, cr.Status.AtProvider.WrittenAt) {
		return r, false, err
	}
	if e.mayRefresh != nil && !e.mayRefresh() {
		return r, true, nil
	}
	r, err = e.client.GetRepository(ctx, url, project, true)
	return r, false, err
}

// another says what a repository this resource does not own is to it:
// gone for a resource being deleted, an error for one that may write it,
// and for an observe-only one the repository itself, unless it belongs
// to another namespace's project (not shown).
func (e *external) another(ctx context.Context, cr *v1alpha1.ArgoRepository, r *argocd.Repository) (exists bool, err error) {
	switch {
	case meta.WasDeleted(cr):
		return false, nil
	case mrcontroller.MayWrite(cr):
		return false, errors.Errorf(errFmtNotOwned, meta.GetExternalName(cr), cr.Spec.ForProvider.Project, r.Name, Marker(cr))
	}
	if err := e.tenancy.CheckProject(ctx, e.client, "spec.forProvider.project", cr.Spec.ForProvider.Project); err != nil {
		return false, err
	}
	return true, nil
}

// connection is the Ready condition Argo CD's connection test gives.
func connection(s argocd.ConnectionState, refreshWaits bool) xpv2.Condition {
	if s.Status != argocd.ConnectionFailed {
		return xpv2.Available()
	}
	msg := "Argo CD cannot connect to the repository: " + s.Message
	if refreshWaits {
		msg += fmt.Sprintf(" (tested before the last write; Argo CD is asked to test again within %s)", RefreshEvery)
	}
	return xpv2.Unavailable().WithMessage(msg)
}

// drift is how the repository's managed fields differ from want.
func drift(r *argocd.Repository, want *argocd.Repository) []string {
	var diff []string
	if repoType(v1alpha1.RepositoryType(r.Type)) != want.Type {
		diff = append(diff, fmt.Sprintf("type: want %q, got %q", want.Type, r.Type))
	}
	if r.Insecure != want.Insecure {
		diff = append(diff, fmt.Sprintf("insecure: want %v, got %v", want.Insecure, r.Insecure))
	}
	if r.EnableLFS != want.EnableLFS {
		diff = append(diff, fmt.Sprintf("enableLfs: want %v, got %v", want.EnableLFS, r.EnableLFS))
	}
	if r.Name != want.Name {
		diff = append(diff, fmt.Sprintf("name: want %q, got %q", want.Name, r.Name))
	}
	return diff
}

// stale is true for a failed connection test that may predate the
// provider's last write, which Argo CD answers from its cache. Both times
// have whole seconds: a test in the same second counts as earlier.
func stale(s argocd.ConnectionState, written *metav1.Time) bool {
	return s.Status == argocd.ConnectionFailed && written != nil && (s.AttemptedAt == nil || !s.AttemptedAt.After(written.Time))
}

func version(c *credentials) string {
	if c == nil {
		return ""
	}
	return c.version
}

// Create registers the repository with its credentials.
func (e *external) Create(ctx context.Context, cr *v1alpha1.ArgoRepository) (managed.ExternalCreation, error) {
	if err := e.tenancy.CheckProject(ctx, e.client, "spec.forProvider.project", cr.Spec.ForProvider.Project); err != nil {
		return managed.ExternalCreation{}, err
	}
	creds, err := e.credentialsOf(ctx, cr)
	if err != nil {
		return managed.ExternalCreation{}, err
	}
	cr.SetConditions(xpv2.Creating())
	err = e.client.CreateRepository(ctx, Desired(cr, creds))
	if argocd.IsAlreadyExists(err) {
		return managed.ExternalCreation{}, errors.Errorf(errFmtExists, meta.GetExternalName(cr), cr.Spec.ForProvider.Project)
	}
	if err != nil {
		return managed.ExternalCreation{}, errors.Wrap(err, errCreate)
	}
	e.written(cr, creds)
	return managed.ExternalCreation{}, nil
}

// Update writes the settings and the credentials again.
func (e *external) Update(ctx context.Context, cr *v1alpha1.ArgoRepository) (managed.ExternalUpdate, error) {
	if err := e.tenancy.CheckProject(ctx, e.client, "spec.forProvider.project", cr.Spec.ForProvider.Project); err != nil {
		return managed.ExternalUpdate{}, err
	}
	creds, err := e.credentialsOf(ctx, cr)
	if err != nil {
		return managed.ExternalUpdate{}, err
	}
	if err := e.client.UpdateRepository(ctx, Desired(cr, creds)); err != nil {
		return managed.ExternalUpdate{}, errors.Wrap(err, errUpdate)
	}
	e.written(cr, creds)
	return managed.ExternalUpdate{}, nil
}

func (e *external) written(cr *v1alpha1.ArgoRepository, creds *credentials) {
	now := metav1.NewTime(e.now().Truncate(time.Second))
	cr.Status.AtProvider.CredentialsVersion = version(creds)
	cr.Status.AtProvider.WrittenAt = &now
}

// Delete removes the repository and its credentials from Argo CD.
func (e *external) Delete(ctx context.Context, cr *v1alpha1.ArgoRepository) (managed.ExternalDelete, error) {
	cr.SetConditions(xpv2.Deleting())
	err := e.client.DeleteRepository(ctx, meta.GetExternalName(cr), cr.Spec.ForProvider.Project)
	if argocd.IsNotFound(err) {
		err = nil
	}
	return managed.ExternalDelete{}, errors.Wrap(err, errDelete)
}

// Disconnect has nothing to release.
func (e *external) Disconnect(context.Context) error { return nil }

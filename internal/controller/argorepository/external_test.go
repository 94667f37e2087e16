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
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/controller/argoaccess"
)

// mockClient is an Argo CD holding repositories and projects; it records
// what was written.
type mockClient struct {
	repos    map[string]*argocd.Repository // by project + " " + url
	projects map[string]*argocd.Project
	getErr   error
	refresh  []bool
	written  []argocd.Repository
	deleted  []string
}

func (m *mockClient) GetRepository(_ context.Context, repo, project string, refresh bool) (*argocd.Repository, error) {
	m.refresh = append(m.refresh, refresh)
	if m.getErr != nil {
		return nil, m.getErr
	}
	if r, ok := m.repos[project+" "+repo]; ok {
		c := *r
		if refresh {
			c.ConnectionState = argocd.ConnectionState{Status: argocd.ConnectionSuccessful}
		}
		return &c, nil
	}
	return nil, &httpapi.Error{Backend: "Argo CD", Status: http.StatusNotFound, Code: "5"}
}

func (m *mockClient) CreateRepository(_ context.Context, r *argocd.Repository) error {
	if _, ok := m.repos[r.Project+" "+r.Repo]; ok {
		return &httpapi.Error{Backend: "Argo CD", Status: http.StatusBadRequest, Code: "3", Message: "existing repository spec is different; use upsert flag to force update"}
	}
	m.written = append(m.written, *r)
	return nil
}

func (m *mockClient) UpdateRepository(_ context.Context, r *argocd.Repository) error {
	m.written = append(m.written, *r)
	return nil
}

func (m *mockClient) DeleteRepository(_ context.Context, repo, project string) error {
	m.deleted = append(m.deleted, project+" "+repo)
	return nil
}

func (m *mockClient) GetProject(_ context.Context, name string) (*argocd.Project, error) {
	if p, ok := m.projects[name]; ok {
		return p, nil
	}
	return nil, &httpapi.Error{Backend: "Argo CD", Status: http.StatusNotFound, Code: "5"}
}

type secrets map[string]*corev1.Secret

func (s secrets) Secret(_ context.Context, namespace, name string) (*corev1.Secret, error) {
	if v, ok := s[namespace+"/"+name]; ok {
		return v, nil
	}
	return nil, &notFound{}
}

type notFound struct{}

func (notFound) Error() string { return "spec.forProvider.credentialsSecretRef: Secret not found" }

const (
	httpsURL = "https://git.example.com/team/shop.git"
	sshURL   = "git@git.example.com:team/shop.git"
)

func repository(url string, mod ...func(*v1alpha1.ArgoRepository)) *v1alpha1.ArgoRepository {
	cr := &v1alpha1.ArgoRepository{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team-a"}}
	cr.Spec.ForProvider = v1alpha1.ArgoRepositoryParameters{URL: url, Project: "team-a-shop", CredentialsSecretRef: &v1alpha1.RepositorySecretReference{Name: "git"}}
	meta.SetExternalName(cr, url)
	for _, f := range mod {
		f(cr)
	}
	return cr
}

// secret is the Secret "git", opted in to Argo CD, holding data.
func secret(data map[string]string, rv string, mod ...func(*corev1.Secret)) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "git", Namespace: "team-a", UID: types.UID("uid"), ResourceVersion: rv,
		Labels: map[string]string{contract.LabelGitRepository: "true"}}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	for _, f := range mod {
		f(s)
	}
	return s
}

// labelled sets the opt-in label to v; "" removes it. Another label stays.
func labelled(v string) func(*corev1.Secret) {
	return func(s *corev1.Secret) {
		s.Labels = map[string]string{"app": "git", contract.LabelJenkinsCredential: "true"}
		if v != "" {
			s.Labels[contract.LabelGitRepository] = v
		}
	}
}

// urls annotates the Secret with the repositories it consents to.
func urls(list string) func(*corev1.Secret) {
	return func(s *corev1.Secret) {
		s.Annotations = map[string]string{contract.AnnotationGitRepositoryURLs: list}
	}
}

// errNotListed is the refusal of a Secret whose annotation does not list
// the repository.
const errNotListed = `Secret "git" in namespace "team-a" consents to being sent only to the repositories its annotation devops.freeleaps.io/git-repository-urls lists, and this one is not among them`

// errNotOptedIn is the refusal of a Secret without the label: it names the
// Secret, the label and who adds it.
const errNotOptedIn = `Secret "git" in namespace "team-a" has not consented to being registered in Argo CD, which sends it to the repository URL: ` +
	`whoever owns the Secret (someone allowed to read it, not the author of this resource) must label it: ` +
	`kubectl label secret -n team-a git devops.freeleaps.io/git-repository=true. Nothing was sent to Argo CD; a repository already registered is left as it is`

func ours(url string, state string) *argocd.Repository {
	return &argocd.Repository{Repo: url, Type: "git", Name: "provider-devops team-a/shop", Project: "team-a-shop", ConnectionState: argocd.ConnectionState{Status: state}}
}

var writtenAt = metav1.NewTime(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))

func TestObserve(t *testing.T) {
	https := secrets{"team-a/git": secret(map[string]string{"username": "ci", "password": "s3cret"}, "7")}
	before := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	type want struct {
		obs     managed.ExternalObservation
		err     string
		ready   corev1.ConditionStatus
		refresh []bool
	}
	cases := map[string]struct {
		reason    string
		cr        *v1alpha1.ArgoRepository
		repos     map[string]*argocd.Repository
		projects  map[string]*argocd.Project
		getErr    error
		secrets   secrets
		noRefresh bool
		want      want
	}{
		"Absent": {
			reason: "A repository Argo CD does not list does not exist: it is created.",
			cr:     repository(httpsURL), secrets: https,
			want: want{obs: managed.ExternalObservation{}, refresh: []bool{false}},
		},
		"GetFails": {
			reason: "A failed read is an error, never 'absent'.",
			cr:     repository(httpsURL), getErr: &httpapi.Error{Backend: "Argo CD", Status: 503, Message: "unavailable"},
			want: want{err: errGet, refresh: []bool{false}},
		},
		"UpToDate": {
			reason: "Settings match and the Secret is the one last written: up to date, Ready, one read.",
			cr:     repository(httpsURL, func(cr *v1alpha1.ArgoRepository) { cr.Status.AtProvider.CredentialsVersion = "uid/7" }),
			repos:  map[string]*argocd.Repository{"team-a-shop " + httpsURL: ours(httpsURL, argocd.ConnectionSuccessful)}, secrets: https,
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, ready: corev1.ConditionTrue, refresh: []bool{false}},
		},
		"SecretChanged": {
			reason: "A Secret changed since the last write is drift: credentials are written again.",
			cr:     repository(httpsURL, func(cr *v1alpha1.ArgoRepository) { cr.Status.AtProvider.CredentialsVersion = "uid/6" }),
			repos:  map[string]*argocd.Repository{"team-a-shop " + httpsURL: ours(httpsURL, argocd.ConnectionSuccessful)}, secrets: https,
			want: want{obs: managed.ExternalObservation{ResourceExists: true, Diff: "credentials: the Secret changed since they were last written"}, ready: corev1.ConditionTrue, refresh: []bool{false}},
		},
		"SettingsDrift": {
			reason: "insecure turned on in Argo CD is drift.",
			cr:     repository(httpsURL, func(cr *v1alpha1.ArgoRepository) { cr.Status.AtProvider.CredentialsVersion = "uid/7" }),
			repos: map[string]*argocd.Repository{"team-a-shop " + httpsURL: func() *argocd.Repository {
				r := ours(httpsURL, argocd.ConnectionSuccessful)
				r.Insecure = true
				return r
			}()}, secrets: https,
			want: want{obs: managed.ExternalObservation{ResourceExists: true, Diff: "insecure: want false, got true"}, ready: corev1.ConditionTrue, refresh: []bool{false}},
		},
		"ConnectionFailed": {
			reason: "A failed connection test after the last write: not Ready, no refresh.",
			cr: repository(httpsURL, func(cr *v1alpha1.ArgoRepository) {
				cr.Status.AtProvider.CredentialsVersion = "uid/7"
			}),
			repos: map[string]*argocd.Repository{"team-a-shop " + httpsURL: ours(httpsURL, argocd.ConnectionFailed)}, secrets: https,
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, ready: corev1.ConditionFalse, refresh: []bool{false}},
		},
		"StaleFailure": {
			reason: "A failure Argo CD cached before the last write is tested again, once.",
			cr: repository(httpsURL, func(cr *v1alpha1.ArgoRepository) {
				cr.Status.AtProvider.CredentialsVersion = "uid/7"
				cr.Status.AtProvider.WrittenAt = &writtenAt
			}),
			repos: map[string]*argocd.Repository{"team-a-shop " + httpsURL: func() *argocd.Repository {
				r := ours(httpsURL, argocd.ConnectionFailed)
				r.ConnectionState.AttemptedAt = &before
				return r
			}()}, secrets: https,
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, ready: corev1.ConditionTrue, refresh: []bool{false, true}},
		},
		"StaleFailureRefreshLimited": {
			reason: "Another refresh ran less than a minute ago (Argo CD's tests every repository): the cached failure is shown, saying it is retested soon.",
			cr: repository(httpsURL, func(cr *v1alpha1.ArgoRepository) {
				cr.Status.AtProvider.CredentialsVersion = "uid/7"
				cr.Status.AtProvider.WrittenAt = &writtenAt
			}),
			repos: map[string]*argocd.Repository{"team-a-shop " + httpsURL: func() *argocd.Repository {
				r := ours(httpsURL, argocd.ConnectionFailed)
				r.ConnectionState.AttemptedAt = &before
				return r
			}()}, secrets: https, noRefresh: true,
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, ready: corev1.ConditionFalse, refresh: []bool{false}},
		},
		"NotOurs": {
			reason: "A repository someone else registered is refused, never adopted.",
			cr:     repository(httpsURL),
			repos:  map[string]*argocd.Repository{"team-a-shop " + httpsURL: {Repo: httpsURL, Name: "platform", Project: "team-a-shop"}},
			want:   want{err: `is not managed by this resource (its name is "platform"`, refresh: []bool{false}},
		},
		"NotOursDeleted": {
			reason: "Being deleted, a repository it cannot prove is its own is let go.",
			cr:     repository(httpsURL, func(cr *v1alpha1.ArgoRepository) { cr.SetDeletionTimestamp(&metav1.Time{Time: before}) }),
			repos:  map[string]*argocd.Repository{"team-a-shop " + httpsURL: {Repo: httpsURL, Name: "platform", Project: "team-a-shop"}},
			want:   want{obs: managed.ExternalObservation{}, refresh: []bool{false}},
		},
		"ExternalNameNotURL": {
			reason: "An external-name annotation naming another URL would bypass spec.forProvider.url's pattern and immutability: refused before any read.",
			cr: repository(httpsURL, func(cr *v1alpha1.ArgoRepository) {
				meta.SetExternalName(cr, "https://git.example.com/platform/secrets.git")
			}),
			want: want{err: `annotation crossplane.io/external-name "https://git.example.com/platform/secrets.git" is not spec.forProvider.url`},
		},
		"ExternalNameSameURL": {
			reason: "An external name that is the same URL written differently (trailing .git) is the same repository.",
			cr: repository(httpsURL, func(cr *v1alpha1.ArgoRepository) {
				meta.SetExternalName(cr, strings.TrimSuffix(httpsURL, ".git"))
			}),
			secrets: https,
			want:    want{obs: managed.ExternalObservation{}, refresh: []bool{false}},
		},
		"ObserveOnlyOtherNamespace": {
			reason: "Observe-only, a repository registered for another namespace's project is not shown: its status would tell this tenant about it.",
			cr: repository(httpsURL, func(cr *v1alpha1.ArgoRepository) {
				cr.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
				cr.Spec.ForProvider.Project = "team-b-shop"
			}),
			repos:    map[string]*argocd.Repository{"team-b-shop " + httpsURL: {Repo: httpsURL, Name: "provider-devops team-b/shop", Project: "team-b-shop"}},
			projects: map[string]*argocd.Project{"team-b-shop": {Metadata: argocd.ObjectMeta{Name: "team-b-shop", Labels: map[string]string{contract.LabelOwnerNamespace: "team-b"}}}},
			want:     want{err: `belongs to namespace "team-b"`, refresh: []bool{false}},
		},
		"SSHKeyOverHTTPS": {
			reason:  "An SSH key for an https URL is refused with the key named.",
			cr:      repository(httpsURL),
			repos:   map[string]*argocd.Repository{"team-a-shop " + httpsURL: ours(httpsURL, argocd.ConnectionSuccessful)},
			secrets: secrets{"team-a/git": secret(map[string]string{"sshPrivateKey": "KEY"}, "1")},
			want:    want{err: "holds sshPrivateKey, but", ready: corev1.ConditionTrue, refresh: []bool{false}},
		},
		"SSHWithoutKey": {
			reason:  "An SSH URL needs sshPrivateKey.",
			cr:      repository(sshURL),
			repos:   map[string]*argocd.Repository{"team-a-shop " + sshURL: ours(sshURL, argocd.ConnectionSuccessful)},
			secrets: secrets{"team-a/git": secret(map[string]string{"password": "p"}, "1")},
			want:    want{err: "has no key sshPrivateKey", ready: corev1.ConditionTrue, refresh: []bool{false}},
		},
		"NotOptedIn": {
			reason:  "A Secret without the opt-in label (the Jenkins one does not count) is refused before a value is read, naming the label and who adds it; the registered repository is left as it is.",
			cr:      repository(httpsURL, func(cr *v1alpha1.ArgoRepository) { cr.Status.AtProvider.CredentialsVersion = "uid/6" }),
			repos:   map[string]*argocd.Repository{"team-a-shop " + httpsURL: ours(httpsURL, argocd.ConnectionSuccessful)},
			secrets: secrets{"team-a/git": secret(map[string]string{"username": "ci", "password": "s3cret"}, "7", labelled(""))},
			want:    want{err: errNotOptedIn, ready: corev1.ConditionTrue, refresh: []bool{false}},
		},
		"URLNotListed": {
			reason:  "A Secret whose annotation does not list the repository is refused before a value is read; the registered repository is left as it is.",
			cr:      repository(httpsURL),
			repos:   map[string]*argocd.Repository{"team-a-shop " + httpsURL: ours(httpsURL, argocd.ConnectionSuccessful)},
			secrets: secrets{"team-a/git": secret(map[string]string{"username": "ci", "password": "s3cret"}, "7", urls(""))},
			want:    want{err: errNotListed, ready: corev1.ConditionTrue, refresh: []bool{false}},
		},
		"OptInOtherValue": {
			reason:  "Only the value \"true\" consents.",
			cr:      repository(httpsURL),
			secrets: secrets{"team-a/git": secret(map[string]string{"username": "ci", "password": "s3cret"}, "7", labelled("yes"))},
			repos:   map[string]*argocd.Repository{"team-a-shop " + httpsURL: ours(httpsURL, argocd.ConnectionSuccessful)},
			want:    want{err: errNotOptedIn, ready: corev1.ConditionTrue, refresh: []bool{false}},
		},
		"DeletedNotOptedIn": {
			reason:  "Deleting needs no consent: the resource's own repository is found, to be deleted, after the label was removed.",
			cr:      repository(httpsURL, func(cr *v1alpha1.ArgoRepository) { cr.SetDeletionTimestamp(&metav1.Time{Time: before}) }),
			repos:   map[string]*argocd.Repository{"team-a-shop " + httpsURL: ours(httpsURL, argocd.ConnectionSuccessful)},
			secrets: secrets{"team-a/git": secret(map[string]string{"username": "ci", "password": "s3cret"}, "7", labelled(""))},
			want:    want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, ready: corev1.ConditionTrue, refresh: []bool{false}},
		},
		"HTTPSWithoutPassword": {
			reason:  "An https URL needs username and password.",
			cr:      repository(httpsURL),
			repos:   map[string]*argocd.Repository{"team-a-shop " + httpsURL: ours(httpsURL, argocd.ConnectionSuccessful)},
			secrets: secrets{"team-a/git": secret(map[string]string{"username": "ci"}, "1")},
			want:    want{err: "has no key password", ready: corev1.ConditionTrue, refresh: []bool{false}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := &mockClient{repos: tc.repos, projects: tc.projects, getErr: tc.getErr}
			e := &external{client: m, secrets: tc.secrets, now: time.Now, tenancy: &argoaccess.Tenancy{Namespace: "team-a"}}
			if tc.noRefresh {
				e.mayRefresh = func() bool { return false }
			}
			got, err := e.Observe(context.Background(), tc.cr)
			if (err == nil) != (tc.want.err == "") || (err != nil && !strings.Contains(err.Error(), tc.want.err)) {
				t.Fatalf("%s\nObserve(...): want error containing %q, got %v", tc.reason, tc.want.err, err)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("%s\nObserve(...): the error holds the Secret's value: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want.obs, got); diff != "" && err == nil {
				t.Errorf("%s\nObserve(...): -want, +got:\n%s", tc.reason, diff)
			}
			if tc.want.ready != "" {
				if got := tc.cr.GetCondition(xpv2.TypeReady).Status; got != tc.want.ready {
					t.Errorf("%s\nReady: want %s, got %s", tc.reason, tc.want.ready, got)
				}
			}
			if diff := cmp.Diff(tc.want.refresh, m.refresh); diff != "" {
				t.Errorf("%s\nreads (refresh?): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestWrite(t *testing.T) {
	now := func() time.Time { return writtenAt.Time }
	own := map[string]*argocd.Project{"team-a-shop": {Metadata: argocd.ObjectMeta{Labels: map[string]string{contract.LabelOwnerNamespace: "team-a"}}}}
	other := map[string]*argocd.Project{"team-a-shop": {Metadata: argocd.ObjectMeta{Labels: map[string]string{contract.LabelOwnerNamespace: "team-b"}}}}
	ssh := secrets{"team-a/git": secret(map[string]string{"sshPrivateKey": "KEY", "username": "ignored", "password": "ignored"}, "3")}
	cases := map[string]struct {
		reason   string
		cr       *v1alpha1.ArgoRepository
		repos    map[string]*argocd.Repository
		projects map[string]*argocd.Project
		tenancy  *argoaccess.Tenancy
		secrets  secrets
		update   bool
		want     []argocd.Repository
		err      string
	}{
		"CreateSSH": {
			reason: "An SSH repository is written with its key only, named by its owner, for its project; the Secret's version is recorded.",
			cr:     repository(sshURL), secrets: ssh,
			want: []argocd.Repository{{Repo: sshURL, Type: "git", Name: "provider-devops team-a/shop", Project: "team-a-shop", SSHPrivateKey: "KEY"}},
		},
		"CreatePublic": {
			reason: "Without a Secret, a public repository: no credentials.",
			cr: repository(httpsURL, func(cr *v1alpha1.ArgoRepository) {
				cr.Spec.ForProvider.CredentialsSecretRef = nil
				cr.Spec.ForProvider.EnableLFS = true
			}),
			want: []argocd.Repository{{Repo: httpsURL, Type: "git", Name: "provider-devops team-a/shop", Project: "team-a-shop", EnableLFS: true}},
		},
		"CreateExists": {
			reason: "Argo CD refusing a create over another repository is said so.",
			cr:     repository(httpsURL, func(cr *v1alpha1.ArgoRepository) { cr.Spec.ForProvider.CredentialsSecretRef = nil }),
			repos:  map[string]*argocd.Repository{"team-a-shop " + httpsURL: {}},
			err:    "already exists with other settings and is not managed by this resource",
		},
		"TenantOwnProject": {
			reason: "Through a ClusterProviderConfig, the namespace's own project is fine.",
			cr:     repository(sshURL), secrets: ssh, projects: own, tenancy: &argoaccess.Tenancy{Namespace: "team-a"},
			want: []argocd.Repository{{Repo: sshURL, Type: "git", Name: "provider-devops team-a/shop", Project: "team-a-shop", SSHPrivateKey: "KEY"}},
		},
		"TenantOtherProject": {
			reason: "Through a ClusterProviderConfig, another namespace's project is refused before anything is written.",
			cr:     repository(sshURL), secrets: ssh, projects: other, tenancy: &argoaccess.Tenancy{Namespace: "team-a"},
			err: `belongs to namespace "team-b"`,
		},
		"UpdateTenantOtherProject": {
			reason: "The same holds for an update.",
			cr:     repository(sshURL), secrets: ssh, projects: other, tenancy: &argoaccess.Tenancy{Namespace: "team-a"}, update: true,
			err: `belongs to namespace "team-b"`,
		},
		"CreateURLNotListed": {
			reason:  "Nothing is registered with a Secret whose annotation lists other repositories.",
			cr:      repository(sshURL),
			secrets: secrets{"team-a/git": secret(map[string]string{"sshPrivateKey": "KEY"}, "3", urls("https://git.example.com/other/"))},
			err:     errNotListed,
		},
		"CreateURLListed": {
			reason:  "A Secret whose annotation lists the repository registers it.",
			cr:      repository(sshURL),
			secrets: secrets{"team-a/git": secret(map[string]string{"sshPrivateKey": "KEY"}, "3", urls("https://git.example.com/other/ "+sshURL))},
			want:    []argocd.Repository{{Repo: sshURL, Type: "git", Name: "provider-devops team-a/shop", Project: "team-a-shop", SSHPrivateKey: "KEY"}},
		},
		"CreateNotOptedIn": {
			reason:  "Nothing is registered with a Secret without the opt-in label.",
			cr:      repository(sshURL),
			secrets: secrets{"team-a/git": secret(map[string]string{"sshPrivateKey": "KEY"}, "3", labelled(""))},
			err:     errNotOptedIn,
		},
		"UpdateNotOptedIn": {
			reason:  "A Secret whose label was removed is not written again: the registered repository keeps what it had.",
			cr:      repository(sshURL),
			secrets: secrets{"team-a/git": secret(map[string]string{"sshPrivateKey": "KEY"}, "4", labelled(""))}, update: true,
			err: errNotOptedIn,
		},
		"Update": {
			reason: "An update writes settings and credentials again.",
			cr:     repository(sshURL, func(cr *v1alpha1.ArgoRepository) { cr.Spec.ForProvider.Insecure = true }), secrets: ssh, update: true,
			want: []argocd.Repository{{Repo: sshURL, Type: "git", Name: "provider-devops team-a/shop", Project: "team-a-shop", SSHPrivateKey: "KEY", Insecure: true}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := &mockClient{repos: tc.repos, projects: tc.projects}
			e := &external{client: m, secrets: tc.secrets, tenancy: tc.tenancy, now: now}
			var err error
			if tc.update {
				_, err = e.Update(context.Background(), tc.cr)
			} else {
				_, err = e.Create(context.Background(), tc.cr)
			}
			if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("%s\nwant error containing %q, got %v", tc.reason, tc.err, err)
			}
			if diff := cmp.Diff(tc.want, m.written); diff != "" {
				t.Errorf("%s\nwritten: -want, +got:\n%s", tc.reason, diff)
			}
			if err == nil {
				o := tc.cr.Status.AtProvider
				wantVersion := ""
				if tc.cr.Spec.ForProvider.CredentialsSecretRef != nil {
					wantVersion = "uid/3"
				}
				if o.CredentialsVersion != wantVersion || o.WrittenAt == nil || !o.WrittenAt.Equal(&writtenAt) {
					t.Errorf("%s\nstatus after the write: %+v", tc.reason, o)
				}
			}
		})
	}
}

func TestDelete(t *testing.T) {
	m := &mockClient{}
	e := &external{client: m}
	if _, err := e.Delete(context.Background(), repository(httpsURL)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"team-a-shop " + httpsURL}, m.deleted); diff != "" {
		t.Errorf("deleted: -want, +got:\n%s", diff)
	}
}

func TestRefreshLimiter(t *testing.T) {
	now := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	l := NewRefreshLimiter(time.Minute, func() time.Time { return now })
	steps := []struct {
		after  time.Duration
		server string
		want   bool
	}{
		{0, "https://argocd-a", true},
		{10 * time.Second, "https://argocd-a", false}, // within the minute
		{0, "https://argocd-b", true},                 // another Argo CD
		{50 * time.Second, "https://argocd-a", true},  // a minute after the first
		{30 * time.Second, "https://argocd-a", false},
	}
	for i, s := range steps {
		now = now.Add(s.after)
		if got := l.Allow(s.server); got != s.want {
			t.Errorf("step %d (%s): Allow = %v, want %v", i, s.server, got, s.want)
		}
	}
}

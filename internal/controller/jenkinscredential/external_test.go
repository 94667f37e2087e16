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

package jenkinscredential

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

// The Secret's values: no test output, error, diff or status may hold
// them.
const (
	password    = "pw-never-recorded-7c1e"
	newPassword = "rotated-pw-never-recorded-9d2a"
)

var key = HashKey("jenkins-token", &v1alpha1.JenkinsCredential{ObjectMeta: metav1.ObjectMeta{UID: "uid-1"}})

func errStatus(status int) error {
	return &httpapi.Error{Status: status, Message: http.StatusText(status)}
}

// mockClient is a Jenkins holding at most one credential; it records every
// write.
type mockClient struct {
	cred *jenkins.Credential

	getErr, createErr, updateErr, deleteErr error

	created, updated []jenkins.Credential
	deleted          []string
}

func (m *mockClient) GetCredential(_ context.Context, _, _ string) (*jenkins.Credential, error) {
	if m.getErr != nil {
		return nil, m.getErr
	}
	if m.cred == nil {
		return nil, errStatus(http.StatusNotFound)
	}
	c := *m.cred
	c.Secrets = jenkins.CredentialSecrets{} // Jenkins never returns them
	return &c, nil
}

func (m *mockClient) CreateCredential(_ context.Context, _ string, c jenkins.Credential) error {
	m.created = append(m.created, c)
	return m.createErr
}

func (m *mockClient) UpdateCredential(_ context.Context, _ string, c jenkins.Credential) error {
	m.updated = append(m.updated, c)
	return m.updateErr
}

func (m *mockClient) DeleteCredential(_ context.Context, folder, id string) error {
	m.deleted = append(m.deleted, folder+"/"+id)
	return m.deleteErr
}

func (m *mockClient) CredentialURL(folder, id string) string {
	return "https://jenkins.example.com/job/" + folder + "/credentials/store/folder/domain/_/credential/" + id + "/"
}

func credential(mod ...func(*v1alpha1.JenkinsCredential)) *v1alpha1.JenkinsCredential {
	cr := &v1alpha1.JenkinsCredential{ObjectMeta: metav1.ObjectMeta{Name: "shop-git", Namespace: "team-a", UID: "uid-1"}}
	cr.Spec.ForProvider = v1alpha1.JenkinsCredentialParameters{Folder: "teams/team-a", Type: v1alpha1.CredentialUsernamePassword, Description: "git", SecretRef: v1alpha1.CredentialSecretRef{Name: "git"}}
	meta.SetExternalName(cr, "shop-git")
	for _, f := range mod {
		f(cr)
	}
	return cr
}

// wanted is the credential cr asks for with the Secret holding pw.
func wanted(cr *v1alpha1.JenkinsCredential, pw string) jenkins.Credential {
	return jenkins.Credential{ID: "shop-git", Type: jenkins.CredentialUsernamePassword, Description: cr.Spec.ForProvider.Description, Owner: Owner(cr), Username: "ci-bot", Secrets: jenkins.CredentialSecrets{Password: pw}}
}

// stored is the credential as Jenkins holds it after cr wrote pw.
func stored(cr *v1alpha1.JenkinsCredential, mod ...func(*jenkins.Credential)) *jenkins.Credential {
	c := wanted(cr, password)
	for _, f := range mod {
		f(&c)
	}
	return &c
}

func recorded(pw string) func(*v1alpha1.JenkinsCredential) {
	return func(cr *v1alpha1.JenkinsCredential) {
		cr.Status.AtProvider.SecretHash = Hash(key, wanted(cr, pw))
	}
}

func deleted(cr *v1alpha1.JenkinsCredential) {
	cr.SetDeletionTimestamp(&metav1.Time{Time: time.Now()})
	cr.SetFinalizers([]string{"finalizer.managedresource.crossplane.io"})
}

// gitSecret is the Secret "git", opted in to Jenkins, holding pw.
func gitSecret(pw string, mod ...func(*corev1.Secret)) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "git", Namespace: "team-a", Labels: map[string]string{contract.LabelJenkinsCredential: "true"}}, Data: map[string][]byte{"username": []byte("ci-bot"), "password": []byte(pw)}}
	for _, f := range mod {
		f(s)
	}
	return s
}

// labelled sets the opt-in label to v; "" removes it.
func labelled(v string) func(*corev1.Secret) {
	return func(s *corev1.Secret) {
		s.Labels = map[string]string{"app": "git"}
		if v != "" {
			s.Labels[contract.LabelJenkinsCredential] = v
		}
	}
}

// errNotOptedIn is the part of the refusal of a Secret without the label
// that says what to do.
const errNotOptedIn = `Secret "git" in namespace "team-a" has not consented to being copied into Jenkins`

// kube is an API server holding cr and objs.
func kube(t *testing.T, cr *v1alpha1.JenkinsCredential, objs ...client.Object) client.Client {
	t.Helper()
	c := fake.NewClientBuilder().WithScheme(controlplane.Scheme()).WithObjects(append(objs, cr.DeepCopy())...).WithStatusSubresource(cr).Build()
	stored := &v1alpha1.JenkinsCredential{}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(cr), stored); err != nil {
		t.Fatal(err)
	}
	cr.SetResourceVersion(stored.GetResourceVersion())
	return c
}

// noSecret fails t when any of parts (errors, diffs, status) holds one of
// the Secret's values.
func noSecret(t *testing.T, parts ...any) {
	t.Helper()
	for _, p := range parts {
		out := fmt.Sprintf("%+v", p)
		if e, ok := p.(error); ok && e != nil {
			out = e.Error()
		}
		for _, v := range []string{password, newPassword} {
			if strings.Contains(out, v) {
				t.Errorf("a Secret value is in %s", out)
			}
		}
	}
}

func TestObserve(t *testing.T) {
	type want struct {
		o      managed.ExternalObservation
		errHas string
		// diffHas is a part of the diff.
		diffHas string
		url     string
	}
	cases := map[string]struct {
		reason string
		cr     *v1alpha1.JenkinsCredential
		cred   *jenkins.Credential
		getErr error
		secret *corev1.Secret
		want   want
	}{
		"NotFound": {
			reason: "A credential Jenkins does not have does not exist; that is no error.",
			cr:     credential(),
			secret: gitSecret(password),
			want:   want{o: managed.ExternalObservation{ResourceExists: false}},
		},
		"GetFails": {
			reason: "Any other failure to read is an error.",
			cr:     credential(),
			getErr: errStatus(http.StatusServiceUnavailable),
			want:   want{errHas: errGet},
		},
		"UpToDate": {
			reason: "Our credential with the recorded hash of the Secret's values is up to date.",
			cr:     credential(recorded(password)),
			cred:   stored(credential()),
			secret: gitSecret(password),
			want:   want{o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, url: "https://jenkins.example.com/job/teams/team-a/credentials/store/folder/domain/_/credential/shop-git/"},
		},
		"Rotated": {
			reason: "A Secret whose values hash differently from those last written makes the credential outdated.",
			cr:     credential(recorded(password)),
			cred:   stored(credential()),
			secret: gitSecret(newPassword),
			want:   want{o: managed.ExternalObservation{ResourceExists: true}, diffHas: "secret values"},
		},
		"NeverRecorded": {
			reason: "No recorded hash (a status lost) means the values are written again.",
			cr:     credential(),
			cred:   stored(credential()),
			secret: gitSecret(password),
			want:   want{o: managed.ExternalObservation{ResourceExists: true}, diffHas: "secret values"},
		},
		"UsernameChanged": {
			reason: "A username in Jenkins other than the Secret's is drift, reported without either value.",
			cr:     credential(recorded(password)),
			cred:   stored(credential(), func(c *jenkins.Credential) { c.Username = "someone" }),
			secret: gitSecret(password),
			want:   want{o: managed.ExternalObservation{ResourceExists: true}, diffHas: "username differs"},
		},
		"TypeChanged": {
			reason: "Another type in Jenkins is drift.",
			cr:     credential(recorded(password)),
			cred:   stored(credential(), func(c *jenkins.Credential) { c.Type = jenkins.CredentialSecretText; c.Username = "" }),
			secret: gitSecret(password),
			want:   want{o: managed.ExternalObservation{ResourceExists: true}, diffHas: "type: secretText, want usernamePassword"},
		},
		"OwnedByOther": {
			reason: "A credential another resource manages is never taken over, even with adoptExisting.",
			cr:     credential(func(cr *v1alpha1.JenkinsCredential) { cr.Spec.ForProvider.AdoptExisting = true }),
			cred:   stored(credential(), func(c *jenkins.Credential) { c.Owner = "team-b/shop-git" }),
			secret: gitSecret(password),
			want:   want{errHas: "managed by JenkinsCredential team-b/shop-git"},
		},
		"UnownedNotAdopted": {
			reason: "A credential no resource manages is left alone without adoptExisting.",
			cr:     credential(),
			cred:   stored(credential(), func(c *jenkins.Credential) { c.Owner = "" }),
			secret: gitSecret(password),
			want:   want{errHas: "set spec.forProvider.adoptExisting"},
		},
		"UnownedAdopted": {
			reason: "With adoptExisting, a credential no resource manages is taken over: outdated until its owner line and values are written.",
			cr:     credential(func(cr *v1alpha1.JenkinsCredential) { cr.Spec.ForProvider.AdoptExisting = true }),
			cred:   stored(credential(), func(c *jenkins.Credential) { c.Owner = "" }),
			secret: gitSecret(password),
			want:   want{o: managed.ExternalObservation{ResourceExists: true}, diffHas: "owner line: missing"},
		},
		"DeletedOwnedByOther": {
			reason: "A resource being deleted lets go of a credential that was never its own.",
			cr:     credential(deleted),
			cred:   stored(credential(), func(c *jenkins.Credential) { c.Owner = "team-b/shop-git" }),
			want:   want{o: managed.ExternalObservation{ResourceExists: false}},
		},
		"DeletedWithoutSecret": {
			reason: "Deleting needs no values: a Secret already gone does not block the deletion.",
			cr:     credential(deleted),
			cred:   stored(credential()),
			want:   want{o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, url: "https://jenkins.example.com/job/teams/team-a/credentials/store/folder/domain/_/credential/shop-git/"},
		},
		"SecretMissing": {
			reason: "A missing Secret is an error naming it, to let the user fix it.",
			cr:     credential(),
			cred:   stored(credential()),
			want:   want{errHas: `Secret "git" (spec.forProvider.secretRef.name) not found in namespace "team-a"`},
		},
		"SecretKeyMissing": {
			reason: "A Secret without the key the type needs is an error naming the key and its field.",
			cr:     credential(),
			cred:   stored(credential()),
			secret: gitSecret(password, func(s *corev1.Secret) {
				s.Data = map[string][]byte{"username": []byte("ci-bot"), "pass": []byte(password)}
			}),
			want: want{errHas: `Secret "git" has no key "password" (spec.forProvider.secretRef.passwordKey)`},
		},
		"SecretNotOptedIn": {
			reason: "A Secret without the opt-in label is refused with the label to add and who adds it: the resource's author may not be allowed to read it.",
			cr:     credential(recorded(password)),
			cred:   stored(credential()),
			secret: gitSecret(password, labelled("")),
			want:   want{errHas: errNotOptedIn + `, where the folder's pipelines can read it: whoever owns the Secret (someone allowed to read it, not the author of this resource) must label it: kubectl label secret -n team-a git devops.freeleaps.io/jenkins-credential=true`},
		},
		"SecretOptInOtherValue": {
			reason: "Only the value \"true\" consents.",
			cr:     credential(recorded(password)),
			cred:   stored(credential()),
			secret: gitSecret(password, labelled("yes")),
			want:   want{errHas: errNotOptedIn},
		},
		"LabelRemovedAfterRotation": {
			reason: "A Secret whose label was removed after the credential was written is not read again: its rotation is not written, the credential stays, and the reason is reported.",
			cr:     credential(recorded(password)),
			cred:   stored(credential()),
			secret: gitSecret(newPassword, labelled("")),
			want:   want{errHas: "a credential already there is left as it is"},
		},
		"DeletedNotOptedIn": {
			reason: "Deleting needs no consent: the resource's own credential is deleted even after the label was removed.",
			cr:     credential(deleted),
			cred:   stored(credential()),
			secret: gitSecret(password, labelled("")),
			want:   want{o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, url: "https://jenkins.example.com/job/teams/team-a/credentials/store/folder/domain/_/credential/shop-git/"},
		},
		"SecretInOtherNamespace": {
			reason: "Only the resource's own namespace is read: a Secret of that name elsewhere is not found.",
			cr:     credential(),
			cred:   stored(credential()),
			secret: gitSecret(password, func(s *corev1.Secret) { s.Namespace = "team-b" }),
			want:   want{errHas: "not found in namespace \"team-a\""},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var objs []client.Object
			if tc.secret != nil {
				objs = append(objs, tc.secret)
			}
			cl := &mockClient{cred: tc.cred, getErr: tc.getErr}
			e := &external{client: cl, kube: kube(t, tc.cr, objs...), key: key}
			got, err := e.Observe(context.Background(), tc.cr)
			noSecret(t, err, got.Diff, tc.cr.Status)
			if tc.want.errHas == "" && err != nil || tc.want.errHas != "" && (err == nil || !strings.Contains(err.Error(), tc.want.errHas)) {
				t.Fatalf("%s\nObserve(...): error %v, want one with %q", tc.reason, err, tc.want.errHas)
			}
			if !strings.Contains(got.Diff, tc.want.diffHas) {
				t.Errorf("%s\nObserve(...): diff %q lacks %q", tc.reason, got.Diff, tc.want.diffHas)
			}
			got.Diff = ""
			if diff := cmp.Diff(tc.want.o, got); diff != "" {
				t.Errorf("%s\nObserve(...): -want, +got:\n%s", tc.reason, diff)
			}
			if tc.want.url != "" && tc.cr.Status.AtProvider.URL != tc.want.url {
				t.Errorf("%s\nstatus URL %q, want %q", tc.reason, tc.cr.Status.AtProvider.URL, tc.want.url)
			}
			if len(cl.created)+len(cl.updated)+len(cl.deleted) > 0 {
				t.Errorf("%s\nObserve wrote to Jenkins", tc.reason)
			}
		})
	}
}

func TestCreate(t *testing.T) {
	cases := map[string]struct {
		reason    string
		secret    *corev1.Secret
		createErr error
		want      []jenkins.Credential
		errHas    string
		// hash is the hash stored in status afterwards.
		hash string
	}{
		"Created": {
			reason: "The credential is created with the Secret's values and the owner line, and the hash of the values is recorded at once.",
			secret: gitSecret(password),
			want:   []jenkins.Credential{wanted(credential(), password)},
			hash:   Hash(key, wanted(credential(), password)),
		},
		"FolderMissing": {
			reason: "A folder that does not exist is an error saying to create it.",
			secret: gitSecret(password), createErr: errors.Wrap(errStatus(http.StatusNotFound), "cannot create"),
			want:   []jenkins.Credential{wanted(credential(), password)},
			errHas: `folder "teams/team-a" (spec.forProvider.folder) does not exist in Jenkins`,
		},
		"Taken": {
			reason: "An id taken meanwhile is left untouched.",
			secret: gitSecret(password), createErr: errStatus(http.StatusConflict),
			want:   []jenkins.Credential{wanted(credential(), password)},
			errHas: "is not managed by this resource",
		},
		"SecretMissing": {
			reason: "Nothing is created without the Secret.",
			errHas: "not found",
		},
		"SecretNotOptedIn": {
			reason: "Nothing is created from a Secret without the opt-in label.",
			secret: gitSecret(password, labelled("")),
			errHas: errNotOptedIn,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := credential()
			var objs []client.Object
			if tc.secret != nil {
				objs = append(objs, tc.secret)
			}
			kc := kube(t, cr, objs...)
			cl := &mockClient{createErr: tc.createErr}
			e := &external{client: cl, kube: kc, key: key}
			_, err := e.Create(context.Background(), cr)
			noSecret(t, err, cr.Status)
			if tc.errHas == "" && err != nil || tc.errHas != "" && (err == nil || !strings.Contains(err.Error(), tc.errHas)) {
				t.Fatalf("%s\nCreate(...): error %v, want one with %q", tc.reason, err, tc.errHas)
			}
			if diff := cmp.Diff(tc.want, cl.created); diff != "" {
				t.Errorf("%s\ncreated: -want, +got:\n%s", tc.reason, diff)
			}
			got := &v1alpha1.JenkinsCredential{}
			if err := kc.Get(context.Background(), client.ObjectKeyFromObject(cr), got); err != nil {
				t.Fatal(err)
			}
			if got.Status.AtProvider.SecretHash != tc.hash {
				t.Errorf("%s\nstored secretHash %q, want %q", tc.reason, got.Status.AtProvider.SecretHash, tc.hash)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	cases := map[string]struct {
		reason    string
		updateErr error
		want      []jenkins.Credential
		hash      string
		errHas    string
	}{
		"Rotated": {
			reason: "The credential is replaced with the Secret's new values, and their hash is what status records.",
			want:   []jenkins.Credential{wanted(credential(), newPassword)},
			hash:   Hash(key, wanted(credential(), newPassword)),
		},
		"Refused": {
			reason:    "A failed write keeps the old hash, so the next reconcile tries again.",
			updateErr: errStatus(http.StatusInternalServerError),
			want:      []jenkins.Credential{wanted(credential(), newPassword)},
			hash:      Hash(key, wanted(credential(), password)),
			errHas:    errUpdate,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := credential(recorded(password))
			cl := &mockClient{cred: stored(cr), updateErr: tc.updateErr}
			e := &external{client: cl, kube: kube(t, cr, gitSecret(newPassword)), key: key}
			if _, err := e.Observe(context.Background(), cr); err != nil {
				t.Fatal(err)
			}
			_, err := e.Update(context.Background(), cr)
			noSecret(t, err, cr.Status)
			if tc.errHas == "" && err != nil || tc.errHas != "" && (err == nil || !strings.Contains(err.Error(), tc.errHas)) {
				t.Fatalf("%s\nUpdate(...): error %v, want one with %q", tc.reason, err, tc.errHas)
			}
			if diff := cmp.Diff(tc.want, cl.updated); diff != "" {
				t.Errorf("%s\nupdated: -want, +got:\n%s", tc.reason, diff)
			}
			if cr.Status.AtProvider.SecretHash != tc.hash {
				t.Errorf("%s\nsecretHash %q, want %q", tc.reason, cr.Status.AtProvider.SecretHash, tc.hash)
			}
		})
	}
}

func TestDelete(t *testing.T) {
	cases := map[string]struct {
		reason    string
		deleteErr error
		want      error
	}{
		"Deleted": {reason: "The credential is deleted from its folder's store."},
		"Fails":   {reason: "A failed delete is an error.", deleteErr: errStatus(http.StatusForbidden), want: errors.Wrap(errStatus(http.StatusForbidden), errDelete)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := credential(deleted)
			cl := &mockClient{deleteErr: tc.deleteErr}
			e := &external{client: cl, key: key}
			_, err := e.Delete(context.Background(), cr)
			if diff := cmp.Diff(tc.want, err, test.EquateErrors()); diff != "" {
				t.Errorf("%s\nDelete(...): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff([]string{"teams/team-a/shop-git"}, cl.deleted); diff != "" {
				t.Errorf("%s\ndeleted: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestHashKeyed(t *testing.T) {
	c := wanted(credential(), password)
	other := HashKey("jenkins-token", &v1alpha1.JenkinsCredential{ObjectMeta: metav1.ObjectMeta{UID: "uid-2"}})
	otherToken := HashKey("other-token", &v1alpha1.JenkinsCredential{ObjectMeta: metav1.ObjectMeta{UID: "uid-1"}})
	cases := map[string]struct {
		reason string
		a, b   string
		equal  bool
	}{
		"Stable":      {reason: "The same values under the same key hash the same.", a: Hash(key, c), b: Hash(key, c), equal: true},
		"OtherValues": {reason: "Other values hash differently.", a: Hash(key, c), b: Hash(key, wanted(credential(), newPassword))},
		"OtherUID":    {reason: "Another resource hashes the same values differently.", a: Hash(key, c), b: Hash(other, c)},
		"OtherToken":  {reason: "Another Jenkins token hashes the same values differently.", a: Hash(key, c), b: Hash(otherToken, c)},
		"NoRunTogether": {reason: "Values are length-prefixed: moving a byte between two values changes the hash.",
			a: Hash(key, jenkins.Credential{Secrets: jenkins.CredentialSecrets{PrivateKey: "ab", Passphrase: "c"}}),
			b: Hash(key, jenkins.Credential{Secrets: jenkins.CredentialSecrets{PrivateKey: "a", Passphrase: "bc"}})},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.a == tc.b; got != tc.equal {
				t.Errorf("%s\nequal: got %v, want %v (%s, %s)", tc.reason, got, tc.equal, tc.a, tc.b)
			}
		})
	}
}

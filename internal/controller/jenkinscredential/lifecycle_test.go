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

package jenkinscredential_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	kfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	rfake "github.com/crossplane/crossplane-runtime/v2/pkg/resource/fake"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/controller/jenkinscredential"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	fake "github.com/freeleaps/provider-devops/internal/testing/jenkins"
)

const (
	user     = "crossplane"
	token    = "11f0-jenkins-token-never-printed"
	ns       = "team-a"
	password = "lifecycle-password-never-recorded"
	rotated  = "lifecycle-rotated-never-recorded"
	// unshared is the value the Secret holds after its label was removed:
	// it must never reach Jenkins.
	unshared = "lifecycle-unshared-never-recorded"
)

// events records every event the reconciler emits.
type events struct {
	mu  sync.Mutex
	all []string
}

func (e *events) Event(_ runtime.Object, ev event.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, fmt.Sprintf("%s %s %s %v", ev.Type, ev.Reason, ev.Message, ev.Annotations))
}

func (e *events) WithAnnotations(...string) event.Recorder { return e }

// TestLifecycle drives a JenkinsCredential through crossplane-runtime's
// managed reconciler, the real Jenkins client and the fake Jenkins: create,
// nothing written while nothing changed, a rotated Secret written again, a
// Secret whose opt-in label was removed no longer read, a credential of
// another owner left alone, delete. Everything it records
// (logs at debug level, events, status) is searched for the Secret's
// values and the Jenkins token.
func TestLifecycle(t *testing.T) {
	srv := fake.New(user, token)
	defer srv.Close()
	srv.SetConfig("team/placeholder", "<flow-definition/>")
	if err := srv.SetCredential("team", `<com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl><scope>GLOBAL</scope><id>foreign</id><description>(Managed by Crossplane provider-devops as JenkinsCredential team-b/foreign; changes made in Jenkins are overwritten.)</description><username>x</username><password>theirs</password></com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl>`); err != nil {
		t.Fatal(err)
	}

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "git", Namespace: ns, Labels: map[string]string{contract.LabelJenkinsCredential: "true"}},
		Data: map[string][]byte{"username": []byte("ci-bot"), "password": []byte(password)}}
	kube := kfake.NewClientBuilder().WithScheme(controlplane.Scheme()).
		WithStatusSubresource(&v1alpha1.JenkinsCredential{}).
		WithObjects(secret,
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "jenkins", Namespace: ns}, Data: map[string][]byte{"credentials": []byte(`{"username": "` + user + `", "token": "` + token + `"}`)}},
			&pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: pcv1alpha1.ProviderConfigSpec{
				Jenkins: &pcv1alpha1.JenkinsConfig{URL: srv.URL, RootFolder: "team", Credentials: pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &pcv1alpha1.SecretKeySelector{Name: "jenkins", Key: "credentials"}}},
			}}).Build()

	var logs strings.Builder
	var logMu sync.Mutex
	log := funcr.New(func(prefix, args string) {
		logMu.Lock()
		defer logMu.Unlock()
		logs.WriteString(prefix + " " + args + "\n")
	}, funcr.Options{Verbosity: 10})
	rec := &events{}
	mgr := &rfake.Manager{Client: kube, Scheme: controlplane.Scheme()}
	r := managed.NewReconciler(mgr, resource.ManagedKind(v1alpha1.JenkinsCredentialGroupVersionKind),
		managed.WithTypedExternalConnector[*v1alpha1.JenkinsCredential](jenkinscredential.NewConnector(kube, controlplane.TenantGuard(), nil)),
		managed.WithLogger(logging.NewLogrLogger(log)),
		managed.WithRecorder(rec),
		managed.WithDeterministicExternalName(true),
		// Deleted right after it was created: no wait for the create to
		// show (the fake shows it at once).
		managed.WithCreationGracePeriod(0),
	)
	ctx := context.Background()
	reconcileAll := func(crs ...*v1alpha1.JenkinsCredential) {
		t.Helper()
		for range 3 {
			for _, cr := range crs {
				_, _ = r.Reconcile(ctx, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(cr)})
			}
		}
	}
	newCredential := func(name string) *v1alpha1.JenkinsCredential {
		cr := &v1alpha1.JenkinsCredential{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-" + name)}}
		cr.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
		cr.Spec.ForProvider = v1alpha1.JenkinsCredentialParameters{Folder: "team", Type: v1alpha1.CredentialUsernamePassword, Description: "git", SecretRef: v1alpha1.CredentialSecretRef{Name: "git"}}
		controlplane.Must(t, kube.Create(ctx, cr))
		return cr
	}

	git, foreign := newCredential("shop-git"), newCredential("foreign")
	reconcileAll(git, foreign)

	stored, ok := srv.StoredCredential("team", "shop-git")
	if !ok || !strings.Contains(stored, "<password>"+password+"</password>") || !strings.Contains(stored, "JenkinsCredential team-a/shop-git") {
		t.Fatalf("the credential was not created with the Secret's password and its owner line:\n%s\nlogs:\n%s", stored, logs.String())
	}
	controlplane.Must(t, kube.Get(ctx, client.ObjectKeyFromObject(git), git))
	if c := git.GetCondition(xpv2.TypeReady); c.Status != corev1.ConditionTrue || git.Status.AtProvider.SecretHash == "" {
		t.Errorf("want Ready with a recorded hash, got %v, hash %q", c, git.Status.AtProvider.SecretHash)
	}
	theirs, _ := srv.StoredCredential("team", "foreign")
	controlplane.Must(t, kube.Get(ctx, client.ObjectKeyFromObject(foreign), foreign))
	if c := foreign.GetCondition(xpv2.TypeSynced); !strings.Contains(theirs, "<password>theirs</password>") || !strings.Contains(c.Message, "managed by JenkinsCredential team-b/foreign") {
		t.Errorf("another owner's credential must be left alone and the reason reported: %v\n%s", c, theirs)
	}

	srv.ResetCounts()
	reconcileAll(git)
	if n := srv.Count("POST"); n != 0 {
		t.Errorf("nothing changed, yet %d writes: %v", n, srv.Requests())
	}

	secret.Data["password"] = []byte(rotated)
	controlplane.Must(t, kube.Update(ctx, secret))
	reconcileAll(git)
	if stored, _ := srv.StoredCredential("team", "shop-git"); !strings.Contains(stored, "<password>"+rotated+"</password>") {
		t.Errorf("the rotated password was not written:\n%s", stored)
	}

	// The Secret's owner withdraws consent and rotates: the rotation stays
	// out of Jenkins, the credential stays, and the condition says why.
	secret.Labels = nil
	secret.Data["password"] = []byte(unshared)
	controlplane.Must(t, kube.Update(ctx, secret))
	srv.ResetCounts()
	reconcileAll(git)
	controlplane.Must(t, kube.Get(ctx, client.ObjectKeyFromObject(git), git))
	stored, ok = srv.StoredCredential("team", "shop-git")
	if c := git.GetCondition(xpv2.TypeSynced); c.Status != corev1.ConditionFalse || !strings.Contains(c.Message, `Secret "git" in namespace "team-a" has not consented`) ||
		!strings.Contains(c.Message, contract.LabelJenkinsCredential+"=true") {
		t.Errorf("want Synced=False naming the Secret and the label, got %v", c)
	}
	if n := srv.Count("POST"); n != 0 || !ok || !strings.Contains(stored, "<password>"+rotated+"</password>") {
		t.Errorf("a Secret without the label changed Jenkins (%d writes), or the credential was not left as it was:\n%s", n, stored)
	}

	controlplane.Must(t, kube.Delete(ctx, git))
	controlplane.Must(t, kube.Delete(ctx, foreign))
	reconcileAll(git, foreign)
	if _, ok := srv.StoredCredential("team", "shop-git"); ok {
		t.Errorf("the credential outlived its resource")
	}
	if _, ok := srv.StoredCredential("team", "foreign"); !ok {
		t.Errorf("deleting a resource deleted another owner's credential")
	}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(git), git); err == nil {
		t.Errorf("the resource was not deleted: %v", git.GetCondition(xpv2.TypeSynced))
	}

	// Everything recorded, and the resources' last status.
	recorded := logs.String() + strings.Join(rec.all, "\n")
	for _, cr := range []*v1alpha1.JenkinsCredential{git, foreign} {
		b, _ := json.Marshal(cr)
		recorded += string(b)
	}
	for _, v := range []string{password, rotated, unshared, token, "theirs"} {
		if strings.Contains(recorded, v) {
			t.Errorf("%q is in the logs, events or status", v)
		}
	}
	if !strings.Contains(recorded, "secret values") {
		t.Errorf("the logs do not show the rotation's diff: the search may have searched nothing:\n%s", recorded)
	}
}

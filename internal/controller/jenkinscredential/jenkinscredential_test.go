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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/controller/jenkinscredential"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	fake "github.com/freeleaps/provider-devops/internal/testing/jenkins"
)

func TestMain(m *testing.M) { controlplane.Main(m) }

// TestJenkinsCredentialAPIServer runs the controller as the provider does,
// against a real API server (CRD schema, status subresource, finalizers)
// and the fake Jenkins: a Secret without the opt-in label refused, created
// once labelled, rotation at the next poll, rotation stopped when the label
// is removed, a folder outside the config's root refused, delete; then the
// logs and events are searched for the Secret's values.
func TestJenkinsCredentialAPIServer(t *testing.T) {
	env := controlplane.Shared(t)
	srv := fake.New(user, token)
	defer srv.Close()
	srv.SetConfig("team/shop/placeholder", "<flow-definition/>")
	c := env.Client
	ctx := context.Background()

	ns := "jenkins-credential"
	controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	controlplane.Must(t, c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "jenkins", Namespace: ns},
		StringData: map[string]string{"credentials": `{"username": "` + user + `", "token": "` + token + `"}`}}))
	controlplane.Must(t, c.Create(ctx, &pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: pcv1alpha1.ProviderConfigSpec{
		Jenkins: &pcv1alpha1.JenkinsConfig{URL: srv.URL, RootFolder: "team", AllowedCredentialIDs: []string{"shop-*"},
			Credentials: pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &pcv1alpha1.SecretKeySelector{Name: "jenkins", Key: "credentials"}}},
	}}))
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "git", Namespace: ns}, Type: corev1.SecretTypeSSHAuth,
		StringData: map[string]string{corev1.SSHAuthPrivateKey: password}}
	controlplane.Must(t, c.Create(ctx, secret))

	logs := &controlplane.Logs{}
	controlplane.StartManagerLogging(t, env, 2*time.Second, logs, func(mgr ctrl.Manager, o controller.Options) error {
		return mrcontroller.Setup(mgr, o, jenkinscredential.Descriptor, jenkinscredential.NewConnector(mgr.GetClient(), controlplane.TenantGuard(), nil))
	})

	newCredential := func(name, folder string) *v1alpha1.JenkinsCredential {
		cr := &v1alpha1.JenkinsCredential{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
		cr.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
		cr.Spec.ForProvider = v1alpha1.JenkinsCredentialParameters{Folder: folder, Type: v1alpha1.CredentialSSHPrivateKey, Username: "git", SecretRef: v1alpha1.CredentialSecretRef{Name: "git"}}
		controlplane.Must(t, c.Create(ctx, cr))
		return cr
	}
	get := func(cr *v1alpha1.JenkinsCredential) bool {
		err := c.Get(ctx, client.ObjectKeyFromObject(cr), cr)
		if err != nil && !kerrors.IsNotFound(err) {
			t.Fatal(err)
		}
		return err == nil
	}
	stored := func(id string) string { s, _ := srv.StoredCredential("team/shop", id); return s }

	cr := newCredential("shop-ssh", "team/shop")
	controlplane.Eventually(t, "a Secret without the label refused", func() bool {
		c := cr.GetCondition(xpv2.TypeSynced)
		return get(cr) && c.Status == corev1.ConditionFalse && strings.Contains(c.Message, `Secret "git" in namespace "jenkins-credential" has not consented`) &&
			strings.Contains(c.Message, "kubectl label secret -n jenkins-credential git "+contract.LabelJenkinsCredential+"=true")
	})
	if s := stored("shop-ssh"); s != "" {
		t.Fatalf("a Secret without the label was copied into Jenkins:\n%s", s)
	}

	secret.Labels = map[string]string{contract.LabelJenkinsCredential: "true"}
	controlplane.Must(t, c.Update(ctx, secret))
	controlplane.Eventually(t, "credential created and Ready", func() bool {
		return get(cr) && cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue && strings.Contains(stored("shop-ssh"), password)
	})
	if want := srv.URL + "/job/team/job/shop/credentials/store/folder/domain/_/credential/shop-ssh/"; cr.Status.AtProvider.URL != want {
		t.Errorf("url: got %q, want %q", cr.Status.AtProvider.URL, want)
	}

	secret.StringData = map[string]string{corev1.SSHAuthPrivateKey: rotated}
	controlplane.Must(t, c.Update(ctx, secret))
	controlplane.Eventually(t, "rotated key written at the next poll", func() bool { return strings.Contains(stored("shop-ssh"), rotated) })

	controlplane.Must(t, c.Get(ctx, client.ObjectKeyFromObject(secret), secret))
	secret.Labels = nil
	secret.StringData = map[string]string{corev1.SSHAuthPrivateKey: unshared}
	controlplane.Must(t, c.Update(ctx, secret))
	controlplane.Eventually(t, "label removed: rotation stopped and reported", func() bool {
		c := cr.GetCondition(xpv2.TypeSynced)
		return get(cr) && c.Status == corev1.ConditionFalse && strings.Contains(c.Message, "has not consented")
	})
	if s := stored("shop-ssh"); !strings.Contains(s, rotated) {
		t.Errorf("the credential was not left as it was when the label was removed:\n%s", s)
	}

	outside := newCredential("shop-outside", "elsewhere")
	controlplane.Eventually(t, "a folder outside the root refused", func() bool {
		return get(outside) && strings.Contains(outside.GetCondition(xpv2.TypeSynced).Message, `outside the root folder "team"`)
	})

	controlplane.Must(t, c.Delete(ctx, cr))
	controlplane.Must(t, c.Delete(ctx, outside))
	controlplane.Eventually(t, "credential and resources deleted", func() bool {
		return !get(cr) && !get(outside) && stored("shop-ssh") == ""
	})

	recorded := logs.String()
	events := &corev1.EventList{}
	controlplane.Must(t, c.List(ctx, events, client.InNamespace(ns)))
	b, _ := json.Marshal(events)
	recorded += string(b)
	for _, v := range []string{password, rotated, unshared, token} {
		if strings.Contains(recorded, v) {
			t.Errorf("%q is in the logs or events", v)
		}
	}
	if !strings.Contains(recorded, "outside the root folder") {
		t.Errorf("the logs and events do not show the refusal: the search may have searched nothing")
	}
}

// TestSecretWatch: with the Secret watch, a Secret labelled to opt in, and
// then a rotated one, reach Jenkins within seconds, long before the poll
// (10 minutes here) would find them.
func TestSecretWatch(t *testing.T) {
	env := controlplane.Shared(t)
	srv := fake.New(user, token)
	defer srv.Close()
	srv.SetConfig("team/placeholder", "<flow-definition/>")
	c := env.Client
	ctx := context.Background()

	ns := "jenkins-credential-watch"
	controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	controlplane.Must(t, c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "jenkins", Namespace: ns},
		StringData: map[string]string{"credentials": `{"username": "` + user + `", "token": "` + token + `"}`}}))
	controlplane.Must(t, c.Create(ctx, &pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: pcv1alpha1.ProviderConfigSpec{
		Jenkins: &pcv1alpha1.JenkinsConfig{URL: srv.URL, Credentials: pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &pcv1alpha1.SecretKeySelector{Name: "jenkins", Key: "credentials"}}},
	}}))
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "token", Namespace: ns}, StringData: map[string]string{"secret": password}}
	controlplane.Must(t, c.Create(ctx, secret))

	controlplane.StartManager(t, env, 10*time.Minute, func(mgr ctrl.Manager, o controller.Options) error {
		return mrcontroller.Setup(mgr, o, jenkinscredential.WithSecretWatch(jenkinscredential.Descriptor), jenkinscredential.NewConnector(mgr.GetClient(), controlplane.TenantGuard(), nil))
	})
	cr := &v1alpha1.JenkinsCredential{ObjectMeta: metav1.ObjectMeta{Name: "api-token", Namespace: ns}}
	cr.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
	cr.Spec.ForProvider = v1alpha1.JenkinsCredentialParameters{Folder: "team", Type: v1alpha1.CredentialSecretText, SecretRef: v1alpha1.CredentialSecretRef{Name: "token"}}
	start := time.Now()
	controlplane.Must(t, c.Create(ctx, cr))
	stored := func() string { s, _ := srv.StoredCredential("team", "api-token"); return s }
	controlplane.Eventually(t, "a Secret without the label refused", func() bool {
		err := c.Get(ctx, client.ObjectKeyFromObject(cr), cr)
		return err == nil && strings.Contains(cr.GetCondition(xpv2.TypeSynced).Message, "has not consented")
	})
	t.Logf("refused after %s", time.Since(start))
	start = time.Now()

	secret.Labels = map[string]string{contract.LabelJenkinsCredential: "true"}
	controlplane.Must(t, c.Update(ctx, secret))
	controlplane.EventuallyWithin(t, 20*time.Second, "labelled Secret written at once", func() bool {
		err := c.Get(ctx, client.ObjectKeyFromObject(cr), cr)
		return err == nil && cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue && strings.Contains(stored(), password)
	})
	t.Logf("labelled written after %s", time.Since(start))
	start = time.Now()

	controlplane.Must(t, c.Get(ctx, client.ObjectKeyFromObject(secret), secret))
	secret.StringData = map[string]string{"secret": rotated}
	controlplane.Must(t, c.Update(ctx, secret))
	controlplane.EventuallyWithin(t, 20*time.Second, "rotated value written at once", func() bool { return strings.Contains(stored(), rotated) })
	t.Logf("rotated written after %s", time.Since(start))
}

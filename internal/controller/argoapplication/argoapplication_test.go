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

package argoapplication_test

import (
	"context"
	"net/http"
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

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/controller/argoapplication"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	fake "github.com/freeleaps/provider-devops/internal/testing/fakeargocd"
)

const token = "argo-token-never-printed"

func TestMain(m *testing.M) { controlplane.Main(m) }

// TestArgoApplicationFaults uses the fake Argo CD for what a real server
// cannot be made to do on demand: 5xx and 429 answers. Everything else is
// tested against a real Argo CD (real_test.go).
func TestArgoApplicationFaults(t *testing.T) {
	env := controlplane.Shared(t)
	srv := fake.New(token)
	defer srv.Close()
	c := env.Client
	ctx := context.Background()

	ns := "argo-faults"
	controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	controlplane.Must(t, c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "argocd", Namespace: ns}, StringData: map[string]string{"token": token}}))
	controlplane.Must(t, c.Create(ctx, &pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: pcv1alpha1.ProviderConfigSpec{
		ArgoCD: &pcv1alpha1.ArgoCDConfig{URL: srv.URL, Credentials: pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &pcv1alpha1.SecretKeySelector{Name: "argocd", Key: "token"}}},
	}}))
	startController(t, env, 2*time.Second)

	cr := newApp(ns, "shop-alpha")
	controlplane.Must(t, c.Create(ctx, cr))
	controlplane.Eventually(t, "application created and Synced", func() bool {
		return get(t, c, cr) && cr.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue && srv.App("shop-alpha") != nil
	})

	t.Run("ServerErrorsRecover", func(t *testing.T) {
		srv.FailNext(2, http.StatusServiceUnavailable, 0)
		controlplane.Eventually(t, "the 503s were served", func() bool { return srv.PendingFailures() == 0 })
		controlplane.Eventually(t, "Synced again after the 503s", func() bool {
			return get(t, c, cr) && cr.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue
		})
	})

	t.Run("TooManyRequestsIsHonoured", func(t *testing.T) {
		srv.FailNext(1, http.StatusTooManyRequests, 3)
		controlplane.Eventually(t, "the 429 was served", func() bool { return srv.PendingFailures() == 0 })
		controlplane.EventuallyWithin(t, 3*mrcontroller.MinRetryAfter, "Synced again after the 429", func() bool {
			return get(t, c, cr) && cr.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue
		})
	})

	controlplane.Must(t, c.Delete(ctx, cr))
	controlplane.EventuallyWithin(t, 2*time.Minute, "application deleted", func() bool {
		cascade, ok := srv.Deleted("shop-alpha")
		return ok && cascade == "true" && kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(cr), &v1alpha1.ArgoApplication{}))
	})

	// No condition or event carries the token.
	events := &corev1.EventList{}
	controlplane.Must(t, c.List(ctx, events, client.InNamespace(ns)))
	for _, e := range events.Items {
		if strings.Contains(e.Message, token) {
			t.Errorf("event leaks the token: %s", e.Message)
		}
	}
}

func newApp(ns, name string) *v1alpha1.ArgoApplication {
	cr := &v1alpha1.ArgoApplication{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	cr.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
	cr.Spec.ForProvider = v1alpha1.ArgoApplicationParameters{
		Source:      v1alpha1.ApplicationSource{RepoURL: "https://git.example.com/team/shop.git", Path: "deploy/overlays/alpha", TargetRevision: "main"},
		Destination: v1alpha1.ApplicationDestination{Server: "https://kubernetes.default.svc", Namespace: "shop-alpha"},
		SyncPolicy:  &v1alpha1.SyncPolicy{Automated: &v1alpha1.Automated{Prune: true, SelfHeal: true}, SyncOptions: []string{"CreateNamespace=true"}},
	}
	return cr
}

func startController(t *testing.T, env *controlplane.Env, poll time.Duration) {
	t.Helper()
	controlplane.StartManager(t, env, poll, func(mgr ctrl.Manager, o controller.Options) error {
		return mrcontroller.Setup(mgr, o, argoapplication.Descriptor, argoapplication.NewConnector(mgr.GetClient(), controlplane.TenantGuard(), nil))
	})
}

func get(t *testing.T, c client.Client, cr *v1alpha1.ArgoApplication) bool {
	t.Helper()
	return c.Get(context.Background(), client.ObjectKeyFromObject(cr), cr) == nil
}

// TestTenantBackendOnInternalAddress: a team's own ProviderConfig that
// points the provider at the cloud's metadata address or a cluster-internal
// service is refused when the provider dials, with a message naming the
// platform's setting; nothing is sent there.
func TestTenantBackendOnInternalAddress(t *testing.T) {
	env := controlplane.Shared(t)
	c := env.Client
	ctx := context.Background()
	ns := controlplane.Unique("argo-ssrf")
	controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	controlplane.Must(t, c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "argocd", Namespace: ns}, StringData: map[string]string{"token": token}}))
	for name, url := range map[string]string{"metadata": "http://169.254.169.254", "internal": "https://10.96.0.1:443"} {
		controlplane.Must(t, c.Create(ctx, &pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: pcv1alpha1.ProviderConfigSpec{
			ArgoCD: &pcv1alpha1.ArgoCDConfig{URL: url, Credentials: pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &pcv1alpha1.SecretKeySelector{Name: "argocd", Key: "token"}}},
		}}))
	}
	startController(t, env, time.Minute)
	for _, name := range []string{"metadata", "internal"} {
		cr := newApp(ns, "shop-"+name)
		cr.Spec.ProviderConfigReference.Name = name
		controlplane.Must(t, c.Create(ctx, cr))
		controlplane.Eventually(t, name+": refused with a message naming the setting", func() bool {
			if !get(t, c, cr) {
				return false
			}
			s := cr.GetCondition(xpv2.TypeSynced)
			return s.Status == corev1.ConditionFalse && strings.Contains(s.Message, "is internal") && strings.Contains(s.Message, "--tenant-backend-networks")
		})
	}
}

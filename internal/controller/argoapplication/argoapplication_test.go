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
	fake "github.com/freeleaps/provider-devops/internal/testing/argocd"
	"github.com/freeleaps/provider-devops/internal/testing/envtest"
)

const token = "argo-token-never-printed"

func TestMain(m *testing.M) { envtest.Main(m) }

func TestArgoApplicationLifecycle(t *testing.T) {
	env := envtest.Shared(t)
	srv := fake.New(token)
	defer srv.Close()
	c := env.Client
	ctx := context.Background()

	ns := "argo-lifecycle"
	envtest.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	envtest.Must(t, c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "argocd", Namespace: ns}, StringData: map[string]string{"token": token}}))
	envtest.Must(t, c.Create(ctx, &pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: pcv1alpha1.ProviderConfigSpec{
		ArgoCD: &pcv1alpha1.ArgoCDConfig{URL: srv.URL, Credentials: pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &pcv1alpha1.SecretKeySelector{Name: "argocd", Key: "token"}}},
	}}))

	startController(t, env, 2*time.Second)

	cr := newApp(ns, "shop-alpha")
	envtest.Must(t, c.Create(ctx, cr))

	// Created in Argo CD, Synced, not yet Ready while Argo CD says Missing.
	envtest.Eventually(t, "application created and Synced", func() bool {
		return get(t, c, cr) && cr.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue && srv.App("shop-alpha") != nil
	})
	if got := cr.GetCondition(xpv2.TypeReady); got.Status == corev1.ConditionTrue {
		t.Fatalf("Ready before Argo CD reports Healthy: %+v", got)
	}
	app := srv.App("shop-alpha")
	if got := app["metadata"].(map[string]any)["labels"].(map[string]any)[argoapplication.OwnerLabel]; got != ns+".shop-alpha" {
		t.Errorf("owner label: got %v", got)
	}

	// Argo CD syncs; the resource turns Ready and shows sync and health.
	srv.SetStatus("shop-alpha", "Synced", "4f2a9c1", "Healthy", "", "Succeeded")
	envtest.Eventually(t, "Ready with sync and health in status", func() bool {
		return get(t, c, cr) && cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue &&
			cr.Status.AtProvider.SyncStatus == "Synced" && cr.Status.AtProvider.HealthStatus == "Healthy" && cr.Status.AtProvider.Revision == "4f2a9c1"
	})
	if want := srv.URL + "/applications/shop-alpha"; cr.Status.AtProvider.URL != want {
		t.Errorf("url: got %q, want %q", cr.Status.AtProvider.URL, want)
	}

	// Drift made in Argo CD is corrected on a later poll.
	srv.Modify("shop-alpha", func(a map[string]any) {
		a["spec"].(map[string]any)["source"].(map[string]any)["path"] = "deploy/hacked"
	})
	envtest.Eventually(t, "drift corrected", func() bool {
		return srv.App("shop-alpha")["spec"].(map[string]any)["source"].(map[string]any)["path"] == "deploy/overlays/alpha"
	})

	// Steady state: one Observe costs exactly one read and no write, and a
	// few polls write nothing to Kubernetes.
	t.Run("SteadyState", func(t *testing.T) {
		envtest.Eventually(t, "settled", func() bool { return get(t, c, cr) && cr.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue })
		time.Sleep(3 * time.Second)
		get(t, c, cr)
		rv := cr.GetResourceVersion()
		srv.ResetCounts()
		time.Sleep(7 * time.Second) // at least two polls at 2s ±10%
		get(t, c, cr)
		reads, writes := srv.Count(http.MethodGet), srv.Count(http.MethodPost)+srv.Count(http.MethodPut)+srv.Count(http.MethodDelete)
		t.Logf("steady state over 7s (poll 2s): %d external reads, %d external writes, resourceVersion %s -> %s", reads, writes, rv, cr.GetResourceVersion())
		// Polls come every 2s ±10%: at most 4 in 7s, plus one for the
		// write-free status update. Fewer is fine on a loaded machine.
		if reads < 1 || reads > 5 {
			t.Errorf("want one read per poll (1-5 in 7s), got %d", reads)
		}
		if writes != 0 {
			t.Errorf("want 0 external writes in steady state, got %d", writes)
		}
		if cr.GetResourceVersion() != rv {
			t.Errorf("the resource was written to Kubernetes in steady state: resourceVersion %s -> %s", rv, cr.GetResourceVersion())
		}
	})

	// Another team's application of the same name is never touched.
	t.Run("ForeignApplicationRefused", func(t *testing.T) {
		srv.Put(map[string]any{"metadata": map[string]any{"name": "taken"}, "spec": map[string]any{"project": "other", "destination": map[string]any{"namespace": "x"}}})
		before := srv.App("taken")
		other := newApp(ns, "taken")
		envtest.Must(t, c.Create(ctx, other))
		envtest.Eventually(t, "conflict reported", func() bool {
			return get(t, c, other) && other.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionFalse &&
				strings.Contains(other.GetCondition(xpv2.TypeSynced).Message, `Argo CD application "taken" exists and is not managed by this resource`)
		})
		if after := srv.App("taken"); after["spec"].(map[string]any)["project"] != before["spec"].(map[string]any)["project"] {
			t.Errorf("the foreign application was modified: %v", after)
		}
		envtest.Must(t, c.Delete(ctx, other))
	})

	// An Observe-only resource may watch an application it does not own,
	// and never changes or deletes it.
	t.Run("ObserveOnlyWatchesForeignApplication", func(t *testing.T) {
		srv.Put(map[string]any{"metadata": map[string]any{"name": "watched"}, "spec": map[string]any{"project": "other", "destination": map[string]any{"namespace": "x"}}})
		srv.SetStatus("watched", "Synced", "abc", "Healthy", "", "Succeeded")
		before := srv.App("watched")
		w := newApp(ns, "watched")
		w.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
		envtest.Must(t, c.Create(ctx, w))
		envtest.Eventually(t, "observe-only resource Ready with the app's health", func() bool {
			return get(t, c, w) && w.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue && w.Status.AtProvider.HealthStatus == "Healthy"
		})
		envtest.Must(t, c.Delete(ctx, w))
		envtest.Eventually(t, "watcher gone", func() bool { return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(w), w)) })
		if _, deleted := srv.Deleted("watched"); deleted || srv.App("watched")["spec"].(map[string]any)["project"] != before["spec"].(map[string]any)["project"] {
			t.Error("an Observe-only resource changed or deleted the application")
		}
	})

	// A burst of 503s is retried, not fatal.
	t.Run("TransientFailureRecovers", func(t *testing.T) {
		srv.FailNext(2, http.StatusServiceUnavailable, 0)
		envtest.Eventually(t, "the 503s were served", func() bool { return srv.PendingFailures() == 0 })
		envtest.Eventually(t, "Synced again after the 503s", func() bool {
			return get(t, c, cr) && cr.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue
		})
	})

	// Deleting the resource deletes the application, cascading.
	envtest.Must(t, c.Delete(ctx, cr))
	envtest.Eventually(t, "application deleted", func() bool {
		cascade, ok := srv.Deleted("shop-alpha")
		return ok && cascade == "true" && kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(cr), &v1alpha1.ArgoApplication{}))
	})

	// No condition or event carries the token.
	events := &corev1.EventList{}
	envtest.Must(t, c.List(ctx, events, client.InNamespace(ns)))
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

func startController(t *testing.T, env *envtest.Env, poll time.Duration) {
	t.Helper()
	envtest.StartManager(t, env, poll, func(mgr ctrl.Manager, o controller.Options) error {
		return mrcontroller.Setup(mgr, o, argoapplication.Kind, argoapplication.NewConnector(mgr.GetClient(), nil))
	})
}

func get(t *testing.T, c client.Client, cr *v1alpha1.ArgoApplication) bool {
	t.Helper()
	return c.Get(context.Background(), client.ObjectKeyFromObject(cr), cr) == nil
}

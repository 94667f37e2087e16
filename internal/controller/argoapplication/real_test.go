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
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/controller/argoapplication"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/testing/argocdserver"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

// requests counts the provider's requests to Argo CD by method and path.
type requests struct {
	mu     sync.Mutex
	counts map[string]int
	next   http.RoundTripper
}

func (r *requests) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.counts[req.Method+" "+req.URL.Path]++
	r.mu.Unlock()
	return r.next.RoundTrip(req)
}

func (r *requests) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counts = map[string]int{}
}

// writes are the non-GET requests seen since reset.
func (r *requests) writes() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for k, v := range r.counts {
		if !strings.HasPrefix(k, http.MethodGet+" ") {
			out[k] = v
		}
	}
	return out
}

func (r *requests) reads() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for k, v := range r.counts {
		if strings.HasPrefix(k, http.MethodGet+" ") {
			n += v
		}
	}
	return n
}

// startRealController runs the ArgoApplication controller against a real
// Argo CD in a namespace of its own and returns the request counter.
func startRealController(t *testing.T, env *controlplane.Env, s *argocdserver.Server, ns string) *requests {
	t.Helper()
	ctx := context.Background()
	c := env.Client
	controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	controlplane.Must(t, c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "argocd", Namespace: ns}, StringData: map[string]string{"token": s.Token}}))
	controlplane.Must(t, c.Create(ctx, &pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: pcv1alpha1.ProviderConfigSpec{
		ArgoCD: &pcv1alpha1.ArgoCDConfig{URL: s.URL, Namespace: argocdserver.Namespace, Credentials: pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &pcv1alpha1.SecretKeySelector{Name: "argocd", Key: "token"}}},
	}}))
	counter := &requests{counts: map[string]int{}, next: http.DefaultTransport}
	newClient := func(cfg argocd.Config) (argoapplication.Client, error) {
		cfg.Transport = counter
		return argocd.New(cfg)
	}
	controlplane.StartManager(t, env, 2*time.Second, func(mgr ctrl.Manager, o controller.Options) error {
		return mrcontroller.Setup(mgr, o, argoapplication.Descriptor, argoapplication.NewConnector(mgr.GetClient(), controlplane.TenantGuard(), newClient))
	})
	return counter
}

func realMR(ns, name string, s *argocdserver.Server, path string) *v1alpha1.ArgoApplication {
	cr := &v1alpha1.ArgoApplication{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	cr.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
	cr.Spec.ForProvider = v1alpha1.ArgoApplicationParameters{
		Source:      v1alpha1.ApplicationSource{RepoURL: s.Apps.URL, Path: path, TargetRevision: "main"},
		Destination: v1alpha1.ApplicationDestination{Server: argocdserver.InClusterServer, Namespace: name},
		SyncPolicy:  &v1alpha1.SyncPolicy{Automated: &v1alpha1.Automated{Prune: true, SelfHeal: true}, SyncOptions: []string{"CreateNamespace=true"}},
	}
	return cr
}

// TestRealArgoApplication runs the controller against a real Argo CD:
// created, synced by Argo CD's own controller to Ready, drift corrected
// without losing what others set, steady state without writes, a
// comparison error is not Ready, and deletion removes the application and
// its workloads.
func TestRealArgoApplication(t *testing.T) {
	env := controlplane.Shared(t)
	s := argocdserver.Shared(t, env)
	ctx := context.Background()
	c := env.Client
	ns := "argo-real"
	counter := startRealController(t, env, s, ns)

	cr := realMR(ns, "guestbook", s, "guestbook")
	controlplane.Must(t, c.Create(ctx, cr))
	created := time.Now()
	controlplane.EventuallyWithin(t, 3*time.Minute, "Ready with Argo CD's sync and health", func() bool {
		return get(t, c, cr) && cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue &&
			cr.Status.AtProvider.SyncStatus == "Synced" && cr.Status.AtProvider.HealthStatus == "Healthy" && len(cr.Status.AtProvider.Revision) == 40
	})
	t.Logf("MR created -> Ready with the real application controller: %s", time.Since(created).Round(100*time.Millisecond))
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "guestbook", Namespace: "guestbook"}}
	controlplane.Must(t, c.Get(ctx, client.ObjectKeyFromObject(cm), cm))

	t.Run("DriftCorrectionKeepsWhatOthersSet", func(t *testing.T) {
		var app *unstructured.Unstructured
		controlplane.Eventually(t, "the application edited behind our back", func() bool {
			var err error
			if app, err = s.Application(ctx, argocdserver.Namespace, "guestbook"); err != nil || app == nil {
				return false
			}
			app.SetAnnotations(merge(app.GetAnnotations(), map[string]string{"notified.notifications.argoproj.io": `{"on-deployed":1}`}))
			app.SetLabels(merge(app.GetLabels(), map[string]string{"team": "shop"}))
			app.SetFinalizers(append(app.GetFinalizers(), "example.com/hold"))
			_ = unstructured.SetNestedField(app.Object, int64(3), "spec", "revisionHistoryLimit")
			_ = unstructured.SetNestedField(app.Object, "other", "spec", "source", "path")
			return s.Kube.Update(ctx, app) == nil
		})
		controlplane.Eventually(t, "drift corrected", func() bool {
			a, err := s.Application(ctx, argocdserver.Namespace, "guestbook")
			if err != nil || a == nil {
				return false
			}
			p, _, _ := unstructured.NestedString(a.Object, "spec", "source", "path")
			app = a
			return p == "guestbook"
		})
		if got := app.GetAnnotations()["notified.notifications.argoproj.io"]; got == "" {
			t.Errorf("the notification state annotation was lost: %v", app.GetAnnotations())
		}
		if got := app.GetLabels()["team"]; got != "shop" {
			t.Errorf("another label was lost: %v", app.GetLabels())
		}
		if got := app.GetLabels()[contract.LabelOwner]; got != ns+".guestbook" {
			t.Errorf("the owner label: got %q", got)
		}
		if fs := app.GetFinalizers(); !contains(fs, "example.com/hold") || !contains(fs, "resources-finalizer.argocd.argoproj.io") {
			t.Errorf("finalizers: want ours and the other one, got %v", fs)
		}
		if n, _, _ := unstructured.NestedInt64(app.Object, "spec", "revisionHistoryLimit"); n != 3 {
			t.Errorf("a spec field we do not manage was lost: revisionHistoryLimit %d", n)
		}
		// Let deletion go ahead later.
		controlplane.Eventually(t, "the other finalizer removed", func() bool {
			a, err := s.Application(ctx, argocdserver.Namespace, "guestbook")
			if err != nil || a == nil {
				return false
			}
			a.SetFinalizers(without(a.GetFinalizers(), "example.com/hold"))
			return s.Kube.Update(ctx, a) == nil
		})
	})

	// Fields that override what we manage (sources replace source,
	// automated.enabled false stops the automation) are drift, cleared.
	t.Run("OverridesOfManagedFieldsCleared", func(t *testing.T) {
		controlplane.Eventually(t, "overrides set behind our back", func() bool {
			app, err := s.Application(ctx, argocdserver.Namespace, "guestbook")
			if err != nil || app == nil {
				return false
			}
			_ = unstructured.SetNestedSlice(app.Object, []any{map[string]any{"repoURL": s.Apps.URL, "path": "other", "targetRevision": "main"}}, "spec", "sources")
			_ = unstructured.SetNestedField(app.Object, false, "spec", "syncPolicy", "automated", "enabled")
			return s.Kube.Update(ctx, app) == nil
		})
		controlplane.Eventually(t, "the overrides cleared", func() bool {
			app, err := s.Application(ctx, argocdserver.Namespace, "guestbook")
			if err != nil || app == nil {
				return false
			}
			_, hasSources, _ := unstructured.NestedSlice(app.Object, "spec", "sources")
			_, hasEnabled, _ := unstructured.NestedFieldNoCopy(app.Object, "spec", "syncPolicy", "automated", "enabled")
			return !hasSources && !hasEnabled
		})
	})

	t.Run("SteadyState", func(t *testing.T) {
		controlplane.Eventually(t, "settled", func() bool { return get(t, c, cr) && cr.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue })
		time.Sleep(3 * time.Second)
		counter.reset()
		time.Sleep(7 * time.Second) // at least two polls at 2s ±10%
		reads, writes := counter.reads(), counter.writes()
		t.Logf("steady state over 7s (poll 2s): %d reads, writes %v", reads, writes)
		if reads < 1 || reads > 5 {
			t.Errorf("want one read per poll (1-5 in 7s), got %d", reads)
		}
		if len(writes) != 0 {
			t.Errorf("want no write to Argo CD in steady state, got %v", writes)
		}
	})

	t.Run("ComparisonErrorIsNotReady", func(t *testing.T) {
		b := realMR(ns, "breakable", s, "breakable")
		controlplane.Must(t, c.Create(ctx, b))
		controlplane.EventuallyWithin(t, 3*time.Minute, "breakable Ready", func() bool {
			return get(t, c, b) && b.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue
		})
		if _, err := s.Apps.Commit(map[string]string{"breakable/configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: [not, a, map\n"}, "break it"); err != nil {
			t.Fatal(err)
		}
		refresh(t, s, "breakable")
		controlplane.EventuallyWithin(t, 2*time.Minute, "not Ready, with Argo CD's comparison error", func() bool {
			if !get(t, c, b) {
				return false
			}
			r := b.GetCondition(xpv2.TypeReady)
			return r.Status == corev1.ConditionFalse && strings.Contains(r.Message, "ComparisonError")
		})
		t.Logf("while Argo CD cannot compare: health %q, Ready message %q", b.Status.AtProvider.HealthStatus, b.GetCondition(xpv2.TypeReady).Message)
		if _, err := s.Apps.Commit(map[string]string{"breakable/configmap.yaml": argocdserver.SampleApps["breakable/configmap.yaml"]}, "fix it"); err != nil {
			t.Fatal(err)
		}
		refresh(t, s, "breakable")
		controlplane.EventuallyWithin(t, 2*time.Minute, "Ready again once the repository is fixed", func() bool {
			return get(t, c, b) && b.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue
		})
		controlplane.Must(t, c.Delete(ctx, b))
	})

	// Another team's application of the same name is never touched; an
	// Observe-only resource may watch it and never changes or deletes it.
	t.Run("ForeignApplication", func(t *testing.T) {
		foreign := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
			"metadata": map[string]any{"name": "taken", "namespace": argocdserver.Namespace, "labels": map[string]any{contract.LabelOwner: "other-team.taken"}},
			"spec": map[string]any{
				"project":     "default",
				"source":      map[string]any{"repoURL": s.Apps.URL, "path": "other", "targetRevision": "main"},
				"destination": map[string]any{"server": argocdserver.InClusterServer, "namespace": "taken"},
			},
		}}
		controlplane.Must(t, s.Kube.Create(ctx, foreign))
		other := realMR(ns, "taken", s, "guestbook")
		controlplane.Must(t, c.Create(ctx, other))
		controlplane.Eventually(t, "conflict reported", func() bool {
			return get(t, c, other) && other.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionFalse &&
				strings.Contains(other.GetCondition(xpv2.TypeSynced).Message, `Argo CD application "taken" exists and is managed by "other-team.taken"`)
		})
		controlplane.Must(t, c.Delete(ctx, other))
		controlplane.EventuallyWithin(t, 2*time.Minute, "the refused resource gone", func() bool {
			return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(other), &v1alpha1.ArgoApplication{}))
		})

		w := realMR(ns, "taken", s, "other")
		w.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
		controlplane.Must(t, c.Create(ctx, w))
		controlplane.Eventually(t, "the observe-only resource Synced with the app's state", func() bool {
			return get(t, c, w) && w.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue && w.Status.AtProvider.SyncStatus != ""
		})
		controlplane.Must(t, c.Delete(ctx, w))
		controlplane.Eventually(t, "the watcher gone", func() bool {
			return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(w), &v1alpha1.ArgoApplication{}))
		})
		app, err := s.Application(ctx, argocdserver.Namespace, "taken")
		if err != nil || app == nil {
			t.Fatalf("the foreign application was deleted: %v", err)
		}
		if p, _, _ := unstructured.NestedString(app.Object, "spec", "source", "path"); p != "other" || app.GetLabels()[contract.LabelOwner] != "other-team.taken" {
			t.Errorf("the foreign application was modified: %v", app.Object["spec"])
		}
	})

	// The owner label edited away after creation (or the name taken over):
	// deleting the resource lets go of the application without touching it,
	// instead of hanging in deletion.
	// An application the Kopf operator made (no owner label, in its own
	// AppProject) is taken over with adoptExisting: labelled and moved to
	// the resource's project in place - the same object, no operation
	// started by the adoption.
	t.Run("AdoptUnownedApplication", func(t *testing.T) {
		project := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "argoproj.io/v1alpha1", "kind": "AppProject",
			"metadata": map[string]any{"name": "operator-apps", "namespace": argocdserver.Namespace},
			"spec": map[string]any{
				"sourceRepos":  []any{"*"},
				"destinations": []any{map[string]any{"server": "*", "namespace": "*"}},
			},
		}}
		controlplane.Must(t, s.Kube.Create(ctx, project))
		old := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
			"metadata": map[string]any{"name": "adopted", "namespace": argocdserver.Namespace, "labels": map[string]any{"made-by": "operator"}},
			"spec": map[string]any{
				"project":     "operator-apps",
				"source":      map[string]any{"repoURL": s.Apps.URL, "path": "other", "targetRevision": "main"},
				"destination": map[string]any{"server": argocdserver.InClusterServer, "namespace": "adopted"},
			},
		}}
		controlplane.Must(t, s.Kube.Create(ctx, old))
		uid := old.GetUID()

		a := realMR(ns, "adopted", s, "other")
		a.Spec.ForProvider.SyncPolicy = nil
		a.Spec.ForProvider.Cascade = ptr.To(false)
		a.Spec.ForProvider.AdoptExisting = true
		controlplane.Must(t, c.Create(ctx, a))
		controlplane.EventuallyWithin(t, 2*time.Minute, "the application adopted: labelled and in the resource's project", func() bool {
			app, err := s.Application(ctx, argocdserver.Namespace, "adopted")
			if err != nil || app == nil {
				return false
			}
			p, _, _ := unstructured.NestedString(app.Object, "spec", "project")
			return get(t, c, a) && a.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue &&
				app.GetLabels()[contract.LabelOwner] == argoapplication.Owner(a) && p == "default"
		})
		app, err := s.Application(ctx, argocdserver.Namespace, "adopted")
		controlplane.Must(t, err)
		if app.GetUID() != uid {
			t.Errorf("the application was recreated (uid %s, was %s): adoption must update it in place", app.GetUID(), uid)
		}
		if app.GetLabels()["made-by"] != "operator" {
			t.Errorf("the operator's own label was dropped: %v", app.GetLabels())
		}
		if op, found, _ := unstructured.NestedMap(app.Object, "operation"); found || op != nil {
			t.Errorf("the adoption started an operation: %v", op)
		}
		if st, found, _ := unstructured.NestedMap(app.Object, "status", "operationState"); found {
			t.Errorf("the adoption synced the application: %v", st)
		}
		controlplane.Must(t, c.Delete(ctx, a))
		controlplane.EventuallyWithin(t, 2*time.Minute, "the adopting resource gone", func() bool {
			return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(a), &v1alpha1.ArgoApplication{}))
		})
	})

	t.Run("DeleteLetsGoOfAnAppItCannotProveItOwns", func(t *testing.T) {
		l := realMR(ns, "relabelled", s, "other")
		controlplane.Must(t, c.Create(ctx, l))
		controlplane.EventuallyWithin(t, 3*time.Minute, "relabelled Synced", func() bool {
			return get(t, c, l) && l.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue
		})
		controlplane.Eventually(t, "the owner label changed in Argo CD", func() bool {
			app, err := s.Application(ctx, argocdserver.Namespace, "relabelled")
			if err != nil || app == nil {
				return false
			}
			app.SetLabels(merge(app.GetLabels(), map[string]string{contract.LabelOwner: "someone-else.relabelled"}))
			return s.Kube.Update(ctx, app) == nil
		})
		controlplane.Must(t, c.Delete(ctx, l))
		controlplane.EventuallyWithin(t, 2*time.Minute, "the resource gone from Kubernetes", func() bool {
			return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(l), &v1alpha1.ArgoApplication{}))
		})
		app, err := s.Application(ctx, argocdserver.Namespace, "relabelled")
		if err != nil || app == nil || app.GetDeletionTimestamp() != nil {
			t.Fatalf("the application someone else now owns was deleted: %v", err)
		}
		if got := app.GetLabels()[contract.LabelOwner]; got != "someone-else.relabelled" {
			t.Errorf("the application was modified: owner label %q", got)
		}
	})

	t.Run("DeleteRemovesApplicationAndWorkloads", func(t *testing.T) {
		controlplane.Must(t, c.Delete(ctx, cr))
		controlplane.EventuallyWithin(t, 3*time.Minute, "the MR gone from Kubernetes", func() bool {
			return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(cr), &v1alpha1.ArgoApplication{}))
		})
		if app, err := s.Application(ctx, argocdserver.Namespace, "guestbook"); err != nil || app != nil {
			t.Errorf("the application is still in Argo CD: %v", err)
		}
		controlplane.Eventually(t, "the cascade to delete the workloads", func() bool {
			return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{}))
		})
	})

	t.Run("DeleteWithoutCascadeKeepsWorkloads", func(t *testing.T) {
		k := realMR(ns, "keeper", s, "other")
		k.Spec.ForProvider.Cascade = ptr.To(false)
		controlplane.Must(t, c.Create(ctx, k))
		kcm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "keeper"}}
		controlplane.EventuallyWithin(t, 3*time.Minute, "keeper Ready and deployed", func() bool {
			return get(t, c, k) && k.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue && c.Get(ctx, client.ObjectKeyFromObject(kcm), kcm) == nil
		})
		controlplane.Must(t, c.Delete(ctx, k))
		controlplane.EventuallyWithin(t, 3*time.Minute, "keeper gone from Kubernetes", func() bool {
			return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(k), &v1alpha1.ArgoApplication{}))
		})
		if app, _ := s.Application(ctx, argocdserver.Namespace, "keeper"); app != nil {
			t.Errorf("the application is still in Argo CD")
		}
		if err := c.Get(ctx, client.ObjectKeyFromObject(kcm), kcm); err != nil {
			t.Errorf("a delete without cascade removed the workloads: %v", err)
		}
	})
}

// TestRealNoUpdateLoop: every spec shape the CRD accepts reads back from a
// real Argo CD as up to date, so polls write nothing: Helm and Kustomize
// options included, rendered by the repo server's helm and kustomize.
func TestRealNoUpdateLoop(t *testing.T) {
	env := controlplane.Shared(t)
	s := argocdserver.Shared(t, env)
	ctx := context.Background()
	c := env.Client
	ns := "argo-loop"
	counter := startRealController(t, env, s, ns)

	variants := map[string]func(p *v1alpha1.ArgoApplicationParameters){
		"no-sync-policy":    func(p *v1alpha1.ArgoApplicationParameters) { p.SyncPolicy = nil },
		"empty-sync-policy": func(p *v1alpha1.ArgoApplicationParameters) { p.SyncPolicy = &v1alpha1.SyncPolicy{} },
		"empty-automated": func(p *v1alpha1.ArgoApplicationParameters) {
			p.SyncPolicy = &v1alpha1.SyncPolicy{Automated: &v1alpha1.Automated{}}
		},
		"all-automated": func(p *v1alpha1.ArgoApplicationParameters) {
			p.SyncPolicy = &v1alpha1.SyncPolicy{Automated: &v1alpha1.Automated{Prune: true, SelfHeal: true, AllowEmpty: true}}
		},
		"sync-options-unsorted": func(p *v1alpha1.ArgoApplicationParameters) {
			p.SyncPolicy = &v1alpha1.SyncPolicy{SyncOptions: []string{"PruneLast=true", "CreateNamespace=true", "ApplyOutOfSyncOnly=true"}}
		},
		"empty-retry": func(p *v1alpha1.ArgoApplicationParameters) {
			p.SyncPolicy = &v1alpha1.SyncPolicy{Retry: &v1alpha1.RetryStrategy{}}
		},
		"retry-backoff": func(p *v1alpha1.ArgoApplicationParameters) {
			p.SyncPolicy = &v1alpha1.SyncPolicy{Retry: &v1alpha1.RetryStrategy{Limit: 5, Backoff: &v1alpha1.Backoff{Duration: "5s", Factor: ptr.To[int64](2), MaxDuration: "3m"}}}
		},
		"retry-unlimited": func(p *v1alpha1.ArgoApplicationParameters) {
			p.SyncPolicy = &v1alpha1.SyncPolicy{Retry: &v1alpha1.RetryStrategy{Limit: -1}}
		},
		"destination-by-name": func(p *v1alpha1.ArgoApplicationParameters) {
			p.Destination = v1alpha1.ApplicationDestination{Name: "in-cluster", Namespace: "loop-by-name"}
		},
		"no-cascade": func(p *v1alpha1.ArgoApplicationParameters) { p.Cascade = ptr.To(false) },
		"head-revision": func(p *v1alpha1.ArgoApplicationParameters) {
			p.Source.TargetRevision = "HEAD"
		},
		"trailing-slash-path": func(p *v1alpha1.ArgoApplicationParameters) { p.Source.Path = "guestbook/" },
		"empty-helm": func(p *v1alpha1.ArgoApplicationParameters) {
			p.Source.Path, p.Source.Helm = "chart", &v1alpha1.HelmSource{}
		},
		"helm-options": func(p *v1alpha1.ArgoApplicationParameters) {
			p.Source.Path = "chart"
			p.Source.Helm = &v1alpha1.HelmSource{
				ReleaseName: "shop", ValueFiles: []string{"values-prod.yaml", "values.yaml"}, Values: "replicas: 2\n",
				Parameters: []v1alpha1.HelmParameter{{Name: "greeting", Value: "hi"}, {Name: "replicas", Value: "3", ForceString: true}},
			}
		},
		"empty-kustomize": func(p *v1alpha1.ArgoApplicationParameters) {
			p.Source.Path, p.Source.Kustomize = "kustomized", &v1alpha1.KustomizeSource{}
		},
		"kustomize-options": func(p *v1alpha1.ArgoApplicationParameters) {
			p.Source.Path = "kustomized"
			p.Source.Kustomize = &v1alpha1.KustomizeSource{NamePrefix: "pre-", NameSuffix: "-suf", Images: []string{"registry.example.com/shop:1.2.3"}}
		},
	}
	var crs []*v1alpha1.ArgoApplication
	for name, mutate := range variants {
		cr := realMR(ns, "loop-"+name, s, "guestbook")
		cr.Spec.ForProvider.SyncPolicy = nil
		mutate(&cr.Spec.ForProvider)
		controlplane.Must(t, c.Create(ctx, cr))
		crs = append(crs, cr)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for _, cr := range crs {
		for !(get(t, c, cr) && cr.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue) {
			if time.Now().After(deadline) {
				t.Fatalf("%s not Synced: %s", cr.Name, cr.GetCondition(xpv2.TypeSynced).Message)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	time.Sleep(3 * time.Second)
	counter.reset()
	time.Sleep(8 * time.Second) // several polls at 2s
	if w := counter.writes(); len(w) != 0 {
		t.Errorf("specs rewritten on every poll (want none): %v", w)
		for _, cr := range crs {
			get(t, c, cr)
			t.Logf("%s: %s", cr.Name, cr.GetCondition(xpv2.TypeSynced).Message)
		}
	}

	// A spec edited after creation settles too: removed fields are removed
	// in Argo CD, and then polls write nothing.
	edits := map[string]func(p *v1alpha1.ArgoApplicationParameters){
		"loop-retry-backoff": func(p *v1alpha1.ArgoApplicationParameters) {
			p.SyncPolicy = &v1alpha1.SyncPolicy{Retry: &v1alpha1.RetryStrategy{}}
		},
		"loop-head-revision": func(p *v1alpha1.ArgoApplicationParameters) {
			p.Destination = v1alpha1.ApplicationDestination{Name: "in-cluster", Namespace: "loop-head-revision"}
		},
	}
	for name, edit := range edits {
		cr := &v1alpha1.ArgoApplication{}
		controlplane.Eventually(t, "edited "+name, func() bool {
			if c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cr) != nil {
				return false
			}
			edit(&cr.Spec.ForProvider)
			return c.Update(ctx, cr) == nil
		})
	}
	controlplane.EventuallyWithin(t, 2*time.Minute, "the edits applied in Argo CD", func() bool {
		r, err := s.Application(ctx, argocdserver.Namespace, "loop-retry-backoff")
		if err != nil || r == nil {
			return false
		}
		d, err := s.Application(ctx, argocdserver.Namespace, "loop-head-revision")
		if err != nil || d == nil {
			return false
		}
		_, hasBackoff, _ := unstructured.NestedMap(r.Object, "spec", "syncPolicy", "retry", "backoff")
		_, hasLimit, _ := unstructured.NestedFieldNoCopy(r.Object, "spec", "syncPolicy", "retry", "limit")
		server, _, _ := unstructured.NestedString(d.Object, "spec", "destination", "server")
		dname, _, _ := unstructured.NestedString(d.Object, "spec", "destination", "name")
		return !hasBackoff && !hasLimit && server == "" && dname == "in-cluster"
	})
	time.Sleep(3 * time.Second)
	counter.reset()
	time.Sleep(8 * time.Second)
	if w := counter.writes(); len(w) != 0 {
		t.Errorf("edited specs rewritten on every poll (want none): %v", w)
	}
	for _, cr := range crs {
		controlplane.Must(t, c.Delete(ctx, cr))
	}
}

// refresh asks Argo CD to compare the application again now.
func refresh(t *testing.T, s *argocdserver.Server, name string) {
	t.Helper()
	ctx := context.Background()
	controlplane.Eventually(t, "refresh requested", func() bool {
		app, err := s.Application(ctx, argocdserver.Namespace, name)
		if err != nil || app == nil {
			return false
		}
		app.SetAnnotations(merge(app.GetAnnotations(), map[string]string{"argocd.argoproj.io/refresh": "hard"}))
		return s.Kube.Update(ctx, app) == nil
	})
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func without(l []string, s string) []string {
	var out []string
	for _, x := range l {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

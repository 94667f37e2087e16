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

package argocd_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/testing/argocdserver"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

func TestMain(m *testing.M) { controlplane.Main(m) }

// realArgoCD is the package's real Argo CD, on its envtest control plane.
func realArgoCD(t *testing.T) *argocdserver.Server {
	t.Helper()
	return argocdserver.Shared(t, controlplane.Shared(t))
}

func newReal(t *testing.T, s *argocdserver.Server, token string) *argocd.Client {
	t.Helper()
	c, err := argocd.New(argocd.Config{URL: s.URL, Token: token, Timeout: 90 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func realApp(s *argocdserver.Server, name, path, dest string) *argocd.Application {
	return &argocd.Application{
		Metadata: argocd.ObjectMeta{Name: name, Labels: map[string]string{"devops.freeleaps.io/owner": "tests." + name}},
		Spec: argocd.ApplicationSpec{
			Project:     "default",
			Source:      &argocd.ApplicationSource{RepoURL: s.Apps.URL, Path: path, TargetRevision: "main"},
			Destination: argocd.ApplicationDestination{Server: argocdserver.InClusterServer, Namespace: dest},
			SyncPolicy:  &argocd.SyncPolicy{SyncOptions: []string{"CreateNamespace=true"}},
		},
	}
}

// waitFor polls cond for up to two minutes (Argo CD's controller runs on a
// loaded machine).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

func exists(t *testing.T, kube client.Client, obj client.Object) bool {
	t.Helper()
	err := kube.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)
	return err == nil
}

// TestRealCreateGetUpdate holds the client to a real Argo CD: create with
// upsert=false is idempotent for the same spec and refused for another one,
// Get finds by name in Argo CD's own namespace only, Patch changes.
func TestRealCreateGetUpdate(t *testing.T) {
	s := realArgoCD(t)
	c := newReal(t, s, s.Token)
	ctx := context.Background()

	if _, err := c.Get(ctx, "real-crud"); !argocd.IsNotFound(err) {
		t.Fatalf("Get of a missing app: want NotFound, got %v", err)
	}
	want := realApp(s, "real-crud", "guestbook", "real-crud")
	if _, err := c.Create(ctx, want); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if _, err := c.Create(ctx, want); err != nil {
		t.Errorf("Create of the same spec again: Argo CD answers with the existing app, got %v", err)
	}
	other := realApp(s, "real-crud", "other", "real-crud")
	if _, err := c.Create(ctx, other); !argocd.IsAlreadyExists(err) {
		t.Errorf("Create over a different existing app: want AlreadyExists, got %v", err)
	}
	got, err := c.Get(ctx, "real-crud")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got.Spec.Source.Path != "guestbook" || got.Metadata.Namespace != argocdserver.Namespace {
		t.Errorf("Get: want path guestbook in namespace %s, got %+v", argocdserver.Namespace, got)
	}

	if _, err := c.Patch(ctx, "real-crud", []byte(`{"spec":{"source":{"path":"other"}}}`)); err != nil {
		t.Fatalf("Patch: %v", err)
	}
	got, err = c.Get(ctx, "real-crud")
	if err != nil || got.Spec.Source.Path != "other" {
		t.Fatalf("after Patch: want path other, got %+v, %v", got, err)
	}
	if err := c.Delete(ctx, "real-crud", "default", false); err != nil {
		t.Fatalf("Delete: %v", err)
	}
}

// TestRealGetIgnoresOtherNamespaces: with apps in any namespace on, an app of
// the same name in another namespace is not the one we manage.
func TestRealGetIgnoresOtherNamespaces(t *testing.T) {
	s := realArgoCD(t)
	c := newReal(t, s, s.Token)
	ctx := context.Background()
	ns := "argocd-apps-tenant"
	controlplane.Must(t, client.IgnoreAlreadyExists(s.Kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})))
	proj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "AppProject",
		"metadata": map[string]any{"name": "tenant", "namespace": argocdserver.Namespace},
		"spec": map[string]any{
			"sourceRepos": []any{"*"}, "sourceNamespaces": []any{ns},
			"destinations": []any{map[string]any{"server": "*", "namespace": "*"}},
		},
	}}
	controlplane.Must(t, client.IgnoreAlreadyExists(s.Kube.Create(ctx, proj)))
	foreign := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": "twin", "namespace": ns},
		"spec": map[string]any{
			"project":     "tenant",
			"source":      map[string]any{"repoURL": s.Apps.URL, "path": "other", "targetRevision": "main"},
			"destination": map[string]any{"server": argocdserver.InClusterServer, "namespace": "twin"},
		},
	}}
	controlplane.Must(t, s.Kube.Create(ctx, foreign))
	waitFor(t, "the foreign app served by Argo CD", func() bool {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/api/v1/applications/twin?appNamespace="+ns, nil)
		req.Header.Set("Authorization", "Bearer "+s.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	if app, err := c.Get(ctx, "twin"); !argocd.IsNotFound(err) {
		t.Fatalf("Get must not return the app of namespace %s: got %+v, %v", ns, app, err)
	}
	if _, err := c.Create(ctx, realApp(s, "twin", "guestbook", "twin")); err != nil {
		t.Fatalf("Create beside the foreign twin: %v", err)
	}
	got, err := c.Get(ctx, "twin")
	if err != nil || got.Metadata.Namespace != argocdserver.Namespace || got.Spec.Source.Path != "guestbook" {
		t.Fatalf("Get: want our twin in %s, got %+v, %v", argocdserver.Namespace, got, err)
	}
	if app, err := newReal(t, s, s.LimitedToken).Get(ctx, "twin"); !argocd.IsNotFound(err) {
		t.Errorf("an app the token's RBAC hides reads as absent, got %+v, %v", app, err)
	}
	if err := c.Delete(ctx, "twin", "default", false); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if app, _ := s.Application(ctx, ns, "twin"); app == nil {
		t.Errorf("deleting ours deleted the foreign twin")
	}
}

// TestRealSyncAndDelete: a sync deploys the app's resources; a cascading
// delete removes the app and them, a plain delete only the app.
func TestRealSyncAndDelete(t *testing.T) {
	s := realArgoCD(t)
	c := newReal(t, s, s.Token)
	ctx := context.Background()

	for _, cascade := range []bool{true, false} {
		name := "real-delete-" + map[bool]string{true: "cascade", false: "orphan"}[cascade]
		app := realApp(s, name, "guestbook", name)
		if cascade {
			app.Metadata.Finalizers = []string{"resources-finalizer.argocd.argoproj.io"}
		}
		if _, err := c.Create(ctx, app); err != nil {
			t.Fatalf("Create %s: %v", name, err)
		}
		if err := c.Sync(ctx, name, "default", ""); err != nil {
			t.Fatalf("Sync %s: %v", name, err)
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "guestbook", Namespace: name}}
		var compared *time.Time
		waitFor(t, name+" synced and Healthy", func() bool {
			got, err := c.Get(ctx, name)
			if err == nil {
				compared = got.Status.ReconciledAt
			}
			return err == nil && got.Status.Sync.Status == "Synced" && got.Status.Health.Status == "Healthy" && exists(t, s.Kube, cm) && compared != nil
		})
		// Asked to compare again, Argo CD does so before its periodic
		// comparison: reconciledAt moves on (it keeps whole seconds).
		time.Sleep(time.Until(compared.Add(1100 * time.Millisecond)))
		if err := c.Refresh(ctx, name); err != nil {
			t.Fatalf("Refresh %s: %v", name, err)
		}
		// Sooner than the test server's periodic comparison (30s), which
		// would move it too.
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(250 * time.Millisecond) {
			got, err := c.Get(ctx, name)
			if err == nil && got.Status.ReconciledAt != nil && got.Status.ReconciledAt.After(*compared) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s not compared again within 15s of the refresh asked for", name)
			}
		}
		// Argo CD answers an app it does not hold as one the caller may
		// not see (403 or 404): an error either way.
		if err := c.Refresh(ctx, "real-no-such-app"); err == nil || httpapi.StatusOf(err) != http.StatusNotFound && httpapi.StatusOf(err) != http.StatusForbidden {
			t.Errorf("Refresh of a missing app: want 403 or 404, got %v", err)
		}
		if err := c.Delete(ctx, name, "default", cascade); err != nil {
			t.Fatalf("Delete %s (cascade %v): %v", name, cascade, err)
		}
		waitFor(t, name+" gone from Argo CD", func() bool {
			_, err := c.Get(ctx, name)
			return argocd.IsNotFound(err)
		})
		if cascade {
			waitFor(t, "the cascade to delete the ConfigMap", func() bool { return !exists(t, s.Kube, cm) })
		} else if !exists(t, s.Kube, cm) {
			t.Errorf("a delete without cascade removed the app's ConfigMap")
		}
		if err := c.Delete(ctx, name, "default", cascade); !argocd.IsNotFound(err) {
			t.Errorf("Delete of a deleted app: want NotFound, got %v", err)
		}
	}
}

// TestRealErrors: Argo CD's own answers to bad tokens, missing rights, bad
// input and a missing repo server, and how the client classifies them.
func TestRealErrors(t *testing.T) {
	s := realArgoCD(t)
	ctx := context.Background()

	cases := map[string]struct {
		reason    string
		token     string
		app       func() *argocd.Application
		transient bool
		status    int
		contains  string
	}{
		"BadToken": {
			reason: "a token Argo CD did not sign is 401", token: "not-a-token",
			app: func() *argocd.Application { return realApp(s, "err-token", "guestbook", "x") }, status: http.StatusUnauthorized,
		},
		"NoPermission": {
			reason: "a token without create rights is 403", token: s.LimitedToken,
			app: func() *argocd.Application { return realApp(s, "err-perm", "guestbook", "x") }, status: http.StatusForbidden,
		},
		"BadPath": {
			reason: "a path missing in the repository is a validation error", token: s.Token,
			app: func() *argocd.Application { return realApp(s, "err-path", "no/such/path", "x") }, status: http.StatusBadRequest, contains: "no/such/path",
		},
		"UnknownProject": {
			reason: "an unknown project is a validation error", token: s.Token,
			app: func() *argocd.Application {
				a := realApp(s, "err-project", "guestbook", "x")
				a.Spec.Project = "nope"
				return a
			},
			status: http.StatusBadRequest, contains: "nope",
		},
		"UnreachableRepository": {
			reason: "a repository nobody serves is a validation error", token: s.Token,
			app: func() *argocd.Application {
				a := realApp(s, "err-repo", "guestbook", "x")
				a.Spec.Source.RepoURL = "http://127.0.0.1:1/nothing.git"
				return a
			},
			status: http.StatusBadRequest,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := newReal(t, s, tc.token)
			_, err := c.Create(ctx, tc.app())
			if httpapi.StatusOf(err) != tc.status || httpapi.IsTransient(err) != tc.transient || httpapi.IsTerminal(err) == tc.transient {
				t.Errorf("%s: want status %d transient %v (else terminal), got %d transient %v terminal %v: %v", tc.reason, tc.status, tc.transient, httpapi.StatusOf(err), httpapi.IsTransient(err), httpapi.IsTerminal(err), err)
			}
			if tc.contains != "" && !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("%s: the message should name %q: %v", tc.reason, tc.contains, err)
			}
			if strings.Contains(err.Error(), s.Token) {
				t.Errorf("the error carries the token")
			}
		})
	}
}

// TestRealRepoServerDown: with the repo server gone, a create fails as a
// transient error (retried), and works again once it is back.
func TestRealRepoServerDown(t *testing.T) {
	s := realArgoCD(t)
	c := newReal(t, s, s.Token)
	ctx := context.Background()
	s.StopRepoServer()
	_, err := c.Create(ctx, realApp(s, "repo-down", "guestbook", "repo-down"))
	if err == nil || !httpapi.IsTransient(err) {
		t.Errorf("create with the repo server down: want a transient error, got %v", err)
	}
	if err := s.StartRepoServer(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "create to work again", func() bool {
		_, err := c.Create(ctx, realApp(s, "repo-down", "guestbook", "repo-down"))
		return err == nil
	})
	_ = c.Delete(ctx, "repo-down", "default", false)
}

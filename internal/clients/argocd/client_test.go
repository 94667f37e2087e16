package argocd_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	fake "github.com/freeleaps/provider-devops/internal/testing/argocd"
)

const token = "argocd-token-never-printed"

func app(name, path string) *argocd.Application {
	return &argocd.Application{
		Metadata: argocd.ObjectMeta{Name: name},
		Spec: argocd.ApplicationSpec{
			Project:     "default",
			Source:      &argocd.ApplicationSource{RepoURL: "https://git.example.com/shop.git", Path: path, TargetRevision: "main"},
			Destination: argocd.ApplicationDestination{Server: "https://kubernetes.default.svc", Namespace: "shop"},
		},
	}
}

func TestClientAgainstFake(t *testing.T) {
	srv := fake.New(token)
	defer srv.Close()
	c, err := argocd.New(argocd.Config{URL: srv.URL, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	if _, err := c.Get(ctx, "shop"); !argocd.IsNotFound(err) {
		t.Fatalf("Get of a missing app: want NotFound, got %v", err)
	}
	if _, err := c.Create(ctx, app("shop", "deploy/alpha")); err != nil {
		t.Fatalf("Create: %v", err)
	}
	got, err := c.Get(ctx, "shop")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(app("shop", "deploy/alpha").Spec, got.Spec); diff != "" {
		t.Errorf("stored spec -want +got:\n%s", diff)
	}
	if got.Status.Health.Status != "Missing" || got.Status.Sync.Status != "OutOfSync" {
		t.Errorf("a new app is OutOfSync/Missing, got %+v", got.Status)
	}
	if _, err := c.Create(ctx, app("shop", "deploy/beta")); !argocd.IsAlreadyExists(err) {
		t.Errorf("Create over a different existing app: want AlreadyExists, got %v", err)
	}

	srv.SetStatus("shop", "Synced", "abc123", "Healthy", "", "Succeeded")
	got, _ = c.Get(ctx, "shop")
	if got.Status.Sync.Revision != "abc123" || got.Status.Health.Status != "Healthy" || got.Status.OperationState.Phase != "Succeeded" || got.Status.ReconciledAt == nil {
		t.Errorf("status not decoded: %+v", got.Status)
	}

	srv.Hide("shop")
	if _, err := c.Get(ctx, "shop"); !argocd.IsNotFound(err) {
		t.Errorf("an RBAC-hidden app reads as absent via list-by-name, got %v", err)
	}
	if err := c.Delete(ctx, "shop", "", true); err == nil || !strings.Contains(err.Error(), "403 PermissionDenied") {
		t.Errorf("deleting a hidden app: want PermissionDenied, got %v", err)
	}
}

func TestClientErrors(t *testing.T) {
	srv := fake.New(token)
	defer srv.Close()
	ctx := context.Background()

	bad, _ := argocd.New(argocd.Config{URL: srv.URL, Token: "wrong"})
	_, err := bad.Get(ctx, "x")
	if err == nil || !strings.Contains(err.Error(), "401 Unauthorized") || argocd.IsTransient(err) {
		t.Errorf("bad token: want a permanent 401 error, got %v", err)
	}

	c, _ := argocd.New(argocd.Config{URL: srv.URL, Token: token})
	srv.FailNext(1, http.StatusTooManyRequests, 7)
	_, err = c.Get(ctx, "x")
	var ae *argocd.APIError
	if !argocd.IsTransient(err) || !asAPIError(err, &ae) || ae.RetryAfter != 7*time.Second {
		t.Errorf("429: want transient with Retry-After 7s, got %#v", err)
	}
	srv.FailNext(1, http.StatusServiceUnavailable, 0)
	if _, err := c.Get(ctx, "x"); !argocd.IsTransient(err) {
		t.Errorf("503: want transient, got %v", err)
	}

	srv.Close()
	_, err = c.Get(ctx, "x")
	if !argocd.IsTransient(err) || !strings.Contains(err.Error(), "cannot reach Argo CD") {
		t.Errorf("connection refused: want transient 'cannot reach', got %v", err)
	}
	for _, e := range []error{err} {
		if strings.Contains(e.Error(), token) {
			t.Errorf("error leaks the token: %v", e)
		}
	}

	if _, err := argocd.New(argocd.Config{URL: "argocd.example.com", Token: token}); err == nil {
		t.Error("a URL without scheme must be refused")
	}
	if _, err := argocd.New(argocd.Config{URL: "https://argocd.example.com", Token: " "}); err == nil {
		t.Error("an empty token must be refused")
	}
	if _, err := argocd.New(argocd.Config{URL: "https://argocd.example.com", Token: token, CABundle: []byte("not pem")}); err == nil {
		t.Error("a CA bundle without certificates must be refused")
	}
}

func asAPIError(err error, target **argocd.APIError) bool {
	e, ok := err.(*argocd.APIError) //nolint:errorlint // the client returns it unwrapped
	*target = e
	return ok
}

func TestDeleteCascade(t *testing.T) {
	srv := fake.New(token)
	defer srv.Close()
	c, _ := argocd.New(argocd.Config{URL: srv.URL, Token: token})
	ctx := context.Background()
	for name, cascade := range map[string]bool{"keep": false, "purge": true} {
		if _, err := c.Create(ctx, app(name, "deploy")); err != nil {
			t.Fatal(err)
		}
		if err := c.Delete(ctx, name, "default", cascade); err != nil {
			t.Fatal(err)
		}
		got, ok := srv.Deleted(name)
		if !ok || got != map[bool]string{true: "true", false: "false"}[cascade] {
			t.Errorf("%s: want cascade=%v, fake saw %q (deleted=%v)", name, cascade, got, ok)
		}
	}
}

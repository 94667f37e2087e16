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

package argoproject_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/controller/argoproject"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/testing/argocdserver"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

func TestMain(m *testing.M) { controlplane.Main(m) }

// TestRealArgoProject runs the controller against a real Argo CD: the
// AppProject is created with exactly the destinations asked for, and Argo
// CD then refuses an application deploying anywhere else; drift is
// corrected while what Argo CD and others add (role tokens, sync windows)
// is kept; the steady state only reads; another's project is never
// touched; deletion removes the project.
func TestRealArgoProject(t *testing.T) {
	env := controlplane.Shared(t)
	s := argocdserver.Shared(t, env)
	c := env.Client
	ctx := context.Background()
	ns := "argo-project"
	controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	controlplane.Must(t, c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "argocd", Namespace: ns}, StringData: map[string]string{"token": s.Token}}))
	controlplane.Must(t, c.Create(ctx, &pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: pcv1alpha1.ProviderConfigSpec{
		ArgoCD: &pcv1alpha1.ArgoCDConfig{URL: s.URL, Namespace: argocdserver.Namespace, Credentials: pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &pcv1alpha1.SecretKeySelector{Name: "argocd", Key: "token"}}},
	}}))
	w := argocdserver.NewWriteCounter()
	controlplane.StartManager(t, env, 2*time.Second, func(mgr ctrl.Manager, o controller.Options) error {
		return mrcontroller.Setup(mgr, o, argoproject.Descriptor, argoproject.NewConnector(mgr.GetClient(), controlplane.TenantGuard(), func(cfg argocd.Config) (argoproject.Client, error) {
			cfg.Transport = w
			return argocd.New(cfg)
		}))
	})

	cr := &v1alpha1.ArgoProject{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: ns}}
	cr.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
	cr.Spec.ForProvider = v1alpha1.ArgoProjectParameters{
		Description:  "the shop team's applications",
		SourceRepos:  []string{s.Apps.URL},
		Destinations: []v1alpha1.ProjectDestination{{Server: argocdserver.InClusterServer, Namespace: "shop-*"}},
		Roles:        []v1alpha1.ProjectRole{{Name: "ci", Policies: []string{"p, proj:shop:ci, applications, sync, shop/*, allow"}}},
	}
	controlplane.Must(t, c.Create(ctx, cr))
	get := func(o client.Object) bool { return c.Get(ctx, client.ObjectKeyFromObject(o), o) == nil }
	controlplane.Eventually(t, "project created and Ready", func() bool {
		return get(cr) && cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue && cr.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue
	})
	appProject := func(name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("argoproj.io/v1alpha1")
		u.SetKind("AppProject")
		u.SetNamespace(argocdserver.Namespace)
		u.SetName(name)
		return u
	}
	ap := appProject("shop")
	controlplane.Must(t, c.Get(ctx, client.ObjectKeyFromObject(ap), ap))
	if got := ap.GetLabels()[contract.LabelOwner]; got != ns+".shop" {
		t.Errorf("owner label %q", got)
	}
	if cr.Status.AtProvider.URL != s.URL+"/settings/projects/shop" {
		t.Errorf("url %q", cr.Status.AtProvider.URL)
	}

	// The project is the boundary: Argo CD refuses an application of it
	// that deploys outside its destinations or from another repository.
	cl, err := argocd.New(argocd.Config{URL: s.URL, Token: s.Token, Namespace: argocdserver.Namespace})
	controlplane.Must(t, err)
	otherRepo, err := s.Git.Create("other-team", argocdserver.SampleApps)
	controlplane.Must(t, err)
	for name, app := range map[string]argocd.Application{
		"kube-system": {Spec: argocd.ApplicationSpec{Project: "shop", Source: &argocd.ApplicationSource{RepoURL: s.Apps.URL, Path: "guestbook", TargetRevision: "main"},
			Destination: argocd.ApplicationDestination{Server: argocdserver.InClusterServer, Namespace: "kube-system"}}},
		"other-repo": {Spec: argocd.ApplicationSpec{Project: "shop", Source: &argocd.ApplicationSource{RepoURL: otherRepo.URL, Path: "guestbook", TargetRevision: "main"},
			Destination: argocd.ApplicationDestination{Server: argocdserver.InClusterServer, Namespace: "shop-dev"}}},
	} {
		app.Metadata.Name = "escape-" + name
		if _, err := cl.Create(ctx, &app); err == nil || !(strings.Contains(err.Error(), "not permitted in project") || strings.Contains(err.Error(), "do not match any of the allowed destinations in project")) {
			t.Errorf("%s: want Argo CD to refuse an application outside the project, got %v", name, err)
		}
	}

	// A token issued for the role, and a sync window someone adds, are
	// not the provider's: they survive drift correction.
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/api/v1/projects/shop/roles/ci/token", bytes.NewReader([]byte(`{}`)))
	req.Header.Set("Authorization", "Bearer "+s.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	controlplane.Must(t, err)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("issuing a role token: %s", resp.Status)
	}
	controlplane.Eventually(t, "drift made behind the provider's back", func() bool {
		ap := appProject("shop")
		if !get(ap) {
			return false
		}
		spec := ap.Object["spec"].(map[string]any)
		spec["destinations"] = append(spec["destinations"].([]any), map[string]any{"server": argocdserver.InClusterServer, "namespace": "kube-system"})
		spec["syncWindows"] = []any{map[string]any{"kind": "deny", "schedule": "0 22 * * *", "duration": "1h", "applications": []any{"*"}}}
		// Sync impersonation of a privileged service account: whoever
		// planted or edited the project would deploy with its rights.
		spec["destinationServiceAccounts"] = []any{map[string]any{"server": argocdserver.InClusterServer, "namespace": "*", "defaultServiceAccount": "kube-system:admin"}}
		return c.Update(ctx, ap) == nil
	})
	controlplane.Eventually(t, "destinations and service accounts corrected, token and sync window kept", func() bool {
		ap := appProject("shop")
		if !get(ap) {
			return false
		}
		b, _ := json.Marshal(ap.Object["spec"])
		return !strings.Contains(string(b), "kube-system") && !strings.Contains(string(b), "destinationServiceAccounts") && strings.Contains(string(b), `"syncWindows"`) && strings.Contains(string(b), `"jwtTokens"`)
	})

	t.Run("SteadyState", func(t *testing.T) {
		controlplane.Eventually(t, "settled", func() bool { return get(cr) && cr.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue })
		time.Sleep(3 * time.Second)
		get(cr)
		rv := cr.GetResourceVersion()
		w.Take()
		time.Sleep(7 * time.Second)
		get(cr)
		if got := w.Take(); len(got) != 0 || cr.GetResourceVersion() != rv {
			t.Errorf("steady state wrote: Argo CD %v, resourceVersion %s -> %s", got, rv, cr.GetResourceVersion())
		}
	})

	t.Run("OthersProjectUntouched", func(t *testing.T) {
		other := appProject("platform")
		other.Object["spec"] = map[string]any{"sourceRepos": []any{"*"}, "destinations": []any{map[string]any{"server": "*", "namespace": "*"}}}
		controlplane.Must(t, c.Create(ctx, other))
		thief := &v1alpha1.ArgoProject{ObjectMeta: metav1.ObjectMeta{Name: "platform", Namespace: ns}}
		thief.Spec.ProviderConfigReference = cr.Spec.ProviderConfigReference
		thief.Spec.ForProvider = v1alpha1.ArgoProjectParameters{SourceRepos: []string{"*"}, Destinations: []v1alpha1.ProjectDestination{{Server: "https://evil.example.com", Namespace: "*"}}}
		controlplane.Must(t, c.Create(ctx, thief))
		controlplane.Eventually(t, "refused", func() bool {
			return get(thief) && strings.Contains(thief.GetCondition(xpv2.TypeSynced).Message, `Argo CD project "platform" exists and is not managed by this resource`)
		})
		controlplane.Must(t, c.Delete(ctx, thief))
		controlplane.Eventually(t, "let go", func() bool { return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(thief), thief)) })
		if !get(other) || strings.Contains(func() string { b, _ := json.Marshal(other.Object["spec"]); return string(b) }(), "evil") {
			t.Errorf("another's project was changed or deleted: %v", other.Object["spec"])
		}
	})

	// A project planted ahead of its resource, with its owner label and a
	// role the resource also grants: the planter's token of that role
	// would act on the team's applications. Taking it over revokes it.
	t.Run("PlantedProjectTokensRevoked", func(t *testing.T) {
		planted := appProject("planted")
		planted.SetLabels(map[string]string{contract.LabelOwner: ns + ".planted", contract.LabelOwnerNamespace: ns})
		planted.Object["spec"] = map[string]any{"sourceRepos": []any{s.Apps.URL}, "destinations": []any{map[string]any{"server": argocdserver.InClusterServer, "namespace": "shop-*"}},
			"roles": []any{map[string]any{"name": "ci", "policies": []any{"p, proj:planted:ci, applications, get, planted/*, allow"}}}}
		controlplane.Must(t, c.Create(ctx, planted))
		token := roleToken(t, s.URL, s.Token, "planted", "ci")
		// Argo CD's server checks a project token against its cached copy
		// of the project, which learns of the token a moment after it is
		// issued.
		controlplane.Eventually(t, "the planted role's token accepted by Argo CD before the takeover", func() bool { return loggedIn(t, s.URL, token) })
		cr := &v1alpha1.ArgoProject{ObjectMeta: metav1.ObjectMeta{Name: "planted", Namespace: ns}}
		cr.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
		cr.Spec.ForProvider = v1alpha1.ArgoProjectParameters{SourceRepos: []string{s.Apps.URL}, Destinations: []v1alpha1.ProjectDestination{{Server: argocdserver.InClusterServer, Namespace: "shop-*"}},
			Roles: []v1alpha1.ProjectRole{{Name: "ci", Policies: []string{"p, proj:planted:ci, applications, get, planted/*, allow"}}}}
		controlplane.Must(t, c.Create(ctx, cr))
		controlplane.Eventually(t, "taken over, its tokens revoked", func() bool {
			return get(cr) && cr.Status.AtProvider.RevokedRoleTokens == 1 && cr.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue
		})
		controlplane.Eventually(t, "the planted role's token refused after the takeover", func() bool { return !loggedIn(t, s.URL, token) })
		// A token issued after the takeover is the team's: kept.
		ours := roleToken(t, s.URL, s.Token, "planted", "ci")
		controlplane.Eventually(t, "a token issued after the takeover accepted", func() bool { return loggedIn(t, s.URL, ours) })
		ap := appProject("planted")
		controlplane.Must(t, c.Get(ctx, client.ObjectKeyFromObject(ap), ap))
		if ap.GetLabels()[contract.LabelOwnerUID] != string(cr.GetUID()) {
			t.Errorf("owner uid label %q, want %q", ap.GetLabels()[contract.LabelOwnerUID], cr.GetUID())
		}
		time.Sleep(3 * time.Second) // a few polls
		if !loggedIn(t, s.URL, ours) {
			t.Error("a token issued after the takeover was revoked")
		}
		controlplane.Must(t, c.Delete(ctx, cr))
		controlplane.Eventually(t, "planted project deleted", func() bool { return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(cr), cr)) })
	})

	// A project whose repository moves (a DevOpsProject's git URL
	// changed) while an application uses the old one: Argo CD refuses to
	// take the old one away, and the application the new one until the
	// project has it. The project keeps both until the application moved.
	t.Run("SourceMovesWithItsApplication", func(t *testing.T) {
		app := &argocd.Application{Metadata: argocd.ObjectMeta{Name: "shop-moving"}, Spec: argocd.ApplicationSpec{Project: "shop",
			Source:      &argocd.ApplicationSource{RepoURL: s.Apps.URL, Path: "guestbook", TargetRevision: "main"},
			Destination: argocd.ApplicationDestination{Server: argocdserver.InClusterServer, Namespace: "shop-dev"}}}
		_, err := cl.Create(ctx, app)
		controlplane.Must(t, err)
		defer func() { _ = cl.Delete(ctx, app.Metadata.Name, "shop", false) }()
		repos := func() []string {
			ap := appProject("shop")
			if !get(ap) {
				return nil
			}
			r, _, _ := unstructured.NestedStringSlice(ap.Object, "spec", "sourceRepos")
			return r
		}
		controlplane.Eventually(t, "resource read", func() bool { return get(cr) })
		cr.Spec.ForProvider.SourceRepos = []string{otherRepo.URL}
		controlplane.Must(t, c.Update(ctx, cr))
		controlplane.Eventually(t, "the new repository added, the old one kept for the application, and said so", func() bool {
			r := repos()
			return len(r) == 2 && slices.Contains(r, otherRepo.URL) && slices.Contains(r, s.Apps.URL) &&
				get(cr) && strings.Contains(cr.GetCondition(xpv2.TypeSynced).Message, "keeps source repositories or destinations this resource no longer lists")
		})
		if _, err := cl.Patch(ctx, app.Metadata.Name, []byte(`{"spec":{"source":{"repoURL":"`+otherRepo.URL+`"}}}`)); err != nil {
			t.Fatalf("moving the application to the project's new repository: %v", err)
		}
		controlplane.Eventually(t, "the old repository taken away once no application uses it", func() bool {
			r := repos()
			return len(r) == 1 && r[0] == otherRepo.URL && get(cr) && cr.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue
		})
	})

	controlplane.Must(t, c.Delete(ctx, cr))
	controlplane.Eventually(t, "project deleted", func() bool {
		return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(cr), cr)) && !get(appProject("shop"))
	})
}

// roleToken issues a token of project's role through Argo CD's API.
func roleToken(t *testing.T, server, admin, project, role string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, server+"/api/v1/projects/"+project+"/roles/"+role+"/token", bytes.NewReader([]byte(`{}`)))
	req.Header.Set("Authorization", "Bearer "+admin)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	controlplane.Must(t, err)
	defer func() { _ = resp.Body.Close() }()
	var out struct {
		Token string `json:"token"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&out) != nil || out.Token == "" {
		t.Fatalf("issuing a token of %s/%s: %s", project, role, resp.Status)
	}
	return out.Token
}

// loggedIn is true when Argo CD accepts token.
func loggedIn(t *testing.T, server, token string) bool {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, server+"/api/v1/session/userinfo", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	controlplane.Must(t, err)
	defer func() { _ = resp.Body.Close() }()
	var out struct {
		LoggedIn bool `json:"loggedIn"`
	}
	if resp.StatusCode == http.StatusUnauthorized {
		return false
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&out) != nil {
		t.Fatalf("userinfo: %s", resp.Status)
	}
	return out.LoggedIn
}

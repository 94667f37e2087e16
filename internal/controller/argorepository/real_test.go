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

package argorepository_test

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
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/controller/argoaccess"
	"github.com/freeleaps/provider-devops/internal/controller/argoapplication"
	"github.com/freeleaps/provider-devops/internal/controller/argoproject"
	"github.com/freeleaps/provider-devops/internal/controller/argorepository"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/testing/argocdserver"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

func TestMain(m *testing.M) { controlplane.Main(m) }

const (
	wrongPassword = "wrong-password-7f3a"
	rightPassword = "right-password-9c1e"
)

// TestRealArgoRepository runs the three Argo CD kinds against a real Argo
// CD and a private git repository that needs a password: nothing is
// registered until the Secret carries the opt-in label; the repository is
// registered for its project only; a wrong password shows as not Ready with
// Argo CD's reason, the fixed Secret is written at the next poll and an
// application of the project syncs from the private repository; the steady
// state only reads; a repository deleted behind the provider's back comes
// back; another's repository is never touched; no password reaches status
// or events; and through a ClusterProviderConfig a namespace may use only
// its own projects and deploy only to its own namespaces.
func TestRealArgoRepository(t *testing.T) {
	env := controlplane.Shared(t)
	s := argocdserver.Shared(t, env)
	c := env.Client
	ctx := context.Background()
	ns, otherNS := "argo-repo", "argo-repo-other"
	for _, n := range []string{ns, otherNS, "argo-repo-dev"} {
		controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}))
	}
	token := pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &pcv1alpha1.SecretKeySelector{Name: "argocd", Key: "token"}}
	controlplane.Must(t, c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "argocd", Namespace: ns}, StringData: map[string]string{"token": s.Token}}))
	controlplane.Must(t, c.Create(ctx, &pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: pcv1alpha1.ProviderConfigSpec{
		ArgoCD: &pcv1alpha1.ArgoCDConfig{URL: s.URL, Namespace: argocdserver.Namespace, Credentials: token},
	}}))
	platformToken := token
	platformToken.SecretRef = &pcv1alpha1.SecretKeySelector{Name: "argocd", Key: "token"}
	platformToken.SecretRef.Namespace = ns
	controlplane.Must(t, c.Create(ctx, &pcv1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "argo-repo-platform"}, Spec: pcv1alpha1.ProviderConfigSpec{
		ArgoCD:            &pcv1alpha1.ArgoCDConfig{URL: s.URL, Namespace: argocdserver.Namespace, Credentials: platformToken},
		AllowedNamespaces: []string{otherNS},
	}}))

	w := argocdserver.NewWriteCounter()
	logs := &controlplane.Logs{}
	controlplane.StartManagerLogging(t, env, 2*time.Second, logs, func(mgr ctrl.Manager, o controller.Options) error {
		if err := mrcontroller.Setup(mgr, o, argorepository.Descriptor, argorepository.NewConnector(mgr.GetClient(), controlplane.TenantGuard(), func(cfg argocd.Config) (argorepository.Client, error) {
			cfg.Transport = w
			return argocd.New(cfg)
		}, argorepository.WithRefreshEvery(time.Second))); err != nil {
			return err
		}
		if err := mrcontroller.Setup(mgr, o, argoproject.Descriptor, argoproject.NewConnector(mgr.GetClient(), controlplane.TenantGuard(), nil)); err != nil {
			return err
		}
		return mrcontroller.Setup(mgr, o, argoapplication.Descriptor, argoapplication.NewConnector(mgr.GetClient(), controlplane.TenantGuard(), nil))
	})
	get := func(o client.Object) bool { return c.Get(ctx, client.ObjectKeyFromObject(o), o) == nil }
	cond := func(o resource.Managed, ct xpv2.ConditionType) xpv2.Condition { return o.GetCondition(ct) }

	private, err := s.Git.Create("argo-repo-private", argocdserver.SampleApps)
	controlplane.Must(t, err)
	s.Git.Protect("argo-repo-private", "ci", rightPassword)

	project := &v1alpha1.ArgoProject{ObjectMeta: metav1.ObjectMeta{Name: "argo-repo-shop", Namespace: ns}}
	project.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
	project.Spec.ForProvider = v1alpha1.ArgoProjectParameters{
		SourceRepos:  []string{private.URL},
		Destinations: []v1alpha1.ProjectDestination{{Server: argocdserver.InClusterServer, Namespace: "argo-repo-dev"}},
	}
	controlplane.Must(t, c.Create(ctx, project))
	controlplane.Eventually(t, "project Ready", func() bool {
		return get(project) && cond(project, xpv2.TypeReady).Status == corev1.ConditionTrue
	})

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "git", Namespace: ns}, StringData: map[string]string{"username": "ci", "password": wrongPassword}}
	controlplane.Must(t, c.Create(ctx, secret))
	cr := &v1alpha1.ArgoRepository{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: ns}}
	cr.Spec.ProviderConfigReference = project.Spec.ProviderConfigReference
	cr.Spec.ForProvider = v1alpha1.ArgoRepositoryParameters{URL: private.URL, Project: "argo-repo-shop", CredentialsSecretRef: &v1alpha1.RepositorySecretReference{Name: "git"}}
	controlplane.Must(t, c.Create(ctx, cr))
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := json.MarshalIndent(cr.Status, "", "  ")
			t.Logf("ArgoRepository status: %s", b)
		}
	})

	controlplane.Eventually(t, "a Secret without the opt-in label refused, naming the label", func() bool {
		m := cond(cr, xpv2.TypeSynced).Message
		return get(cr) && cond(cr, xpv2.TypeSynced).Status == corev1.ConditionFalse &&
			strings.Contains(m, `Secret "git" in namespace "argo-repo" has not consented`) &&
			strings.Contains(m, "kubectl label secret -n argo-repo git "+contract.LabelGitRepository+"=true")
	})
	api, err := argocd.New(argocd.Config{URL: s.URL, Token: s.Token, Namespace: argocdserver.Namespace})
	controlplane.Must(t, err)
	if _, err := api.GetRepository(ctx, private.URL, "argo-repo-shop", false); !argocd.IsNotFound(err) {
		t.Errorf("a Secret without the opt-in label reached Argo CD: %v", err)
	}
	secret.Labels = map[string]string{contract.LabelGitRepository: "true"}
	controlplane.Must(t, c.Update(ctx, secret))

	controlplane.Eventually(t, "registered, and not Ready with Argo CD's reason while the password is wrong", func() bool {
		return get(cr) && cond(cr, xpv2.TypeSynced).Status == corev1.ConditionTrue &&
			cr.Status.AtProvider.ConnectionStatus == argocd.ConnectionFailed &&
			cond(cr, xpv2.TypeReady).Status == corev1.ConditionFalse &&
			strings.Contains(cond(cr, xpv2.TypeReady).Message, "Argo CD cannot connect to the repository")
	})
	r, err := api.GetRepository(ctx, private.URL, "argo-repo-shop", false)
	controlplane.Must(t, err)
	if r.Name != "provider-devops argo-repo/shop" || r.Project != "argo-repo-shop" {
		t.Errorf("repository as Argo CD has it: name %q, project %q", r.Name, r.Project)
	}
	if _, err := api.GetRepository(ctx, private.URL, "", false); !argocd.IsNotFound(err) {
		t.Errorf("the repository must be registered for its project only, not globally: %v", err)
	}

	secret.StringData = map[string]string{"password": rightPassword}
	controlplane.Must(t, c.Update(ctx, secret))
	controlplane.Eventually(t, "the fixed password written and tested: Ready", func() bool {
		return get(cr) && cr.Status.AtProvider.ConnectionStatus == argocd.ConnectionSuccessful && cond(cr, xpv2.TypeReady).Status == corev1.ConditionTrue
	})

	app := &v1alpha1.ArgoApplication{ObjectMeta: metav1.ObjectMeta{Name: "shop-dev", Namespace: ns}}
	app.Spec.ProviderConfigReference = project.Spec.ProviderConfigReference
	app.Spec.ForProvider = v1alpha1.ArgoApplicationParameters{
		Project:     "argo-repo-shop",
		Source:      v1alpha1.ApplicationSource{RepoURL: private.URL, Path: "guestbook", TargetRevision: "main"},
		Destination: v1alpha1.ApplicationDestination{Server: argocdserver.InClusterServer, Namespace: "argo-repo-dev"},
		SyncPolicy:  &v1alpha1.SyncPolicy{Automated: &v1alpha1.Automated{Prune: true}},
	}
	controlplane.Must(t, c.Create(ctx, app))
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := json.MarshalIndent(app.Status, "", "  ")
			t.Logf("ArgoApplication status: %s", b)
		}
	})
	controlplane.Eventually(t, "the application synced from the private repository", func() bool {
		return get(app) && app.Status.AtProvider.SyncStatus == "Synced" && get(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "guestbook", Namespace: "argo-repo-dev"}})
	})

	t.Run("SteadyState", func(t *testing.T) {
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

	t.Run("DeletedBehindOurBack", func(t *testing.T) {
		controlplane.Must(t, api.DeleteRepository(ctx, private.URL, "argo-repo-shop"))
		controlplane.Eventually(t, "registered again", func() bool {
			r, err := api.GetRepository(ctx, private.URL, "argo-repo-shop", false)
			return err == nil && r.Name == argorepository.Marker(cr)
		})
	})

	t.Run("NoPasswordShown", func(t *testing.T) {
		get(cr)
		b, _ := json.Marshal(cr)
		evs := &corev1.EventList{}
		controlplane.Must(t, c.List(ctx, evs, client.InNamespace(ns)))
		eb, _ := json.Marshal(evs)
		for _, p := range []string{wrongPassword, rightPassword} {
			if strings.Contains(string(b), p) || strings.Contains(string(eb), p) {
				t.Errorf("a password appears in the resource or its events")
			}
		}
	})

	t.Run("OthersRepositoryUntouched", func(t *testing.T) {
		controlplane.Must(t, api.CreateRepository(ctx, &argocd.Repository{Repo: s.Apps.URL, Type: "git", Name: "platform's", Project: "argo-repo-shop"}))
		thief := &v1alpha1.ArgoRepository{ObjectMeta: metav1.ObjectMeta{Name: "thief", Namespace: ns}}
		thief.Spec.ProviderConfigReference = cr.Spec.ProviderConfigReference
		thief.Spec.ForProvider = v1alpha1.ArgoRepositoryParameters{URL: s.Apps.URL, Project: "argo-repo-shop", Insecure: true}
		controlplane.Must(t, c.Create(ctx, thief))
		controlplane.Eventually(t, "refused", func() bool {
			return get(thief) && strings.Contains(cond(thief, xpv2.TypeSynced).Message, "is not managed by this resource")
		})
		controlplane.Must(t, c.Delete(ctx, thief))
		controlplane.Eventually(t, "let go", func() bool { return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(thief), thief)) })
		r, err := api.GetRepository(ctx, s.Apps.URL, "argo-repo-shop", false)
		if err != nil || r.Name != "platform's" || r.Insecure {
			t.Errorf("another's repository was changed or deleted: %+v, %v", r, err)
		}
	})

	t.Run("ClusterProviderConfigTenancy", func(t *testing.T) {
		cpc := &xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "argo-repo-platform"}
		// Another namespace's project: neither a repository nor an
		// application may join it through the platform's token.
		repo := &v1alpha1.ArgoRepository{ObjectMeta: metav1.ObjectMeta{Name: "intruder", Namespace: otherNS}}
		repo.Spec.ProviderConfigReference = cpc
		repo.Spec.ForProvider = v1alpha1.ArgoRepositoryParameters{URL: private.URL + "/x", Project: "argo-repo-shop"}
		controlplane.Must(t, c.Create(ctx, repo))
		intruderApp := &v1alpha1.ArgoApplication{ObjectMeta: metav1.ObjectMeta{Name: "intruder", Namespace: otherNS}}
		intruderApp.Spec.ProviderConfigReference = cpc
		intruderApp.Spec.ForProvider = app.Spec.ForProvider
		controlplane.Must(t, c.Create(ctx, intruderApp))
		// Observe-only, naming the other namespace's application: its
		// status would tell this tenant about it.
		peek := &v1alpha1.ArgoApplication{ObjectMeta: metav1.ObjectMeta{Name: "peek", Namespace: otherNS, Annotations: map[string]string{meta.AnnotationKeyExternalName: app.Name}}}
		peek.Spec.ProviderConfigReference = cpc
		peek.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
		peek.Spec.ForProvider = app.Spec.ForProvider
		controlplane.Must(t, c.Create(ctx, peek))
		// A project deploying outside the namespace's own namespaces.
		escape := &v1alpha1.ArgoProject{ObjectMeta: metav1.ObjectMeta{Name: "argo-repo-other.escape", Namespace: otherNS}}
		escape.Spec.ProviderConfigReference = cpc
		escape.Spec.ForProvider = v1alpha1.ArgoProjectParameters{SourceRepos: []string{"*"}, Destinations: []v1alpha1.ProjectDestination{{Server: argocdserver.InClusterServer, Namespace: "kube-system"}}}
		controlplane.Must(t, c.Create(ctx, escape))
		// A project within them is fine.
		own := &v1alpha1.ArgoProject{ObjectMeta: metav1.ObjectMeta{Name: "argo-repo-other.own", Namespace: otherNS}}
		own.Spec.ProviderConfigReference = cpc
		own.Spec.ForProvider = v1alpha1.ArgoProjectParameters{SourceRepos: []string{"*"}, Destinations: []v1alpha1.ProjectDestination{{Server: argocdserver.InClusterServer, Namespace: otherNS + "--dev"}}}
		controlplane.Must(t, c.Create(ctx, own))
		// A project under the name another namespace's DevOpsProject will
		// need (<namespace>.<project>): squatting it is refused.
		squat := &v1alpha1.ArgoProject{ObjectMeta: metav1.ObjectMeta{Name: "argo-repo.squat", Namespace: otherNS}}
		squat.Spec.ProviderConfigReference = cpc
		squat.Spec.ForProvider = own.Spec.ForProvider
		controlplane.Must(t, c.Create(ctx, squat))
		// An application under the name another namespace's project
		// will need, in the namespace's own project: refused.
		squatApp := &v1alpha1.ArgoApplication{ObjectMeta: metav1.ObjectMeta{Name: "squat-app", Namespace: otherNS, Annotations: map[string]string{meta.AnnotationKeyExternalName: ns + ".shop.prod"}}}
		squatApp.Spec.ProviderConfigReference = cpc
		squatApp.Spec.ForProvider = app.Spec.ForProvider
		squatApp.Spec.ForProvider.Project = "argo-repo-other.own"
		squatApp.Spec.ForProvider.Destination.Namespace = otherNS + "--dev"
		controlplane.Must(t, c.Create(ctx, squatApp))
		// A project made under the older default name ("<namespace>-*")
		// stays managed where it is; a name the resource does not
		// already hold is refused, owner label or not.
		for name, owner := range map[string]string{"argo-repo-other-legacy": argoaccess.Owner(otherNS, "legacy"), "argo-repo-other-planted": argoaccess.Owner(ns, "x")} {
			controlplane.Must(t, api.CreateProject(ctx, &argocd.Project{Metadata: argocd.ObjectMeta{Name: name, Labels: map[string]string{contract.LabelOwner: owner, contract.LabelOwnerNamespace: otherNS}},
				Spec: argocd.ProjectSpec{SourceRepos: []string{"*"}, Destinations: []argocd.ProjectDestination{{Server: argocdserver.InClusterServer, Namespace: otherNS + "--dev"}}}}))
		}
		legacy := &v1alpha1.ArgoProject{ObjectMeta: metav1.ObjectMeta{Name: "legacy", Namespace: otherNS, Annotations: map[string]string{meta.AnnotationKeyExternalName: "argo-repo-other-legacy"}}}
		legacy.Spec.ProviderConfigReference = cpc
		legacy.Spec.ForProvider = own.Spec.ForProvider
		controlplane.Must(t, c.Create(ctx, legacy))
		planted := &v1alpha1.ArgoProject{ObjectMeta: metav1.ObjectMeta{Name: "planted", Namespace: otherNS, Annotations: map[string]string{meta.AnnotationKeyExternalName: "argo-repo-other-planted"}}}
		planted.Spec.ProviderConfigReference = cpc
		planted.Spec.ForProvider = own.Spec.ForProvider
		controlplane.Must(t, c.Create(ctx, planted))

		controlplane.Eventually(t, "the repository refused", func() bool {
			return get(repo) && strings.Contains(cond(repo, xpv2.TypeSynced).Message, `Argo CD project "argo-repo-shop" belongs to namespace "argo-repo"`)
		})
		controlplane.Eventually(t, "the application refused", func() bool {
			return get(intruderApp) && strings.Contains(cond(intruderApp, xpv2.TypeSynced).Message, `Argo CD project "argo-repo-shop" belongs to namespace "argo-repo"`)
		})
		controlplane.Eventually(t, "the observe-only peek refused", func() bool {
			return get(peek) && strings.Contains(cond(peek, xpv2.TypeSynced).Message, `Argo CD project "argo-repo-shop" belongs to namespace "argo-repo"`)
		})
		if peek.Status.AtProvider.SyncStatus != "" || peek.Status.AtProvider.URL != "" {
			t.Errorf("the observe-only peek shows another namespace's application: %+v", peek.Status.AtProvider)
		}
		controlplane.Eventually(t, "the squatting project refused", func() bool {
			return get(squat) && strings.Contains(cond(squat, xpv2.TypeSynced).Message, `"argo-repo.squat": this namespace may not manage an Argo CD project of that name`)
		})
		controlplane.Eventually(t, "the squatting application refused", func() bool {
			return get(squatApp) && strings.Contains(cond(squatApp, xpv2.TypeSynced).Message, `a new application's name must begin with "argo-repo-other."`)
		})
		controlplane.Eventually(t, "the project under its older name kept", func() bool {
			return get(legacy) && cond(legacy, xpv2.TypeReady).Status == corev1.ConditionTrue
		})
		controlplane.Eventually(t, "a project under an older name not held refused", func() bool {
			return get(planted) && strings.Contains(cond(planted, xpv2.TypeSynced).Message, `"argo-repo-other-planted": this namespace may not manage an Argo CD project of that name`)
		})
		controlplane.Eventually(t, "the escaping project refused", func() bool {
			return get(escape) && strings.Contains(cond(escape, xpv2.TypeSynced).Message, `namespace "kube-system" is not allowed for namespace "argo-repo-other"`)
		})
		controlplane.Eventually(t, "the namespace's own project Ready", func() bool {
			return get(own) && cond(own, xpv2.TypeReady).Status == corev1.ConditionTrue
		})
		// The other way round: this namespace, through its own token, may
		// not register its credentials into the project the other
		// namespace's ArgoProject manages (a squatter's trap).
		trap := &v1alpha1.ArgoRepository{ObjectMeta: metav1.ObjectMeta{Name: "into-other", Namespace: ns}}
		trap.Spec.ProviderConfigReference = project.Spec.ProviderConfigReference
		trap.Spec.ForProvider = v1alpha1.ArgoRepositoryParameters{URL: private.URL + "/y", Project: "argo-repo-other.own", CredentialsSecretRef: &v1alpha1.RepositorySecretReference{Name: "git"}}
		controlplane.Must(t, c.Create(ctx, trap))
		controlplane.Eventually(t, "credentials never go into another namespace's project", func() bool {
			return get(trap) && strings.Contains(cond(trap, xpv2.TypeSynced).Message, `Argo CD project "argo-repo-other.own" belongs to namespace "argo-repo-other"`)
		})
		for _, name := range []string{"argo-repo-other.escape", "argo-repo.squat"} {
			if _, err := api.GetProject(ctx, name); !argocd.IsNotFound(err) {
				t.Errorf("the refused project %s reached Argo CD: %v", name, err)
			}
		}
		if _, err := api.Get(ctx, "intruder"); !argocd.IsNotFound(err) {
			t.Errorf("the intruding application reached Argo CD: %v", err)
		}
		if _, err := api.Get(ctx, ns+".shop.prod"); !argocd.IsNotFound(err) {
			t.Errorf("the squatting application reached Argo CD: %v", err)
		}
		if _, err := api.GetRepository(ctx, private.URL+"/y", "argo-repo-other.own", false); !argocd.IsNotFound(err) {
			t.Errorf("the trapped repository reached Argo CD: %v", err)
		}
		for _, o := range []client.Object{repo, intruderApp, peek, escape, own, squat, trap, legacy, planted, squatApp} {
			controlplane.Must(t, c.Delete(ctx, o))
		}
		controlplane.Eventually(t, "all let go or deleted", func() bool {
			for _, o := range []client.Object{repo, intruderApp, peek, escape, own, squat, trap, legacy, planted, squatApp} {
				if get(o) {
					return false
				}
			}
			return true
		})
	})

	controlplane.Must(t, c.Delete(ctx, app))
	controlplane.Eventually(t, "application deleted", func() bool { return !get(app) })
	controlplane.Must(t, c.Delete(ctx, cr))
	controlplane.EventuallyExplained(t, time.Minute, "repository deleted from Argo CD", func() bool {
		_, err := api.GetRepository(ctx, private.URL, "argo-repo-shop", false)
		return !get(cr) && argocd.IsNotFound(err)
	}, func() string { return logs.Lines(30, "argorepository", `"name":"`+cr.GetName()+`"`) })
}

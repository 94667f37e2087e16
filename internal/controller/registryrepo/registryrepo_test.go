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

package registryrepo_test

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
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/registry"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/controller/registryrepo"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	regtest "github.com/freeleaps/provider-devops/internal/testing/distribution"
	"github.com/freeleaps/provider-devops/internal/testing/dockerhub"
	"github.com/freeleaps/provider-devops/internal/testing/harbor"
)

func TestMain(m *testing.M) { controlplane.Main(m) }

// setup makes a namespace with a ProviderConfig "default" for the registry
// and its credentials Secret.
func setup(t *testing.T, c client.Client, ns string, reg pcv1alpha1.RegistryConfig, user, password string) {
	t.Helper()
	ctx := context.Background()
	controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	controlplane.Must(t, c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "registry", Namespace: ns},
		StringData: map[string]string{"credentials": `{"username": "` + user + `", "password": "` + password + `"}`}}))
	reg.Credentials = pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &pcv1alpha1.SecretKeySelector{Name: "registry", Key: "credentials"}}
	controlplane.Must(t, c.Create(ctx, &pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: pcv1alpha1.ProviderConfigSpec{Registry: &reg}}))
}

func newRepo(ns, name string, p v1alpha1.RegistryRepoParameters) *v1alpha1.RegistryRepo {
	cr := &v1alpha1.RegistryRepo{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	cr.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
	cr.Spec.ForProvider = p
	return cr
}

func get(c client.Client, cr *v1alpha1.RegistryRepo) bool {
	return c.Get(context.Background(), client.ObjectKeyFromObject(cr), cr) == nil
}

func ready(cr *v1alpha1.RegistryRepo) bool {
	return cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue && cr.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue
}

func tags(cr *v1alpha1.RegistryRepo) int64 {
	if cr.Status.AtProvider.TagCount == nil {
		return -1
	}
	return *cr.Status.AtProvider.TagCount
}

func gone(c client.Client, cr *v1alpha1.RegistryRepo) bool {
	return kerrors.IsNotFound(c.Get(context.Background(), client.ObjectKeyFromObject(cr), cr))
}

func noSecretInEvents(t *testing.T, c client.Client, ns string, secrets ...string) {
	t.Helper()
	events := &corev1.EventList{}
	controlplane.Must(t, c.List(context.Background(), events, client.InNamespace(ns)))
	for _, e := range events.Items {
		for _, s := range secrets {
			if strings.Contains(e.Message, s) {
				t.Errorf("event leaks a secret: %s", e.Message)
			}
		}
	}
}

func TestRegistryRepo(t *testing.T) {
	env := controlplane.Shared(t)
	c := env.Client
	ctx := context.Background()
	controlplane.StartManager(t, env, 2*time.Second, func(mgr ctrl.Manager, o controller.Options) error {
		return mrcontroller.Setup(mgr, o, registryrepo.Descriptor, registryrepo.NewConnector(mgr.GetClient(), controlplane.TenantGuard(), nil))
	})

	t.Run("OCIDistribution", func(t *testing.T) {
		reg := regtest.Start(t)
		setup(t, c, "reg-oci", pcv1alpha1.RegistryConfig{Kind: pcv1alpha1.RegistryOCI, URL: reg.URL}, regtest.User, regtest.Password)
		cr := newRepo("reg-oci", "api", v1alpha1.RegistryRepoParameters{Namespace: "team", Name: "shop/api"})
		controlplane.Must(t, c.Create(ctx, cr))
		controlplane.Eventually(t, "repository available before the first push", func() bool {
			return get(c, cr) && ready(cr) && tags(cr) == 0
		})
		if got, want := cr.Status.AtProvider.URL, reg.Host+"/team/shop/api"; got != want {
			t.Errorf("atProvider.url %q, want %q", got, want)
		}
		if got := meta.GetExternalName(cr); got != "team/shop/api" {
			t.Errorf("external name %q", got)
		}
		reg.Push(t, "team/shop/api", "v1")
		reg.Push(t, "team/shop/api", "v2")
		controlplane.Eventually(t, "tag count observed", func() bool { return get(c, cr) && tags(cr) == 2 })

		rv := cr.ResourceVersion
		time.Sleep(5 * time.Second)
		get(c, cr)
		if cr.ResourceVersion != rv {
			t.Errorf("steady state rewrote the resource: resourceVersion %s -> %s", rv, cr.ResourceVersion)
		}

		deleteGuarded(t, c, cr, "holds 2 tags and was left in place", func() bool { return len(reg.Tags(t, "team/shop/api")) == 2 })
		controlplane.Eventually(t, "images deleted, resource gone", func() bool { return gone(c, cr) && len(reg.Tags(t, "team/shop/api")) == 0 })

		t.Run("ExistingImagesNotTaken", func(t *testing.T) {
			// An OCI registry records no owner: a repository that held
			// images before the resource first saw it is another's. It
			// is refused without adoptExisting, and deleting the
			// resource leaves its images, deleteImages or not.
			reg.Push(t, "other/app", "v1")
			taker := newRepo("reg-oci", "taker", v1alpha1.RegistryRepoParameters{Namespace: "other", Name: "app", DeleteImages: true})
			controlplane.Must(t, c.Create(ctx, taker))
			controlplane.Eventually(t, "an existing repository with images refused", func() bool {
				return get(c, taker) && strings.Contains(taker.GetCondition(xpv2.TypeSynced).Message, "repository other/app already exists and no RegistryRepo owns it")
			})
			controlplane.Must(t, c.Delete(ctx, taker))
			controlplane.Eventually(t, "let go", func() bool { return gone(c, taker) })
			if tags := reg.Tags(t, "other/app"); len(tags) != 1 {
				t.Errorf("another's images were deleted: tags left %v", tags)
			}
		})
		noSecretInEvents(t, c, "reg-oci", regtest.Password)
	})

	t.Run("DockerHub", func(t *testing.T) {
		const token = "dckr_pat_never-printed"
		hub := dockerhub.New("alice", token, "acme", "reg-tenant")
		defer hub.Close()
		setup(t, c, "reg-hub", pcv1alpha1.RegistryConfig{Kind: pcv1alpha1.RegistryDockerHub, URL: hub.URL}, "alice", token)
		cr := newRepo("reg-hub", "shop", v1alpha1.RegistryRepoParameters{Namespace: "acme", Name: "shop", Visibility: v1alpha1.VisibilityPrivate, Description: "the shop"})
		controlplane.Must(t, c.Create(ctx, cr))
		controlplane.Eventually(t, "repository created and Ready", func() bool {
			return get(c, cr) && ready(cr) && hub.Repo("acme", "shop") != nil
		})
		if r := hub.Repo("acme", "shop"); !r.IsPrivate || r.Description != "the shop" {
			t.Errorf("created as %+v", r)
		}
		if cr.Status.AtProvider.URL != "docker.io/acme/shop" || cr.Status.AtProvider.FullName != "acme/shop" || cr.Status.AtProvider.LastPushed == nil {
			t.Errorf("atProvider %+v", cr.Status.AtProvider)
		}

		t.Run("DriftCorrected", func(t *testing.T) {
			r := hub.Repo("acme", "shop")
			r.IsPrivate, r.Description = false, "edited on hub.docker.com"
			hub.Put(*r)
			controlplane.Eventually(t, "visibility and description restored", func() bool {
				r := hub.Repo("acme", "shop")
				return r.IsPrivate && r.Description == "the shop"
			})
		})

		t.Run("SteadyState", func(t *testing.T) {
			controlplane.Eventually(t, "ready", func() bool { return get(c, cr) && ready(cr) })
			time.Sleep(time.Second)
			hub.ResetCounts()
			rv := cr.ResourceVersion
			time.Sleep(7 * time.Second)
			get(c, cr)
			g, w := hub.Count(http.MethodGet), hub.Count(http.MethodPost)+hub.Count(http.MethodPatch)+hub.Count(http.MethodDelete)
			t.Logf("steady state over 7s (poll 2s): %d reads, %d writes, %d logins, resourceVersion %s -> %s", g, w, hub.Logins(), rv, cr.ResourceVersion)
			if g == 0 || w != 0 || hub.Logins() != 0 || cr.ResourceVersion != rv {
				t.Error("steady state must be reads only, with the cached token, and leave the resource alone")
			}
		})

		t.Run("OwnerRecorded", func(t *testing.T) {
			if r := hub.Repo("acme", "shop"); registry.OwnerOf(r.FullDescription) != "reg-hub/shop" {
				t.Errorf("the owner is not recorded in the README at creation: %q", r.FullDescription)
			}
		})

		t.Run("OthersRepositoryRefused", func(t *testing.T) {
			// Another resource naming the same repository: refused, even
			// with adoptExisting, and deleting it leaves the repository.
			twin := newRepo("reg-hub", "twin", v1alpha1.RegistryRepoParameters{Namespace: "acme", Name: "shop", Visibility: v1alpha1.VisibilityPublic, AdoptExisting: true, DeleteImages: true})
			controlplane.Must(t, c.Create(ctx, twin))
			controlplane.Eventually(t, "twin refused", func() bool {
				return get(c, twin) && strings.Contains(twin.GetCondition(xpv2.TypeSynced).Message, "repository acme/shop is managed by RegistryRepo reg-hub/shop, not by this resource")
			})
			controlplane.Must(t, c.Delete(ctx, twin))
			controlplane.Eventually(t, "twin gone", func() bool { return gone(c, twin) })
			if r := hub.Repo("acme", "shop"); r == nil || !r.IsPrivate {
				t.Errorf("the other resource's repository was changed or deleted: %+v", r)
			}
		})

		t.Run("ExistingAdoptedOnlyWhenAsked", func(t *testing.T) {
			hub.Put(dockerhub.Repo{Namespace: "acme", Name: "legacy", Description: "made by hand", FullDescription: "# Legacy\nOur old images.", IsPrivate: true, Status: 1})
			legacy := newRepo("reg-hub", "legacy", v1alpha1.RegistryRepoParameters{Namespace: "acme", Name: "legacy", Visibility: v1alpha1.VisibilityPrivate, Description: "made by hand", DeleteImages: true})
			controlplane.Must(t, c.Create(ctx, legacy))
			controlplane.Eventually(t, "existing repository refused", func() bool {
				return get(c, legacy) && strings.Contains(legacy.GetCondition(xpv2.TypeSynced).Message, "repository acme/legacy already exists and no RegistryRepo owns it: it was left untouched. Set spec.forProvider.adoptExisting: true")
			})
			controlplane.Eventually(t, "adoptExisting set", func() bool {
				if !get(c, legacy) {
					return false
				}
				legacy.Spec.ForProvider.AdoptExisting = true
				return c.Update(ctx, legacy) == nil
			})
			controlplane.Eventually(t, "adopted: owner recorded, README kept", func() bool {
				r := hub.Repo("acme", "legacy")
				return get(c, legacy) && ready(legacy) && r != nil && r.FullDescription == "# Legacy\nOur old images.\n\n"+registry.OwnerLine("reg-hub/legacy")
			})
			// Someone edits the owner line away: deleting can no longer
			// prove the repository is this resource's, so it lets go and
			// the images stay, deleteImages or not.
			r := hub.Repo("acme", "legacy")
			r.FullDescription = "# Legacy"
			hub.Put(*r)
			controlplane.Must(t, c.Delete(ctx, legacy))
			controlplane.Eventually(t, "let go", func() bool { return gone(c, legacy) })
			if hub.Repo("acme", "legacy") == nil {
				t.Error("a repository whose owner could not be verified was deleted")
			}
		})

		t.Run("ClusterProviderConfigTenancy", func(t *testing.T) {
			// The platform's account through a ClusterProviderConfig: a
			// tenant may not name the platform's (unowned) repository, nor
			// adopt one, nor touch another's; refused resources are let go
			// and the repositories stay as they were.
			hub.Put(dockerhub.Repo{Namespace: "acme", Name: "base", Description: "platform base image", IsPrivate: true, Status: 1})
			controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "reg-tenant"}}))
			controlplane.Must(t, c.Create(ctx, &pcv1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "reg-platform"}, Spec: pcv1alpha1.ProviderConfigSpec{
				AllowedNamespaces: []string{"reg-tenant"},
				Registry: &pcv1alpha1.RegistryConfig{Kind: pcv1alpha1.RegistryDockerHub, URL: hub.URL, Credentials: pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret,
					SecretRef: &pcv1alpha1.SecretKeySelector{Name: "registry", Key: "credentials", Namespace: "reg-hub"}}},
			}}))
			viaPlatform := func(name string, p v1alpha1.RegistryRepoParameters) *v1alpha1.RegistryRepo {
				cr := newRepo("reg-tenant", name, p)
				cr.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "reg-platform"}
				return cr
			}
			attacks := map[string]struct {
				cr   *v1alpha1.RegistryRepo
				want string
			}{
				"AdoptPlatformRepo": {viaPlatform("base", v1alpha1.RegistryRepoParameters{Namespace: "acme", Name: "base", Visibility: v1alpha1.VisibilityPublic, AdoptExisting: true, DeleteImages: true}),
					`repository "acme/base" is not allowed for namespace "reg-tenant"`},
				"OthersRepo": {viaPlatform("shop", v1alpha1.RegistryRepoParameters{Namespace: "acme", Name: "shop", Visibility: v1alpha1.VisibilityPublic, DeleteImages: true}),
					`repository "acme/shop" is not allowed`},
				"OwnAdopt": {viaPlatform("own", v1alpha1.RegistryRepoParameters{Namespace: "reg-tenant", Name: "app", AdoptExisting: true}),
					"spec.forProvider.adoptExisting is not allowed"},
				// The old default */{namespace}-* let a tenant name
				// repositories of any registry namespace after its prefix.
				"PrefixInOthersNamespace": {viaPlatform("prefix", v1alpha1.RegistryRepoParameters{Namespace: "acme", Name: "reg-tenant-app", Visibility: v1alpha1.VisibilityPrivate}),
					`repository "acme/reg-tenant-app" is not allowed`},
			}
			for _, a := range attacks {
				controlplane.Must(t, c.Create(ctx, a.cr))
			}
			own := viaPlatform("app", v1alpha1.RegistryRepoParameters{Namespace: "reg-tenant", Name: "app", Visibility: v1alpha1.VisibilityPrivate, DeleteImages: true})
			controlplane.Must(t, c.Create(ctx, own))
			for name, a := range attacks {
				controlplane.Eventually(t, name+" refused", func() bool {
					return get(c, a.cr) && strings.Contains(a.cr.GetCondition(xpv2.TypeSynced).Message, a.want)
				})
			}
			controlplane.Eventually(t, "the tenant's own repository created", func() bool {
				return get(c, own) && ready(own) && hub.Repo("reg-tenant", "app") != nil && hub.Repo("acme", "reg-tenant-app") == nil
			})
			for _, a := range attacks {
				controlplane.Must(t, c.Delete(ctx, a.cr))
				controlplane.Eventually(t, "let go", func() bool { return gone(c, a.cr) })
			}
			if r := hub.Repo("acme", "base"); r == nil || !r.IsPrivate || r.Description != "platform base image" || r.FullDescription != "" {
				t.Errorf("the platform's repository was changed or deleted: %+v", r)
			}
			if r := hub.Repo("acme", "shop"); r == nil || !r.IsPrivate {
				t.Errorf("another resource's repository was changed or deleted: %+v", r)
			}
			controlplane.Must(t, c.Delete(ctx, own))
			controlplane.Eventually(t, "own deleted", func() bool { return gone(c, own) && hub.Repo("reg-tenant", "app") == nil })
		})

		t.Run("RateLimited", func(t *testing.T) {
			hub.FailNext(1, http.StatusTooManyRequests, 3)
			controlplane.Eventually(t, "429 reported in Synced", func() bool {
				return get(c, cr) && strings.Contains(cr.GetCondition(xpv2.TypeSynced).Message, "rate limiting")
			})
			controlplane.EventuallyWithin(t, 3*mrcontroller.MinRetryAfter, "recovered after the wait", func() bool { return get(c, cr) && ready(cr) })
		})

		deleteGuarded(t, c, cr, "may hold images (this registry does not report its tags in one read)", func() bool { return hub.Repo("acme", "shop") != nil })
		controlplane.Eventually(t, "repository deleted", func() bool { return gone(c, cr) && hub.Repo("acme", "shop") == nil })
		noSecretInEvents(t, c, "reg-hub", token)
	})

	t.Run("Harbor", func(t *testing.T) {
		const password = "harbor-robot-secret"
		h := harbor.New("robot$ci", password)
		defer h.Close()
		setup(t, c, "reg-harbor", pcv1alpha1.RegistryConfig{Kind: pcv1alpha1.RegistryHarbor, URL: h.URL}, "robot$ci", password)
		cr := newRepo("reg-harbor", "api", v1alpha1.RegistryRepoParameters{Namespace: "team", Name: "shop/api", Visibility: v1alpha1.VisibilityPublic})
		controlplane.Must(t, c.Create(ctx, cr))
		controlplane.Eventually(t, "a missing project without createProject is explained", func() bool {
			return get(c, cr) && strings.Contains(cr.GetCondition(xpv2.TypeSynced).Message, "set forProvider.harbor.createProject")
		})
		controlplane.Eventually(t, "createProject set", func() bool {
			if !get(c, cr) {
				return false
			}
			cr.Spec.ForProvider.Harbor = &v1alpha1.HarborOptions{CreateProject: true}
			return c.Update(ctx, cr) == nil
		})
		// The project is created private, and published by the next
		// Update once the resource's claim on it is recorded.
		controlplane.Eventually(t, "project created and published, repository available", func() bool {
			return get(c, cr) && ready(cr) && h.Project("team") != nil && tags(cr) == 0 && cr.Status.AtProvider.Visibility == v1alpha1.VisibilityPublic
		})
		if p := h.Project("team"); p.Metadata["public"] != "true" {
			t.Errorf("project visibility %v", p.Metadata)
		}
		if !cr.Status.AtProvider.CreatedProject || cr.Status.AtProvider.Visibility != v1alpha1.VisibilityPublic {
			t.Errorf("status: %+v", cr.Status.AtProvider)
		}
		h.Push("team", "shop/api", 3)
		controlplane.Eventually(t, "pushes counted", func() bool { return get(c, cr) && tags(cr) == 3 && cr.Status.AtProvider.LastPushed != nil })

		// The created project's visibility is managed: drift is corrected.
		h.SetPublic("team", false)
		controlplane.Eventually(t, "own project's visibility corrected", func() bool {
			p := h.Project("team")
			return p != nil && p.Metadata["public"] == "true"
		})

		// A tenant naming another team's private project cannot publish it.
		h.AddProject("platform", false)
		thief := newRepo("reg-harbor", "thief", v1alpha1.RegistryRepoParameters{Namespace: "platform", Name: "leak", Visibility: v1alpha1.VisibilityPublic,
			Harbor: &v1alpha1.HarborOptions{CreateProject: true}})
		controlplane.Must(t, c.Create(ctx, thief))
		controlplane.Eventually(t, "repository in a foreign project available, visibility reported", func() bool {
			return get(c, thief) && ready(thief) && thief.Status.AtProvider.Visibility == v1alpha1.VisibilityPrivate
		})
		time.Sleep(5 * time.Second) // two polls
		if p := h.Project("platform"); p.Metadata["public"] != "false" || thief.Status.AtProvider.CreatedProject {
			t.Errorf("another project's visibility was changed: %v, status %+v", p.Metadata, thief.Status.AtProvider)
		}
		// Status is writable by the resource's editors: a forged claim to
		// have created the project changes nothing, and is corrected.
		controlplane.Must(t, get2(c, thief))
		orig := thief.DeepCopy()
		thief.Status.AtProvider.CreatedProject = true
		controlplane.Must(t, c.Status().Patch(ctx, thief, client.MergeFrom(orig)))
		time.Sleep(5 * time.Second) // two polls
		get(c, thief)
		if p := h.Project("platform"); p.Metadata["public"] != "false" || thief.Status.AtProvider.CreatedProject {
			t.Errorf("a forged createdProject published another's project: %v, status %+v", p.Metadata, thief.Status.AtProvider)
		}
		controlplane.Must(t, c.Delete(ctx, thief))

		// A repository pushed before the resource existed is not adopted
		// unless asked; one pushed after it is claimed (owner recorded).
		h.Push("team", "old", 2)
		old := newRepo("reg-harbor", "old", v1alpha1.RegistryRepoParameters{Namespace: "team", Name: "old", DeleteImages: true})
		controlplane.Must(t, c.Create(ctx, old))
		controlplane.Eventually(t, "pushed-before repository refused", func() bool {
			return get(c, old) && strings.Contains(old.GetCondition(xpv2.TypeSynced).Message, "repository team/old already exists and no RegistryRepo owns it")
		})
		controlplane.Must(t, c.Delete(ctx, old))
		controlplane.Eventually(t, "old let go, images kept", func() bool { return gone(c, old) && h.Repository("team", "old") != nil })
		if r := h.Repository("team", "shop/api"); registry.OwnerOf(r.Description) != "reg-harbor/api" {
			t.Errorf("the repository pushed after the resource was created is not claimed: %+v", r)
		}

		t.Run("ClusterProviderConfigProjects", func(t *testing.T) {
			// Through the platform's account, a pattern with a glob in its
			// project segment reaches other teams' project names: namespace
			// reg-squat must not create project team-b first (public, tiny
			// quota) and so squat it. The project {namespace}/* names
			// exactly is created, and stays private whatever the
			// resource's visibility says.
			controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "reg-squat"}}))
			controlplane.Must(t, c.Create(ctx, &pcv1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "reg-harbor-platform"}, Spec: pcv1alpha1.ProviderConfigSpec{
				AllowedNamespaces: []string{"reg-squat"},
				Registry: &pcv1alpha1.RegistryConfig{Kind: pcv1alpha1.RegistryHarbor, URL: h.URL,
					Tenancy: &pcv1alpha1.RegistryTenancy{Repositories: []string{"{namespace}/*", "*/{namespace}-*"}},
					Credentials: pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret,
						SecretRef: &pcv1alpha1.SecretKeySelector{Name: "registry", Key: "credentials", Namespace: "reg-harbor"}}},
			}}))
			viaPlatform := func(name string, p v1alpha1.RegistryRepoParameters) *v1alpha1.RegistryRepo {
				cr := newRepo("reg-squat", name, p)
				cr.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "reg-harbor-platform"}
				return cr
			}
			squat := viaPlatform("squat", v1alpha1.RegistryRepoParameters{Namespace: "team-b", Name: "reg-squat-app", Visibility: v1alpha1.VisibilityPublic,
				Harbor: &v1alpha1.HarborOptions{CreateProject: true}})
			own := viaPlatform("own", v1alpha1.RegistryRepoParameters{Namespace: "reg-squat", Name: "app", Visibility: v1alpha1.VisibilityPublic,
				Harbor: &v1alpha1.HarborOptions{CreateProject: true}})
			controlplane.Must(t, c.Create(ctx, squat))
			controlplane.Must(t, c.Create(ctx, own))
			controlplane.Eventually(t, "another team's project is not created", func() bool {
				return get(c, squat) && strings.Contains(squat.GetCondition(xpv2.TypeSynced).Message, `Ask the platform team to create project "team-b"`)
			})
			controlplane.Eventually(t, "the namespace's own project is created", func() bool {
				return get(c, own) && ready(own) && h.Project("reg-squat") != nil
			})
			if p := h.Project("team-b"); p != nil {
				t.Errorf("a tenant created another team's project: %+v", p)
			}
			if p := h.Project("reg-squat"); p.Metadata["public"] != "false" || !own.Status.AtProvider.CreatedProject || own.Status.AtProvider.Visibility != v1alpha1.VisibilityPrivate {
				t.Errorf("a project created through the platform's account must stay private: %v, status %+v", p.Metadata, own.Status.AtProvider)
			}
			controlplane.Must(t, c.Delete(ctx, squat))
			controlplane.Must(t, c.Delete(ctx, own))
			controlplane.Eventually(t, "both let go", func() bool { return gone(c, squat) && gone(c, own) })
		})

		deleteGuarded(t, c, cr, "holds 3 tags and was left in place", func() bool { return h.Repository("team", "shop/api") != nil })
		controlplane.Eventually(t, "repository deleted, project kept", func() bool {
			return gone(c, cr) && h.Repository("team", "shop/api") == nil && h.Project("team") != nil
		})
		noSecretInEvents(t, c, "reg-harbor", password)
	})
}

// deleteGuarded deletes cr, which holds images: the deletion waits, saying
// why (want) and keeping the repository (kept), until deleteImages is set.
func deleteGuarded(t *testing.T, c client.Client, cr *v1alpha1.RegistryRepo, want string, kept func() bool) {
	t.Helper()
	controlplane.Must(t, c.Delete(context.Background(), cr))
	controlplane.Eventually(t, "deletion of a repository with images held", func() bool {
		return get(c, cr) && strings.Contains(cr.GetCondition(xpv2.TypeSynced).Message, want)
	})
	if !kept() {
		t.Fatalf("the repository and its images were deleted without deleteImages")
	}
	controlplane.Eventually(t, "deleteImages set", func() bool {
		if !get(c, cr) {
			return false
		}
		cr.Spec.ForProvider.DeleteImages = true
		return c.Update(context.Background(), cr) == nil
	})
}

func get2(c client.Client, o client.Object) error {
	return c.Get(context.Background(), client.ObjectKeyFromObject(o), o)
}

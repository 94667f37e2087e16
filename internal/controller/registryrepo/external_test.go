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

package registryrepo

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/registry"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

// Every registry error the tests need is made here, so that a change of the
// client's error type changes these functions only.

func errUnavailable() error {
	return &httpapi.Error{Backend: "Docker Hub", Section: "registry", Status: http.StatusServiceUnavailable, Message: "unavailable"}
}

func errUnauthorized() error {
	return &httpapi.Error{Backend: "Docker Hub", Section: "registry", Status: http.StatusUnauthorized, Message: "incorrect authentication credentials"}
}

func errConflict() error {
	return &httpapi.Error{Backend: "Docker Hub", Section: "registry", Status: http.StatusConflict, Message: "repository already exists"}
}

// errStatusConflict is the API server refusing a status write.
func errStatusConflict() error {
	return kerrors.NewConflict(schema.GroupResource{Group: v1alpha1.Group, Resource: "registryrepos"}, "shop", errors.New("the object has been modified"))
}

// mockClient is a registry holding at most one repository; it records
// every call.
type mockClient struct {
	repo *registry.Observed

	getErr, createErr, updateErr, deleteErr error
	created                                 registry.Created

	gets    int
	creates []registry.Repo
	updates []registry.Repo
	deletes []registry.Repo
}

func (m *mockClient) Get(context.Context, registry.Repo) (*registry.Observed, error) {
	m.gets++
	return m.repo, m.getErr
}

func (m *mockClient) Create(_ context.Context, r registry.Repo) (registry.Created, error) {
	m.creates = append(m.creates, r)
	return m.created, m.createErr
}

func (m *mockClient) Update(_ context.Context, r registry.Repo) error {
	m.updates = append(m.updates, r)
	return m.updateErr
}

func (m *mockClient) Delete(_ context.Context, r registry.Repo) error {
	m.deletes = append(m.deletes, r)
	return m.deleteErr
}

// created is when the resource was created.
var created = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

func repo(mod ...func(*v1alpha1.RegistryRepo)) *v1alpha1.RegistryRepo {
	cr := &v1alpha1.RegistryRepo{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team-a", CreationTimestamp: metav1.NewTime(created)}}
	cr.Spec.ForProvider = v1alpha1.RegistryRepoParameters{Namespace: "team-a", Name: "shop", Visibility: v1alpha1.VisibilityPrivate, Description: "The shop"}
	for _, f := range mod {
		f(cr)
	}
	return cr
}

func adopt(cr *v1alpha1.RegistryRepo)        { cr.Spec.ForProvider.AdoptExisting = true }
func deleteImages(cr *v1alpha1.RegistryRepo) { cr.Spec.ForProvider.DeleteImages = true }
func claimsProject(cr *v1alpha1.RegistryRepo) {
	cr.Status.AtProvider.CreatedProject = true
}

func deleted(cr *v1alpha1.RegistryRepo) {
	cr.SetDeletionTimestamp(&metav1.Time{Time: created.Add(time.Hour)})
}

func observeOnly(cr *v1alpha1.RegistryRepo) {
	cr.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
}

// dockerHub is the repository as Docker Hub shows it: owned by owner,
// private, described, tags unknown.
func dockerHub(owner string, mod ...func(*registry.Observed)) *registry.Observed {
	o := &registry.Observed{URL: "docker.io/team-a/shop", Private: ptr(true), Description: ptr("The shop"), Owner: ptr(owner)}
	for _, f := range mod {
		f(o)
	}
	return o
}

// harbor is the repository as Harbor shows it: project-wide visibility, no
// description, tags counted, created at its first push.
func harbor(owner *string, mod ...func(*registry.Observed)) *registry.Observed {
	o := &registry.Observed{URL: "harbor.example.com/team-a/shop", Private: ptr(true), TagCount: ptr[int64](2), ProjectWide: true, Implicit: true, Owner: owner,
		Created: ptr(created.Add(-time.Hour)), ProjectCreated: ptr(created.Add(-24 * time.Hour))}
	for _, f := range mod {
		f(o)
	}
	return o
}

// oci is the repository as an OCI registry shows it: tags counted, no
// owner, no visibility.
func oci(tags int64) *registry.Observed {
	return &registry.Observed{URL: "registry.example.com/team-a/shop", Implicit: true, TagCount: ptr(tags)}
}

// claimed is a resource that has claimed team-a/shop on an earlier
// observation.
func claimed(cr *v1alpha1.RegistryRepo) { cr.Status.AtProvider.FullName = "team-a/shop" }

func TestObserve(t *testing.T) {
	hub := v1alpha1.RegistryRepoObservation{URL: "docker.io/team-a/shop", FullName: "team-a/shop"}
	ociSeen := func(tags int64) v1alpha1.RegistryRepoObservation {
		return v1alpha1.RegistryRepoObservation{URL: "registry.example.com/team-a/shop", FullName: "team-a/shop", TagCount: ptr(tags)}
	}
	type want struct {
		obs managed.ExternalObservation
		// diff is a part of obs.Diff.
		diff       string
		err        error
		atProvider v1alpha1.RegistryRepoObservation
	}
	cases := map[string]struct {
		reason  string
		cr      *v1alpha1.RegistryRepo
		tenancy *Tenancy
		repo    *registry.Observed
		getErr  error
		want    want
	}{
		"Absent": {
			reason: "A repository the registry does not have does not exist: it is created, and no error is raised.",
			cr:     repo(),
			want:   want{obs: managed.ExternalObservation{ResourceExists: false}},
		},
		"GetFails": {
			reason: "A failed read is an error, never 'absent'.",
			cr:     repo(), getErr: errUnavailable(),
			want: want{err: errors.Wrap(errUnavailable(), errGet)},
		},
		"Unauthorized": {
			reason: "Rejected credentials are an error naming the fix, never 'absent'.",
			cr:     repo(), getErr: errUnauthorized(),
			want: want{err: errors.Wrap(errUnauthorized(), errGet)},
		},
		"UpToDate": {
			reason: "Ours, with the visibility and description asked for: up to date.",
			cr:     repo(),
			repo:   dockerHub("team-a/shop"),
			want:   want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, atProvider: hub},
		},
		"Drift": {
			reason: "A repository made public and re-described on the registry is drift, and the Diff names both.",
			cr:     repo(),
			repo: dockerHub("team-a/shop", func(o *registry.Observed) {
				o.Private, o.Description = ptr(false), ptr("edited")
			}),
			want: want{obs: managed.ExternalObservation{ResourceExists: true}, diff: "visibility: want private=true, got private=false\ndescription: want \"The shop\", got \"edited\"\n", atProvider: hub},
		},
		"OwnerMissing": {
			reason: "A repository no RegistryRepo owns is refused unless adoption is asked for.",
			cr:     repo(),
			repo:   dockerHub(""),
			want:   want{err: errors.Errorf(errFmtNotOwned, "team-a/shop")},
		},
		"OwnerMissingAdopt": {
			reason: "With adoptExisting, a repository no RegistryRepo owns is taken over: the owner is to be written.",
			cr:     repo(adopt),
			repo:   dockerHub(""),
			want:   want{obs: managed.ExternalObservation{ResourceExists: true}, diff: "owner: to be recorded on the repository\n", atProvider: hub},
		},
		"AnotherOwner": {
			reason: "A repository another RegistryRepo owns is refused.",
			cr:     repo(),
			repo:   dockerHub("team-b/shop"),
			want:   want{err: errors.Errorf(errFmtOtherOwner, "team-a/shop", "team-b/shop")},
		},
		"AnotherOwnerAdopt": {
			reason: "adoptExisting never takes another resource's repository.",
			cr:     repo(adopt),
			repo:   dockerHub("team-b/shop"),
			want:   want{err: errors.Errorf(errFmtOtherOwner, "team-a/shop", "team-b/shop")},
		},
		"AnotherOwnerDeleted": {
			reason: "Being deleted, a repository it cannot prove is its own is let go, images untouched.",
			cr:     repo(deleted, deleteImages),
			repo:   dockerHub("team-b/shop"),
			want:   want{obs: managed.ExternalObservation{ResourceExists: false}},
		},
		"OwnerMissingDeleted": {
			reason: "Being deleted, a repository whose owner line was edited away is let go, even with deleteImages.",
			cr:     repo(deleted, deleteImages, adopt),
			repo:   dockerHub(""),
			want:   want{obs: managed.ExternalObservation{ResourceExists: false}},
		},
		"OwnedDeleted": {
			reason: "Being deleted, its own repository exists: the reconciler goes on to Delete, which guards the images.",
			cr:     repo(deleted),
			repo:   dockerHub("team-a/shop"),
			want:   want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, atProvider: hub},
		},
		"ObserveOnlyAnotherOwner": {
			reason: "Observe-only, another resource's repository is shown: observing writes nothing.",
			cr:     repo(observeOnly),
			repo:   dockerHub("team-b/shop"),
			want:   want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, atProvider: hub},
		},
		"ObserveOnlyUnowned": {
			reason: "Observe-only, a repository no RegistryRepo owns is shown, and no owner is to be written.",
			cr:     repo(observeOnly),
			repo:   dockerHub(""),
			want:   want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, atProvider: hub},
		},
		"FirstPushAfterResource": {
			reason: "A Harbor repository that came into being (first push) after the resource is claimed without adoptExisting.",
			cr:     repo(),
			repo:   harbor(ptr(""), func(o *registry.Observed) { o.Created = ptr(created.Add(time.Minute)) }),
			want: want{obs: managed.ExternalObservation{ResourceExists: true}, diff: "owner: to be recorded on the repository\n",
				atProvider: v1alpha1.RegistryRepoObservation{URL: "harbor.example.com/team-a/shop", FullName: "team-a/shop", TagCount: ptr[int64](2), Visibility: v1alpha1.VisibilityPrivate}},
		},
		"FirstPushSameSecond": {
			reason: "A repository pushed in the second the resource was created may predate it: refused without adoptExisting.",
			cr:     repo(),
			repo:   harbor(ptr(""), func(o *registry.Observed) { o.Created = ptr(created.Add(500 * time.Millisecond)) }),
			want:   want{err: errors.Errorf(errFmtNotOwned, "team-a/shop")},
		},
		"UnownedInOwnProject": {
			reason: "A repository in the Harbor project this resource created (after it) is claimed without adoptExisting, and its visibility is managed.",
			cr:     repo(claimsProject),
			repo: harbor(ptr(""), func(o *registry.Observed) {
				o.ProjectCreated = ptr(created)
				o.Private = ptr(false)
			}),
			want: want{obs: managed.ExternalObservation{ResourceExists: true}, diff: "owner: to be recorded on the repository\nvisibility: want private=true, got private=false\n",
				atProvider: v1alpha1.RegistryRepoObservation{URL: "harbor.example.com/team-a/shop", FullName: "team-a/shop", TagCount: ptr[int64](2), CreatedProject: true, Visibility: v1alpha1.VisibilityPublic}},
		},
		"OwnProjectThroughTenancy": {
			reason: "Through a ClusterProviderConfig, the visibility of the project this resource created is not the resource's: it stays private (another namespace's repositories may share it), shown, never drift.",
			cr: repo(claimsProject, func(cr *v1alpha1.RegistryRepo) {
				cr.Spec.ForProvider.Visibility = v1alpha1.VisibilityPublic
			}),
			tenancy: TenancyOf(&backendconfig.Config{Kind: "ClusterProviderConfig", Name: "platform"}, &pcv1alpha1.RegistryConfig{}, "team-a"),
			repo:    harbor(ptr("team-a/shop"), func(o *registry.Observed) { o.ProjectCreated = ptr(created) }),
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				atProvider: v1alpha1.RegistryRepoObservation{URL: "harbor.example.com/team-a/shop", FullName: "team-a/shop", TagCount: ptr[int64](2), CreatedProject: true, Visibility: v1alpha1.VisibilityPrivate}},
		},
		"ForgedProjectClaim": {
			reason: "status.createdProject written by the resource's editors does not hand them a project older than the resource: its unowned repositories are refused without adoptExisting.",
			cr:     repo(claimsProject),
			repo:   harbor(ptr(""), func(o *registry.Observed) { o.Private = ptr(false) }),
			want:   want{err: errors.Errorf(errFmtNotOwned, "team-a/shop")},
		},
		"ProjectVisibilityNotOurs": {
			reason: "The visibility of a Harbor project this resource did not create is shown, never drift: it is shared with other repositories.",
			cr:     repo(),
			repo:   harbor(ptr("team-a/shop"), func(o *registry.Observed) { o.Private = ptr(false) }),
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				atProvider: v1alpha1.RegistryRepoObservation{URL: "harbor.example.com/team-a/shop", FullName: "team-a/shop", TagCount: ptr[int64](2), Visibility: v1alpha1.VisibilityPublic}},
		},
		"ForgedClaimOwned": {
			reason: "A forged status.createdProject is cleared from status, and the project's visibility stays unmanaged.",
			cr:     repo(claimsProject),
			repo:   harbor(ptr("team-a/shop"), func(o *registry.Observed) { o.Private = ptr(false) }),
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				atProvider: v1alpha1.RegistryRepoObservation{URL: "harbor.example.com/team-a/shop", FullName: "team-a/shop", TagCount: ptr[int64](2), Visibility: v1alpha1.VisibilityPublic}},
		},
		"BeforeFirstPush": {
			reason: "A Harbor repository before its first push (no owner to read) exists: its project is reachable.",
			cr:     repo(),
			repo: harbor(nil, func(o *registry.Observed) {
				o.TagCount, o.Created = ptr[int64](0), nil
			}),
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				atProvider: v1alpha1.RegistryRepoObservation{URL: "harbor.example.com/team-a/shop", FullName: "team-a/shop", TagCount: ptr[int64](0), Visibility: v1alpha1.VisibilityPrivate}},
		},
		"ImplicitEmptyDeleted": {
			reason: "Being deleted, a repository that exists only until its first push is gone once it holds no image: nothing to delete.",
			cr:     repo(deleted),
			repo:   harbor(ptr("team-a/shop"), func(o *registry.Observed) { o.TagCount = ptr[int64](0) }),
			want:   want{obs: managed.ExternalObservation{ResourceExists: false}},
		},
		"ImplicitWithImagesDeleted": {
			reason: "Being deleted, an implicit repository holding images still exists: Delete decides about them.",
			cr:     repo(deleted),
			repo:   harbor(ptr("team-a/shop")),
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				atProvider: v1alpha1.RegistryRepoObservation{URL: "harbor.example.com/team-a/shop", FullName: "team-a/shop", TagCount: ptr[int64](2), Visibility: v1alpha1.VisibilityPrivate}},
		},
		"OCIEmptyClaimed": {
			reason: "An OCI repository first seen empty is claimed: fullName is recorded, and what is pushed later is this resource's.",
			cr:     repo(),
			repo:   oci(0),
			want:   want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, atProvider: ociSeen(0)},
		},
		"OCIClaimedWithImages": {
			reason: "An OCI repository claimed earlier holds this resource's images.",
			cr:     repo(claimed),
			repo:   oci(3),
			want:   want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, atProvider: ociSeen(3)},
		},
		"OCIExistingImages": {
			reason: "An OCI registry records no owner: a repository holding images when the resource first sees it is another's, refused like any unowned repository without adoptExisting.",
			cr:     repo(deleteImages),
			repo:   oci(3),
			want:   want{err: errors.Errorf(errFmtNotOwned, "team-a/shop")},
		},
		"OCIExistingImagesRenamed": {
			reason: "A claim is on the repository it names: after the spec is pointed elsewhere, a repository holding images there is not claimed.",
			cr: repo(func(cr *v1alpha1.RegistryRepo) {
				cr.Status.AtProvider.FullName = "team-a/old"
			}),
			repo: oci(3),
			want: want{err: errors.Errorf(errFmtNotOwned, "team-a/shop")},
		},
		"OCIExistingImagesAdopt": {
			reason: "With adoptExisting an OCI repository holding images is taken over, and claimed.",
			cr:     repo(adopt),
			repo:   oci(3),
			want:   want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, atProvider: ociSeen(3)},
		},
		"OCIExistingImagesDeleted": {
			reason: "Being deleted, an OCI repository never claimed is let go: its images are never deleted, deleteImages or not.",
			cr:     repo(deleted, deleteImages),
			repo:   oci(3),
			want:   want{obs: managed.ExternalObservation{ResourceExists: false}},
		},
		"OCIExistingImagesObserveOnly": {
			reason: "Observe-only, an unclaimed OCI repository holding images is shown but not claimed: a later switch to full management must still refuse it.",
			cr:     repo(observeOnly),
			repo:   oci(3),
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				atProvider: v1alpha1.RegistryRepoObservation{URL: "registry.example.com/team-a/shop", TagCount: ptr[int64](3)}},
		},
		"LastPushed": {
			reason: "When the registry says when an image was last pushed, status says so.",
			cr:     repo(),
			repo:   dockerHub("team-a/shop", func(o *registry.Observed) { o.LastPushed = ptr(created.Add(time.Hour)) }),
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				atProvider: v1alpha1.RegistryRepoObservation{URL: "docker.io/team-a/shop", FullName: "team-a/shop", LastPushed: &metav1.Time{Time: created.Add(time.Hour)}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := &mockClient{repo: tc.repo, getErr: tc.getErr}
			e := &external{client: m, tenancy: tc.tenancy}
			got, err := e.Observe(context.Background(), tc.cr)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Fatalf("%s\nObserve(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.diff, got.Diff); diff != "" {
				t.Errorf("%s\nObserve(...).Diff: -want, +got:\n%s", tc.reason, diff)
			}
			got.Diff = ""
			if diff := cmp.Diff(tc.want.obs, got); diff != "" {
				t.Errorf("%s\nObserve(...): -want, +got:\n%s", tc.reason, diff)
			}
			if got.ResourceExists {
				if diff := cmp.Diff(tc.want.atProvider, tc.cr.Status.AtProvider); diff != "" {
					t.Errorf("%s\nstatus.atProvider: -want, +got:\n%s", tc.reason, diff)
				}
			}
			if len(m.creates)+len(m.updates)+len(m.deletes) != 0 {
				t.Errorf("%s\nObserve wrote to the registry: %+v", tc.reason, m)
			}
		})
	}
}

// kube is an API server holding cr; its status patches fail with
// failPatch when set.
func kube(t *testing.T, cr *v1alpha1.RegistryRepo, failPatch error) client.Client {
	t.Helper()
	c := fake.NewClientBuilder().WithScheme(controlplane.Scheme()).WithObjects(cr.DeepCopy()).WithStatusSubresource(cr).
		WithInterceptorFuncs(interceptor.Funcs{SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			if failPatch != nil {
				return failPatch
			}
			return c.SubResource(sub).Patch(ctx, obj, p, opts...)
		}}).Build()
	return c
}

func TestCreate(t *testing.T) {
	want := func(mod ...func(*registry.Repo)) []registry.Repo {
		r := registry.Repo{Namespace: "team-a", Name: "shop", Private: true, Description: "The shop", Owner: "team-a/shop"}
		for _, f := range mod {
			f(&r)
		}
		return []registry.Repo{r}
	}
	// squat names a repository team-b/team-a-x, asking for its project.
	squat := func(cr *v1alpha1.RegistryRepo) {
		cr.Spec.ForProvider.Namespace, cr.Spec.ForProvider.Name = "team-b", "team-a-x"
		cr.Spec.ForProvider.Harbor = &v1alpha1.HarborOptions{CreateProject: true}
	}
	cpc := &backendconfig.Config{Kind: "ClusterProviderConfig", Name: "platform"}
	permissive := TenancyOf(cpc, &pcv1alpha1.RegistryConfig{Tenancy: &pcv1alpha1.RegistryTenancy{Repositories: []string{"{namespace}/*", "*/{namespace}-*"}}}, "team-a")
	cases := map[string]struct {
		reason    string
		cr        *v1alpha1.RegistryRepo
		tenancy   *Tenancy
		created   registry.Created
		createErr error
		failPatch error
		want      error
		creates   []registry.Repo
		// recorded is status.atProvider.createdProject in the API server.
		recorded bool
	}{
		"Create": {
			reason:  "The repository is created as asked, recording its owner.",
			cr:      repo(),
			creates: want(),
		},
		"Public": {
			reason: "A public repository is asked for as public, with the Harbor project's options.",
			cr: repo(func(cr *v1alpha1.RegistryRepo) {
				cr.Spec.ForProvider.Visibility = v1alpha1.VisibilityPublic
				cr.Spec.ForProvider.Harbor = &v1alpha1.HarborOptions{CreateProject: true, StorageQuotaBytes: ptr[int64](1 << 30), ImmutableTags: true}
			}),
			creates: want(func(r *registry.Repo) {
				r.Private, r.CreateProject, r.StorageQuotaBytes, r.ImmutableTags = false, true, ptr[int64](1<<30), true
			}),
		},
		"AppearedMeanwhile": {
			reason:    "A repository that appeared since Observe (409) is not an error: the next Observe checks its owner.",
			cr:        repo(),
			createErr: errConflict(),
			creates:   want(),
		},
		"CreateFails": {
			reason:    "A failed create is an error wrapping the registry's answer.",
			cr:        repo(),
			createErr: errUnauthorized(),
			want:      errors.Wrap(errUnauthorized(), errCreate),
			creates:   want(),
		},
		"ProjectCreated": {
			reason:   "A Harbor project the create made is recorded in status at once: it belongs to this resource from now on.",
			cr:       repo(),
			created:  registry.Created{Project: true},
			creates:  want(),
			recorded: true,
		},
		"ProjectNotNamedByTenancy": {
			reason:    "Through a ClusterProviderConfig whose pattern reaches project team-b by a glob, namespace team-a may not create team-b (squatting another team's project): the client is not asked to, and the user is told to ask the platform team.",
			cr:        repo(squat),
			tenancy:   permissive,
			createErr: &registry.ProjectMissingError{Project: "team-b"},
			want:      errors.Errorf(errFmtNoProject, "team-b", "team-a", "ClusterProviderConfig platform", "team-b"),
			creates: []registry.Repo{{Namespace: "team-b", Name: "team-a-x", Private: true, Description: "The shop", Owner: "team-a/shop",
				CreateProject: false}},
		},
		"ProjectNamedByTenancy": {
			reason: "Through the same ClusterProviderConfig, the project {namespace}/* names exactly is created as asked.",
			cr: repo(func(cr *v1alpha1.RegistryRepo) {
				cr.Spec.ForProvider.Harbor = &v1alpha1.HarborOptions{CreateProject: true}
			}),
			tenancy:  permissive,
			created:  registry.Created{Project: true},
			creates:  want(func(r *registry.Repo) { r.CreateProject = true }),
			recorded: true,
		},
		"ProjectMissingOwnConfig": {
			reason:    "With a namespaced ProviderConfig (no tenancy) the client's own explanation stands.",
			cr:        repo(squat),
			createErr: &registry.ProjectMissingError{Project: "team-b"},
			want:      errors.Wrap(&registry.ProjectMissingError{Project: "team-b"}, errCreate),
			creates: []registry.Repo{{Namespace: "team-b", Name: "team-a-x", Private: true, Description: "The shop", Owner: "team-a/shop",
				CreateProject: true}},
		},
		"ProjectRecordFails": {
			reason:    "A created project that cannot be recorded fails the create, so the reconciler retries and writes status.",
			cr:        repo(),
			created:   registry.Created{Project: true},
			failPatch: errStatusConflict(),
			want:      errors.Wrap(errors.Wrap(errStatusConflict(), "cannot record the created project in status"), errCreate),
			creates:   want(),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := &mockClient{created: tc.created, createErr: tc.createErr}
			kc := kube(t, tc.cr, tc.failPatch)
			e := &external{client: m, kube: kc, tenancy: tc.tenancy}
			_, err := e.Create(context.Background(), tc.cr)
			if diff := cmp.Diff(tc.want, err, test.EquateErrors()); diff != "" {
				t.Errorf("%s\nCreate(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.creates, m.creates); diff != "" {
				t.Errorf("%s\ncreated: -want, +got:\n%s", tc.reason, diff)
			}
			stored := &v1alpha1.RegistryRepo{}
			if err := kc.Get(context.Background(), client.ObjectKeyFromObject(tc.cr), stored); err != nil {
				t.Fatal(err)
			}
			if stored.Status.AtProvider.CreatedProject != tc.recorded {
				t.Errorf("%s\nstatus.atProvider.createdProject in the API server: want %t, got %t", tc.reason, tc.recorded, stored.Status.AtProvider.CreatedProject)
			}
			if tc.created.Project && !tc.cr.Status.AtProvider.CreatedProject {
				t.Errorf("%s\nthe created project is not claimed in the resource's status", tc.reason)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	cases := map[string]struct {
		reason    string
		cr        *v1alpha1.RegistryRepo
		tenancy   *Tenancy
		updateErr error
		want      error
		updates   []registry.Repo
	}{
		"Update": {
			reason:  "Visibility, description and owner are written; a project the resource created is said to be its own, so its visibility may change.",
			cr:      repo(claimsProject),
			updates: []registry.Repo{{Namespace: "team-a", Name: "shop", Private: true, Description: "The shop", Owner: "team-a/shop", ProjectOwned: true}},
		},
		"ThroughTenancy": {
			reason:  "Through a ClusterProviderConfig, the project the resource created is not said to be its own: its visibility is never changed.",
			cr:      repo(claimsProject),
			tenancy: TenancyOf(&backendconfig.Config{Kind: "ClusterProviderConfig", Name: "platform"}, &pcv1alpha1.RegistryConfig{}, "team-a"),
			updates: []registry.Repo{{Namespace: "team-a", Name: "shop", Private: true, Description: "The shop", Owner: "team-a/shop"}},
		},
		"UpdateFails": {
			reason:    "A failed update is an error wrapping the registry's answer.",
			cr:        repo(),
			updateErr: errUnavailable(),
			want:      errors.Wrap(errUnavailable(), errUpdate),
			updates:   []registry.Repo{{Namespace: "team-a", Name: "shop", Private: true, Description: "The shop", Owner: "team-a/shop"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := &mockClient{updateErr: tc.updateErr}
			e := &external{client: m, tenancy: tc.tenancy}
			_, err := e.Update(context.Background(), tc.cr)
			if diff := cmp.Diff(tc.want, err, test.EquateErrors()); diff != "" {
				t.Errorf("%s\nUpdate(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.updates, m.updates); diff != "" {
				t.Errorf("%s\nupdated: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestDelete(t *testing.T) {
	shop := []registry.Repo{{Namespace: "team-a", Name: "shop", Private: true, Description: "The shop", Owner: "team-a/shop"}}
	cases := map[string]struct {
		reason    string
		cr        *v1alpha1.RegistryRepo
		repo      *registry.Observed
		getErr    error
		deleteErr error
		want      error
		gets      int
		deletes   []registry.Repo
	}{
		"Empty": {
			reason:  "An empty repository is deleted, after a fresh read of its tags.",
			cr:      repo(),
			repo:    harbor(ptr("team-a/shop"), func(o *registry.Observed) { o.TagCount = ptr[int64](0) }),
			gets:    1,
			deletes: shop,
		},
		"HoldsImages": {
			reason: "A repository holding images is never deleted without deleteImages: images are users' data.",
			cr:     repo(),
			repo:   harbor(ptr("team-a/shop")),
			want:   errors.Errorf(errFmtHasImages, "team-a/shop", 2),
			gets:   1,
		},
		"TagsUnknown": {
			reason: "A repository whose tags one read cannot count (Docker Hub) may hold images: never deleted without deleteImages.",
			cr:     repo(),
			repo:   dockerHub("team-a/shop"),
			want:   errors.Errorf(errFmtUnknownTags, "team-a/shop"),
			gets:   1,
		},
		"DeleteImages": {
			reason:  "With deleteImages the repository is deleted with its images, without counting them.",
			cr:      repo(deleteImages),
			repo:    harbor(ptr("team-a/shop")),
			deletes: shop,
		},
		"Gone": {
			reason: "A repository already gone is done, and no delete is sent.",
			cr:     repo(),
			gets:   1,
		},
		"ReadFails": {
			reason: "When the tags cannot be read, nothing is deleted.",
			cr:     repo(), getErr: errUnavailable(),
			want: errors.Wrap(errUnavailable(), errDelete),
			gets: 1,
		},
		"DeleteFails": {
			reason:    "A failed delete is an error, so the resource keeps its finalizer and the delete is retried.",
			cr:        repo(deleteImages),
			deleteErr: errUnavailable(),
			want:      errors.Wrap(errUnavailable(), errDelete),
			deletes:   shop,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := &mockClient{repo: tc.repo, getErr: tc.getErr, deleteErr: tc.deleteErr}
			e := &external{client: m}
			_, err := e.Delete(context.Background(), tc.cr)
			if diff := cmp.Diff(tc.want, err, test.EquateErrors()); diff != "" {
				t.Errorf("%s\nDelete(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.deletes, m.deletes); diff != "" {
				t.Errorf("%s\ndeleted: -want, +got:\n%s", tc.reason, diff)
			}
			if m.gets != tc.gets {
				t.Errorf("%s\nreads: want %d, got %d", tc.reason, tc.gets, m.gets)
			}
			if got := tc.cr.GetCondition(xpv2.TypeReady).Reason; got != xpv2.ReasonDeleting {
				t.Errorf("%s\nReady reason: want %s, got %s", tc.reason, xpv2.ReasonDeleting, got)
			}
			if err != nil && strings.Contains(err.Error(), "deleteImages") && len(m.deletes) != 0 {
				t.Errorf("%s\nrefused, yet a delete was sent", tc.reason)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

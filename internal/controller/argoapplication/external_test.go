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

package argoapplication

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/controller/argoaccess"
)

// Every Argo CD error the tests need is made here, so that a change of the
// client's error type changes these functions only.

func errNotFound() error {
	return &httpapi.Error{Status: http.StatusNotFound, Code: "5", Message: "applications.argoproj.io not found"}
}

func errUnavailable() error {
	return &httpapi.Error{Status: http.StatusServiceUnavailable, Message: "unavailable"}
}

func errForbidden() error {
	return &httpapi.Error{Status: http.StatusForbidden, Code: "7", Message: "permission denied"}
}

func errExists() error {
	return &httpapi.Error{Status: http.StatusBadRequest, Code: "3", Message: "existing application spec is different; use upsert flag to force update"}
}

// patch is one merge patch sent to Argo CD.
type patch struct {
	Name  string
	Patch string
}

// deletion is one delete sent to Argo CD.
type deletion struct {
	Name, Project string
	Cascade       bool
}

// mockClient is an Argo CD holding applications and projects; it records
// every read of an application and every write.
type mockClient struct {
	apps     map[string]*argocd.Application
	projects map[string]*argocd.Project

	getErr, createErr, patchErr, deleteErr, projectErr error

	gets    int
	created []*argocd.Application
	patched []patch
	deleted []deletion
}

func (m *mockClient) Get(_ context.Context, name string) (*argocd.Application, error) {
	m.gets++
	if m.getErr != nil {
		return nil, m.getErr
	}
	if a, ok := m.apps[name]; ok {
		return a, nil
	}
	return nil, errNotFound()
}

func (m *mockClient) Create(_ context.Context, app *argocd.Application) (*argocd.Application, error) {
	if m.createErr != nil {
		return nil, m.createErr
	}
	m.created = append(m.created, app)
	return app, nil
}

func (m *mockClient) Patch(_ context.Context, name string, p []byte) (*argocd.Application, error) {
	if m.patchErr != nil {
		return nil, m.patchErr
	}
	m.patched = append(m.patched, patch{Name: name, Patch: string(p)})
	return m.apps[name], nil
}

func (m *mockClient) Delete(_ context.Context, name, project string, cascade bool) error {
	if m.deleteErr != nil {
		return m.deleteErr
	}
	m.deleted = append(m.deleted, deletion{Name: name, Project: project, Cascade: cascade})
	if _, ok := m.apps[name]; !ok {
		return errNotFound()
	}
	return nil
}

func (m *mockClient) GetProject(_ context.Context, name string) (*argocd.Project, error) {
	if m.projectErr != nil {
		return nil, m.projectErr
	}
	if p, ok := m.projects[name]; ok {
		return p, nil
	}
	return nil, errNotFound()
}

const appName = "team-a-shop"

func application(mod ...func(*v1alpha1.ArgoApplication)) *v1alpha1.ArgoApplication {
	cr := &v1alpha1.ArgoApplication{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team-a"}}
	meta.SetExternalName(cr, appName)
	cr.Spec.ForProvider = v1alpha1.ArgoApplicationParameters{
		Project:     "team-a-shop",
		Source:      v1alpha1.ApplicationSource{RepoURL: "https://git.example.com/team-a/shop.git", Path: "deploy", TargetRevision: "main"},
		Destination: v1alpha1.ApplicationDestination{Server: "https://kubernetes.default.svc", Namespace: "team-a-prod"},
		SyncPolicy:  &v1alpha1.SyncPolicy{SyncOptions: []string{"CreateNamespace=true", "PruneLast=true"}},
	}
	for _, f := range mod {
		f(cr)
	}
	return cr
}

// observed is the application cr asks for as Argo CD returns it: healthy
// and synced, with what Argo CD adds.
func observed(cr *v1alpha1.ArgoApplication, mod ...func(*argocd.Application)) *argocd.Application {
	a := Desired(cr)
	a.Metadata.ResourceVersion = "42"
	a.Status = argocd.ApplicationStatus{
		Sync:   argocd.SyncStatus{Status: "Synced", Revision: "abc123"},
		Health: argocd.HealthStatus{Status: "Healthy"},
	}
	for _, f := range mod {
		f(a)
	}
	return a
}

func deleted(cr *v1alpha1.ArgoApplication) {
	cr.SetDeletionTimestamp(&metav1.Time{Time: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)})
}

func observeOnly(cr *v1alpha1.ArgoApplication) {
	cr.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
}

func ownedBy(owner string) func(*argocd.Application) {
	return func(a *argocd.Application) { a.Metadata.Labels = map[string]string{contract.LabelOwner: owner} }
}

func adopting(cr *v1alpha1.ArgoApplication) { cr.Spec.ForProvider.AdoptExisting = true }

func unowned(a *argocd.Application) { a.Metadata.Labels = nil }

func inProject(p string) func(*argocd.Application) {
	return func(a *argocd.Application) { a.Spec.Project = p }
}

func projectOf(namespace string) *argocd.Project {
	p := &argocd.Project{Metadata: argocd.ObjectMeta{Name: "team-a-shop"}}
	if namespace != "" {
		p.Metadata.Labels = map[string]string{contract.LabelOwnerNamespace: namespace}
	}
	return p
}

// ignoreTime leaves the transition time out of condition comparisons.
var ignoreTime = cmpopts.IgnoreFields(xpv2.Condition{}, "LastTransitionTime")

func TestObserve(t *testing.T) {
	synced := v1alpha1.ArgoApplicationObservation{
		URL: "https://argocd.example.com/applications/team-a-shop", SyncStatus: "Synced", Revision: "abc123", HealthStatus: "Healthy",
	}
	type want struct {
		obs managed.ExternalObservation
		// diff is a part of obs.Diff, which cmp words its own way.
		diff       string
		err        error
		atProvider v1alpha1.ArgoApplicationObservation
		ready      *xpv2.Condition
	}
	cases := map[string]struct {
		reason   string
		cr       *v1alpha1.ArgoApplication
		app      func(cr *v1alpha1.ArgoApplication) *argocd.Application
		projects map[string]*argocd.Project
		getErr   error
		projErr  error
		tenancy  *argoaccess.Tenancy
		want     want
	}{
		"Absent": {
			reason: "An application Argo CD does not have does not exist: it is created, and no error is raised.",
			cr:     application(),
			want:   want{obs: managed.ExternalObservation{ResourceExists: false}},
		},
		"GetFails": {
			reason: "A failed read is an error, never 'absent': a 503 must not make the controller create over an existing application.",
			cr:     application(),
			getErr: errUnavailable(),
			want:   want{err: errors.Wrap(errUnavailable(), errGet)},
		},
		"Forbidden": {
			reason: "A read the token may not make is an error naming Argo CD's answer, never 'absent'.",
			cr:     application(),
			getErr: errForbidden(),
			want:   want{err: errors.Wrap(errForbidden(), errGet)},
		},
		"UpToDate": {
			reason: "The managed fields match: up to date and Ready, with the link to the application and the sync state in status.",
			cr:     application(),
			app:    func(cr *v1alpha1.ArgoApplication) *argocd.Application { return observed(cr) },
			want: want{
				obs:        managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				atProvider: synced,
				ready:      ptr(xpv2.Available()),
			},
		},
		"ArgoCDDefaultsAreNotDrift": {
			reason: "Argo CD's defaults (HEAD for an empty revision), reordered sync options, others' labels and annotations are not drift.",
			cr:     application(func(cr *v1alpha1.ArgoApplication) { cr.Spec.ForProvider.Source.TargetRevision = "" }),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, func(a *argocd.Application) {
					a.Spec.Source.TargetRevision = "HEAD"
					a.Spec.SyncPolicy.SyncOptions = []string{"PruneLast=true", "CreateNamespace=true"}
					a.Metadata.Labels["team"] = "shop"
					a.Metadata.Annotations = map[string]string{"notified.notifications.argoproj.io": "{}"}
				})
			},
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, atProvider: synced, ready: ptr(xpv2.Available())},
		},
		"SpecDrift": {
			reason: "A target revision changed in Argo CD is drift, and the Diff names it.",
			cr:     application(),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, func(a *argocd.Application) { a.Spec.Source.TargetRevision = "hotfix" })
			},
			want: want{obs: managed.ExternalObservation{ResourceExists: true}, diff: "hotfix", atProvider: synced, ready: ptr(xpv2.Available())},
		},
		"CascadeFinalizerRemoved": {
			reason: "The cascade finalizer removed in Argo CD is drift: without it, deleting the resource would orphan the workloads.",
			cr:     application(),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, func(a *argocd.Application) { a.Metadata.Finalizers = nil })
			},
			want: want{obs: managed.ExternalObservation{ResourceExists: true}, diff: "finalizers: want the cascade finalizer true, got []", atProvider: synced, ready: ptr(xpv2.Available())},
		},
		"CascadeFinalizerUnwanted": {
			reason: "With cascade: false, the cascade finalizer (in any propagation form) is drift: it would delete the workloads.",
			cr:     application(func(cr *v1alpha1.ArgoApplication) { cr.Spec.ForProvider.Cascade = ptr(false) }),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, func(a *argocd.Application) { a.Metadata.Finalizers = []string{finalizerCascade + "/background"} })
			},
			want: want{obs: managed.ExternalObservation{ResourceExists: true}, diff: "finalizers: want the cascade finalizer false", atProvider: synced, ready: ptr(xpv2.Available())},
		},
		"OthersFinalizersAreNotDrift": {
			reason: "Only our finalizer counts: another tool's, and ours in its foreground form, are not drift.",
			cr:     application(),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, func(a *argocd.Application) {
					a.Metadata.Finalizers = []string{"post-delete-finalizer.argocd.argoproj.io", finalizerCascade + "/foreground"}
				})
			},
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, atProvider: synced, ready: ptr(xpv2.Available())},
		},
		"Degraded": {
			reason: "A degraded application exists and is up to date, but is not Ready, saying what Argo CD reports.",
			cr:     application(),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, func(a *argocd.Application) {
					a.Status.Health = argocd.HealthStatus{Status: "Degraded", Message: "back-off pulling image"}
				})
			},
			want: want{
				obs:        managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				atProvider: v1alpha1.ArgoApplicationObservation{URL: synced.URL, SyncStatus: "Synced", Revision: "abc123", HealthStatus: "Degraded", HealthMessage: "back-off pulling image"},
				ready:      ptr(unavailable(ReasonDegraded, "Argo CD reports health Degraded: back-off pulling image (sync Synced)")),
			},
		},
		"OwnerLabelMissing": {
			reason: "An application without an owner label is refused without adoptExisting, and the message names the field that adopts it.",
			cr:     application(),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, func(a *argocd.Application) { a.Metadata.Labels = nil })
			},
			want: want{err: errors.Errorf(errFmtNotOwned, appName, contract.LabelOwner)},
		},
		"AnotherOwner": {
			reason: "An application another resource manages is refused, never overwritten, and the message names its owner.",
			cr:     application(),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, ownedBy("team-b.shop"))
			},
			want: want{err: errors.Errorf(errFmtOthers, appName, "team-b.shop", contract.LabelOwner, "team-a.shop")},
		},
		"AnotherOwnerAdopting": {
			reason: "adoptExisting never takes over an application another resource's label names.",
			cr:     application(adopting),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, ownedBy("team-b.shop"))
			},
			want: want{err: errors.Errorf(errFmtOthers, appName, "team-b.shop", contract.LabelOwner, "team-a.shop")},
		},
		"Adopt": {
			reason: "With adoptExisting, an application nobody owns, in a project nobody's ArgoProject manages (the operator's), exists and is out of date: Update writes the label and moves it to the resource's project, in place.",
			cr:     application(adopting),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, unowned, inProject("operator"))
			},
			projects: map[string]*argocd.Project{"operator": {Metadata: argocd.ObjectMeta{Name: "operator"}}},
			tenancy:  &argoaccess.Tenancy{Namespace: "team-a"},
			want:     want{obs: managed.ExternalObservation{ResourceExists: true}, diff: "to be written (adoptExisting)", atProvider: synced, ready: ptr(xpv2.Available())},
		},
		"AdoptDeleted": {
			reason: "Being deleted before it took the application over, the resource lets it go: 'absent', so it is never deleted (nor its workloads).",
			cr:     application(adopting, deleted),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, unowned)
			},
			want: want{obs: managed.ExternalObservation{ResourceExists: false}},
		},
		"AdoptOthersProject": {
			reason: "An unlabelled application in another namespace's project is that namespace's: never adopted.",
			cr:     application(adopting),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, unowned, inProject("team-b.shop"))
			},
			projects: map[string]*argocd.Project{"team-b.shop": {Metadata: argocd.ObjectMeta{Name: "team-b.shop", Labels: map[string]string{contract.LabelOwnerNamespace: "team-b"}}}},
			tenancy:  &argoaccess.Tenancy{Namespace: "team-a"},
			want: want{err: errors.Wrap(errors.Errorf(argoaccess.ErrFmtProjectOthers, "the adopted application's spec.project", "team-b.shop", "team-b", contract.LabelOwnerNamespace, "team-a"), errAdopt),
				atProvider: v1alpha1.ArgoApplicationObservation{}},
		},
		"AdoptDestinationRefused": {
			reason: "Through a ClusterProviderConfig, an application deploying to a namespace the team may not use stays refused with adoptExisting.",
			cr:     application(adopting),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, unowned, func(a *argocd.Application) { a.Spec.Destination.Namespace = "kube-system" })
			},
			tenancy: &argoaccess.Tenancy{Namespace: "team-a", Config: "ClusterProviderConfig platform", Bounded: true,
				DestinationNamespaces: []string{"team-a", "team-a--*"}, DestinationClusters: []string{"*"}},
			want: want{err: errors.Wrap(errors.New(`the adopted application's spec.destination: destination https://kubernetes.default.svc namespace "kube-system" is not allowed for namespace "team-a": ClusterProviderConfig platform spec.argocd.tenancy.destinationNamespaces allows "team-a", "team-a--*"`), errAdopt)},
		},
		"AdoptDestinationAllowed": {
			reason: "Through a ClusterProviderConfig, an application deploying within the team's namespaces is adopted.",
			cr:     application(adopting),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, unowned, func(a *argocd.Application) { a.Spec.Destination.Namespace = "team-a--shop-alpha" })
			},
			tenancy: &argoaccess.Tenancy{Namespace: "team-a", Config: "ClusterProviderConfig platform", Bounded: true,
				DestinationNamespaces: []string{"team-a", "team-a--*"}, DestinationClusters: []string{"*"}},
			want: want{obs: managed.ExternalObservation{ResourceExists: true}, diff: "to be written (adoptExisting)", atProvider: synced, ready: ptr(xpv2.Available())},
		},
		"AnotherOwnerDeleted": {
			reason: "Being deleted, an application it cannot prove is its own is let go: 'absent', so nothing is deleted, and status is not rewritten from it.",
			cr:     application(deleted),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, ownedBy("team-b.shop"))
			},
			want: want{obs: managed.ExternalObservation{ResourceExists: false}},
		},
		"OwnedDeleted": {
			reason: "Being deleted, its own application still exists: the reconciler goes on to delete it.",
			cr:     application(deleted),
			app:    func(cr *v1alpha1.ArgoApplication) *argocd.Application { return observed(cr) },
			want:   want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, atProvider: synced, ready: ptr(xpv2.Available())},
		},
		"ObserveOnlyNotOurs": {
			reason: "Observe-only, an application no resource owns is shown (that is what observing is for) without an error.",
			cr:     application(observeOnly),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, func(a *argocd.Application) { a.Metadata.Labels = nil })
			},
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, atProvider: synced, ready: ptr(xpv2.Available())},
		},
		"ObserveOnlyOwnProject": {
			reason: "Observe-only through a ClusterProviderConfig, an application of the namespace's own project is shown.",
			cr:     application(observeOnly),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, ownedBy("platform.shop"))
			},
			projects: map[string]*argocd.Project{"team-a-shop": projectOf("team-a")},
			tenancy:  &argoaccess.Tenancy{Namespace: "team-a", Bounded: true},
			want:     want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, atProvider: synced, ready: ptr(xpv2.Available())},
		},
		"ObserveOnlyOtherNamespace": {
			reason: "Observe-only, an application of another namespace's project is not shown: its status would tell this tenant about it.",
			cr:     application(observeOnly),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, ownedBy("team-b.shop"))
			},
			projects: map[string]*argocd.Project{"team-a-shop": projectOf("team-b")},
			tenancy:  &argoaccess.Tenancy{Namespace: "team-a"},
			want: want{err: errors.Errorf(argoaccess.ErrFmtProjectOthers, "the observed application's spec.project", "team-a-shop", "team-b", contract.LabelOwnerNamespace, "team-a"),
				atProvider: v1alpha1.ArgoApplicationObservation{}},
		},
		"ObserveOnlyUnownedProjectBounded": {
			reason: "Observe-only through a ClusterProviderConfig, an application of a project no ArgoProject of the namespace manages is not shown.",
			cr:     application(observeOnly),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, ownedBy("platform.shop"))
			},
			projects: map[string]*argocd.Project{"team-a-shop": projectOf("")},
			tenancy:  &argoaccess.Tenancy{Namespace: "team-a", Bounded: true},
			want:     want{err: errors.Errorf(argoaccess.ErrFmtProjectNotOurs, "the observed application's spec.project", "team-a-shop", "team-a", contract.LabelOwnerNamespace, "")},
		},
		"ObserveOnlyProjectMissing": {
			reason: "Observe-only with tenancy, an application whose project cannot be found is not shown: ownership of the project cannot be checked.",
			cr:     application(observeOnly),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, ownedBy("team-b.shop"))
			},
			tenancy: &argoaccess.Tenancy{Namespace: "team-a"},
			want:    want{err: errors.Errorf(argoaccess.ErrFmtProjectMissing, "team-a-shop")},
		},
		"ObserveOnlyProjectReadFails": {
			reason: "A failed read of the project is an error naming the project, not a pass.",
			cr:     application(observeOnly),
			app: func(cr *v1alpha1.ArgoApplication) *argocd.Application {
				return observed(cr, ownedBy("team-b.shop"))
			},
			projErr: errUnavailable(),
			tenancy: &argoaccess.Tenancy{Namespace: "team-a"},
			want:    want{err: errors.Wrapf(errUnavailable(), argoaccess.ErrFmtProjectGet, "team-a-shop")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := &mockClient{getErr: tc.getErr, projectErr: tc.projErr, projects: tc.projects}
			if tc.app != nil {
				m.apps = map[string]*argocd.Application{appName: tc.app(tc.cr)}
			}
			e := &external{client: m, server: "https://argocd.example.com/", tenancy: tc.tenancy}
			got, err := e.Observe(context.Background(), tc.cr)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Fatalf("%s\nObserve(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if (tc.want.diff == "") != (got.Diff == "") || !strings.Contains(got.Diff, tc.want.diff) {
				t.Errorf("%s\nObserve(...).Diff: want it to contain %q, got %q", tc.reason, tc.want.diff, got.Diff)
			}
			got.Diff = ""
			if diff := cmp.Diff(tc.want.obs, got); diff != "" {
				t.Errorf("%s\nObserve(...): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.atProvider, tc.cr.Status.AtProvider); diff != "" {
				t.Errorf("%s\nstatus.atProvider: -want, +got:\n%s", tc.reason, diff)
			}
			if tc.want.ready != nil {
				if diff := cmp.Diff(*tc.want.ready, tc.cr.GetCondition(xpv2.TypeReady), ignoreTime); diff != "" {
					t.Errorf("%s\nReady: -want, +got:\n%s", tc.reason, diff)
				}
			}
			if err == nil && got.ResourceExists && e.observed != m.apps[appName] {
				t.Errorf("%s\nObserve must keep what it read for Update's patch", tc.reason)
			}
			if m.gets != 1 {
				t.Errorf("%s\nObserve read the application %d times, want once", tc.reason, m.gets)
			}
		})
	}
}

func TestCreate(t *testing.T) {
	type want struct {
		err     error
		created []*argocd.Application
	}
	cases := map[string]struct {
		reason    string
		cr        *v1alpha1.ArgoApplication
		projects  map[string]*argocd.Project
		tenancy   *argoaccess.Tenancy
		createErr error
		want      want
	}{
		"Create": {
			reason: "The application is created as asked, with our owner label and the cascade finalizer.",
			cr:     application(),
			want: want{created: []*argocd.Application{{
				Metadata: argocd.ObjectMeta{Name: appName, Labels: map[string]string{contract.LabelOwner: "team-a.shop"}, Finalizers: []string{finalizerCascade}},
				Spec: argocd.ApplicationSpec{
					Project:     "team-a-shop",
					Source:      &argocd.ApplicationSource{RepoURL: "https://git.example.com/team-a/shop.git", Path: "deploy", TargetRevision: "main"},
					Destination: argocd.ApplicationDestination{Server: "https://kubernetes.default.svc", Namespace: "team-a-prod"},
					SyncPolicy:  &argocd.SyncPolicy{SyncOptions: []string{"CreateNamespace=true", "PruneLast=true"}},
				},
			}}},
		},
		"CreateWithoutCascade": {
			reason: "With cascade: false the application is created without the cascade finalizer, so deleting it leaves the workloads.",
			cr:     application(func(cr *v1alpha1.ArgoApplication) { cr.Spec.ForProvider.Cascade = ptr(false) }),
			want: want{created: []*argocd.Application{func() *argocd.Application {
				a := Desired(application())
				a.Metadata.Finalizers = nil
				return a
			}()}},
		},
		"AlreadyExists": {
			reason: "Argo CD refusing a create over an application of that name is said so, and nothing is overwritten.",
			cr:     application(), createErr: errExists(),
			want: want{err: errors.Errorf(errFmtExistsOnCreate, appName)},
		},
		"CreateFails": {
			reason: "Another failure is wrapped once, keeping Argo CD's answer for the user.",
			cr:     application(), createErr: errUnavailable(),
			want: want{err: errors.Wrap(errUnavailable(), errCreate)},
		},
		"TenantOwnProject": {
			reason: "Through a ClusterProviderConfig, an application in the namespace's own project is created.",
			cr:     named("team-a.shop.dev"), tenancy: &argoaccess.Tenancy{Namespace: "team-a", Bounded: true},
			projects: map[string]*argocd.Project{"team-a-shop": projectOf("team-a")},
			want:     want{created: []*argocd.Application{Desired(named("team-a.shop.dev"))}},
		},
		"TenantOtherNamespacesName": {
			reason: "Through a ClusterProviderConfig, a new application named for another namespace is refused before anything is written.",
			cr:     named("team-b.shop.dev"), tenancy: &argoaccess.Tenancy{Namespace: "team-a", Config: "ClusterProviderConfig platform", Bounded: true},
			projects: map[string]*argocd.Project{"team-a-shop": projectOf("team-a")},
			want:     want{err: errors.Errorf(argoaccess.ErrFmtAppName, "team-b.shop.dev", "ClusterProviderConfig platform", "team-a.")},
		},
		"TenantOtherProject": {
			reason: "An application in another namespace's project is refused before anything is written.",
			cr:     application(), tenancy: &argoaccess.Tenancy{Namespace: "team-a"},
			projects: map[string]*argocd.Project{"team-a-shop": projectOf("team-b")},
			want:     want{err: errors.Errorf(argoaccess.ErrFmtProjectOthers, "spec.forProvider.project", "team-a-shop", "team-b", contract.LabelOwnerNamespace, "team-a")},
		},
		"TenantProjectMissing": {
			reason: "An application whose project does not exist yet waits for its ArgoProject: nothing is written.",
			cr:     application(), tenancy: &argoaccess.Tenancy{Namespace: "team-a"},
			want: want{err: errors.Errorf(argoaccess.ErrFmtProjectMissing, "team-a-shop")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := &mockClient{projects: tc.projects, createErr: tc.createErr}
			e := &external{client: m, tenancy: tc.tenancy}
			_, err := e.Create(context.Background(), tc.cr)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("%s\nCreate(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.created, m.created); diff != "" {
				t.Errorf("%s\ncreated: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	// Observe read an application with another tool's finalizer; Argo CD's
	// copy has lost it since. The patch must be made from what Observe
	// read, in the same reconcile, without another read.
	withOthers := func(cr *v1alpha1.ArgoApplication) *argocd.Application {
		return observed(cr, func(a *argocd.Application) {
			a.Metadata.Finalizers = []string{"post-delete-finalizer.argocd.argoproj.io"}
			a.Spec.Source.TargetRevision = "hotfix"
		})
	}
	mustPatch := func(cr *v1alpha1.ArgoApplication, o *argocd.Application) string {
		p, err := MergePatch(cr, o)
		if err != nil {
			t.Fatal(err)
		}
		return string(p)
	}
	type want struct {
		err     error
		gets    int
		patched []patch
	}
	cases := map[string]struct {
		reason   string
		cr       *v1alpha1.ArgoApplication
		observed func(cr *v1alpha1.ArgoApplication) *argocd.Application
		inArgo   func(cr *v1alpha1.ArgoApplication) *argocd.Application
		projects map[string]*argocd.Project
		tenancy  *argoaccess.Tenancy
		getErr   error
		patchErr error
		want     want
	}{
		"AfterObserve": {
			reason:   "Update patches what Observe read: no second read, and the finalizer list is built from that read.",
			cr:       application(),
			observed: withOthers,
			inArgo:   func(cr *v1alpha1.ArgoApplication) *argocd.Application { return observed(cr) },
			want:     want{patched: []patch{{Name: appName, Patch: mustPatch(application(), withOthers(application()))}}},
		},
		"WithoutObserve": {
			reason: "Without an observation (another reconcile's Update), the application is read first, never patched blind.",
			cr:     application(),
			inArgo: withOthers,
			want:   want{gets: 1, patched: []patch{{Name: appName, Patch: mustPatch(application(), withOthers(application()))}}},
		},
		"ReadFails": {
			reason: "A failed read before the patch is an error, and nothing is written.",
			cr:     application(), getErr: errUnavailable(),
			want: want{gets: 1, err: errors.Wrap(errUnavailable(), errUpdate)},
		},
		"PatchFails": {
			reason: "A failed patch is an error wrapping Argo CD's answer.",
			cr:     application(), observed: withOthers, patchErr: errForbidden(),
			want: want{err: errors.Wrap(errForbidden(), errUpdate)},
		},
		"TenantOtherProject": {
			reason: "Moving an application to another namespace's project is refused before anything is written.",
			cr:     application(), observed: withOthers, tenancy: &argoaccess.Tenancy{Namespace: "team-a"},
			projects: map[string]*argocd.Project{"team-a-shop": projectOf("team-b")},
			want:     want{err: errors.Errorf(argoaccess.ErrFmtProjectOthers, "spec.forProvider.project", "team-a-shop", "team-b", contract.LabelOwnerNamespace, "team-a")},
		},
		"TenantOwnProject": {
			reason: "Through a ClusterProviderConfig, an application kept in the namespace's own project is patched.",
			cr:     application(), observed: withOthers, tenancy: &argoaccess.Tenancy{Namespace: "team-a", Bounded: true},
			projects: map[string]*argocd.Project{"team-a-shop": projectOf("team-a")},
			want:     want{patched: []patch{{Name: appName, Patch: mustPatch(application(), withOthers(application()))}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := &mockClient{projects: tc.projects, getErr: tc.getErr, patchErr: tc.patchErr}
			if tc.inArgo != nil {
				m.apps = map[string]*argocd.Application{appName: tc.inArgo(tc.cr)}
			}
			e := &external{client: m, tenancy: tc.tenancy}
			if tc.observed != nil {
				e.observed = tc.observed(tc.cr)
			}
			_, err := e.Update(context.Background(), tc.cr)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("%s\nUpdate(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.patched, m.patched); diff != "" {
				t.Errorf("%s\npatched: -want, +got:\n%s", tc.reason, diff)
			}
			if m.gets != tc.want.gets {
				t.Errorf("%s\nreads of the application: want %d, got %d", tc.reason, tc.want.gets, m.gets)
			}
		})
	}
}

func TestDelete(t *testing.T) {
	type want struct {
		err     error
		deleted []deletion
	}
	cases := map[string]struct {
		reason    string
		cr        *v1alpha1.ArgoApplication
		observed  *argocd.Application
		absent    bool
		deleteErr error
		want      want
	}{
		"Cascade": {
			reason: "By default the application is deleted with its workloads, in its project.",
			cr:     application(),
			want:   want{deleted: []deletion{{Name: appName, Project: "team-a-shop", Cascade: true}}},
		},
		"NoCascade": {
			reason: "With cascade: false the workloads stay.",
			cr:     application(func(cr *v1alpha1.ArgoApplication) { cr.Spec.ForProvider.Cascade = ptr(false) }),
			want:   want{deleted: []deletion{{Name: appName, Project: "team-a-shop", Cascade: false}}},
		},
		"InObservedProject": {
			reason: "The application is deleted in the project it is in (a move Argo CD refused), not the one asked for, which would answer NotFound.",
			cr:     application(),
			observed: observed(application(), func(a *argocd.Application) {
				a.Spec.Project = "team-a-old"
			}),
			want: want{deleted: []deletion{{Name: appName, Project: "team-a-old", Cascade: true}}},
		},
		"Gone": {
			reason: "Deleting an application that is already gone is done, not an error.",
			cr:     application(), absent: true,
			want: want{deleted: []deletion{{Name: appName, Project: "team-a-shop", Cascade: true}}},
		},
		"DeleteFails": {
			reason: "A failed delete is an error, so the resource keeps its finalizer and the delete is retried.",
			cr:     application(), deleteErr: errUnavailable(),
			want: want{err: errors.Wrap(errUnavailable(), errDelete)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := &mockClient{deleteErr: tc.deleteErr}
			if !tc.absent {
				m.apps = map[string]*argocd.Application{appName: observed(tc.cr)}
			}
			e := &external{client: m, observed: tc.observed}
			_, err := e.Delete(context.Background(), tc.cr)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("%s\nDelete(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.deleted, m.deleted); diff != "" {
				t.Errorf("%s\ndeleted: -want, +got:\n%s", tc.reason, diff)
			}
			if got := tc.cr.GetCondition(xpv2.TypeReady).Reason; got != xpv2.ReasonDeleting {
				t.Errorf("%s\nReady reason: want %s, got %s", tc.reason, xpv2.ReasonDeleting, got)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// named is application() under another external name.
func named(name string) *v1alpha1.ArgoApplication {
	cr := application()
	meta.SetExternalName(cr, name)
	return cr
}

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

package argoproject

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/controller/argoaccess"
)

// mockClient is an Argo CD holding projects; it records writes.
type mockClient struct {
	projects map[string]*argocd.Project
	getErr   error
	gets     int
	created  []*argocd.Project
	updated  []*argocd.Project
	deleted  []string
	// inUse are source repositories applications use: an update without
	// them is refused, as Argo CD does.
	inUse []string
}

func (m *mockClient) GetProject(_ context.Context, name string) (*argocd.Project, error) {
	m.gets++
	if m.getErr != nil {
		return nil, m.getErr
	}
	if p, ok := m.projects[name]; ok {
		return p, nil
	}
	return nil, &httpapi.Error{Backend: "Argo CD", Status: http.StatusNotFound, Code: "5"}
}

func (m *mockClient) CreateProject(_ context.Context, p *argocd.Project) error {
	m.created = append(m.created, p)
	return nil
}

func (m *mockClient) UpdateProject(_ context.Context, p *argocd.Project) error {
	m.updated = append(m.updated, p)
	if m.inUse != nil {
		// Argo CD refuses to take away a source an application uses.
		for _, r := range m.inUse {
			if !slices.Contains(p.Spec.SourceRepos, r) {
				return &httpapi.Error{Backend: "Argo CD", Status: http.StatusBadRequest, Code: "3",
					Message: "as a result of project update 1 applications source became invalid and 0 applications destination became invalid"}
			}
		}
	}
	return nil
}

func (m *mockClient) DeleteProject(_ context.Context, name string) error {
	m.deleted = append(m.deleted, name)
	if _, ok := m.projects[name]; !ok {
		return &httpapi.Error{Backend: "Argo CD", Status: http.StatusNotFound, Code: "5"}
	}
	return nil
}

func project(mod ...func(*v1alpha1.ArgoProject)) *v1alpha1.ArgoProject {
	cr := &v1alpha1.ArgoProject{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team-a"}}
	meta.SetExternalName(cr, "team-a-shop")
	cr.Spec.ForProvider = v1alpha1.ArgoProjectParameters{
		SourceRepos:  []string{"https://git.example.com/team-a/shop.git"},
		Destinations: []v1alpha1.ProjectDestination{{Server: "https://kubernetes.default.svc", Namespace: "team-a-prod"}},
	}
	for _, f := range mod {
		f(cr)
	}
	return cr
}

// observed is the project cr asks for as Argo CD returns it, with what
// Argo CD adds (a role token, a sync window in Raw).
func observed(cr *v1alpha1.ArgoProject, mod ...func(*argocd.Project)) *argocd.Project {
	p := Desired(cr)
	p.Raw = json.RawMessage(`{"metadata":{"name":"team-a-shop","resourceVersion":"7"},"spec":{"syncWindows":[{"kind":"deny"}]}}`)
	for _, f := range mod {
		f(p)
	}
	return p
}

func TestObserve(t *testing.T) {
	type want struct {
		obs managed.ExternalObservation
		err string
	}
	cases := map[string]struct {
		reason   string
		cr       *v1alpha1.ArgoProject
		projects func(cr *v1alpha1.ArgoProject) map[string]*argocd.Project
		getErr   error
		tenancy  *argoaccess.Tenancy
		want     want
	}{
		"Absent": {
			reason: "A project Argo CD does not have does not exist: it is created.",
			cr:     project(),
			want:   want{obs: managed.ExternalObservation{}},
		},
		"GetFails": {
			reason: "A failed read is an error, never 'absent'.",
			cr:     project(), getErr: &httpapi.Error{Backend: "Argo CD", Status: http.StatusServiceUnavailable, Message: "unavailable"},
			want: want{err: errGet},
		},
		"UpToDate": {
			reason: "The managed fields match: up to date, whatever Argo CD added.",
			cr:     project(),
			projects: func(cr *v1alpha1.ArgoProject) map[string]*argocd.Project {
				return map[string]*argocd.Project{"team-a-shop": observed(cr)}
			},
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}},
		},
		"RoleTokensAreNotDrift": {
			reason: "Tokens issued for a role are Argo CD's, not drift.",
			cr: project(func(cr *v1alpha1.ArgoProject) {
				cr.Spec.ForProvider.Roles = []v1alpha1.ProjectRole{{Name: "ci", Policies: []string{"p, proj:team-a-shop:ci, applications, sync, team-a-shop/*, allow"}}}
			}),
			projects: func(cr *v1alpha1.ArgoProject) map[string]*argocd.Project {
				return map[string]*argocd.Project{"team-a-shop": observed(cr, func(p *argocd.Project) {
					p.Spec.Roles[0].JWTTokens = json.RawMessage(`[{"iat": 1}]`)
				})}
			},
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}},
		},
		"DestinationDrift": {
			reason: "A destination widened in Argo CD is drift.",
			cr:     project(),
			projects: func(cr *v1alpha1.ArgoProject) map[string]*argocd.Project {
				return map[string]*argocd.Project{"team-a-shop": observed(cr, func(p *argocd.Project) {
					p.Spec.Destinations = append(p.Spec.Destinations, argocd.ProjectDestination{Server: "*", Namespace: "*"})
				})}
			},
			want: want{obs: managed.ExternalObservation{ResourceExists: true}},
		},
		"OwnerNamespaceLabelMissing": {
			reason: "The owner-namespace label edited away is drift: it is what keeps other namespaces off the project.",
			cr:     project(),
			projects: func(cr *v1alpha1.ArgoProject) map[string]*argocd.Project {
				return map[string]*argocd.Project{"team-a-shop": observed(cr, func(p *argocd.Project) {
					delete(p.Metadata.Labels, contract.LabelOwnerNamespace)
				})}
			},
			want: want{obs: managed.ExternalObservation{ResourceExists: true}},
		},
		"NotOurs": {
			reason: "A project another resource manages is refused, never adopted.",
			cr:     project(),
			projects: func(cr *v1alpha1.ArgoProject) map[string]*argocd.Project {
				return map[string]*argocd.Project{"team-a-shop": observed(cr, func(p *argocd.Project) {
					p.Metadata.Labels[contract.LabelOwner] = "team-b.shop"
				})}
			},
			want: want{err: `Argo CD project "team-a-shop" exists and is not managed by this resource`},
		},
		"NotOursDeleted": {
			reason: "Being deleted, a project it cannot prove is its own is let go.",
			cr:     project(func(cr *v1alpha1.ArgoProject) { cr.SetDeletionTimestamp(&metav1.Time{Time: time.Now()}) }),
			projects: func(cr *v1alpha1.ArgoProject) map[string]*argocd.Project {
				return map[string]*argocd.Project{"team-a-shop": observed(cr, func(p *argocd.Project) {
					p.Metadata.Labels[contract.LabelOwner] = "team-b.shop"
				})}
			},
			want: want{obs: managed.ExternalObservation{}},
		},
		"ObserveOnlyOtherNamespace": {
			reason: "Observe-only, another namespace's project is not shown.",
			cr: project(func(cr *v1alpha1.ArgoProject) {
				cr.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
			}),
			projects: func(cr *v1alpha1.ArgoProject) map[string]*argocd.Project {
				return map[string]*argocd.Project{"team-a-shop": observed(cr, func(p *argocd.Project) {
					p.Metadata.Labels = map[string]string{contract.LabelOwner: "team-b.shop", contract.LabelOwnerNamespace: "team-b"}
				})}
			},
			tenancy: &argoaccess.Tenancy{Namespace: "team-a"},
			want:    want{err: `belongs to namespace "team-b"`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := &mockClient{getErr: tc.getErr}
			if tc.projects != nil {
				m.projects = tc.projects(tc.cr)
			}
			e := &external{client: m, tenancy: tc.tenancy}
			got, err := e.Observe(context.Background(), tc.cr)
			if (err == nil) != (tc.want.err == "") || (err != nil && !strings.Contains(err.Error(), tc.want.err)) {
				t.Fatalf("%s\nObserve: want an error containing %q, got %v", tc.reason, tc.want.err, err)
			}
			if err != nil {
				return
			}
			got.Diff = ""
			if diff := cmp.Diff(tc.want.obs, got); diff != "" {
				t.Errorf("%s\nObserve: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestWrite(t *testing.T) {
	cr := project()
	m := &mockClient{projects: map[string]*argocd.Project{"team-a-shop": observed(cr)}}
	e := &external{client: m}
	if _, err := e.Create(context.Background(), cr); err != nil || len(m.created) != 1 || m.created[0].Metadata.Labels[contract.LabelOwnerNamespace] != "team-a" {
		t.Errorf("Create writes the project with its owner labels: %v, %+v", err, m.created)
	}
	// Update is read-modify-write over what Observe read: the raw object
	// (sync windows, resourceVersion) goes back with the managed fields.
	if _, err := e.Update(context.Background(), cr); err == nil {
		t.Error("Update without an observation must fail, not write blind")
	}
	if _, err := e.Observe(context.Background(), cr); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Update(context.Background(), cr); err != nil || len(m.updated) != 1 || !strings.Contains(string(m.updated[0].Raw), "syncWindows") {
		t.Errorf("Update keeps what Argo CD holds beside the managed fields: %v, %+v", err, m.updated)
	}
	if _, err := e.Delete(context.Background(), project(func(cr *v1alpha1.ArgoProject) { meta.SetExternalName(cr, "gone") })); err != nil {
		t.Errorf("deleting a project that is already gone is done: %v", err)
	}
}

// TestUpdateKeepsSourcesInUse: Argo CD refuses to take a source away from
// the applications using it. A moved repository is added with the old one
// kept, within the tenancy; with nothing left to add, the refusal is said
// and retried, not terminal.
func TestUpdateKeepsSourcesInUse(t *testing.T) {
	const old, moved = "https://git.example.com/team-a/shop.git", "https://git.example.com/team-a/shop-new.git"
	bounded := &argoaccess.Tenancy{Namespace: "team-a", Config: "ClusterProviderConfig default", Bounded: true,
		SourceRepos: []string{"https://git.example.com/team-a/*"}, DestinationClusters: []string{"*"}, DestinationNamespaces: []string{"team-a-*"}, ProjectNames: []string{"*"}}
	narrowTenancy := &argoaccess.Tenancy{Namespace: "team-a", Config: "ClusterProviderConfig default", Bounded: true,
		SourceRepos: []string{moved}, DestinationClusters: []string{"*"}, DestinationNamespaces: []string{"team-a-*"}, ProjectNames: []string{"*"}}
	cases := map[string]struct {
		reason   string
		tenancy  *argoaccess.Tenancy
		observed []string
		want     []string // sourceRepos written last
		writes   int
		errLike  string
		terminal bool
	}{
		"MovedKeepsOld": {reason: "the new repository is added and the old one kept while in use",
			tenancy: bounded, observed: []string{old}, want: []string{moved, old}, writes: 2},
		"UnboundedMovedKeepsOld": {reason: "a namespaced config's tenancy bounds no repository",
			observed: []string{old}, want: []string{moved, old}, writes: 2},
		"OnlyNarrowingLeft": {reason: "both are there: nothing to add, the refusal is said and retried",
			tenancy: bounded, observed: []string{moved, old}, want: []string{moved}, writes: 1, errLike: "keeps source repositories or destinations"},
		"TenancyRefusesOld": {reason: "the platform narrowed the tenancy: the old repository is not kept, Argo CD's refusal stands",
			tenancy: narrowTenancy, observed: []string{old}, want: []string{moved}, writes: 1, errLike: "as a result of project update", terminal: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := project(func(cr *v1alpha1.ArgoProject) {
				cr.Spec.ForProvider.SourceRepos = []string{moved}
				cr.Spec.ForProvider.Destinations = []v1alpha1.ProjectDestination{{Server: "https://kubernetes.default.svc", Namespace: "team-a-prod"}}
			})
			m := &mockClient{inUse: []string{old}, projects: map[string]*argocd.Project{"team-a-shop": observed(cr, func(p *argocd.Project) { p.Spec.SourceRepos = tc.observed })}}
			e := &external{client: m, tenancy: tc.tenancy}
			if _, err := e.Observe(context.Background(), cr); err != nil {
				t.Fatal(err)
			}
			_, err := e.Update(context.Background(), cr)
			switch {
			case tc.errLike == "" && err != nil:
				t.Errorf("%s: %v", tc.reason, err)
			case tc.errLike != "" && (err == nil || !strings.Contains(err.Error(), tc.errLike)):
				t.Errorf("%s: want an error like %q, got %v", tc.reason, tc.errLike, err)
			case err != nil && httpapi.IsTerminal(err) != tc.terminal:
				t.Errorf("%s: terminal %v, want %v: %v", tc.reason, httpapi.IsTerminal(err), tc.terminal, err)
			}
			if len(m.updated) != tc.writes {
				t.Fatalf("%s: %d writes, want %d", tc.reason, len(m.updated), tc.writes)
			}
			if got := m.updated[len(m.updated)-1].Spec.SourceRepos; !cmp.Equal(got, tc.want) {
				t.Errorf("%s: last write's sourceRepos %v, want %v", tc.reason, got, tc.want)
			}
		})
	}
}

// TestObserveNameNotAllowed: a name the tenancy does not allow is refused,
// unless the project exists already held by this resource (it stays
// managed where it is); a deleted resource is let go untouched. Each case
// costs the one read Observe makes.
func TestObserveNameNotAllowed(t *testing.T) {
	refusal := errors.New("may not manage an Argo CD project of that name")
	cr := project()
	theirs := observed(cr, func(p *argocd.Project) { p.Metadata.Labels[contract.LabelOwner] = "team-b.shop" })
	deleted := project(func(cr *v1alpha1.ArgoProject) { cr.SetDeletionTimestamp(&metav1.Time{Time: time.Now()}) })
	cases := map[string]struct {
		cr       *v1alpha1.ArgoProject
		projects map[string]*argocd.Project
		exists   bool
		err      error
	}{
		"Held":          {cr: cr, projects: map[string]*argocd.Project{"team-a-shop": observed(cr)}, exists: true},
		"Missing":       {cr: cr, err: refusal},
		"HeldByAnother": {cr: cr, projects: map[string]*argocd.Project{"team-a-shop": theirs}, err: refusal},
		"DeletedLetGo":  {cr: deleted, projects: map[string]*argocd.Project{"team-a-shop": theirs}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := &mockClient{projects: tc.projects}
			e := &external{client: m, nameRefused: refusal}
			o, err := e.Observe(context.Background(), tc.cr)
			if !errors.Is(err, tc.err) || o.ResourceExists != tc.exists {
				t.Errorf("Observe: exists %v, err %v; want exists %v, err %v", o.ResourceExists, err, tc.exists, tc.err)
			}
			if m.gets != 1 {
				t.Errorf("Observe read the project %d times, want once", m.gets)
			}
			if len(m.created)+len(m.updated)+len(m.deleted) != 0 {
				t.Error("Observe wrote to Argo CD")
			}
		})
	}
}

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

package argoaccess

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

func TestTenancyOf(t *testing.T) {
	cpc := &backendconfig.Config{Kind: "ClusterProviderConfig", Name: "platform"}
	cases := map[string]struct {
		reason string
		pc     *backendconfig.Config
		s      *pcv1alpha1.ArgoCDConfig
		want   *Tenancy
	}{
		"ProviderConfig": {
			reason: "A namespace's own ProviderConfig is bounded by its token's Argo CD RBAC, and only kept off other namespaces' projects.",
			pc:     &backendconfig.Config{Kind: "ProviderConfig", Name: "default", Namespace: "team-a"},
			s:      &pcv1alpha1.ArgoCDConfig{Tenancy: &pcv1alpha1.ArgoCDTenancy{DestinationNamespaces: []string{"*"}}},
			want:   &Tenancy{Namespace: "team-a", Config: "ProviderConfig team-a/default"},
		},
		"Defaults": {
			reason: "A ClusterProviderConfig without tenancy bounds destinations to the namespace and its prefix, and allows no cluster-scoped kind.",
			pc:     cpc,
			s:      &pcv1alpha1.ArgoCDConfig{},
			want: &Tenancy{Namespace: "team-a", Config: "ClusterProviderConfig platform", Bounded: true,
				DestinationNamespaces: []string{"team-a", "team-a--*"}, DestinationClusters: []string{"*"}, ProjectNames: []string{"team-a.*"}, SourceRepos: []string{"*"}},
		},
		"Set": {
			reason: "{namespace} is expanded in every pattern.",
			pc:     cpc,
			s: &pcv1alpha1.ArgoCDConfig{Tenancy: &pcv1alpha1.ArgoCDTenancy{
				DestinationNamespaces: []string{"apps-{namespace}-*"}, DestinationClusters: []string{"https://kubernetes.default.svc"},
				ClusterResources: []pcv1alpha1.ArgoCDGroupKind{{Kind: "Namespace"}},
				ProjectNames:     []string{"{namespace}.*"}, SourceRepos: []string{"https://git.example.com/team-a/*"},
			}},
			want: &Tenancy{Namespace: "team-a", Config: "ClusterProviderConfig platform", Bounded: true,
				DestinationNamespaces: []string{"apps-team-a-*"}, DestinationClusters: []string{"https://kubernetes.default.svc"}, ClusterResources: []pcv1alpha1.ArgoCDGroupKind{{Kind: "Namespace"}},
				ProjectNames: []string{"team-a.*"}, SourceRepos: []string{"https://git.example.com/team-a/*"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, TenancyOf(tc.pc, tc.s, "team-a")); diff != "" {
				t.Errorf("%s\nTenancyOf(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCheckProjectSpec(t *testing.T) {
	tn := TenancyOf(&backendconfig.Config{Kind: "ClusterProviderConfig", Name: "platform"}, &pcv1alpha1.ArgoCDConfig{
		Tenancy: &pcv1alpha1.ArgoCDTenancy{ClusterResources: []pcv1alpha1.ArgoCDGroupKind{{Group: "", Kind: "Namespace"}}, SourceRepos: []string{"https://git.example.com/team-a/*"}},
	}, "team-a")
	in := "https://kubernetes.default.svc"
	cases := map[string]struct {
		reason string
		name   string // the AppProject's name; team-a.shop when ""
		p      v1alpha1.ArgoProjectParameters
		want   string // a part of the error; "" for none
	}{
		"OtherNamespacesName": {
			reason: "A name outside {namespace}.*: team-a cannot take the project name team-b's DevOpsProject will need.",
			name:   "team-b.shop",
			want:   `"team-b.shop": this namespace may not manage an Argo CD project of that name: ClusterProviderConfig platform spec.argocd.tenancy.projectNames allows "team-a.*"`,
		},
		"PrefixedNamespacesName": {
			reason: "Nor the name of team-a-b's project shop (team-a-* allowed it).",
			name:   "team-a-b.shop",
			want:   `may not manage an Argo CD project of that name`,
		},
		"OlderName": {
			reason: "The older <namespace>-<name> is not given to a new project (an ArgoProject already holding one keeps it: TestRealArgoRepository).",
			name:   "team-a-shop",
			want:   `may not manage an Argo CD project of that name`,
		},
		"OwnSourceRepos": {
			reason: "Repositories under the allowed prefix.",
			p:      v1alpha1.ArgoProjectParameters{SourceRepos: []string{"https://git.example.com/team-a/shop.git", "https://git.example.com/team-a/*"}},
		},
		"OtherSourceRepo": {
			reason: "A repository outside tenancy.sourceRepos (the platform's, readable with global credentials) is refused.",
			p:      v1alpha1.ArgoProjectParameters{SourceRepos: []string{"https://git.example.com/team-a/shop.git", "https://git.example.com/platform/secrets.git"}},
			want:   `spec.forProvider.sourceRepos[1]: source repository "https://git.example.com/platform/secrets.git" is not allowed`,
		},
		"AnySourceRepo": {
			reason: "'*' as a source repository is matched as written.",
			p:      v1alpha1.ArgoProjectParameters{SourceRepos: []string{"*"}},
			want:   `sourceRepos[0]`,
		},
		"Own": {
			reason: "The namespace itself and its team-a--* namespaces, on any cluster, with the allowed kind.",
			p: v1alpha1.ArgoProjectParameters{Destinations: []v1alpha1.ProjectDestination{{Server: in, Namespace: "team-a"}, {Name: "prod", Namespace: "team-a--*"}},
				ClusterResourceWhitelist: []v1alpha1.ProjectGroupKind{{Kind: "Namespace"}}},
		},
		"OtherNamespace": {
			reason: "Another team's namespace is refused.",
			p:      v1alpha1.ArgoProjectParameters{Destinations: []v1alpha1.ProjectDestination{{Server: in, Namespace: "team-b"}}},
			want:   `destinations[0]: destination https://kubernetes.default.svc namespace "team-b" is not allowed for namespace "team-a"`,
		},
		"AnyNamespace": {
			reason: "A glob wider than allowed is refused: '*' is matched as written.",
			p:      v1alpha1.ArgoProjectParameters{Destinations: []v1alpha1.ProjectDestination{{Server: in, Namespace: "team-a"}, {Server: in, Namespace: "*"}}},
			want:   `destinations[1]`,
		},
		"PrefixWithoutDash": {
			reason: "team-a* would reach team-ab: refused.",
			p:      v1alpha1.ArgoProjectParameters{Destinations: []v1alpha1.ProjectDestination{{Server: in, Namespace: "team-a*"}}},
			want:   `namespace "team-a*" is not allowed`,
		},
		"GlobWithinPrefix": {
			reason: "team-a--x* lies within team-a--*.",
			p:      v1alpha1.ArgoProjectParameters{Destinations: []v1alpha1.ProjectDestination{{Server: in, Namespace: "team-a--x*"}}},
		},
		"SourceNamespaceOwn": {
			reason: "Applications of the namespace's own namespaces may use its project.",
			p:      v1alpha1.ArgoProjectParameters{Destinations: []v1alpha1.ProjectDestination{{Server: in, Namespace: "team-a"}}, SourceNamespaces: []string{"team-a", "team-a--apps"}},
		},
		"SourceNamespaceOther": {
			reason: "Applications in any namespace may not use it: they would deploy with its rights.",
			p:      v1alpha1.ArgoProjectParameters{Destinations: []v1alpha1.ProjectDestination{{Server: in, Namespace: "team-a"}}, SourceNamespaces: []string{"team-a", "*"}},
			want:   `spec.forProvider.sourceNamespaces[1]: Applications in namespace "*" may not use this project`,
		},
		"OtherTeamByPrefix": {
			reason: "Namespace team-a may not reach team-a-b, another team's namespace named with its prefix (the default was team-a-*).",
			p:      v1alpha1.ArgoProjectParameters{Destinations: []v1alpha1.ProjectDestination{{Server: in, Namespace: "team-a-b"}}},
			want:   `namespace "team-a-b" is not allowed for namespace "team-a"`,
		},
		"OtherTeamsPrefixGlob": {
			reason: "Nor every namespace starting team-a-.",
			p:      v1alpha1.ArgoProjectParameters{Destinations: []v1alpha1.ProjectDestination{{Server: in, Namespace: "team-a-*"}}},
			want:   `namespace "team-a-*" is not allowed`,
		},
		"ClusterKind": {
			reason: "A cluster-scoped kind not listed is refused.",
			p: v1alpha1.ArgoProjectParameters{Destinations: []v1alpha1.ProjectDestination{{Server: in, Namespace: "team-a"}},
				ClusterResourceWhitelist: []v1alpha1.ProjectGroupKind{{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}}},
			want: "cluster-scoped kind ClusterRole.rbac.authorization.k8s.io is not allowed",
		},
		"AnyClusterKind": {
			reason: "'*' kinds are not 'Namespace'.",
			p: v1alpha1.ArgoProjectParameters{Destinations: []v1alpha1.ProjectDestination{{Server: in, Namespace: "team-a"}},
				ClusterResourceWhitelist: []v1alpha1.ProjectGroupKind{{Group: "*", Kind: "*"}}},
			want: "cluster-scoped kind",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			name := tc.name
			if name == "" {
				name = "team-a.shop"
			}
			err := tn.CheckProjectName(name)
			if err == nil {
				err = tn.CheckProjectSpec(tc.p)
			}
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("%s\nCheckProjectSpec(...): want an error containing %q, got %v", tc.reason, tc.want, err)
			}
		})
	}
	var none *Tenancy
	if err := none.CheckProjectName("x"); err != nil {
		t.Errorf("a nil tenancy allows any name: %v", err)
	}
	if err := none.CheckProjectSpec(v1alpha1.ArgoProjectParameters{Destinations: []v1alpha1.ProjectDestination{{Server: in, Namespace: "*"}}}); err != nil {
		t.Errorf("a nil tenancy allows anything: %v", err)
	}
	own := TenancyOf(&backendconfig.Config{Kind: "ProviderConfig", Name: "default", Namespace: "team-a"}, &pcv1alpha1.ArgoCDConfig{}, "team-a")
	if err := own.CheckProjectName("team-b-x"); err != nil {
		t.Errorf("a namespaced ProviderConfig's token is bounded by Argo CD's RBAC only: %v", err)
	}
	if err := own.CheckProjectSpec(v1alpha1.ArgoProjectParameters{Destinations: []v1alpha1.ProjectDestination{{Server: in, Namespace: "*"}}}); err != nil {
		t.Errorf("a namespaced ProviderConfig's token is bounded by Argo CD's RBAC only: %v", err)
	}
}

type projects map[string]*argocd.Project

func (p projects) GetProject(_ context.Context, name string) (*argocd.Project, error) {
	if v, ok := p[name]; ok {
		return v, nil
	}
	return nil, &httpapi.Error{Backend: "Argo CD", Status: 404, Code: "5", Message: "not found"}
}

func TestCheckProject(t *testing.T) {
	bounded := &Tenancy{Namespace: "team-a", Config: "ClusterProviderConfig platform", Bounded: true}
	own := &Tenancy{Namespace: "team-a", Config: "ProviderConfig team-a/default"}
	ps := projects{
		"team-a-shop": {Metadata: argocd.ObjectMeta{Name: "team-a-shop", Labels: map[string]string{contract.LabelOwnerNamespace: "team-a"}}},
		"team-b-shop": {Metadata: argocd.ObjectMeta{Name: "team-b-shop", Labels: map[string]string{contract.LabelOwnerNamespace: "team-b"}}},
		"default":     {Metadata: argocd.ObjectMeta{Name: "default"}},
	}
	cases := map[string]struct {
		reason, project, want string
		tn                    *Tenancy
	}{
		"Own":         {reason: "A project an ArgoProject of the namespace manages.", tn: bounded, project: "team-a-shop"},
		"Other":       {reason: "Another namespace's project.", tn: bounded, project: "team-b-shop", want: `belongs to namespace "team-b" (its label devops.freeleaps.io/owner-namespace), not to "team-a"`},
		"Default":     {reason: "Argo CD's default project, which deploys anywhere.", tn: bounded, project: "default", want: "is not managed by an ArgoProject"},
		"Missing":     {reason: "A project not created yet: a wait, said so.", tn: bounded, project: "team-a-new", want: "does not exist yet"},
		"OwnTokenOwn": {reason: "Through the namespace's own ProviderConfig, its own project.", tn: own, project: "team-a-shop"},
		"OwnTokenOther": {reason: "Through the namespace's own ProviderConfig, a project another namespace's ArgoProject manages (perhaps squatted under this namespace's predictable name) is refused: credentials never go into it.",
			tn: own, project: "team-b-shop", want: `belongs to namespace "team-b"`},
		"OwnTokenUnlabelled": {reason: "Through the namespace's own ProviderConfig, a project the platform made by hand: its RBAC decides.", tn: own, project: "default"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := tc.tn.CheckProject(context.Background(), ps, "spec.forProvider.project", tc.project)
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("%s\nCheckProject(%q): want an error containing %q, got %v", tc.reason, tc.project, tc.want, err)
			}
		})
	}
}

// A glob asked for must lie within a pattern, not merely match it as a
// string: "team-?" matches the string "team-*" but allows only one more
// character.
func TestMatchAnyGlobs(t *testing.T) {
	cases := []struct {
		globs []string
		s     string
		want  bool
	}{
		{[]string{"team-?"}, "team-*", false},
		{[]string{"team-[ab]"}, "team-[a-z]", false},
		{[]string{"team-?"}, "team-a", true},
		{[]string{"team-a-*"}, "team-a-x*", true},
		{[]string{"team-a-*"}, "team-b-*", false},
		{[]string{"*"}, "anything-*", true},
		{[]string{"https://github.com/org/*"}, "https://github.com/org/repo.git", true},
	}
	for _, tc := range cases {
		if got := matchAny(tc.globs, tc.s); got != tc.want {
			t.Errorf("matchAny(%q, %q) = %v, want %v", tc.globs, tc.s, got, tc.want)
		}
	}
}

// TestCheckNewApplication: through a ClusterProviderConfig a namespace
// creates only applications named "<namespace>.…", so it cannot take the
// name another namespace's DevOpsProject will need ("team-b.shop.prod");
// through its own ProviderConfig Argo CD's RBAC decides.
func TestCheckNewApplication(t *testing.T) {
	cpc := TenancyOf(&backendconfig.Config{Kind: "ClusterProviderConfig", Name: "platform"}, &pcv1alpha1.ArgoCDConfig{}, "team-a")
	for name, want := range map[string]bool{"team-a.shop.prod": true, "team-b.shop.prod": false, "team-a-b.shop.prod": false, "team-a": false, "shop-prod": false} {
		if err := cpc.CheckNewApplication(name); (err == nil) != want {
			t.Errorf("%s: allowed %v, want %v (%v)", name, err == nil, want, err)
		}
	}
	own := TenancyOf(&backendconfig.Config{Kind: "ProviderConfig", Name: "default", Namespace: "team-a"}, &pcv1alpha1.ArgoCDConfig{}, "team-a")
	if err := own.CheckNewApplication("shop-prod"); err != nil {
		t.Errorf("a namespaced ProviderConfig: %v", err)
	}
}

func TestCheckAdoption(t *testing.T) {
	bounded := &Tenancy{Namespace: "team-a", Config: "ClusterProviderConfig platform", Bounded: true,
		DestinationNamespaces: []string{"team-a", "team-a--*"}, DestinationClusters: []string{"https://kubernetes.default.svc"}}
	own := &Tenancy{Namespace: "team-a", Config: "ProviderConfig team-a/default"}
	ps := projects{
		"operator": {Metadata: argocd.ObjectMeta{Name: "operator"}},
		"team-b.x": {Metadata: argocd.ObjectMeta{Name: "team-b.x", Labels: map[string]string{contract.LabelOwnerNamespace: "team-b"}}},
		"team-a.x": {Metadata: argocd.ObjectMeta{Name: "team-a.x", Labels: map[string]string{contract.LabelOwnerNamespace: "team-a"}}},
	}
	app := func(name, project, server, ns string) *argocd.Application {
		return &argocd.Application{Metadata: argocd.ObjectMeta{Name: name},
			Spec: argocd.ApplicationSpec{Project: project, Destination: argocd.ApplicationDestination{Server: server, Namespace: ns}}}
	}
	const in = "https://kubernetes.default.svc"
	cases := map[string]struct {
		reason string
		t      *Tenancy
		app    *argocd.Application
		want   string // a part of the error; "" for none
	}{
		"NoTenancy":         {reason: "Without tenancy any application may be adopted.", app: app("x.y", "team-b.x", "https://other", "kube-system")},
		"OperatorProject":   {reason: "An application in a project no ArgoProject manages (the operator's) may be adopted.", t: bounded, app: app("shop-alpha", "operator", in, "team-a--shop")},
		"OwnProject":        {reason: "An application in the namespace's own project may be adopted.", t: bounded, app: app("team-a.shop.alpha", "team-a.x", in, "team-a")},
		"MissingProject":    {reason: "An application whose project is gone may be adopted: it moves to the resource's.", t: own, app: app("shop", "gone", in, "anywhere")},
		"OthersProject":     {reason: "An application in another namespace's project is that namespace's.", t: own, app: app("shop", "team-b.x", in, "team-b"), want: `belongs to namespace "team-b"`},
		"OthersName":        {reason: "Bounded, a name another namespace's projects are named by is not taken.", t: bounded, app: app("team-b.shop.alpha", "operator", in, "team-a"), want: `begins with another namespace's prefix`},
		"OutsideNamespaces": {reason: "Bounded, an application deploying outside the namespace's destinations is refused.", t: bounded, app: app("shop-alpha", "operator", in, "kube-system"), want: `namespace "kube-system" is not allowed`},
		"OutsideClusters":   {reason: "Bounded, an application deploying to a cluster the config does not allow is refused.", t: bounded, app: app("shop-alpha", "operator", "https://prod.example.com", "team-a"), want: `destination cluster "https://prod.example.com" is not allowed`},
		"OwnTokenAnyWhere":  {reason: "Through the namespace's own ProviderConfig, Argo CD's RBAC bounds its token: destinations and names are not checked here.", t: own, app: app("x.y", "operator", "https://prod.example.com", "kube-system")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := tc.t.CheckAdoption(context.Background(), ps, tc.app)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("%s\nCheckAdoption(...): want an error containing %q, got %q", tc.reason, tc.want, got)
			}
		})
	}
}

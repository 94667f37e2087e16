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
	"strings"
	"testing"

	"github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
)

func TestRegistryTenancy(t *testing.T) {
	unlimited := int64(-1)
	cpc := &backendconfig.Config{Kind: "ClusterProviderConfig", Name: "platform"}
	defaults := TenancyOf(cpc, &pcv1alpha1.RegistryConfig{}, "team-a")
	set := TenancyOf(cpc, &pcv1alpha1.RegistryConfig{Tenancy: &pcv1alpha1.RegistryTenancy{Repositories: []string{"acme/{namespace}/*"}, AdoptExisting: true}}, "team-a")
	own := TenancyOf(&backendconfig.Config{Kind: "ProviderConfig", Name: "default", Namespace: "team-a"}, &pcv1alpha1.RegistryConfig{}, "team-a")
	repo := func(ns, name string, adopt bool) v1alpha1.RegistryRepoParameters {
		return v1alpha1.RegistryRepoParameters{Namespace: ns, Name: name, AdoptExisting: adopt}
	}
	cases := map[string]struct {
		reason string
		t      *Tenancy
		p      v1alpha1.RegistryRepoParameters
		want   string
	}{
		"OwnNamespace":        {reason: "A registry namespace named like the tenant.", t: defaults, p: repo("team-a", "shop/api", false)},
		"OwnPrefix":           {reason: "A repository named with the tenant's prefix in another registry namespace: namespace team-a must not reach team-a-b's acme/team-a-b-x, nor team-evil team-b's team-b/team-evil-x (the default was */{namespace}-*).", t: defaults, p: repo("acme", "team-a-shop", false), want: `allows "team-a/*"`},
		"OtherTeamsNamespace": {reason: "team-a may not name repositories in team-a-b's registry namespace.", t: defaults, p: repo("team-a-b", "shop", false), want: "is not allowed"},
		"Platform":            {reason: "The platform's base images: refused (they could be adopted and deleted with deleteImages).", t: defaults, p: repo("platform", "base", false), want: `repository "platform/base" is not allowed for namespace "team-a"`},
		"OtherTeam":           {reason: "Another team's repository, also on OCI where nothing records an owner.", t: defaults, p: repo("team-b", "app", false), want: "is not allowed"},
		"PrefixOverlap":       {reason: "team-a- is not team-ab-.", t: defaults, p: repo("acme", "team-ab-shop", false), want: "is not allowed"},
		"AdoptRefused":        {reason: "Adoption needs the platform's consent.", t: defaults, p: repo("team-a", "shop", true), want: "adoptExisting is not allowed"},
		"SetPattern":          {reason: "{namespace} expands in a nested path.", t: set, p: repo("acme", "team-a/api", true)},
		"SetOther":            {reason: "Outside the set pattern.", t: set, p: repo("team-a", "shop", false), want: `allows "acme/team-a/*"`},
		"ProviderConfig":      {reason: "A namespace's own credentials: its registry's rights decide.", t: own, p: repo("platform", "base", true)},
		"Quota": {reason: "The project is made with the platform's account: its storage is not the tenant's to set (-1 is unlimited).", t: defaults,
			p: v1alpha1.RegistryRepoParameters{Namespace: "team-a", Name: "shop", Harbor: &v1alpha1.HarborOptions{StorageQuotaBytes: &unlimited}}, want: "storageQuotaBytes is not allowed"},
		"QuotaOwnAccount": {reason: "With the team's own account the quota is its own.", t: own,
			p: v1alpha1.RegistryRepoParameters{Namespace: "team-a", Name: "shop", Harbor: &v1alpha1.HarborOptions{StorageQuotaBytes: &unlimited}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := tc.t.Check(tc.p)
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("%s\nCheck(%+v): want an error containing %q, got %v", tc.reason, tc.p, tc.want, err)
			}
		})
	}
}

func TestMayCreateProject(t *testing.T) {
	cpc := &backendconfig.Config{Kind: "ClusterProviderConfig", Name: "platform"}
	tenancy := func(patterns ...string) *Tenancy {
		return TenancyOf(cpc, &pcv1alpha1.RegistryConfig{Tenancy: &pcv1alpha1.RegistryTenancy{Repositories: patterns}}, "team-a")
	}
	cases := map[string]struct {
		reason        string
		t             *Tenancy
		project, name string
		want          bool
	}{
		"Default": {
			reason: "The default {namespace}/* names the namespace's own project exactly.",
			t:      TenancyOf(cpc, &pcv1alpha1.RegistryConfig{}, "team-a"), project: "team-a", name: "shop/api", want: true,
		},
		"GlobbedProject": {
			reason: "*/{namespace}-* reaches team-b/team-a-x: team-a must not create project team-b first and so squat it.",
			t:      tenancy("{namespace}/*", "*/{namespace}-*"), project: "team-b", name: "team-a-x",
		},
		"PrefixGlob": {
			reason: "{namespace}-*/* names projects team-a-anything, which another team may be called.",
			t:      tenancy("{namespace}-*/*"), project: "team-a-b", name: "x",
		},
		"StarMatchesSlash": {
			reason: "{namespace}* reaches team-ab/x too (* matches /): no project is fixed.",
			t:      tenancy("{namespace}*"), project: "team-a", name: "x",
		},
		"FixedOtherProject": {
			reason: "A project the platform wrote out (acme/{namespace}/*) is shared by every team: the first to create it would set its quota and tag rules for all. The platform creates it.",
			t:      tenancy("acme/{namespace}/*"), project: "acme", name: "team-a/api",
		},
		"FixedButNotThisRepository": {
			reason: "The project is fixed only by a pattern that allows the repository.",
			t:      tenancy("acme/{namespace}/*", "*/{namespace}-*"), project: "acme", name: "team-a-x",
		},
		"ProviderConfig": {
			reason: "A namespace's own credentials: its registry's rights decide.",
			t:      nil, project: "team-b", name: "x", want: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.t.MayCreateProject(tc.project, tc.name); got != tc.want {
				t.Errorf("%s\nMayCreateProject(%q, %q): want %t, got %t", tc.reason, tc.project, tc.name, tc.want, got)
			}
		})
	}
}

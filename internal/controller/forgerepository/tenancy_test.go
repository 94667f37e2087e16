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

package forgerepository

import (
	"strings"
	"testing"

	"github.com/freeleaps/provider-devops/apis/forge/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
)

func TestForgeTenancy(t *testing.T) {
	cpc := &backendconfig.Config{Kind: "ClusterProviderConfig", Name: "platform"}
	defaults := TenancyOf(cpc, &pcv1alpha1.ForgeConfig{}, "team-a")
	set := TenancyOf(cpc, &pcv1alpha1.ForgeConfig{Tenancy: &pcv1alpha1.ForgeTenancy{Repositories: []string{"Acme/{namespace}-*"}, AllowForks: true}}, "team-a")
	own := TenancyOf(&backendconfig.Config{Kind: "ProviderConfig", Name: "default", Namespace: "team-a"},
		&pcv1alpha1.ForgeConfig{Tenancy: &pcv1alpha1.ForgeTenancy{Repositories: []string{"nothing/*"}}}, "team-a")
	repo := func(r string, forkAuthors ...string) v1alpha1.ForgeRepositoryParameters {
		return v1alpha1.ForgeRepositoryParameters{Repository: r, PullRequests: v1alpha1.PullRequestSelector{ForkAuthors: forkAuthors}}
	}
	cases := map[string]struct {
		reason string
		t      *Tenancy
		p      v1alpha1.ForgeRepositoryParameters
		want   string
	}{
		"OwnOrganisation":   {reason: "The forge organisation named like the namespace.", t: defaults, p: repo("team-a/shop")},
		"OwnOtherCase":      {reason: "Gitea resolves owners without regard to case: Team-A/Shop is team-a's.", t: defaults, p: repo("Team-A/Shop")},
		"OtherTeam":         {reason: "Another team's repository: its pull requests and statuses are not team-a's to write.", t: defaults, p: repo("team-b/shop"), want: `repository "team-b/shop" is not allowed for namespace "team-a": ClusterProviderConfig platform spec.forge.tenancy.repositories allows "team-a/*"`},
		"PrefixOverlap":     {reason: "team-a-b's organisation is not team-a's.", t: defaults, p: repo("team-a-b/shop"), want: "is not allowed"},
		"ForksRefused":      {reason: "Forks need the platform's consent: a preview builds the fork author's code.", t: defaults, p: repo("team-a/shop", "alice"), want: "spec.forProvider.pullRequests.forkAuthors is not allowed for namespace \"team-a\": ClusterProviderConfig platform"},
		"SetPatternCase":    {reason: "A pattern the platform wrote in capitals matches all the same; {namespace} expands.", t: set, p: repo("acme/team-a-shop", "alice")},
		"SetPatternOther":   {reason: "Outside the set pattern, the default no longer applies.", t: set, p: repo("team-a/shop"), want: `allows "acme/team-a-*"`},
		"ProviderConfig":    {reason: "A namespace's own token: the forge's rights decide, and a tenancy it sets bounds nothing.", t: own, p: repo("team-b/shop", "alice")},
		"NoForksNoProblems": {reason: "No forkAuthors: nothing to allow.", t: defaults, p: repo("team-a/shop")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := tc.t.Check(tc.p)
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("%s\nCheck(%+v): want an error containing %q, got %v", tc.reason, tc.p, tc.want, err)
			}
		})
	}
	if defaults.ForksAllowed() || !set.ForksAllowed() || !own.ForksAllowed() {
		t.Errorf("ForksAllowed: default %t (want false), allowForks %t (want true), ProviderConfig %t (want true)", defaults.ForksAllowed(), set.ForksAllowed(), own.ForksAllowed())
	}
}

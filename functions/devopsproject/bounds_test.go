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

package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
)

// platform is the Composition input of a platform that keeps its
// credentials: projects that name no config use its ClusterProviderConfig.
func platform() map[string]any {
	return map[string]any{"providerConfigRef": map[string]any{"kind": "ClusterProviderConfig", "name": "platform"}}
}

// noConfig drops the spec's providerConfigName: the project names no
// config, as a team's project on the platform path does.
func noConfig() xrOpt {
	return withSpec(func(s map[string]any) { delete(s, "providerConfigName") })
}

func configOf(t *testing.T, rsp *fnv1.RunFunctionResponse, name string) string {
	t.Helper()
	ref, _ := resourceField(t, rsp, name, "spec", "providerConfigRef").(map[string]any)
	return ref["kind"].(string) + "/" + ref["name"].(string)
}

// Every managed resource of a project uses the config its spec names, or
// else the Composition input's, or else the namespace's ProviderConfig
// "default".
func TestProviderConfigRef(t *testing.T) {
	ref := func(kind, name string) xrOpt {
		return withSpec(func(s map[string]any) { s["providerConfigRef"] = map[string]any{"kind": kind, "name": name} })
	}
	cases := map[string]struct {
		xr    map[string]any
		input map[string]any
		want  string
	}{
		"InputDefault":         {xr: xr(noConfig()), input: platform(), want: "ClusterProviderConfig/platform"},
		"NoInput":              {xr: xr(noConfig()), want: "ProviderConfig/default"},
		"SpecName":             {xr: xr(withSpec(func(s map[string]any) { s["providerConfigName"] = "own" })), input: platform(), want: "ProviderConfig/own"},
		"SpecRefCluster":       {xr: xr(noConfig(), ref("ClusterProviderConfig", "other")), want: "ClusterProviderConfig/other"},
		"SpecRefNamespaced":    {xr: xr(noConfig(), ref("ProviderConfig", "team")), input: platform(), want: "ProviderConfig/team"},
		"InputOtherFieldsKept": {xr: xr(noConfig()), input: map[string]any{"providerConfigRef": map[string]any{"kind": "ProviderConfig", "name": "shared"}, "dnsRecordTTL": 60}, want: "ProviderConfig/shared"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, t0, newRequest(t, tc.xr, allObserved(true, "prod", "pr-7"), tc.input))
			fatal(t, rsp)
			for _, n := range names(rsp) {
				if got := configOf(t, rsp, n); got != tc.want {
					t.Errorf("%s uses %s, want %s", n, got, tc.want)
				}
			}
		})
	}
}

// On a ClusterProviderConfig a project's environments deploy by default to
// "<namespace>--<project>-<environment>", inside the platform's default
// bound; on the namespace's own ProviderConfig to "<project>-<environment>"
// as before.
func TestDefaultDestination(t *testing.T) {
	for name, tc := range map[string]struct {
		input map[string]any
		want  string
	}{
		"ClusterProviderConfig": {input: platform(), want: "team-shop--shop-prod"},
		"ProviderConfig":        {want: "shop-prod"},
	} {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, t0, newRequest(t, xr(noConfig()), allObserved(true, "prod", "pr-7"), tc.input))
			fatal(t, rsp)
			if got := resourceField(t, rsp, "prod-app", "spec", "forProvider", "destination", "namespace"); got != tc.want {
				t.Errorf("prod deploys to %v, want %s", got, tc.want)
			}
			dests, _ := resourceField(t, rsp, "argo-project", "spec", "forProvider", "destinations").([]any)
			if len(dests) == 0 || dests[0].(map[string]any)["namespace"] != tc.want {
				t.Errorf("AppProject destinations %v, want %s first", dests, tc.want)
			}
		})
	}
}

// A project on the platform's ClusterProviderConfig cannot aim its
// environments at namespaces or clusters outside the Composition input's
// bounds; the refusal names the field and the rule, and nothing is
// composed. A protected environment cannot be given a ttl (it would
// schedule production's deletion).
func TestPlatformBounds(t *testing.T) {
	env := func(i int, k string, v any) xrOpt {
		return withSpec(func(s map[string]any) { s["environments"].([]any)[i].(map[string]any)[k] = v })
	}
	cases := map[string]struct {
		xr    map[string]any
		input map[string]any
		want  string
	}{
		"KubeSystem": {xr: xr(noConfig(), env(0, "namespace", "kube-system")), input: platform(),
			want: `spec.environments[0].namespace: "kube-system" is not a namespace this project may deploy to through ClusterProviderConfig platform: the Composition's input.destinationNamespaces allows "team-shop", "team-shop--*"`},
		"ArgoCD":           {xr: xr(noConfig(), env(1, "namespace", "argocd")), input: platform(), want: `spec.environments[1].namespace: "argocd" is not a namespace`},
		"OtherTeam":        {xr: xr(noConfig(), env(0, "namespace", "team-other-prod")), input: platform(), want: `"team-other-prod" is not a namespace`},
		"PrefixOfOther":    {xr: xr(noConfig(), env(0, "namespace", "team-shopping")), input: platform(), want: `"team-shopping" is not a namespace`},
		"OtherTeamsPrefix": {xr: xr(noConfig(), env(0, "namespace", "team-shop-b")), input: platform(), want: `"team-shop-b" is not a namespace`},
		"Cluster": {xr: xr(noConfig(), env(0, "cluster", "https://prod.example.com")),
			input: map[string]any{"providerConfigRef": map[string]any{"kind": "ClusterProviderConfig", "name": "platform"}, "destinationClusters": []any{"https://kubernetes.default.svc"}},
			want:  `spec.environments[0].cluster: "https://prod.example.com" is not a cluster this project may deploy to`},
		"ClusterPattern": {xr: xr(env(0, "cluster", "https://*")), want: `spec.environments[0].cluster: "https://*" must be one cluster's API server URL, not a pattern`},
		"ClusterBraces":  {xr: xr(env(0, "cluster", "https://{a.example,b.example}")), want: `must be one cluster's API server URL, not a pattern`},
		"DottedName": {xr: func() map[string]any {
			x := xr(noConfig())
			x["metadata"].(map[string]any)["name"] = "shop.v2"
			return x
		}(), input: platform(), want: `the default destination "team-shop--shop.v2-prod" is not a namespace name`},
		"TooLongDefault": {xr: func() map[string]any {
			x := xr(noConfig())
			x["metadata"].(map[string]any)["name"] = strings.Repeat("s", 50)
			return x
		}(), input: platform(), want: "spec.environments[0].namespace: the default destination"},
		"ProtectedTTL":      {xr: xr(env(0, "ttl", "72h")), want: `spec.environments[0].ttl: environment "prod" is protected`},
		"ProtectedTTLInput": {xr: xr(env(1, "name", "live"), env(1, "ttl", "72h")), input: map[string]any{"protectedEnvironments": []any{"live"}}, want: `environment "live" is protected`},
		"BothRefs": {xr: xr(withSpec(func(s map[string]any) { s["providerConfigRef"] = map[string]any{"kind": "ProviderConfig", "name": "x"} })),
			want: "spec.providerConfigRef: set either providerConfigRef or providerConfigName, not both"},
		"BadKind": {xr: xr(noConfig(), withSpec(func(s map[string]any) { s["providerConfigRef"] = map[string]any{"kind": "Secret", "name": "x"} })),
			want: `spec.providerConfigRef.kind: "Secret" must be ClusterProviderConfig or ProviderConfig`},
		"BadInputKind": {xr: xr(noConfig()), input: map[string]any{"providerConfigRef": map[string]any{"kind": "X", "name": "x"}}, want: `input.providerConfigRef.kind: "X"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, t0, newRequest(t, tc.xr, allObserved(true, "prod", "pr-7"), tc.input))
			r := rsp.GetResults()
			if len(r) != 1 || r[0].GetSeverity() != fnv1.Severity_SEVERITY_FATAL || !strings.Contains(r[0].GetMessage(), tc.want) {
				t.Fatalf("want one Fatal result containing %q, got %v", tc.want, r)
			}
			if n := len(rsp.GetDesired().GetResources()); n != 0 {
				t.Errorf("a refused project must compose nothing, got %d resources", n)
			}
		})
	}

	// Within the bounds: the namespace itself, one of its own prefix, and
	// the namespace's ProviderConfig, which the input does not bound (its
	// token is the team's own, bounded by Argo CD's RBAC).
	for name, x := range map[string]map[string]any{
		"Own":       xr(noConfig(), env(0, "namespace", "team-shop")),
		"OwnPrefix": xr(noConfig(), env(0, "namespace", "team-shop--live")),
	} {
		t.Run(name, func(t *testing.T) {
			fatal(t, run(t, t0, newRequest(t, x, allObserved(true, "prod", "pr-7"), platform())))
		})
	}
	t.Run("NamespacedConfigUnbounded", func(t *testing.T) {
		fatal(t, run(t, t0, newRequest(t, xr(env(0, "namespace", "shop-prod")), allObserved(true, "prod", "pr-7"), platform())))
	})
}

// An environment that started without a ttl (Orphan: what it holds
// outlives it) stays Orphan when a ttl is added later: only an explicit
// deletionPolicy Delete lets its expiry delete its Jenkins job, Argo CD
// application and DNS record.
func TestAddedTTLKeepsOrphan(t *testing.T) {
	staging := func(extra map[string]any) xrOpt {
		return withSpec(func(s map[string]any) {
			e := map[string]any{"name": "staging", "domain": "staging.shop.example.com"}
			for k, v := range extra {
				e[k] = v
			}
			s["environments"] = append(s["environments"].([]any), e)
		})
	}
	prev := withStatus(prodReady(), map[string]any{"name": "pr-7", "phase": "Ready", "deletionPolicy": "Delete"},
		map[string]any{"name": "staging", "phase": "Ready", "deletionPolicy": "Orphan"})
	obs := allObserved(true, "prod", "pr-7", "staging")
	rsp := run(t, t0, newRequest(t, xr(staging(map[string]any{"ttl": "1h"}), prev), obs, nil))
	fatal(t, rsp)
	if got := envStatus(t, rsp, "staging")["deletionPolicy"]; got != "Orphan" {
		t.Errorf("staging with a ttl added: deletionPolicy %v, want Orphan", got)
	}
	rsp = run(t, t0, newRequest(t, xr(staging(map[string]any{"ttl": "1h", "deletionPolicy": "Delete"}), prev), obs, nil))
	fatal(t, rsp)
	if got := envStatus(t, rsp, "staging")["deletionPolicy"]; got != "Delete" {
		t.Errorf("staging with deletionPolicy Delete: %v, want Delete", got)
	}
	// A new environment with a ttl is Delete, as before.
	if got := envStatus(t, rsp, "pr-7")["deletionPolicy"]; got != "Delete" {
		t.Errorf("pr-7: deletionPolicy %v, want Delete", got)
	}
}

// A project on the platform's ClusterProviderConfig that names no Jenkins
// folder gets the Composition input's template, so a platform can keep
// each team's jobs below its own root; one on its namespace's
// ProviderConfig gets "<namespace>/<name>", so two teams' projects of one
// name on one Jenkins never share a folder (an existing project keeps
// its folder: TestExistingProjectKeepsItsDefaults).
func TestPipelineFolder(t *testing.T) {
	noFolder := withSpec(func(s map[string]any) { delete(s, "pipeline") })
	for name, tc := range map[string]struct {
		xr    map[string]any
		input map[string]any
		want  string
	}{
		"Default": {xr: xr(noFolder), want: "team-shop/shop"},
		"Template": {xr: xr(noFolder, noConfig()), input: map[string]any{"pipelineFolder": "teams/{namespace}/{project}", "providerConfigRef": platform()["providerConfigRef"]},
			want: "teams/team-shop/shop"},
		"NamespacedConfigNoTemplate": {xr: xr(noFolder), input: map[string]any{"pipelineFolder": "teams/{namespace}/{project}"}, want: "team-shop/shop"},
		"SpecWins": {xr: xr(noConfig()), input: map[string]any{"pipelineFolder": "teams/{namespace}/{project}", "providerConfigRef": platform()["providerConfigRef"]},
			want: "team/shop"},
		"NotATemplate":  {xr: xr(noFolder), input: map[string]any{"pipelineFolder": "../x"}, want: "fatal"},
		"AbsoluteSlash": {xr: xr(noFolder), input: map[string]any{"pipelineFolder": "/x"}, want: "fatal"},
	} {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, t0, newRequest(t, tc.xr, allObserved(true, "prod", "pr-7"), tc.input))
			if tc.want == "fatal" {
				if r := results(rsp); len(r) != 1 || !strings.Contains(r[0], "input.pipelineFolder") {
					t.Fatalf("results %v, want input.pipelineFolder refused", r)
				}
				return
			}
			fatal(t, rsp)
			if got := resourceField(t, rsp, "prod-pipeline", "spec", "forProvider", "folder"); got != tc.want {
				t.Errorf("folder %v, want %s", got, tc.want)
			}
		})
	}
}

// What an existing project has is kept when the spec names none: a
// manifest applied again without providerConfigName, or a Composition
// whose default changed, never moves the project to other credentials,
// and never moves a running application to another namespace (Argo CD
// would prune it where it runs) or a job to another folder.
func TestExistingProjectKeepsItsDefaults(t *testing.T) {
	obs := allObserved(true, "prod", "pr-7")
	obs["argo-project"]["spec"] = map[string]any{"providerConfigRef": map[string]any{"kind": "ProviderConfig", "name": "default"}}
	obs["prod-app"]["spec"] = map[string]any{"forProvider": map[string]any{"destination": map[string]any{"namespace": "shop-prod"}}}
	obs["prod-pipeline"]["spec"] = map[string]any{"forProvider": map[string]any{"folder": "shop"}}
	// The Argo CD names of before: "<namespace>-<name>", "<name>-<env>".
	for res, name := range map[string]string{"argo-project": "team-shop-shop", "prod-app": "shop-prod"} {
		m, _ := obs[res]["metadata"].(map[string]any)
		if m == nil {
			m = map[string]any{}
			obs[res]["metadata"] = m
		}
		m["annotations"] = map[string]any{"crossplane.io/external-name": name}
	}
	input := map[string]any{"providerConfigRef": platform()["providerConfigRef"], "pipelineFolder": "teams/{namespace}/{project}"}
	noFolder := withSpec(func(s map[string]any) { delete(s, "pipeline") })

	rsp := run(t, t0, newRequest(t, xr(noConfig(), noFolder), obs, input))
	fatal(t, rsp)
	for _, n := range []string{"prod-app", "registry", "argo-project", "pr-7-dns"} {
		if got := configOf(t, rsp, n); got != "ProviderConfig/default" {
			t.Errorf("%s moved to %s: an existing project keeps its config", n, got)
		}
	}
	if got := resourceField(t, rsp, "prod-app", "spec", "forProvider", "destination", "namespace"); got != "shop-prod" {
		t.Errorf("prod moved to %v", got)
	}
	if got := resourceField(t, rsp, "prod-pipeline", "spec", "forProvider", "folder"); got != "shop" {
		t.Errorf("prod's job moved to %v", got)
	}
	// Argo CD's objects keep their names (renaming would recreate them),
	// and every resource keeps pointing at the project it has; a new
	// environment gets the new, unambiguous name.
	for res, want := range map[string]string{"argo-project": "team-shop-shop", "prod-app": "shop-prod", "pr-7-app": "team-shop.shop.pr-7"} {
		if got := resourceField(t, rsp, res, "metadata", "annotations", "crossplane.io/external-name"); got != want {
			t.Errorf("%s: external name %v, want %s", res, got, want)
		}
	}
	for _, res := range []string{"prod-app", "pr-7-app"} {
		if got := resourceField(t, rsp, res, "spec", "forProvider", "project"); got != "team-shop-shop" {
			t.Errorf("%s: project %v, want the kept team-shop-shop", res, got)
		}
	}

	// Moving to the platform's config is said in the spec; the kept
	// destination is then checked against its bounds, not silently moved.
	explicit := withSpec(func(s map[string]any) {
		s["providerConfigRef"] = map[string]any{"kind": "ClusterProviderConfig", "name": "platform"}
	})
	rsp = run(t, t0, newRequest(t, xr(noConfig(), noFolder, explicit), obs, input))
	if r := results(rsp); len(r) != 1 || !strings.Contains(r[0], `spec.environments[0].namespace: "shop-prod" is not a namespace this project may deploy to`) {
		t.Errorf("results %v, want the kept destination refused on the platform's config", r)
	}
}

// A protected environment never expires, whatever its status says (a ttl
// it had before it was protected, or one written by whoever may write the
// status).
func TestProtectedIgnoresStatusTTL(t *testing.T) {
	past := t0.Add(-time.Hour).Format(time.RFC3339)
	rsp := run(t, t0, newRequest(t, xr(withStatus(map[string]any{"name": "prod", "phase": "Ready", "ttl": "1m0s", "expiresAt": past}, prStatus("Ready"))),
		allObserved(true, "prod", "pr-7"), nil))
	fatal(t, rsp)
	if got := envStatus(t, rsp, "prod"); got["phase"] == "Expired" || got["expiresAt"] != nil || got["deletionPolicy"] != "Orphan" {
		t.Errorf("prod's status %v: a protected environment must not expire", got)
	}
	if _, ok := rsp.GetDesired().GetResources()["prod-app"]; !ok {
		t.Error("prod's application was dropped")
	}
}

// An orphaned environment's destination in the status is kept in the
// AppProject only within the platform's bounds: a status naming
// kube-system widens nothing.
func TestOrphanedDestinationsBounded(t *testing.T) {
	orphaned := func(x map[string]any) {
		x["status"] = map[string]any{"orphanedEnvironments": []any{
			map[string]any{"name": "gone", "cluster": "https://kubernetes.default.svc", "namespace": "kube-system"},
			map[string]any{"name": "old", "cluster": "https://kubernetes.default.svc", "namespace": "team-shop--old"},
		}}
	}
	rsp := run(t, t0, newRequest(t, xr(noConfig(), orphaned), allObserved(true, "prod", "pr-7"), platform()))
	fatal(t, rsp)
	var got []string
	for _, d := range resourceField(t, rsp, "argo-project", "spec", "forProvider", "destinations").([]any) {
		got = append(got, d.(map[string]any)["namespace"].(string))
	}
	if slices.Contains(got, "kube-system") || !slices.Contains(got, "team-shop--old") {
		t.Errorf("AppProject destinations %v: want team-shop--old kept and kube-system dropped", got)
	}
}

// Two teams' projects never share an Argo CD name: not when both are
// called shop, and not when namespace and project name split one string
// differently ("team" + "a-shop" and "team-a" + "shop" met under the
// older "<namespace>-<name>").
func TestArgoNamesNeverMeet(t *testing.T) {
	pairs := [][2]*project{
		{{tenant: "team-a", name: "shop"}, {tenant: "team-b", name: "shop"}},
		{{tenant: "team", name: "a-shop"}, {tenant: "team-a", name: "shop"}},
		{{tenant: "team", name: "a.shop"}, {tenant: "team-a", name: "shop"}},
	}
	for _, pr := range pairs {
		a, b := pr[0], pr[1]
		if a.argoProjectName() == b.argoProjectName() {
			t.Errorf("%s/%s and %s/%s share the AppProject %s", a.tenant, a.name, b.tenant, b.name, a.argoProjectName())
		}
		for _, env := range []string{"dev", "prod"} {
			if a.appName(env) == b.appName(env) {
				t.Errorf("%s/%s and %s/%s share the application %s", a.tenant, a.name, b.tenant, b.name, a.appName(env))
			}
		}
	}
	// Within one project, environments never meet either.
	p := &project{tenant: "team", name: "shop-dev"}
	q := &project{tenant: "team", name: "shop"}
	if p.appName("x") == q.appName("dev-x") {
		t.Errorf("shop-dev/x and shop/dev-x share %s", p.appName("x"))
	}
}

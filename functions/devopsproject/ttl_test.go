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
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/durationpb"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
)

// expires is pr-7's persisted expiry: created at t0 with a 2h ttl.
var expires = t0.Add(2 * time.Hour)

func prStatus(phase string) map[string]any {
	return map[string]any{"name": "pr-7", "phase": phase, "expiresAt": expires.Format(time.RFC3339), "ttl": "2h0m0s"}
}

func prodReady() map[string]any { return map[string]any{"name": "prod", "phase": "Ready"} }

func condition(rsp *fnv1.RunFunctionResponse, typ string) *fnv1.Condition {
	for _, c := range rsp.GetConditions() {
		if c.GetType() == typ {
			return c
		}
	}
	return nil
}

func TestExpiry(t *testing.T) {
	keep := []any{"Observe", "Create", "Update", "LateInitialize"}
	withKeptDNS := func() map[string]map[string]any {
		obs := allObserved(true, "prod", "pr-7")
		obs["pr-7-dns"]["spec"] = map[string]any{"managementPolicies": keep}
		return obs
	}
	cases := map[string]struct {
		reason    string
		now       time.Time
		xr        map[string]any
		observed  map[string]map[string]any
		input     map[string]any
		phase     Phase
		expiresAt string
		resources []string
		ttl       time.Duration
		results   []string
		condition string // reason of the Expiring condition, "" when False
		check     func(t *testing.T, rsp *fnv1.RunFunctionResponse)
	}{
		"PersistedExpiryKept": {
			reason: "expiresAt is read back from status, not recomputed from now",
			now:    t0.Add(30 * time.Minute), xr: xr(withStatus(prodReady(), prStatus("Ready"))), observed: allObserved(true, "prod", "pr-7"),
			phase: PhaseReady, expiresAt: "2026-11-22T14:00:00Z", resources: want("pr-7", "prod"), ttl: time.Minute,
		},
		"ExactResponseTTL": {
			reason: "with a long poll interval the function asks to run again exactly when the warning window opens",
			now:    t0.Add(30 * time.Minute), xr: xr(withStatus(prodReady(), prStatus("Ready"))), observed: allObserved(true, "prod", "pr-7"),
			input: map[string]any{"pollInterval": "10h"},
			phase: PhaseReady, expiresAt: "2026-11-22T14:00:00Z", resources: want("pr-7", "prod"), ttl: 30 * time.Minute,
		},
		"ExpiringSoon": {
			reason: "inside the warning window: a Warning once, the condition, and a run at expiry",
			now:    expires.Add(-20 * time.Minute), xr: xr(withStatus(prodReady(), prStatus("Ready"))), observed: allObserved(true, "prod", "pr-7"),
			input: map[string]any{"pollInterval": "10h"},
			phase: PhaseExpiringSoon, expiresAt: "2026-11-22T14:00:00Z", resources: want("pr-7", "prod"), ttl: 20 * time.Minute,
			results:   []string{"SEVERITY_WARNING ExpiringSoon: environment pr-7 expires at 2026-11-22T14:00:00Z; annotate renew.devops.freeleaps.io/pr-7 to renew it"},
			condition: "ExpiringSoon",
		},
		"TTLChangeMovesExpiry": {
			reason: "a new ttl restarts the clock from now",
			now:    t0.Add(90 * time.Minute),
			xr: xr(withStatus(prodReady(), prStatus("Ready")), withSpec(func(s map[string]any) {
				s["environments"].([]any)[1].(map[string]any)["ttl"] = "24h"
			})),
			observed: allObserved(true, "prod", "pr-7"),
			phase:    PhaseReady, expiresAt: "2026-11-23T13:30:00Z", resources: want("pr-7", "prod"), ttl: time.Minute,
		},
		"Phase1OrphansRetained": {
			reason: "at expiry the retained DNS record loses Delete from its management policies; nothing is dropped yet",
			now:    expires, xr: xr(withStatus(prodReady(), prStatus("ExpiringSoon"))), observed: allObserved(true, "prod", "pr-7"),
			phase: PhaseExpiring, expiresAt: "2026-11-22T14:00:00Z", resources: want("pr-7", "prod"), ttl: phaseRequeue,
			results:   []string{"SEVERITY_WARNING Expiring: environment pr-7 expired at 2026-11-22T14:00:00Z: orphaning its retained resources"},
			condition: "Expired",
			check: func(t *testing.T, rsp *fnv1.RunFunctionResponse) {
				if diff := cmp.Diff(keep, resourceField(t, rsp, "pr-7-dns", "spec", "managementPolicies")); diff != "" {
					t.Errorf("retained DNS record policies -want +got:\n%s", diff)
				}
				if p := resourceField(t, rsp, "pr-7-app", "spec", "managementPolicies"); p != nil {
					t.Errorf("the application is not retained and keeps the default policies, got %v", p)
				}
			},
		},
		"Phase1NotYetObserved": {
			reason: "phase 2 waits until observed state shows phase 1 applied",
			now:    expires.Add(5 * time.Second), xr: xr(withStatus(prodReady(), prStatus("Expiring"))), observed: allObserved(true, "prod", "pr-7"),
			phase: PhaseExpiring, expiresAt: "2026-11-22T14:00:00Z", resources: want("pr-7", "prod"), ttl: phaseRequeue, condition: "Expired",
		},
		"Phase2Drops": {
			reason: "once the retained record is observed without Delete, the environment's resources leave the desired state",
			now:    expires.Add(15 * time.Second), xr: xr(withStatus(prodReady(), prStatus("Expiring"))), observed: withKeptDNS(),
			phase: PhaseExpired, expiresAt: "2026-11-22T14:00:00Z", resources: want("prod"), ttl: time.Minute,
			results:   []string{"SEVERITY_WARNING Expired: environment pr-7 expired at 2026-11-22T14:00:00Z: its resources are being deleted"},
			condition: "Expired",
		},
		"NothingRetainedDropsAtOnce": {
			reason: "an environment that retains nothing goes straight to phase 2",
			now:    expires,
			xr: xr(withStatus(prodReady(), prStatus("ExpiringSoon")), withSpec(func(s map[string]any) {
				delete(s["environments"].([]any)[1].(map[string]any), "retain")
			})),
			observed: allObserved(true, "prod", "pr-7"),
			phase:    PhaseExpired, expiresAt: "2026-11-22T14:00:00Z", resources: want("prod"), ttl: time.Minute,
			results:   []string{"SEVERITY_WARNING Expired: environment pr-7 expired at 2026-11-22T14:00:00Z: its resources are being deleted"},
			condition: "Expired",
		},
		"ExpiredStaysExpired": {
			reason: "an expired environment does not come back on later runs",
			now:    expires.Add(time.Hour), xr: xr(withStatus(prodReady(), prStatus("Expired"))), observed: allObserved(true, "prod"),
			phase: PhaseExpired, expiresAt: "2026-11-22T14:00:00Z", resources: want("prod"), ttl: time.Minute, condition: "Expired",
		},
		"Renewal": {
			reason: "a new renew annotation value restarts the ttl, and an expired environment comes back",
			now:    expires.Add(time.Hour), xr: xr(withStatus(prodReady(), prStatus("Expired")), withAnnotation("renew.devops.freeleaps.io/pr-7", "2026-11-22")),
			observed: allObserved(true, "prod"),
			phase:    PhaseProvisioning, expiresAt: "2026-11-22T17:00:00Z", resources: want("pr-7", "prod"), ttl: phaseRequeue,
			results: []string{"SEVERITY_NORMAL Provisioning: environment pr-7 is being provisioned"},
			check: func(t *testing.T, rsp *fnv1.RunFunctionResponse) {
				if r := envStatus(t, rsp, "pr-7")["renewal"]; r != "2026-11-22" {
					t.Errorf("the honoured renewal is persisted, got %v", r)
				}
			},
		},
		"DeploymentIgnoredByDefault": {
			reason: "with input.ttlStart Creation (the default) a deployment does not move the expiry",
			now:    t0.Add(40 * time.Minute), xr: xr(withStatus(prodReady(), prStatus("Ready"))), observed: deployed(t0.Add(30*time.Minute), true),
			phase: PhaseReady, expiresAt: "2026-11-22T14:00:00Z", resources: want("pr-7", "prod"), ttl: time.Minute,
			check: func(t *testing.T, rsp *fnv1.RunFunctionResponse) {
				st := envStatus(t, rsp, "pr-7")
				want := map[string]any{"name": "shop-pr-7-b", "phase": "Building", "revision": "feature-x", "startedAt": "2026-11-22T12:35:00Z"}
				if diff := cmp.Diff(want, st["deployment"]); diff != "" {
					t.Errorf("status deployment -want +got:\n%s", diff)
				}
				want = map[string]any{"name": "shop-pr-7-a", "phase": "Succeeded", "revision": "0123abc", "startedAt": "2026-11-22T12:20:00Z", "finishedAt": "2026-11-22T12:30:00Z"}
				if diff := cmp.Diff(want, st["lastDeployment"]); diff != "" {
					t.Errorf("status lastDeployment -want +got:\n%s", diff)
				}
			},
		},
		"DeploymentMovesExpiry": {
			reason: "with input.ttlStart LastDeployment the ttl runs from the last successful deployment",
			now:    t0.Add(100 * time.Minute), xr: xr(withStatus(prodReady(), prStatus("Ready"))), observed: deployed(t0.Add(90*time.Minute), true),
			input: map[string]any{"ttlStart": "LastDeployment"},
			phase: PhaseReady, expiresAt: "2026-11-22T15:30:00Z", resources: want("pr-7", "prod"), ttl: time.Minute,
		},
		"DeploymentBringsBackFromExpiringSoon": {
			reason: "a deployment inside the warning window takes the environment out of it",
			now:    expires.Add(-10 * time.Minute), xr: xr(withStatus(prodReady(), prStatus("ExpiringSoon"))), observed: deployed(expires.Add(-15*time.Minute), false),
			input: map[string]any{"ttlStart": "LastDeployment"},
			phase: PhaseReady, expiresAt: "2026-11-22T15:45:00Z", resources: want("pr-7", "prod"), ttl: time.Minute,
			results: []string{"SEVERITY_NORMAL Ready: environment pr-7 is Ready at https://pr-7.shop.example.com"},
		},
		"FutureDeploymentCapped": {
			reason: "a deployment finished in the future (a clock jump, a hand-written status) gives at most ttl from now",
			now:    t0.Add(40 * time.Minute), xr: xr(withStatus(prodReady(), prStatus("Ready"))), observed: deployed(time.Date(2099, 1, 1, 1, 0, 0, 0, time.UTC), false),
			input: map[string]any{"ttlStart": "LastDeployment"},
			phase: PhaseReady, expiresAt: "2026-11-22T14:40:00Z", resources: want("pr-7", "prod"), ttl: time.Minute,
		},
		"OldDeploymentNeverShortens": {
			reason: "a deployment older than the creation or renewal does not bring the expiry forward",
			now:    t0.Add(10 * time.Minute), xr: xr(withStatus(prodReady(), prStatus("Ready"))), observed: deployed(t0.Add(-30*time.Minute), false),
			input: map[string]any{"ttlStart": "LastDeployment"},
			phase: PhaseReady, expiresAt: "2026-11-22T14:00:00Z", resources: want("pr-7", "prod"), ttl: time.Minute,
		},
		"ExpiredRemembersItsDeployment": {
			reason: "once expired (its pipeline gone) the last deployment is read back from status: the expiry it gave holds and the environment stays expired",
			now:    t0.Add(4 * time.Hour),
			xr: xr(withStatus(prodReady(), map[string]any{"name": "pr-7", "phase": "Expired", "expiresAt": "2026-11-22T15:30:00Z", "ttl": "2h0m0s",
				"lastDeployment": map[string]any{"name": "shop-pr-7-a", "finishedAt": "2026-11-22T13:30:00Z"}})),
			observed: allObserved(true, "prod"),
			input:    map[string]any{"ttlStart": "LastDeployment"},
			phase:    PhaseExpired, expiresAt: "2026-11-22T15:30:00Z", resources: want("prod"), ttl: time.Minute, condition: "Expired",
			check: func(t *testing.T, rsp *fnv1.RunFunctionResponse) {
				if l, _ := envStatus(t, rsp, "pr-7")["lastDeployment"].(map[string]any); l["name"] != "shop-pr-7-a" {
					t.Errorf("the last deployment is kept in status, got %v", l)
				}
			},
		},
		"DefaultTTLForPreviews": {
			reason: "input.defaultTTL applies to preview environments without a ttl, never to production",
			now:    t0,
			xr: xr(withSpec(func(s map[string]any) {
				s["environments"] = []any{
					map[string]any{"name": "prod", "domain": "shop.example.com"},
					map[string]any{"name": "pr-7", "domain": "pr-7.shop.example.com"},
				}
			})),
			input: map[string]any{"defaultTTL": "2h"},
			phase: PhaseProvisioning, expiresAt: "2026-11-22T14:00:00Z", resources: waiting("pr-7", "prod"), ttl: phaseRequeue,
			results: []string{"SEVERITY_NORMAL Provisioning: environment pr-7 is being provisioned", "SEVERITY_NORMAL Provisioning: environment prod is being provisioned"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, tc.now, newRequest(t, tc.xr, tc.observed, tc.input))
			for _, r := range rsp.GetResults() {
				if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
					t.Fatalf("%s: fatal %s", tc.reason, r.GetMessage())
				}
			}
			got := envStatus(t, rsp, "pr-7")
			if got["phase"] != string(tc.phase) || got["expiresAt"] != tc.expiresAt {
				t.Errorf("%s: pr-7 phase %v expiresAt %v, want %s %s", tc.reason, got["phase"], got["expiresAt"], tc.phase, tc.expiresAt)
			}
			if p := envStatus(t, rsp, "prod"); p["expiresAt"] != nil {
				t.Errorf("%s: prod must never expire: %v", tc.reason, p)
			}
			if diff := cmp.Diff(tc.resources, names(rsp)); diff != "" {
				t.Errorf("%s: desired resources -want +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(durationpb.New(tc.ttl), rsp.GetMeta().GetTtl(), protocmp.Transform()); diff != "" {
				t.Errorf("%s: response TTL -want +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.results, results(rsp)); diff != "" {
				t.Errorf("%s: results -want +got:\n%s", tc.reason, diff)
			}
			c := condition(rsp, ConditionExpiring)
			switch {
			case c == nil:
				t.Errorf("%s: no %s condition", tc.reason, ConditionExpiring)
			case tc.condition == "" && c.GetStatus() != fnv1.Status_STATUS_CONDITION_FALSE:
				t.Errorf("%s: condition %v, want False", tc.reason, c)
			case tc.condition != "" && (c.GetStatus() != fnv1.Status_STATUS_CONDITION_TRUE || c.GetReason() != tc.condition || !strings.Contains(c.GetMessage(), "pr-7")):
				t.Errorf("%s: condition %v, want True/%s naming pr-7", tc.reason, c, tc.condition)
			}
			if tc.check != nil {
				tc.check(t, rsp)
			}
		})
	}
}

func TestBadInputIsFatal(t *testing.T) {
	env := func(i int, k string, v any) xrOpt {
		return withSpec(func(s map[string]any) { s["environments"].([]any)[i].(map[string]any)[k] = v })
	}
	cases := map[string]struct {
		xr    map[string]any
		input map[string]any
		want  string
	}{
		"EnvironmentNameNotDNSLabel": {xr: xr(env(0, "name", "Prod_1")), want: `spec.environments[0].name: "Prod_1" must be a DNS label`},
		"DuplicateEnvironment":       {xr: xr(env(1, "name", "prod")), want: `spec.environments[1].name: "prod" is already the name of spec.environments[0]`},
		"DomainOutsideZone":          {xr: xr(env(0, "domain", "shop.example.org")), want: `spec.environments[0].domain: "shop.example.org" is not inside the zone "example.com"`},
		"DomainNotFQDN":              {xr: xr(env(0, "domain", "shop_example")), want: `spec.environments[0].domain: "shop_example" is not a domain name`},
		"TTLTooShort":                {xr: xr(env(1, "ttl", "30s")), want: `spec.environments[1].ttl: "30s" must be a duration of at least 1m`},
		"TTLNotDuration":             {xr: xr(env(1, "ttl", "3 days")), want: `spec.environments[1].ttl: "3 days" must be a duration`},
		"RetainUnknownKind":          {xr: xr(env(1, "retain", []any{"Namespace"})), want: `spec.environments[1].retain[0]: "Namespace" is not one of`},
		"GitURLNotHTTPS": {xr: xr(withSpec(func(s map[string]any) { s["git"].(map[string]any)["url"] = "http://git.example.com/a.git" })),
			want: `spec.git.url: "http://git.example.com/a.git" must be an https:// or ssh URL`},
		"NoEnvironments": {xr: xr(withSpec(func(s map[string]any) { s["environments"] = []any{} })), want: "spec.environments: at least one environment is required"},
		"BadZone":        {xr: xr(withSpec(func(s map[string]any) { s["dns"].(map[string]any)["zone"] = "not a zone" })), want: `spec.dns.zone: "not a zone" is not a DNS zone name`},
		"InputPoll":      {xr: xr(), input: map[string]any{"pollInterval": "soon"}, want: `input.pollInterval: "soon" must be a duration`},
		"InputTTLStart":  {xr: xr(), input: map[string]any{"ttlStart": "Later"}, want: `input.ttlStart: "Later" must be Creation or LastDeployment`},
		"InputTeardown":  {xr: xr(), input: map[string]any{"teardownOrder": []any{"DNSRecord", "DNSRecord"}}, want: "input.teardownOrder[1]"},
		"ClusterXRWithoutClaim": {xr: func() map[string]any {
			x := xr()
			x["kind"] = "XDevOpsProject"
			delete(x["metadata"].(map[string]any), "namespace")
			return x
		}(), want: "metadata.namespace: a cluster-scoped XDevOpsProject must be created through a DevOpsProjectClaim"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, t0, newRequest(t, tc.xr, allObserved(true, "prod", "pr-7"), tc.input))
			r := rsp.GetResults()
			if len(r) != 1 || r[0].GetSeverity() != fnv1.Severity_SEVERITY_FATAL || !strings.Contains(r[0].GetMessage(), tc.want) {
				t.Fatalf("want one Fatal result containing %q, got %v", tc.want, r)
			}
			if n := len(rsp.GetDesired().GetResources()); n != 0 {
				t.Errorf("a Fatal response must not carry a half-made desired state, got %d resources", n)
			}
		})
	}
}

func TestLegacyClaimComposesIntoClaimNamespace(t *testing.T) {
	x := xr()
	x["kind"] = "XDevOpsProject"
	m := x["metadata"].(map[string]any)
	delete(m, "namespace")
	m["labels"] = map[string]any{"crossplane.io/claim-namespace": "team-shop", "crossplane.io/claim-name": "shop"}
	rsp := run(t, t0, newRequest(t, x, nil, nil))
	for n, r := range rsp.GetDesired().GetResources() {
		if ns := r.GetResource().AsMap()["metadata"].(map[string]any)["namespace"]; ns != "team-shop" {
			t.Errorf("%s: namespace %v, want the claim's team-shop", n, ns)
		}
	}
}

// deployed is every environment observed Ready, pr-7's pipeline recording
// a deployment that succeeded at finished (and, when running, another one
// building).
func deployed(finished time.Time, running bool) map[string]map[string]any {
	obs := allObserved(true, "prod", "pr-7")
	d := map[string]any{"lastSucceeded": map[string]any{"name": "shop-pr-7-a", "phase": "Succeeded", "revision": "0123abc",
		"startedAt": finished.Add(-10 * time.Minute).Format(time.RFC3339), "finishedAt": finished.Format(time.RFC3339), "url": "https://pr-7.shop.example.com"}}
	if running {
		d["current"] = map[string]any{"name": "shop-pr-7-b", "phase": "Building", "revision": "feature-x", "startedAt": finished.Add(5 * time.Minute).Format(time.RFC3339)}
	}
	obs["pr-7-pipeline"]["status"].(map[string]any)["deployments"] = d
	return obs
}

// TestRenewOnDeploy: an environment with renewOnDeploy records the config
// whose deployUsers may renew it, and the renew annotation the provider
// sets for a deploy request brings it back from Expired like any renewal.
func TestRenewOnDeploy(t *testing.T) {
	renewable := withSpec(func(s map[string]any) { s["environments"].([]any)[1].(map[string]any)["renewOnDeploy"] = true })
	onCluster := withSpec(func(s map[string]any) {
		delete(s, "providerConfigName")
		s["providerConfigRef"] = map[string]any{"kind": "ClusterProviderConfig", "name": "platform"}
	})
	cases := map[string]struct {
		reason    string
		now       time.Time
		xr        map[string]any
		observed  map[string]map[string]any
		phase     Phase
		resources []string
		config    any
		results   []string
	}{
		"ExpiredRecordsConfig": {
			reason: "an expired environment with renewOnDeploy keeps naming the config that authorises its renewal, its pipeline gone",
			now:    expires.Add(time.Hour), xr: xr(renewable, withStatus(prodReady(), prStatus("Expired"))), observed: allObserved(true, "prod"),
			phase: PhaseExpired, resources: want("prod"), config: map[string]any{"kind": "ProviderConfig", "name": "default"},
		},
		"ClusterConfigRecorded": {
			reason: "a project on a ClusterProviderConfig records that one",
			now:    expires.Add(time.Hour), xr: xr(renewable, onCluster, withStatus(prodReady(), prStatus("Expired"))), observed: allObserved(true, "prod"),
			phase: PhaseExpired, resources: want("prod"), config: map[string]any{"kind": "ClusterProviderConfig", "name": "platform"},
		},
		"NotOptedIn": {
			reason: "without renewOnDeploy nothing is recorded: the provider refuses to renew by deploying",
			now:    expires.Add(time.Hour), xr: xr(withStatus(prodReady(), prStatus("Expired"))), observed: allObserved(true, "prod"),
			phase: PhaseExpired, resources: want("prod"),
		},
		"DeployRenews": {
			reason:   "the renew annotation a deploy request sets brings the environment back, its ttl running from now",
			now:      expires.Add(time.Hour),
			xr:       xr(renewable, withStatus(prodReady(), prStatus("Expired")), withAnnotation("renew.devops.freeleaps.io/pr-7", "deploy:amqp-m-1")),
			observed: allObserved(true, "prod"),
			phase:    PhaseProvisioning, resources: want("pr-7", "prod"), config: map[string]any{"kind": "ProviderConfig", "name": "default"},
			results: []string{"SEVERITY_NORMAL Provisioning: environment pr-7 is being provisioned"},
		},
		"WarningSaysDeployRenews": {
			reason: "the expiry warning tells that a deployment renews the environment",
			now:    expires.Add(-20 * time.Minute), xr: xr(renewable, withStatus(prodReady(), prStatus("Ready"))), observed: allObserved(true, "prod", "pr-7"),
			phase: PhaseExpiringSoon, resources: want("pr-7", "prod"), config: map[string]any{"kind": "ProviderConfig", "name": "default"},
			results: []string{"SEVERITY_WARNING ExpiringSoon: environment pr-7 expires at 2026-11-22T14:00:00Z; annotate renew.devops.freeleaps.io/pr-7 to renew it, or deploy it (renewOnDeploy)"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, tc.now, newRequest(t, tc.xr, tc.observed, nil))
			got := envStatus(t, rsp, "pr-7")
			if got["phase"] != string(tc.phase) {
				t.Errorf("%s: pr-7 phase %v, want %s", tc.reason, got["phase"], tc.phase)
			}
			if diff := cmp.Diff(tc.config, got["providerConfigRef"]); diff != "" {
				t.Errorf("%s: status providerConfigRef -want +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.resources, names(rsp)); diff != "" {
				t.Errorf("%s: desired resources -want +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.results, results(rsp)); diff != "" {
				t.Errorf("%s: results -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestOperatorTTLExample runs the function with the Input of
// examples/devopsproject/composition-operator-ttl.yaml: a preview
// environment without a ttl of its own gets the replaced operator's 3h,
// which a successful deployment restarts.
func TestOperatorTTLExample(t *testing.T) {
	comp := readYAML(t, "examples", "devopsproject", "composition-operator-ttl.yaml")
	input := comp["spec"].(map[string]any)["pipeline"].([]any)[0].(map[string]any)["input"].(map[string]any)
	noTTL := withSpec(func(s map[string]any) { delete(s["environments"].([]any)[1].(map[string]any), "ttl") })
	fromDefault := map[string]any{"name": "pr-7", "phase": "Ready", "expiresAt": "2026-11-22T15:00:00Z", "ttl": "3h0m0s", "ttlFrom": "input.defaultTTL"}
	cases := map[string]struct {
		reason    string
		now       time.Time
		xr        map[string]any
		observed  map[string]map[string]any
		expiresAt string
	}{
		"NewPreview": {
			reason: "a preview environment that appears gets 3h from now",
			now:    t0, xr: xr(noTTL), expiresAt: "2026-11-22T15:00:00Z",
		},
		"Deployed": {
			reason: "a deployment that succeeded restarts the 3h from when it finished",
			now:    t0.Add(2 * time.Hour), xr: xr(noTTL, withStatus(prodReady(), fromDefault)), observed: deployed(t0.Add(90*time.Minute), false),
			expiresAt: "2026-11-22T16:30:00Z",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, tc.now, newRequest(t, tc.xr, tc.observed, input))
			got := envStatus(t, rsp, "pr-7")
			want := map[string]any{"ttl": "3h0m0s", "ttlFrom": "input.defaultTTL", "expiresAt": tc.expiresAt}
			if diff := cmp.Diff(want, map[string]any{"ttl": got["ttl"], "ttlFrom": got["ttlFrom"], "expiresAt": got["expiresAt"]}); diff != "" {
				t.Errorf("%s: pr-7's expiry -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

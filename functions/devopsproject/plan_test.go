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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/crossplane/function-sdk-go/resource"

	"github.com/freeleaps/provider-devops/functions/devopsproject/input/v1beta1"
)

// planOf runs planRun on a requestState made of the given parts, as
// readRequest would have made it.
func planOf(t *testing.T, in *v1beta1.Input, envs []Environment, prev []EnvStatus, annotations map[string]string, observed map[string]map[string]any, now time.Time) plan {
	t.Helper()
	s, err := parseInput(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	obs := make(map[resource.Name]*structpb.Struct, len(observed))
	for n, o := range observed {
		s, err := structpb.NewStruct(o)
		if err != nil {
			t.Fatal(err)
		}
		obs[resource.Name(n)] = s
	}
	rs := &requestState{
		project:     &project{spec: &ProjectSpec{Environments: envs}, in: s},
		annotations: annotations, prev: prev, observed: obs, ready: observedReady(obs),
	}
	return planRun(rs, now)
}

func TestPlanRun(t *testing.T) {
	prod := Environment{Name: "prod", Domain: "shop.example.com"}
	// pr-7 lives 2h from t0 (expires) and keeps its DNS record at expiry.
	pr7 := Environment{Name: "pr-7", Domain: "pr-7.shop.example.com", TTL: "2h", Retain: []string{KindDNS}}
	pr7Expiry := expiry{at: expires, warnAt: expires.Add(-time.Hour), ttl: 2 * time.Hour, ttlFrom: ttlFromSpec}
	persisted := func(phase Phase) EnvStatus {
		return EnvStatus{Name: "pr-7", Phase: phase, ExpiresAt: "2026-11-22T14:00:00Z", TTL: "2h0m0s", DeletionPolicy: PolicyDelete}
	}
	ptr := func(s EnvStatus) *EnvStatus { return &s }
	keptDNS := func() map[string]map[string]any {
		o := allObserved(true, "pr-7")
		o["pr-7-dns"]["spec"] = map[string]any{"managementPolicies": []any{"Observe", "Create", "Update", "LateInitialize"}}
		return o
	}
	slowPoll := &v1beta1.Input{PollInterval: "10h"}

	type args struct {
		in          *v1beta1.Input
		envs        []Environment
		prev        []EnvStatus
		annotations map[string]string
		observed    map[string]map[string]any
		now         time.Time
	}
	cases := map[string]struct {
		reason string
		args   args
		want   plan
	}{
		"ProductionProvisioning": {
			reason: "An environment without a ttl never expires, is Orphan, and is checked again soon while it is provisioned.",
			args:   args{envs: []Environment{prod}, now: t0},
			want: plan{
				envs: []envPlan{{env: prod, phase: PhaseProvisioning, policy: PolicyOrphan}},
				ttl:  phaseRequeue,
			},
		},
		"ProductionReady": {
			reason: "A Ready environment without a ttl waits for the poll interval.",
			args:   args{envs: []Environment{prod}, prev: []EnvStatus{{Name: "prod", Phase: PhaseReady}}, observed: allObserved(true, "prod"), now: t0},
			want: plan{
				envs: []envPlan{{env: prod, prev: &EnvStatus{Name: "prod", Phase: PhaseReady}, phase: PhaseReady, policy: PolicyOrphan}},
				ttl:  defaultPollInterval,
			},
		},
		"FirstRunStartsTheClock": {
			reason: "A new environment with a ttl expires ttl after now, warned expiryWarning before, and is deleted at expiry.",
			args:   args{envs: []Environment{pr7}, now: t0},
			want: plan{
				envs: []envPlan{{env: pr7, expiry: pr7Expiry, phase: PhaseProvisioning, policy: PolicyDelete}},
				ttl:  phaseRequeue,
			},
		},
		"ReadyWakesAtTheWarning": {
			reason: "The persisted expiry is kept, and with a long poll interval the next run is when the warning window opens.",
			args:   args{in: slowPoll, envs: []Environment{pr7}, prev: []EnvStatus{persisted(PhaseReady)}, observed: allObserved(true, "pr-7"), now: t0.Add(30 * time.Minute)},
			want: plan{
				envs: []envPlan{{env: pr7, prev: ptr(persisted(PhaseReady)), expiry: pr7Expiry, phase: PhaseReady, policy: PolicyDelete}},
				ttl:  30 * time.Minute,
			},
		},
		"ExpiringSoon": {
			reason: "Inside the warning window: the condition names the expiry, and the next run is at expiry.",
			args:   args{in: slowPoll, envs: []Environment{pr7}, prev: []EnvStatus{persisted(PhaseReady)}, observed: allObserved(true, "pr-7"), now: expires.Add(-20 * time.Minute)},
			want: plan{
				envs:     []envPlan{{env: pr7, prev: ptr(persisted(PhaseReady)), expiry: pr7Expiry, phase: PhaseExpiringSoon, policy: PolicyDelete}},
				ttl:      20 * time.Minute,
				expiring: []string{"pr-7 expires at 2026-11-22T14:00:00Z"},
			},
		},
		"ProvisioningInsideTheWarningWindow": {
			reason: "An environment still coming up inside the warning window (a ttl shorter than expiryWarning) is Provisioning, not ExpiringSoon, and the condition still names its expiry.",
			args:   args{envs: []Environment{pr7}, prev: []EnvStatus{persisted(PhaseProvisioning)}, observed: allObserved(false, "pr-7"), now: expires.Add(-20 * time.Minute)},
			want: plan{
				envs:     []envPlan{{env: pr7, prev: ptr(persisted(PhaseProvisioning)), expiry: pr7Expiry, phase: PhaseProvisioning, policy: PolicyDelete}},
				ttl:      phaseRequeue,
				expiring: []string{"pr-7 expires at 2026-11-22T14:00:00Z"},
			},
		},
		"TTLAtLeastMinRequeue": {
			reason: "A tenth of a second before expiry the response TTL is still minRequeue (half a second): never less.",
			args:   args{envs: []Environment{pr7}, prev: []EnvStatus{persisted(PhaseExpiringSoon)}, observed: allObserved(true, "pr-7"), now: expires.Add(-100 * time.Millisecond)},
			want: plan{
				envs:     []envPlan{{env: pr7, prev: ptr(persisted(PhaseExpiringSoon)), expiry: pr7Expiry, phase: PhaseExpiringSoon, policy: PolicyDelete}},
				ttl:      minRequeue,
				expiring: []string{"pr-7 expires at 2026-11-22T14:00:00Z"},
			},
		},
		"ExpiryOrphansRetainedFirst": {
			reason: "At expiry an environment that retains resources is Expiring (their Delete policy removed first) and is checked again soon.",
			args:   args{envs: []Environment{pr7}, prev: []EnvStatus{persisted(PhaseExpiringSoon)}, observed: allObserved(true, "pr-7"), now: expires},
			want: plan{
				envs:     []envPlan{{env: pr7, prev: ptr(persisted(PhaseExpiringSoon)), expiry: pr7Expiry, phase: PhaseExpiring, policy: PolicyDelete}},
				ttl:      phaseRequeue,
				expiring: []string{"pr-7 is expiring: its retained resources are being orphaned"},
				expired:  true,
			},
		},
		"ExpiringWaitsForRetainedPolicies": {
			reason: "It stays Expiring until the retained DNS record is observed without Delete.",
			args:   args{envs: []Environment{pr7}, prev: []EnvStatus{persisted(PhaseExpiring)}, observed: allObserved(true, "pr-7"), now: expires.Add(5 * time.Second)},
			want: plan{
				envs:     []envPlan{{env: pr7, prev: ptr(persisted(PhaseExpiring)), expiry: pr7Expiry, phase: PhaseExpiring, policy: PolicyDelete}},
				ttl:      phaseRequeue,
				expiring: []string{"pr-7 is expiring: its retained resources are being orphaned"},
				expired:  true,
			},
		},
		"ExpiredOnceRetainedApplied": {
			reason: "Once the retained record is observed without Delete the environment is Expired and polled as usual.",
			args:   args{envs: []Environment{pr7}, prev: []EnvStatus{persisted(PhaseExpiring)}, observed: keptDNS(), now: expires.Add(15 * time.Second)},
			want: plan{
				envs:     []envPlan{{env: pr7, prev: ptr(persisted(PhaseExpiring)), expiry: pr7Expiry, phase: PhaseExpired, policy: PolicyDelete}},
				ttl:      defaultPollInterval,
				expiring: []string{"pr-7 expired at 2026-11-22T14:00:00Z"},
				expired:  true,
			},
		},
		"RenewalRestartsTheClock": {
			reason: "A new renew annotation value gives an Expired environment a new expiry from now; it is provisioned again.",
			args: args{envs: []Environment{pr7}, prev: []EnvStatus{persisted(PhaseExpired)}, annotations: map[string]string{"renew.devops.freeleaps.io/pr-7": "2026-11-22"},
				now: expires.Add(time.Hour)},
			want: plan{
				envs: []envPlan{{env: pr7, prev: ptr(persisted(PhaseExpired)), phase: PhaseProvisioning, policy: PolicyDelete,
					expiry: expiry{at: expires.Add(3 * time.Hour), warnAt: expires.Add(2 * time.Hour), ttl: 2 * time.Hour, ttlFrom: ttlFromSpec, renewal: "2026-11-22"}}},
				ttl: phaseRequeue,
			},
		},
		"DefaultTTLForAPreview": {
			reason: "A new preview environment without a ttl gets input.defaultTTL, its warning at most half of it.",
			args:   args{in: &v1beta1.Input{DefaultTTL: "1h"}, envs: []Environment{{Name: "pr-9", Domain: "pr-9.shop.example.com"}}, now: t0},
			want: plan{
				envs: []envPlan{{env: Environment{Name: "pr-9", Domain: "pr-9.shop.example.com"}, phase: PhaseProvisioning, policy: PolicyDelete,
					expiry: expiry{at: t0.Add(time.Hour), warnAt: t0.Add(30 * time.Minute), ttl: time.Hour, ttlFrom: ttlFromDefault}}},
				ttl: phaseRequeue,
			},
		},
		"OwnPolicyWins": {
			reason: "An environment's own deletion policy overrides the ttl's default.",
			args:   args{envs: []Environment{{Name: "pr-7", Domain: "pr-7.shop.example.com", TTL: "2h", DeletionPolicy: PolicyOrphan}}, now: t0},
			want: plan{
				envs: []envPlan{{env: Environment{Name: "pr-7", Domain: "pr-7.shop.example.com", TTL: "2h", DeletionPolicy: PolicyOrphan},
					expiry: pr7Expiry, phase: PhaseProvisioning, policy: PolicyOrphan}},
				ttl: phaseRequeue,
			},
		},
		"EarliestWins": {
			reason: "With several environments the next run is the earliest any of them needs, and Expired outranks ExpiringSoon in the condition.",
			args: args{in: slowPoll, envs: []Environment{prod, pr7, {Name: "pr-8", Domain: "pr-8.shop.example.com", TTL: "2h"}},
				prev:     []EnvStatus{{Name: "prod", Phase: PhaseReady}, persisted(PhaseExpired), {Name: "pr-8", Phase: PhaseReady, ExpiresAt: "2026-11-22T15:00:00Z", TTL: "2h0m0s"}},
				observed: allObserved(true, "prod", "pr-8"), now: expires.Add(15 * time.Minute)},
			want: plan{
				envs: []envPlan{
					{env: prod, prev: &EnvStatus{Name: "prod", Phase: PhaseReady}, phase: PhaseReady, policy: PolicyOrphan},
					{env: pr7, prev: ptr(persisted(PhaseExpired)), expiry: pr7Expiry, phase: PhaseExpired, policy: PolicyDelete},
					{env: Environment{Name: "pr-8", Domain: "pr-8.shop.example.com", TTL: "2h"}, prev: &EnvStatus{Name: "pr-8", Phase: PhaseReady, ExpiresAt: "2026-11-22T15:00:00Z", TTL: "2h0m0s"},
						expiry: expiry{at: expires.Add(time.Hour), warnAt: expires, ttl: 2 * time.Hour, ttlFrom: ttlFromSpec}, phase: PhaseExpiringSoon, policy: PolicyDelete},
				},
				ttl:      45 * time.Minute,
				expiring: []string{"pr-7 expired at 2026-11-22T14:00:00Z", "pr-8 expires at 2026-11-22T15:00:00Z"},
				expired:  true,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			a := tc.args
			got := planOf(t, a.in, a.envs, a.prev, a.annotations, a.observed, a.now)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(plan{}, envPlan{}, expiry{}, Environment{})); diff != "" {
				t.Errorf("%s\nplanRun(...): -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestPlanOrphans(t *testing.T) {
	cases := map[string]struct {
		reason string
		args   plan
		want   bool
	}{
		"None": {
			reason: "Without environments nothing is orphaned.",
			want:   false,
		},
		"AllDeleted": {
			reason: "Environments deleted with the project keep nothing.",
			args:   plan{envs: []envPlan{{policy: PolicyDelete}, {policy: PolicyDelete}}},
			want:   false,
		},
		"OneOrphaned": {
			reason: "One orphaned environment keeps the Argo CD resources its application syncs with.",
			args:   plan{envs: []envPlan{{policy: PolicyDelete}, {policy: PolicyOrphan}}},
			want:   true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.args.orphans()); diff != "" {
				t.Errorf("%s\norphans(): -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestProvisioningRequeue: while an environment is provisioning, the
// function runs again at an eighth of the time since the composition last
// grew (the XR's or a not-Ready resource's creation), between 0.5s and 10s,
// so a resource that turns Ready is reported soon although Crossplane's
// circuit breaker may drop its event.
func TestProvisioningRequeue(t *testing.T) {
	at := func(d time.Duration) string { return t0.Add(-d).Format(time.RFC3339) }
	cases := map[string]struct {
		reason  string
		created string
		changed string // the not-Ready app's creation
		want    time.Duration
	}{
		"Unknown":   {reason: "no times: the 10s of before", want: phaseRequeue},
		"JustMade":  {reason: "a project made 2s ago runs again in 0.5s", created: at(2 * time.Second), want: minRequeue},
		"AppReady":  {reason: "an application made 6s ago, not Ready: in 0.75s", created: at(time.Hour), changed: at(6 * time.Second), want: 750 * time.Millisecond},
		"AppSyncs":  {reason: "an application made 16s ago, not Ready: in 2s", created: at(time.Hour), changed: at(16 * time.Second), want: 2 * time.Second},
		"LongStuck": {reason: "made an hour ago and not Ready: every 10s", created: at(2 * time.Hour), changed: at(time.Hour), want: phaseRequeue},
		"Future":    {reason: "a creation time in the future (a skewed clock) changes nothing", created: at(-time.Hour), want: phaseRequeue},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			x := xr()
			if tc.created != "" {
				x["metadata"].(map[string]any)["creationTimestamp"] = tc.created
			}
			obs := allObserved(true, "prod", "pr-7")
			// Not Ready; its Ready condition changed just now (a new
			// message every poll), which must not matter.
			obs["prod-app"]["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "False", "lastTransitionTime": at(0)}}}
			if tc.changed != "" {
				obs["prod-app"]["metadata"] = map[string]any{"name": "x", "creationTimestamp": tc.changed}
			}
			rsp := run(t, t0, newRequest(t, x, obs, nil))
			if got := rsp.GetMeta().GetTtl().AsDuration(); got != tc.want {
				t.Errorf("%s: ttl %s, want %s", tc.reason, got, tc.want)
			}
		})
	}
}

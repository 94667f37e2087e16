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

	"github.com/alecthomas/kingpin/v2"
)

func TestFlagsValidate(t *testing.T) {
	cases := map[string]struct {
		reason string
		args   []string
		want   string // substring of the error; empty means valid
	}{
		"Defaults":            {reason: "the defaults are valid", args: nil},
		"PollTooShort":        {reason: "a sub-second poll would hammer every backend", args: []string{"--poll=10ms"}, want: "--poll must be at least 1s"},
		"SyncShorterThanPoll": {reason: "a resync shorter than the poll makes the poll meaningless", args: []string{"--poll=10m", "--sync=1m"}, want: "--sync (1m0s) must not be shorter than --poll (10m0s)"},
		"RateZero":            {reason: "a zero rate would stop every reconcile", args: []string{"--max-reconcile-rate=0"}, want: "--max-reconcile-rate must be between 1 and 1000"},
		"BadMetricsAddr":      {reason: "a port without a colon is a common typo", args: []string{"--metrics-bind-address=8080"}, want: "--metrics-bind-address must be host:port"},
		"MetricsDisabled":     {reason: "0 disables metrics", args: []string{"--metrics-bind-address=0"}},
		"BadHealthAddr":       {reason: "probes cannot be disabled", args: []string{"--health-probe-bind-address=0"}, want: "--health-probe-bind-address must be host:port"},
		"EventsTwoBrokers":    {reason: "one broker only", args: []string{"--events-secret=a/b", "--events-provider-config=c"}, want: "set one of --events-secret and --events-provider-config"},
		"EventsSecretNoNS":    {reason: "the Secret needs its namespace", args: []string{"--events-secret=rabbit"}, want: "--events-secret must be namespace/name"},
		"EventsHeartbeat":     {reason: "sub-second heartbeats flood the broker", args: []string{"--events-heartbeat=10ms"}, want: "--events-heartbeat must be at least 1s"},
		"EventsOutboxZero":    {reason: "an outbox must hold something", args: []string{"--events-outbox=0"}, want: "--events-outbox must be between 1 and 1000000"},
		"EventsPrefetch":      {reason: "prefetch is bounded", args: []string{"--events-deploy-prefetch=0"}, want: "--events-deploy-prefetch must be between 1 and 1000"},
		"DeploySameExchange":  {reason: "requests need their own exchange", args: []string{"--events-deploy-exchange=devops.events"}, want: "--events-deploy-exchange must differ from --events-exchange"},
		"PerPublisherOver":    {reason: "one publisher cannot hold more than all", args: []string{"--events-deploy-prefetch=8", "--events-deploy-per-publisher=9"}, want: "--events-deploy-per-publisher must be between 1 and --events-deploy-prefetch (8), got 9"},
		"DeployMaxLenZero":    {reason: "a queue must hold something", args: []string{"--events-deploy-max-length=0"}, want: "--events-deploy-max-length must be between"},
		"EventsSecretOK":      {reason: "a namespaced Secret enables events", args: []string{"--events-secret=crossplane-system/rabbitmq"}},
		"LegacyOK": {reason: "the operator's queue, its table and its heartbeats", args: []string{"--events-secret=crossplane-system/rabbitmq", "--events-format=legacy",
			"--events-legacy-queue=devops.reconciler", "--events-legacy-binding=DevOpsReconcile", "--events-legacy-projects=crossplane-system/operator-projects"}},
		"LegacyNoTable":      {reason: "an operator project id is mapped by the platform's table only", args: []string{"--events-format=both", "--events-legacy-queue=devops.reconciler"}, want: "--events-legacy-projects must name the ConfigMap"},
		"LegacyCloudEvents":  {reason: "the UI reads its own heartbeats", args: []string{"--events-legacy-queue=devops.reconciler", "--events-legacy-projects=crossplane-system/p"}, want: "--events-legacy-queue needs --events-format=legacy or both"},
		"LegacySameQueue":    {reason: "the operator's shape is not the provider's", args: []string{"--events-format=legacy", "--events-legacy-queue=devops.deploy-requests", "--events-legacy-projects=a/b"}, want: "--events-legacy-queue must differ from --events-deploy-queue"},
		"LegacyUnderDeploy":  {reason: "the deploy queue's user and dead-letter queues are named under it", args: []string{"--events-format=legacy", "--events-legacy-queue=devops.deploy-requests.user.ui", "--events-legacy-projects=a/b"}, want: "is under --events-deploy-queue's names"},
		"LegacyUserBinding":  {reason: "the users' own routing keys are theirs", args: []string{"--events-format=legacy", "--events-legacy-queue=q", "--events-legacy-projects=a/b", "--events-legacy-binding=user.ui.#"}, want: "would take the requests of the users' own queues"},
		"LegacyFlagsNoQueue": {reason: "a table without a queue does nothing", args: []string{"--events-legacy-projects=a/b"}, want: "need --events-legacy-queue"},
		"OwnerIDComma":       {reason: "',' separates the ownership record's fields", args: []string{"--owner-id=a,resource=x"}, want: "--owner-id must be 1-63 letters"},
		"OwnerIDEmpty":       {reason: "an empty id would match no record", args: []string{"--owner-id="}, want: "--owner-id must be 1-63 letters"},
		"OwnerIDOK":          {reason: "a control plane's name", args: []string{"--owner-id=prod-eu.1"}},
		"LeaseTooShort":      {reason: "a lease shorter than a loaded API server's answer is lost", args: []string{"--leader-election-lease-duration=2s"}, want: "--leader-election-lease-duration must be between 10s and 10m"},
		"LeaseOK":            {reason: "a quicker takeover", args: []string{"--leader-election-lease-duration=15s"}},
		"BadStateMetric":     {reason: "state metrics need a sane interval", args: []string{"--poll-state-metric=1ms"}, want: "--poll-state-metric must be at least 1s"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			app := kingpin.New("provider", "")
			f := registerFlags(app)
			if _, err := app.Parse(tc.args); err != nil {
				t.Fatalf("parse: %v", err)
			}
			err := f.validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%s: unexpected error %v", tc.reason, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("%s: want error containing %q, got %v", tc.reason, tc.want, err)
			}
		})
	}
}

// TestRenewDeadline: controller-runtime needs lease > renew deadline >
// 1.2 × its 2s retry period; a standby gets at least 4s to take over.
func TestRenewDeadline(t *testing.T) {
	for lease, want := range map[time.Duration]time.Duration{60 * time.Second: 50 * time.Second, 15 * time.Second: 11 * time.Second, 10 * time.Second: 6 * time.Second, 10 * time.Minute: 500 * time.Second} {
		got := renewDeadline(lease)
		if got != want || got <= 2400*time.Millisecond || got >= lease {
			t.Errorf("renewDeadline(%s) = %s, want %s", lease, got, want)
		}
	}
}

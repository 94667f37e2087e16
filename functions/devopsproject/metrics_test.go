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
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
)

// TestEnvironmentMetrics runs two projects through the function: shop,
// with production Ready and its preview pr-7 expired, and web, in another
// namespace, with only production. The gauges sum them by namespace, and
// forget a project not run for 15 minutes.
func TestEnvironmentMetrics(t *testing.T) {
	now := expires.Add(30 * time.Minute)
	clock := now
	m := newEnvironmentMetrics(func() time.Time { return clock })
	f := &Function{now: func() time.Time { return now }, metrics: m}

	shop := newRequest(t, xr(withStatus(prodReady(), prStatus("Expired"))), allObserved(true, "prod"), nil)
	w := xr(withStatus(prodReady()), withSpec(func(s map[string]any) { s["environments"] = s["environments"].([]any)[:1] }))
	w["metadata"] = map[string]any{"name": "web", "namespace": "team-web"}
	web := newRequest(t, w, allObserved(true, "prod"), nil)
	for _, req := range []*fnv1.RunFunctionRequest{shop, web} {
		if _, err := f.RunFunction(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	want := `
# HELP function_devopsproject_environments Environments of the projects run in the last 15 minutes, by namespace and phase (Provisioning, Ready, ExpiringSoon, Expiring, Expired).
# TYPE function_devopsproject_environments gauge
function_devopsproject_environments{namespace="team-shop",phase="Expired"} 1
function_devopsproject_environments{namespace="team-shop",phase="Expiring"} 0
function_devopsproject_environments{namespace="team-shop",phase="ExpiringSoon"} 0
function_devopsproject_environments{namespace="team-shop",phase="Provisioning"} 0
function_devopsproject_environments{namespace="team-shop",phase="Ready"} 1
function_devopsproject_environments{namespace="team-web",phase="Expired"} 0
function_devopsproject_environments{namespace="team-web",phase="Expiring"} 0
function_devopsproject_environments{namespace="team-web",phase="ExpiringSoon"} 0
function_devopsproject_environments{namespace="team-web",phase="Provisioning"} 0
function_devopsproject_environments{namespace="team-web",phase="Ready"} 1
`
	if err := testutil.CollectAndCompare(m, strings.NewReader(want)); err != nil {
		t.Error(err)
	}

	// Ten minutes before pr-7 expires, the namespace's next expiry is in
	// ten minutes; web, without a time-to-live, has none.
	before := expires.Add(-10 * time.Minute)
	clock = before
	g := &Function{now: func() time.Time { return before }, metrics: m}
	if _, err := g.RunFunction(context.Background(), newRequest(t, xr(withStatus(prodReady(), prStatus("Ready"))), allObserved(true, "prod", "pr-7"), nil)); err != nil {
		t.Fatal(err)
	}
	wantExpiry := `
# HELP function_devopsproject_next_expiry_seconds Seconds until the namespace's next environment with a time-to-live expires (negative: overdue, not yet seen expired); absent when none will.
# TYPE function_devopsproject_next_expiry_seconds gauge
function_devopsproject_next_expiry_seconds{namespace="team-shop"} 600
`
	if err := testutil.CollectAndCompare(m, strings.NewReader(wantExpiry), "function_devopsproject_next_expiry_seconds"); err != nil {
		t.Error(err)
	}
	clock = now

	// Neither project run again for longer than forgetAfter: forgotten.
	clock = now.Add(forgetAfter + time.Second)
	if n := testutil.CollectAndCount(m); n != 0 {
		t.Errorf("%d series of projects not run for %s, want none", n, forgetAfter)
	}
}

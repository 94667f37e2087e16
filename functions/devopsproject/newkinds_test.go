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

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
)

// TestFirstOfNewKinds: a kind the XR composes none of yet arrives one
// resource first, so Crossplane starts one watch of it (it starts one per
// reference of a kind whose informer is not running, and keeps them all);
// the rest follow at the next run, and a kind the XR already has is
// composed whole.
func TestFirstOfNewKinds(t *testing.T) {
	runReal := func(req *fnv1.RunFunctionRequest) *fnv1.RunFunctionResponse {
		t.Helper()
		return runWith(t, &Function{now: func() time.Time { return t0 }}, req)
	}
	first := runReal(newRequest(t, xr(createdAgo(5*time.Second)), nil, nil))
	if diff := cmp.Diff([]string{"argo-project", "pr-7-dns", "pr-7-pipeline", "registry"}, names(first)); diff != "" {
		t.Errorf("first run: one resource of each new kind, -want +got:\n%s", diff)
	}
	if got := first.GetMeta().GetTtl().AsDuration(); got != minRequeue {
		t.Errorf("first run: TTL %s, want %s: what was held back follows at once", got, minRequeue)
	}
	msg := condition(first, ConditionEnvironments).GetMessage()
	if want := "Environments being created"; !strings.Contains(msg, want) {
		t.Errorf("first run: the Environments condition %q does not say %q: what is held back is being created", msg, want)
	}

	// The first of a kind never made, the XR an hour old: the rest are
	// named as not created, and runs come as for any provisioning
	// project, not every half second.
	stuck := runReal(newRequest(t, xr(createdAgo(time.Hour)), nil, nil))
	if got := stuck.GetMeta().GetTtl().AsDuration(); got == minRequeue {
		t.Errorf("stuck: TTL %s: nothing comes of running at once", got)
	}
	if msg, want := condition(stuck, ConditionEnvironments).GetMessage(), "prod (not created: JenkinsPipeline, DNSRecord;"; !strings.Contains(msg, want) {
		t.Errorf("stuck: the Environments condition %q does not say %q", msg, want)
	}

	// The next run observes what the first composed (not Ready yet).
	obs := allObserved(false)
	obs["pr-7-pipeline"] = observed(KindPipeline, false, nil)
	obs["pr-7-dns"] = observed(KindDNS, false, nil)
	second := runReal(newRequest(t, xr(createdAgo(5*time.Second)), obs, nil))
	if diff := cmp.Diff([]string{"argo-project", "pr-7-dns", "pr-7-pipeline", "prod-dns", "prod-pipeline", "registry"}, names(second)); diff != "" {
		t.Errorf("second run: the kinds it has are composed whole, -want +got:\n%s", diff)
	}
	if got := second.GetMeta().GetTtl().AsDuration(); got == minRequeue {
		t.Errorf("second run: TTL %s: nothing was held back, no reason to come back at once", got)
	}

	// Applications: the first alone, once the AppProject is Ready.
	ready := allObserved(true, "prod", "pr-7")
	delete(ready, "prod-app")
	delete(ready, "pr-7-app")
	apps := runReal(newRequest(t, xr(createdAgo(5*time.Second)), ready, nil))
	var got []string
	for _, n := range names(apps) {
		if strings.HasSuffix(n, "-app") {
			got = append(got, n)
		}
	}
	if diff := cmp.Diff([]string{"pr-7-app"}, got); diff != "" {
		t.Errorf("applications: the first alone, -want +got:\n%s", diff)
	}
	// One observed application: every other one is composed with it.
	ready["pr-7-app"] = allObserved(false, "pr-7")["pr-7-app"]
	if n := names(runReal(newRequest(t, xr(createdAgo(5*time.Second)), ready, nil))); !strings.Contains(strings.Join(n, " "), "prod-app") {
		t.Errorf("applications with one observed: %v, want prod-app composed too", n)
	}
}

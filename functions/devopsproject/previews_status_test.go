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
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPreviewStatusIsNotTheForge: status.environments[].pullRequest is
// writable by whoever may write the project's status. While the
// ForgeRepository has not listed (not Ready: its first minutes, a forge
// refused or down) a preview there is kept as it was, but nothing the
// forge never listed is made of it: no preview with a head or branch a
// listed pull request could not have (a panic on a short head), none
// without resources, none beyond max, and no new head deployed.
func TestPreviewStatusIsNotTheForge(t *testing.T) {
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	unknown := forgeObserved(false, nil)
	pr := func(n int, ref, sha string) map[string]any {
		return map[string]any{"name": "pr-" + strconv.Itoa(n), "phase": "Ready",
			"pullRequest": map[string]any{"number": float64(n), "headRef": ref, "headSHA": sha}}
	}
	previews := func(names []string) []string {
		var out []string
		for _, n := range names {
			if strings.HasPrefix(n, "pr-") {
				out = append(out, n)
			}
		}
		return out
	}
	for name, st := range map[string]map[string]any{
		"bad branch": pr(99, "x' \"$(id)\" ]]></a>", shaA),
		"short head": pr(99, "main", "abc"),
	} {
		rsp := run(t, now, newRequest(t, xr(withPreviews(2), withStatus(prodReady(), st)), previewObserved(unknown, "pr-99"), nil))
		for _, r := range rsp.GetResults() {
			if strings.Contains(r.GetMessage(), "internal error") {
				t.Errorf("%s: %s", name, r.GetMessage())
			}
		}
		if got := previews(names(rsp)); len(got) != 0 {
			t.Errorf("%s: composed %v", name, got)
		}
	}

	// Never composed: not kept.
	rsp := run(t, now, newRequest(t, xr(withPreviews(2), withStatus(prodReady(), pr(99, "main", shaA))), previewObserved(unknown), nil))
	if got := previews(names(rsp)); len(got) != 0 {
		t.Errorf("a preview without resources was kept: %v", got)
	}

	// Composed: kept, but its head is not deployed on status's word.
	rsp = run(t, now, newRequest(t, xr(withPreviews(2), withStatus(prodReady(), pr(99, "main", shaA))), previewObserved(unknown, "pr-99"), nil))
	if got := names(rsp); !slices.Contains(got, "pr-99-pipeline") || slices.Contains(got, "pr-99-deploy-"+shaA[:12]) {
		t.Errorf("kept preview composed %v: want its job, no DeployRun", got)
	}

	// At most max of them.
	sts := []map[string]any{prodReady()}
	var envs []string
	for n := 100; n < 180; n++ {
		sts = append(sts, pr(n, "main", shaA))
		envs = append(envs, "pr-"+strconv.Itoa(n))
	}
	rsp = run(t, now, newRequest(t, xr(withPreviews(2), withStatus(sts...)), previewObserved(unknown, envs...), nil))
	if got := previews(names(rsp)); len(got) != 2*3 || !slices.Contains(got, "pr-100-pipeline") || !slices.Contains(got, "pr-101-pipeline") {
		t.Errorf("with max 2 kept %v", got)
	}
}

// TestForkPreviewKeptAtItsPull: a fork's preview kept while the forge's
// list is not known still builds refs/pull/<n>/head, not the fork's
// branch name, which in the base repository is another branch (main).
func TestForkPreviewKeptAtItsPull(t *testing.T) {
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	rsp := run(t, now, newRequest(t, xr(withPreviews(2)), previewObserved(forgeObserved(true, []pull{{12, shaA, "main", true}}), "pr-12"), nil))
	st := envStatus(t, rsp, "pr-12")
	rsp = run(t, now, newRequest(t, xr(withPreviews(2), withStatus(prodReady(), st)), previewObserved(forgeObserved(false, nil), "pr-12"), nil))
	job := resourceField(t, rsp, "pr-12-pipeline", "spec", "forProvider", "source", "scm", "branch")
	app := resourceField(t, rsp, "pr-12-app", "spec", "forProvider", "source", "targetRevision")
	if job != "refs/pull/12/head" || app != "refs/pull/12/head" {
		t.Errorf("kept fork preview: job at %v, application at %v; want refs/pull/12/head", job, app)
	}
}

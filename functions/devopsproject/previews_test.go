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
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
)

const (
	shaA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	shaB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// withPreviews turns on previews of team/shop's pull requests labelled
// preview, at most max, under previews.shop.example.com; the spec keeps
// prod only (pr-7 would be a preview's name).
func withPreviews(max int) xrOpt {
	return withSpec(func(s map[string]any) {
		s["environments"] = []any{map[string]any{"name": "prod", "domain": "shop.example.com"}}
		s["previews"] = map[string]any{"pullRequests": map[string]any{
			"repository": "team/shop", "labels": []any{"preview"}, "max": float64(max),
			"template": map[string]any{"domain": "previews.shop.example.com", "ttl": "72h"},
		}}
	})
}

type pull struct {
	number  int
	sha     string
	headRef string
	fork    bool
}

// forgeObserved is the project's ForgeRepository listing pulls, Ready or
// not, with skipped pull requests.
func forgeObserved(ready bool, pulls []pull, skipped ...int) map[string]any {
	l := make([]any, 0, len(pulls))
	for _, p := range pulls {
		l = append(l, map[string]any{"number": float64(p.number), "headSHA": p.sha, "headRef": p.headRef, "fork": p.fork,
			"url": "https://git.example.com/team/shop/pulls/" + strconv.Itoa(p.number), "author": "dev"})
	}
	s := make([]any, 0, len(skipped))
	for _, n := range skipped {
		s = append(s, map[string]any{"number": float64(n), "reason": "Max"})
	}
	o := observed(KindForgeRepo, ready, nil)
	o["apiVersion"] = "forge.devops.freeleaps.io/v1alpha1"
	o["status"].(map[string]any)["atProvider"] = map[string]any{"pullRequests": l, "skipped": s}
	return o
}

func previewObserved(forge map[string]any, envs ...string) map[string]map[string]any {
	obs := allObserved(true, append([]string{"prod"}, envs...)...)
	obs["forge-repository"] = forge
	return obs
}

func TestPreviewsFollowPullRequests(t *testing.T) {
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)

	// Before the ForgeRepository lists anything: it alone is added.
	rsp := run(t, now, newRequest(t, xr(withPreviews(2)), allObserved(true, "prod"), nil))
	if got := names(rsp); !slices.Contains(got, "forge-repository") || slices.ContainsFunc(got, func(n string) bool { return strings.HasPrefix(n, "pr-") }) {
		t.Fatalf("first run composed %v, want the forge-repository and no preview", got)
	}
	if got := resourceField(t, rsp, "forge-repository", "spec", "forProvider", "repository"); got != "team/shop" {
		t.Errorf("repository = %v", got)
	}
	if got := resourceField(t, rsp, "forge-repository", "spec", "forProvider", "pullRequests", "max"); got != 2.0 {
		t.Errorf("max = %v", got)
	}

	// Pull request 12 listed: its environment, at its branch, not syncing
	// by itself, reported pending.
	forge := forgeObserved(true, []pull{{12, shaA, "feature/cart", false}})
	obs := allObserved(true, "prod")
	obs["forge-repository"] = forge
	rsp = run(t, now, newRequest(t, xr(withPreviews(2)), obs, nil))
	for _, n := range []string{"pr-12-pipeline", "pr-12-dns"} {
		if !slices.Contains(names(rsp), n) {
			t.Fatalf("composed %v, want %s", names(rsp), n)
		}
	}
	if got := resourceField(t, rsp, "pr-12-pipeline", "spec", "forProvider", "source", "scm", "branch"); got != "feature/cart" {
		t.Errorf("job branch = %v, want the pull request's head", got)
	}
	if got := resourceField(t, rsp, "pr-12-app", "spec", "forProvider", "source", "targetRevision"); got != "feature/cart" {
		t.Errorf("app targetRevision = %v", got)
	}
	if got := resourceField(t, rsp, "pr-12-app", "spec", "forProvider", "syncPolicy", "automated"); got != nil {
		t.Errorf("a preview's application syncs by itself: %v", got)
	}
	if got := resourceField(t, rsp, "prod-app", "spec", "forProvider", "syncPolicy", "automated"); got == nil {
		t.Error("prod's application lost its automated sync")
	}
	if got := resourceField(t, rsp, "pr-12-dns", "spec", "forProvider", "name"); got != "pr-12.previews.shop" {
		t.Errorf("DNS name = %v", got)
	}
	st := envStatus(t, rsp, "pr-12")
	if pr, _ := st["pullRequest"].(map[string]any); pr["number"] != 12.0 || pr["headSHA"] != shaA {
		t.Errorf("status pullRequest = %v", st["pullRequest"])
	}
	if st["expiresAt"] != now.Add(72*time.Hour).Format(time.RFC3339) || st["deletionPolicy"] != PolicyDelete {
		t.Errorf("expiry %v, policy %v", st["expiresAt"], st["deletionPolicy"])
	}
	reports := resourceField(t, rsp, "forge-repository", "spec", "forProvider", "reports").([]any)
	if r := reports[0].(map[string]any); len(reports) != 1 || r["number"] != 12.0 || r["sha"] != shaA || r["state"] != "pending" {
		t.Errorf("reports = %v", reports)
	}
	if slices.ContainsFunc(names(rsp), func(n string) bool { return strings.Contains(n, "-deploy-") }) {
		t.Errorf("a DeployRun before the job is Ready: %v", names(rsp))
	}

	// Job Ready, application made: the head's DeployRun, Ready whatever
	// it does.
	obs = previewObserved(forge, "pr-12")
	rsp = run(t, now, newRequest(t, xr(withPreviews(2)), obs, nil))
	runName := "pr-12-deploy-" + shaA[:12]
	if got := resourceField(t, rsp, runName, "spec"); got == nil {
		t.Fatalf("no DeployRun %s in %v", runName, names(rsp))
	}
	if got := resourceField(t, rsp, runName, "spec", "revision"); got != shaA {
		t.Errorf("DeployRun revision = %v", got)
	}
	if got := resourceField(t, rsp, runName, "spec", "environment"); got != "pr-12" {
		t.Errorf("DeployRun environment = %v", got)
	}
	if rsp.GetDesired().GetResources()[runName].GetReady() != fnv1.Ready_READY_TRUE {
		t.Error("the DeployRun holds the project's readiness")
	}

	// It succeeded: success with the URL, and a comment saying so.
	d := observed(KindDeployRun, false, map[string]any{"status": map[string]any{"phase": "Succeeded"}})
	obs[runName] = d
	rsp = run(t, now, newRequest(t, xr(withPreviews(2)), obs, nil))
	r := resourceField(t, rsp, "forge-repository", "spec", "forProvider", "reports").([]any)[0].(map[string]any)
	if r["state"] != "success" || r["targetURL"] != "https://pr-12.previews.shop.example.com" || !strings.Contains(r["comment"].(string), "Live at https://pr-12.previews.shop.example.com") {
		t.Errorf("report after success = %v", r)
	}

	// Failed: failure, with the phase and where to look, never the
	// DeployRun's message (backend detail) on the forge.
	failed := observed(KindDeployRun, false, map[string]any{"status": map[string]any{"phase": "Failed", "failedPhase": "Building",
		"message": "Jenkins build #3 failed: secret-internal-host.corp refused", "build": map[string]any{"url": "https://jenkins.example.com/job/x/3/"}}})
	failed["metadata"] = map[string]any{"name": "shop." + runName}
	obs[runName] = failed
	rsp = run(t, now, newRequest(t, xr(withPreviews(2)), obs, nil))
	r = resourceField(t, rsp, "forge-repository", "spec", "forProvider", "reports").([]any)[0].(map[string]any)
	if r["state"] != "failure" || r["targetURL"] != "https://jenkins.example.com/job/x/3/" || r["description"] != "Preview of aaaaaaa failed while building" ||
		!strings.Contains(r["comment"].(string), "DeployRun `shop."+runName+"` in namespace `team-shop` says why") || strings.Contains(r["comment"].(string)+r["description"].(string), "secret-internal") {
		t.Errorf("report after a failure = %v", r)
	}

	// A new head: its DeployRun replaces the last.
	forgeB := forgeObserved(true, []pull{{12, shaB, "feature/cart", false}})
	obs = previewObserved(forgeB, "pr-12")
	obs[runName] = d
	rsp = run(t, now, newRequest(t, xr(withPreviews(2)), obs, nil))
	if got := names(rsp); slices.Contains(got, runName) || !slices.Contains(got, "pr-12-deploy-"+shaB[:12]) {
		t.Errorf("after a push composed %v", got)
	}
	if r := resourceField(t, rsp, "forge-repository", "spec", "forProvider", "reports").([]any)[0].(map[string]any); r["state"] != "pending" || r["sha"] != shaB {
		t.Errorf("report after a push = %v", r)
	}
}

func TestPreviewClosed(t *testing.T) {
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	open := map[string]any{"name": "pr-12", "phase": "Ready", "expiresAt": now.Add(48 * time.Hour).Format(time.RFC3339), "ttl": "72h0m0s", "ttlFrom": "spec",
		"pullRequest": map[string]any{"number": 12.0, "headRef": "feature/cart", "headSHA": shaA}}

	// The forge does not answer (not Ready): the preview stays.
	obs := previewObserved(forgeObserved(false, nil), "pr-12")
	rsp := run(t, now, newRequest(t, xr(withPreviews(2), withStatus(prodReady(), open)), obs, nil))
	if st := envStatus(t, rsp, "pr-12"); st["phase"] != "Ready" || st["pullRequest"].(map[string]any)["closedAt"] != nil {
		t.Errorf("with the forge's list unknown the preview became %v", st)
	}
	if !slices.Contains(names(rsp), "pr-12-app") {
		t.Errorf("composed %v", names(rsp))
	}

	// Listed no more: closed now, expired (nothing retained), its
	// resources and the report gone.
	obs = previewObserved(forgeObserved(true, nil), "pr-12")
	rsp = run(t, now, newRequest(t, xr(withPreviews(2), withStatus(prodReady(), open)), obs, nil))
	st := envStatus(t, rsp, "pr-12")
	if st["phase"] != string(PhaseExpired) || st["pullRequest"].(map[string]any)["closedAt"] != now.Format(time.RFC3339) || st["expiresAt"] != now.Format(time.RFC3339) {
		t.Errorf("closed preview status = %v", st)
	}
	if slices.ContainsFunc(names(rsp), func(n string) bool { return strings.HasPrefix(n, "pr-12") }) {
		t.Errorf("a closed preview's resources are still composed: %v", names(rsp))
	}
	if got := resourceField(t, rsp, "forge-repository", "spec", "forProvider", "reports"); got != nil {
		t.Errorf("reports for a closed pull request: %v", got)
	}

	// Once expired and gone, it leaves the status.
	closed := maps.Clone(st)
	obs = previewObserved(forgeObserved(true, nil))
	rsp = run(t, now.Add(time.Minute), newRequest(t, xr(withPreviews(2), withStatus(prodReady(), closed)), obs, nil))
	for _, e := range rsp.GetDesired().GetComposite().GetResource().AsMap()["status"].(map[string]any)["environments"].([]any) {
		if e.(map[string]any)["name"] == "pr-12" {
			t.Errorf("an expired, gone preview is still in status: %v", e)
		}
	}

	// Opened again: a new preview with a new expiry.
	obs = previewObserved(forgeObserved(true, []pull{{12, shaA, "feature/cart", false}}), "pr-12")
	rsp = run(t, now.Add(time.Minute), newRequest(t, xr(withPreviews(2), withStatus(prodReady(), closed)), obs, nil))
	if st := envStatus(t, rsp, "pr-12"); st["phase"] == string(PhaseExpired) || st["expiresAt"] != now.Add(time.Minute+72*time.Hour).Format(time.RFC3339) {
		t.Errorf("reopened preview status = %v", st)
	}
}

func TestPreviewsBounded(t *testing.T) {
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	forge := forgeObserved(true, []pull{{3, shaA, "a", false}, {4, shaA, "b", false}, {5, shaB, "c", true}}, 6)
	rsp := run(t, now, newRequest(t, xr(withPreviews(2)), previewObserved(forge), nil))
	got := names(rsp)
	if !slices.Contains(got, "pr-3-pipeline") || !slices.Contains(got, "pr-4-pipeline") || slices.Contains(got, "pr-5-pipeline") {
		t.Errorf("with max 2 composed %v", got)
	}
	c := condition(rsp, ConditionEnvironments)
	if c == nil || !strings.Contains(c.GetMessage(), "Pull requests not previewed: #6 (Max).") {
		t.Errorf("Environments condition = %v", c)
	}

	// A fork's head is built as the repository serves it.
	forge = forgeObserved(true, []pull{{5, shaB, "main", true}})
	rsp = run(t, now, newRequest(t, xr(withPreviews(2)), previewObserved(forge), nil))
	if got := resourceField(t, rsp, "pr-5-pipeline", "spec", "forProvider", "source", "scm", "branch"); got != "refs/pull/5/head" {
		t.Errorf("fork's job branch = %v", got)
	}

	// What the forge lists is held to what a job and a DeployRun take.
	forge = forgeObserved(true, []pull{{8, "not-a-sha", "a", false}, {9, shaA, "bad..ref", false}, {10, shaA, "-x", false}})
	rsp = run(t, now, newRequest(t, xr(withPreviews(2)), previewObserved(forge), nil))
	if slices.ContainsFunc(names(rsp), func(n string) bool { return strings.HasPrefix(n, "pr-") }) {
		t.Errorf("composed previews of bad heads: %v", names(rsp))
	}
}

func TestPreviewsBadInput(t *testing.T) {
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		mut  func(pr map[string]any, s map[string]any)
		want string
	}{
		"a preview's name taken": {func(_, s map[string]any) {
			s["environments"] = append(s["environments"].([]any), map[string]any{"name": "pr-3", "domain": "pr-3.shop.example.com"})
		}, "spec.environments[1].name: \"pr-3\" is a preview's name"},
		"repository with .git": {func(pr, _ map[string]any) { pr["repository"] = "team/shop.git" }, "spec.previews.pullRequests.repository"},
		"repository a URL":     {func(pr, _ map[string]any) { pr["repository"] = "https://git.example.com/team/shop" }, "spec.previews.pullRequests.repository"},
		"another repository":   {func(pr, _ map[string]any) { pr["repository"] = "team/web" }, "is not the repository spec.git.url names"},
		"max too high":         {func(pr, _ map[string]any) { pr["max"] = 21.0 }, "spec.previews.pullRequests.max"},
		"domain outside the zone": {func(pr, _ map[string]any) {
			pr["template"].(map[string]any)["domain"] = "previews.example.org"
		}, "spec.previews.pullRequests.template.domain"},
		"ttl too short": {func(pr, _ map[string]any) { pr["template"].(map[string]any)["ttl"] = "10s" }, "spec.previews.pullRequests.template.ttl"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			x := xr(withPreviews(2), withSpec(func(s map[string]any) {
				tc.mut(s["previews"].(map[string]any)["pullRequests"].(map[string]any), s)
			}))
			rsp := run(t, now, newRequest(t, x, nil, nil))
			if r := results(rsp); len(r) != 1 || !strings.HasPrefix(r[0], "SEVERITY_FATAL") || !strings.Contains(r[0], tc.want) {
				t.Errorf("results = %v, want a fatal naming %s", r, tc.want)
			}
		})
	}
}

// A preview coming up does not make the project unready; its state is in
// status.environments and the Environments condition.
func TestPreviewsDoNotHoldReadiness(t *testing.T) {
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	obs := allObserved(true, "prod")
	obs["forge-repository"] = forgeObserved(true, []pull{{12, shaA, "feature/cart", false}})
	obs["pr-12-pipeline"] = observed(KindPipeline, false, nil)
	rsp := run(t, now, newRequest(t, xr(withPreviews(2)), obs, nil))
	for _, n := range []string{"pr-12-pipeline", "pr-12-dns"} {
		if got := rsp.GetDesired().GetResources()[n].GetReady(); got != fnv1.Ready_READY_TRUE {
			t.Errorf("%s readiness %v, want READY_TRUE", n, got)
		}
	}
	if got := rsp.GetDesired().GetResources()["prod-pipeline"].GetReady(); got != fnv1.Ready_READY_TRUE {
		t.Errorf("prod-pipeline readiness %v", got)
	}
	if st := envStatus(t, rsp, "pr-12"); st["phase"] != string(PhaseProvisioning) {
		t.Errorf("pr-12 phase %v, want Provisioning", st["phase"])
	}
	if c := condition(rsp, ConditionEnvironments); c == nil || !strings.Contains(c.GetMessage(), "Provisioning: pr-12") {
		t.Errorf("Environments condition %v", c)
	}
}

func TestSameRepository(t *testing.T) {
	cases := []struct {
		url, repo string
		want      bool
	}{
		{"https://git.example.com/team/shop.git", "team/shop", true},
		{"https://git.example.com/Team/Shop", "team/shop", true},
		{"https://git.example.com/gitea/team/shop.git", "team/shop", true},
		{"git@git.example.com:team/shop.git", "team/shop", true},
		{"ssh://git@git.example.com:2222/team/shop.git", "team/shop", true},
		{"https://git.example.com/team/shop.git", "team/web", false},
		{"https://git.example.com/team/shop.git", "eam/shop", false},
		{"https://git.example.com/xteam/shop.git", "team/shop", false},
		{"git@git.example.com:other/team-shop.git", "team/shop", false},
	}
	for _, tc := range cases {
		if got := sameRepository(tc.url, tc.repo); got != tc.want {
			t.Errorf("sameRepository(%q, %q) = %t, want %t", tc.url, tc.repo, got, tc.want)
		}
	}
}

// A new environment's application waits until the ArgoProject Argo CD has
// lists its destination: created before, Argo CD refuses it and its
// creation backs off for minutes (the e2e saw two).
func TestApplicationWaitsForItsDestination(t *testing.T) {
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	project := func(generation, observedGeneration float64, namespaces ...string) map[string]any {
		d := make([]any, 0, len(namespaces))
		for _, ns := range namespaces {
			d = append(d, map[string]any{"server": "https://kubernetes.default.svc", "namespace": ns})
		}
		o := observed(KindProject, true, nil)
		o["metadata"] = map[string]any{"name": "x", "generation": generation}
		o["spec"] = map[string]any{"forProvider": map[string]any{"destinations": d}}
		o["status"] = map[string]any{"conditions": []any{
			map[string]any{"type": "Ready", "status": "True"},
			map[string]any{"type": "Synced", "status": "True", "observedGeneration": observedGeneration},
		}}
		return o
	}
	projectRefused := func(generation, observedGeneration float64, namespaces ...string) map[string]any {
		o := project(generation, observedGeneration, namespaces...)
		o["status"].(map[string]any)["conditions"].([]any)[1].(map[string]any)["status"] = "False"
		return o
	}
	obs := previewObserved(forgeObserved(true, []pull{{12, shaA, "feature/cart", false}}))
	cases := map[string]struct {
		project map[string]any
		want    bool
	}{
		"not listed yet":          {project(2, 2, "shop-prod"), false},
		"listed, not yet applied": {project(3, 2, "shop-prod", "shop-pr-12"), false},
		"listed and applied":      {project(3, 3, "shop-prod", "shop-pr-12"), true},
		// The AppProject refused (an application another environment
		// left holds it back): the application goes ahead, as it may be
		// the one to free it.
		"listed, applied, refused": {projectRefused(3, 3, "shop-prod", "shop-pr-12"), true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := maps.Clone(obs)
			o["argo-project"] = tc.project
			rsp := run(t, now, newRequest(t, xr(withPreviews(2)), o, nil))
			if got := slices.Contains(names(rsp), "pr-12-app"); got != tc.want {
				t.Errorf("pr-12-app composed %t, want %t", got, tc.want)
			}
			if c := condition(rsp, ConditionEnvironments); !tc.want && !strings.Contains(c.GetMessage(), "ArgoApplication waits for the ArgoProject to allow its destination") {
				t.Errorf("Environments condition %q", c.GetMessage())
			}
			if !slices.Contains(names(rsp), "prod-app") {
				t.Error("prod's existing application was dropped")
			}
		})
	}
}

// A project with previews is run again within previewRequeue, whatever
// its environments wait for: Crossplane's circuit breaker may drop the
// ForgeRepository's watch event.
func TestPreviewsRequeue(t *testing.T) {
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	rsp := run(t, now, newRequest(t, xr(withPreviews(2)), previewObserved(forgeObserved(true, nil)), nil))
	if got := rsp.GetMeta().GetTtl().AsDuration(); got != previewRequeue {
		t.Errorf("with previews TTL %s, want %s", got, previewRequeue)
	}
	rsp = run(t, now, newRequest(t, xr(withSpec(func(s map[string]any) {
		s["environments"] = []any{map[string]any{"name": "prod", "domain": "shop.example.com"}}
	})), allObserved(true, "prod"), nil))
	if got := rsp.GetMeta().GetTtl().AsDuration(); got != defaultPollInterval {
		t.Errorf("without previews TTL %s, want the poll interval %s", got, defaultPollInterval)
	}
}

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
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"

	xplogging "github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"

	"github.com/freeleaps/provider-devops/apis/contract"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func st(t *testing.T, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// spec is a valid project with a production environment and a preview
// environment that lives 2h and keeps its DNS record at expiry.
func spec() map[string]any {
	return map[string]any{
		"providerConfigName": "default",
		"git":                map[string]any{"url": "https://git.example.com/team/shop.git", "branch": "main"},
		"registry":           map[string]any{"namespace": "team", "name": "shop"},
		"pipeline":           map[string]any{"folder": "team/shop"},
		"dns":                map[string]any{"zone": "example.com", "target": "ingress.example.com."},
		"environments": []any{
			map[string]any{"name": "prod", "domain": "shop.example.com"},
			map[string]any{"name": "pr-7", "domain": "pr-7.shop.example.com", "ttl": "2h", "retain": []any{"DNSRecord"}},
		},
	}
}

type xrOpt func(xr map[string]any)

func withStatus(envs ...map[string]any) xrOpt {
	return func(xr map[string]any) {
		l := make([]any, len(envs))
		for i := range envs {
			l[i] = envs[i]
		}
		xr["status"] = map[string]any{"environments": l}
	}
}

// createdAgo sets the XR's creationTimestamp d before t0.
func createdAgo(d time.Duration) xrOpt {
	return func(x map[string]any) {
		x["metadata"].(map[string]any)["creationTimestamp"] = t0.Add(-d).Format(time.RFC3339)
	}
}

func withSpec(mut func(s map[string]any)) xrOpt {
	return func(xr map[string]any) { mut(xr["spec"].(map[string]any)) }
}

func withAnnotation(k, v string) xrOpt {
	return func(xr map[string]any) {
		xr["metadata"].(map[string]any)["annotations"] = map[string]any{k: v}
	}
}

func xr(opts ...xrOpt) map[string]any {
	x := map[string]any{
		"apiVersion": "platform.freeleaps.io/v1alpha1", "kind": "DevOpsProject",
		"metadata": map[string]any{"name": "shop", "namespace": "team-shop"},
		"spec":     spec(),
	}
	for _, o := range opts {
		o(x)
	}
	return x
}

// observed is a composed resource as Crossplane would show it.
func observed(kind string, ready bool, extra map[string]any) map[string]any {
	o := map[string]any{"apiVersion": apiVersionOf[kind], "kind": kind, "metadata": map[string]any{"name": "x"}, "spec": map[string]any{}}
	status := "False"
	if ready {
		status = "True"
	}
	o["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": status}}}
	for k, v := range extra {
		o[k] = v
	}
	return o
}

func allObserved(ready bool, envs ...string) map[string]map[string]any {
	out := map[string]map[string]any{"registry": observed(KindRegistry, ready, nil), "argo-project": observed(KindProject, ready, nil)}
	for _, e := range envs {
		out[e+"-pipeline"] = observed(KindPipeline, ready, map[string]any{"status": map[string]any{
			"conditions": []any{map[string]any{"type": "Ready", "status": map[bool]string{true: "True", false: "False"}[ready]}},
			"atProvider": map[string]any{"url": "https://jenkins.example.com/job/team/job/shop/job/" + e + "/", "lastBuild": map[string]any{"number": 3.0, "result": "SUCCESS"}},
		}})
		out[e+"-app"] = observed(KindApp, ready, map[string]any{"status": map[string]any{
			"conditions": []any{map[string]any{"type": "Ready", "status": map[bool]string{true: "True", false: "False"}[ready]}},
			"atProvider": map[string]any{"syncStatus": "Synced", "healthStatus": "Healthy"},
		}})
		out[e+"-dns"] = observed(KindDNS, ready, map[string]any{"status": map[string]any{
			"conditions": []any{map[string]any{"type": "Ready", "status": map[bool]string{true: "True", false: "False"}[ready]}},
			"atProvider": map[string]any{"fqdn": domainOf(e) + "."},
		}})
	}
	return out
}

// domainOf is an environment's domain in xr() and in the tests' lists of
// environments.
func domainOf(env string) string {
	if env == "prod" {
		return "shop.example.com"
	}
	return env + ".shop.example.com"
}

func newRequest(t *testing.T, x map[string]any, obs map[string]map[string]any, input map[string]any) *fnv1.RunFunctionRequest {
	t.Helper()
	req := &fnv1.RunFunctionRequest{Observed: &fnv1.State{Composite: &fnv1.Resource{Resource: st(t, x)}, Resources: map[string]*fnv1.Resource{}}}
	for n, o := range obs {
		req.Observed.Resources[n] = &fnv1.Resource{Resource: st(t, o)}
	}
	if input != nil {
		input["apiVersion"], input["kind"] = "devopsproject.fn.freeleaps.io/v1beta1", "Input"
		req.Input = st(t, input)
	}
	return req
}

func run(t *testing.T, now time.Time, req *fnv1.RunFunctionRequest) *fnv1.RunFunctionResponse {
	t.Helper()
	return runWith(t, &Function{now: func() time.Time { return now }, composeWhole: true}, req)
}

// runWith runs f on req, failing the test on an error.
func runWith(t *testing.T, f *Function, req *fnv1.RunFunctionRequest) *fnv1.RunFunctionResponse {
	t.Helper()
	rsp, err := f.RunFunction(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return rsp
}

func names(rsp *fnv1.RunFunctionResponse) []string {
	var out []string
	for n := range rsp.GetDesired().GetResources() {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func envStatus(t *testing.T, rsp *fnv1.RunFunctionResponse, env string) map[string]any {
	t.Helper()
	for _, e := range rsp.GetDesired().GetComposite().GetResource().AsMap()["status"].(map[string]any)["environments"].([]any) {
		if m := e.(map[string]any); m["name"] == env {
			return m
		}
	}
	t.Fatalf("no status for environment %s", env)
	return nil
}

func results(rsp *fnv1.RunFunctionResponse) []string {
	var out []string
	for _, r := range rsp.GetResults() {
		out = append(out, r.GetSeverity().String()+" "+r.GetReason()+": "+r.GetMessage())
	}
	sort.Strings(out)
	return out
}

func resourceField(t *testing.T, rsp *fnv1.RunFunctionResponse, name string, path ...string) any {
	t.Helper()
	r, ok := rsp.GetDesired().GetResources()[name]
	if !ok {
		t.Fatalf("no desired resource %s", name)
	}
	var v any = r.GetResource().AsMap()
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

var envResources = func(env string) []string {
	return []string{env + "-app", env + "-dns", env + "-pipeline"}
}

// waiting is what is composed before the AppProject is observed Ready:
// everything but the applications.
func waiting(envs ...string) []string {
	out := []string{"argo-project", "registry"}
	for _, e := range envs {
		out = append(out, e+"-dns", e+"-pipeline")
	}
	sort.Strings(out)
	return out
}

// projectReady is the observed state once the AppProject is Ready.
func projectReady() map[string]map[string]any {
	return map[string]map[string]any{"argo-project": observed(KindProject, true, nil)}
}

func want(envs ...string) []string {
	out := []string{"argo-project", "registry"}
	for _, e := range envs {
		out = append(out, envResources(e)...)
	}
	sort.Strings(out)
	return out
}

func TestFirstRun(t *testing.T) {
	rsp := run(t, t0, newRequest(t, xr(), nil, nil))
	if len(rsp.GetResults()) > 0 && rsp.GetResults()[0].GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
		t.Fatalf("fatal: %v", rsp.GetResults())
	}
	if diff := cmp.Diff(waiting("pr-7", "prod"), names(rsp)); diff != "" {
		t.Errorf("first run: the applications wait for their AppProject; desired resources -want +got:\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"name": "pr-7", "phase": "Provisioning", "url": "https://pr-7.shop.example.com", "expiresAt": "2026-11-22T14:00:00Z", "ttl": "2h0m0s", "ttlFrom": "spec", "deletionPolicy": "Delete"}, envStatus(t, rsp, "pr-7")); diff != "" {
		t.Errorf("pr-7 status -want +got:\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"name": "prod", "phase": "Provisioning", "url": "https://shop.example.com", "deletionPolicy": "Orphan"}, envStatus(t, rsp, "prod")); diff != "" {
		t.Errorf("prod never expires -want +got:\n%s", diff)
	}
	if diff := cmp.Diff(durationpb.New(phaseRequeue), rsp.GetMeta().GetTtl(), protocmp.Transform()); diff != "" {
		t.Errorf("response TTL: soon, while environments are provisioning:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"SEVERITY_NORMAL Provisioning: environment pr-7 is being provisioned", "SEVERITY_NORMAL Provisioning: environment prod is being provisioned"}, results(rsp)); diff != "" {
		t.Errorf("results -want +got:\n%s", diff)
	}
	for n, r := range rsp.GetDesired().GetResources() {
		if r.GetReady() == fnv1.Ready_READY_TRUE {
			t.Errorf("%s is ready before anything was observed", n)
		}
	}

	// The AppProject Ready: the applications follow.
	rsp = run(t, t0, newRequest(t, xr(), projectReady(), nil))
	if diff := cmp.Diff(want("pr-7", "prod"), names(rsp)); diff != "" {
		t.Errorf("AppProject Ready: desired resources -want +got:\n%s", diff)
	}
	checks := map[string]struct {
		name string
		path []string
		want any
	}{
		"JobPath":      {"pr-7-pipeline", []string{"spec", "forProvider", "folder"}, "team/shop"},
		"JobName":      {"pr-7-pipeline", []string{"spec", "forProvider", "name"}, "pr-7"},
		"AppName":      {"pr-7-app", []string{"metadata", "annotations", "crossplane.io/external-name"}, "team-shop.shop.pr-7"},
		"AppPath":      {"pr-7-app", []string{"spec", "forProvider", "source", "path"}, "deploy/pr-7"},
		"AppNamespace": {"pr-7-app", []string{"spec", "forProvider", "destination", "namespace"}, "shop-pr-7"},
		"AppProject":   {"pr-7-app", []string{"spec", "forProvider", "project"}, "team-shop.shop"},
		"NoCreateNS":   {"pr-7-app", []string{"spec", "forProvider", "syncPolicy", "syncOptions"}, nil},
		"ProjectName":  {"argo-project", []string{"metadata", "annotations", "crossplane.io/external-name"}, "team-shop.shop"},
		"ProjectRepos": {"argo-project", []string{"spec", "forProvider", "sourceRepos"}, []any{"https://git.example.com/team/shop.git"}},
		"ProjectDests": {"argo-project", []string{"spec", "forProvider", "destinations"}, []any{
			map[string]any{"server": "https://kubernetes.default.svc", "namespace": "shop-prod"},
			map[string]any{"server": "https://kubernetes.default.svc", "namespace": "shop-pr-7"},
		}},
		"ProjectNoClusterKinds": {"argo-project", []string{"spec", "forProvider", "clusterResourceWhitelist"}, nil},
		"DNSName":               {"pr-7-dns", []string{"spec", "forProvider", "name"}, "pr-7.shop"},
		"DNSType":               {"pr-7-dns", []string{"spec", "forProvider", "type"}, "CNAME"},
		"DNSTTL":                {"pr-7-dns", []string{"spec", "forProvider", "ttl"}, 300.0},
		"Visibility":            {"registry", []string{"spec", "forProvider", "visibility"}, "private"},
		"Config":                {"prod-app", []string{"spec", "providerConfigRef", "name"}, "default"},
		"contract.LabelProject": {"prod-dns", []string{"metadata", "labels", contract.LabelProject}, "shop"},
		"LabelEnv":              {"prod-dns", []string{"metadata", "labels", contract.LabelEnvironment}, "prod"},
		"NoPolicies":            {"pr-7-dns", []string{"spec", "managementPolicies"}, nil},
		"NamespaceFree":         {"prod-app", []string{"metadata", "namespace"}, nil},
		// The provider deletes an environment's resources in the
		// teardown order, and the AppProject after the applications.
		"AppAfterDNS":       {"prod-app", []string{"metadata", "annotations", contract.AnnotationDeleteAfter}, "DNSRecord"},
		"PipelineAfterApp":  {"prod-pipeline", []string{"metadata", "annotations", contract.AnnotationDeleteAfter}, "ArgoApplication"},
		"DNSFirst":          {"prod-dns", []string{"metadata", "annotations", contract.AnnotationDeleteAfter}, nil},
		"ProjectAfterApps":  {"argo-project", []string{"metadata", "annotations", contract.AnnotationDeleteAfter}, "ArgoApplication"},
		"RegistryUnordered": {"registry", []string{"metadata", "annotations", contract.AnnotationDeleteAfter}, nil},
	}
	for name, c := range checks {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, resourceField(t, rsp, c.name, c.path...)); diff != "" {
				t.Errorf("%s %v -want +got:\n%s", c.name, c.path, diff)
			}
		})
	}
}

func TestReadiness(t *testing.T) {
	prev := withStatus(map[string]any{"name": "prod", "phase": "Provisioning"}, map[string]any{"name": "pr-7", "phase": "Provisioning", "expiresAt": "2026-11-22T14:00:00Z", "ttl": "2h0m0s"})
	rsp := run(t, t0, newRequest(t, xr(prev), allObserved(true, "prod", "pr-7"), nil))
	for _, n := range []string{"registry", "argo-project", "prod-pipeline", "prod-app", "prod-dns"} {
		if r := rsp.GetDesired().GetResources()[n]; r.GetReady() != fnv1.Ready_READY_TRUE {
			t.Errorf("%s: observed Ready, desired readiness %v", n, r.GetReady())
		}
	}
	wantProd := map[string]any{"name": "prod", "phase": "Ready", "url": "https://shop.example.com", "pipelineURL": "https://jenkins.example.com/job/team/job/shop/job/prod/", "lastBuild": "#3 SUCCESS", "sync": "Synced", "health": "Healthy", "deletionPolicy": "Orphan"}
	if diff := cmp.Diff(wantProd, envStatus(t, rsp, "prod")); diff != "" {
		t.Errorf("prod status -want +got:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"SEVERITY_NORMAL Ready: environment pr-7 is Ready at https://pr-7.shop.example.com", "SEVERITY_NORMAL Ready: environment prod is Ready at https://shop.example.com"}, results(rsp)); diff != "" {
		t.Errorf("a phase change is reported once -want +got:\n%s", diff)
	}

	again := withStatus(envStatus(t, rsp, "prod"), envStatus(t, rsp, "pr-7"))
	rsp = run(t, t0.Add(time.Minute), newRequest(t, xr(again), allObserved(true, "prod", "pr-7"), nil))
	if r := results(rsp); len(r) != 0 {
		t.Errorf("nothing changed, nothing to report: %v", r)
	}

	// An observed resource without status (a transient read) is kept.
	obs := allObserved(true, "prod", "pr-7")
	delete(obs["prod-app"], "status")
	rsp = run(t, t0.Add(2*time.Minute), newRequest(t, xr(again), obs, nil))
	if diff := cmp.Diff(want("pr-7", "prod"), names(rsp)); diff != "" {
		t.Errorf("a resource without status must not be dropped -want +got:\n%s", diff)
	}
	if p := envStatus(t, rsp, "prod")["phase"]; p != "Provisioning" {
		t.Errorf("prod without a Ready app: %v", p)
	}
}

// An input that does not decode is refused, naming it, rather than being
// silently replaced by the defaults.
func TestUndecodableInputIsFatal(t *testing.T) {
	rsp := run(t, t0, newRequest(t, xr(), nil, map[string]any{"registryVisibility": 5}))
	r := rsp.GetResults()
	if len(r) != 1 || r[0].GetSeverity() != fnv1.Severity_SEVERITY_FATAL || !strings.Contains(r[0].GetMessage(), "cannot read the function input") {
		t.Fatalf("want one fatal result naming the input, got %v", r)
	}
	if len(rsp.GetDesired().GetResources()) != 0 {
		t.Errorf("resources composed despite a bad input: %v", names(rsp))
	}
}

// The Composition's input decides which cluster-scoped kinds a project's
// applications may create; Namespace among them turns CreateNamespace on.
func TestArgoCDClusterResources(t *testing.T) {
	rsp := run(t, t0, newRequest(t, xr(), projectReady(), map[string]any{"argoCDClusterResources": []any{map[string]any{"group": "", "kind": "Namespace"}}}))
	if diff := cmp.Diff([]any{map[string]any{"group": "", "kind": "Namespace"}}, resourceField(t, rsp, "argo-project", "spec", "forProvider", "clusterResourceWhitelist")); diff != "" {
		t.Errorf("clusterResourceWhitelist -want +got:\n%s", diff)
	}
	if diff := cmp.Diff([]any{"CreateNamespace=true"}, resourceField(t, rsp, "prod-app", "spec", "forProvider", "syncPolicy", "syncOptions")); diff != "" {
		t.Errorf("syncOptions -want +got:\n%s", diff)
	}
}

// A private repository gets an ArgoRepository for the project's AppProject,
// and the applications wait for both to be Ready: Argo CD refuses an
// application it cannot render. Applications that exist stay, whatever
// happens to the project or repository.
func TestArgoRepository(t *testing.T) {
	private := withSpec(func(s map[string]any) {
		s["git"].(map[string]any)["credentialsSecretRef"] = map[string]any{"name": "git-credentials"}
	})
	cases := map[string]struct {
		reason   string
		x        map[string]any
		observed map[string]map[string]any
		want     []string
	}{
		"Public": {
			reason: "Without credentials no repository is registered.",
			x:      xr(), observed: projectReady(),
			want: want("pr-7", "prod"),
		},
		"PrivateFirstRun": {
			reason: "The repository waits for the project's ArgoProject to hold the AppProject (never credentials into a project someone else made first); applications wait.",
			x:      xr(private),
			want:   waiting("pr-7", "prod"),
		},
		"PrivateProjectNotReady": {
			reason: "The ArgoProject observed but not Ready (the name taken by another namespace, say): still no repository.",
			x:      xr(private), observed: map[string]map[string]any{"argo-project": observed(KindProject, false, nil)},
			want: waiting("pr-7", "prod"),
		},
		"PrivateRepositoryStays": {
			reason: "A repository composed before stays whatever the project does.",
			x:      xr(private), observed: map[string]map[string]any{"argo-project": observed(KindProject, false, nil), "argo-repository": observed(KindRepo, true, nil)},
			want: append(waiting("pr-7", "prod"), "argo-repository"),
		},
		"PrivateProjectReady": {
			reason: "The project Ready but the repository not (wrong credentials, say): applications still wait.",
			x:      xr(private), observed: map[string]map[string]any{"argo-project": observed(KindProject, true, nil), "argo-repository": observed(KindRepo, false, nil)},
			want: append(waiting("pr-7", "prod"), "argo-repository"),
		},
		"PrivateReady": {
			reason: "Both Ready: applications follow.",
			x:      xr(private), observed: map[string]map[string]any{"argo-project": observed(KindProject, true, nil), "argo-repository": observed(KindRepo, true, nil)},
			want: append(want("pr-7", "prod"), "argo-repository"),
		},
		"ExistingAppsStay": {
			reason: "An application that exists is never dropped because the repository is not Ready; the pipelines Ready, their credential follows.",
			x:      xr(private), observed: func() map[string]map[string]any {
				o := allObserved(true, "prod", "pr-7")
				o["argo-repository"] = observed(KindRepo, false, nil)
				return o
			}(),
			want: append(want("pr-7", "prod"), "argo-repository", "jenkins-credential"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, t0, newRequest(t, tc.x, tc.observed, nil))
			sort.Strings(tc.want)
			if diff := cmp.Diff(tc.want, names(rsp)); diff != "" {
				t.Errorf("%s\ndesired resources -want +got:\n%s", tc.reason, diff)
			}
		})
	}
	rsp := run(t, t0, newRequest(t, xr(private), projectReady(), nil))
	for field, wantV := range map[string]any{
		"url":                       "https://git.example.com/team/shop.git",
		"project":                   "team-shop.shop",
		"credentialsSecretRef.name": "git-credentials",
	} {
		if got := resourceField(t, rsp, "argo-repository", append([]string{"spec", "forProvider"}, strings.Split(field, ".")...)...); got != wantV {
			t.Errorf("argo-repository spec.forProvider.%s: want %v, got %v", field, wantV, got)
		}
	}
}

func TestJenkinsCredential(t *testing.T) {
	git := func(g map[string]any) xrOpt {
		return withSpec(func(s map[string]any) {
			for k, v := range g {
				s["git"].(map[string]any)[k] = v
			}
		})
	}
	secret := map[string]any{"name": "git-credentials"}
	pipelineReady := map[string]map[string]any{"prod-pipeline": observed(KindPipeline, true, nil)}
	cases := map[string]struct {
		reason   string
		x        map[string]any
		observed map[string]map[string]any
		// want is the JenkinsCredential's spec.forProvider; nil for none.
		want map[string]any
		// checkout is the pipelines' credentialsId.
		checkout any
	}{
		"Public": {
			reason: "A public repository needs no credential.",
			x:      xr(), observed: pipelineReady,
		},
		"WaitsForFolder": {
			reason:   "The credential waits until a pipeline, which creates the folder, is Ready; the pipelines already name it.",
			x:        xr(git(map[string]any{"credentialsSecretRef": secret})),
			checkout: "team-shop--shop-git",
		},
		"HTTPS": {
			reason: "An https repository's Secret is a username and password, put into the pipelines' folder under a deterministic id the pipelines check out with.",
			x:      xr(git(map[string]any{"credentialsSecretRef": secret})), observed: pipelineReady,
			want: map[string]any{
				"folder": "team/shop", "id": "team-shop--shop-git", "type": "usernamePassword",
				"description": "Checks out the repository of shop (DevOpsProject).", "secretRef": map[string]any{"name": "git-credentials"},
			},
			checkout: "team-shop--shop-git",
		},
		"SSH": {
			reason: "An SSH repository's Secret is Argo CD's sshPrivateKey, with the URL's user.",
			x:      xr(git(map[string]any{"credentialsSecretRef": secret, "url": "ssh://gitea@git.example.com/team/shop.git"})), observed: pipelineReady,
			want: map[string]any{
				"folder": "team/shop", "id": "team-shop--shop-git", "type": "sshPrivateKey", "username": "gitea",
				"description": "Checks out the repository of shop (DevOpsProject).", "secretRef": map[string]any{"name": "git-credentials", "privateKeyKey": "sshPrivateKey"},
			},
			checkout: "team-shop--shop-git",
		},
		"JenkinsIDGiven": {
			reason: "spec.git.jenkinsCredentialsId names a credential someone else manages: none is composed, the pipelines use it.",
			x:      xr(git(map[string]any{"credentialsSecretRef": secret, "jenkinsCredentialsId": "shared-git"})), observed: pipelineReady,
			checkout: "shared-git",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, t0, newRequest(t, tc.x, tc.observed, nil))
			_, composed := rsp.GetDesired().GetResources()["jenkins-credential"]
			if composed != (tc.want != nil) {
				t.Fatalf("%s\njenkins-credential composed: %v, want %v", tc.reason, composed, tc.want != nil)
			}
			if tc.want != nil {
				if diff := cmp.Diff(tc.want, resourceField(t, rsp, "jenkins-credential", "spec", "forProvider")); diff != "" {
					t.Errorf("%s\nspec.forProvider -want +got:\n%s", tc.reason, diff)
				}
			}
			if got := resourceField(t, rsp, "prod-pipeline", "spec", "forProvider", "source", "scm", "credentialsId"); got != tc.checkout {
				t.Errorf("%s\nthe pipeline's credentialsId: %v, want %v", tc.reason, got, tc.checkout)
			}
		})
	}
}

func TestSSHUser(t *testing.T) {
	cases := map[string]struct {
		url  string
		user string
		ssh  bool
	}{
		"SCPLike":      {url: "git@git.example.com:team/shop.git", user: "git", ssh: true},
		"SCPOtherUser": {url: "deploy@git.example.com:team/shop.git", user: "deploy", ssh: true},
		"SSHURL":       {url: "ssh://gitea@git.example.com:2222/team/shop.git", user: "gitea", ssh: true},
		"SSHNoUser":    {url: "ssh://git.example.com/team/shop.git", user: "git", ssh: true},
		"HTTPS":        {url: "https://git.example.com/team/shop.git"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			user, ssh := sshUser(tc.url)
			if user != tc.user || ssh != tc.ssh {
				t.Errorf("sshUser(%q): %q, %v; want %q, %v", tc.url, user, ssh, tc.user, tc.ssh)
			}
		})
	}
}

// A URL with a user or password is refused without echoing it.
func TestGitURLWithCredentials(t *testing.T) {
	rsp := run(t, t0, newRequest(t, xr(withSpec(func(s map[string]any) {
		s["git"].(map[string]any)["url"] = "https://ci:hunter2@git.example.com/team/shop.git"
	})), nil, nil))
	r := rsp.GetResults()
	if len(r) != 1 || r[0].GetSeverity() != fnv1.Severity_SEVERITY_FATAL || !strings.Contains(r[0].GetMessage(), "spec.git.url: must not carry a user or password") {
		t.Fatalf("want one fatal result naming spec.git.url, got %v", r)
	}
	if strings.Contains(r[0].GetMessage(), "hunter2") {
		t.Errorf("the password was echoed: %s", r[0].GetMessage())
	}
}

// Production outlives spec edits: an environment without a ttl, the
// registry and (while such an environment exists) the AppProject and
// repository are composed without the Delete management policy, so
// removing them from the spec or deleting the project orphans their
// external objects. deletionPolicy: Delete opts in.
func TestDeletionPolicy(t *testing.T) {
	policies := func(rsp *fnv1.RunFunctionResponse, name string) any {
		return resourceField(t, rsp, name, "spec", "managementPolicies")
	}
	keep := []any{"Observe", "Create", "Update", "LateInitialize"}
	private := func(s map[string]any) {
		s["git"].(map[string]any)["credentialsSecretRef"] = map[string]any{"name": "git"}
	}
	t.Run("Defaults", func(t *testing.T) {
		rsp := run(t, t0, newRequest(t, xr(withSpec(private)), map[string]map[string]any{"argo-project": observed(KindProject, true, nil), "argo-repository": observed(KindRepo, true, nil)}, nil))
		for _, n := range []string{"prod-app", "prod-pipeline", "prod-dns", "registry", "argo-project", "argo-repository"} {
			if diff := cmp.Diff(keep, policies(rsp, n)); diff != "" {
				t.Errorf("%s must be orphaned, not deleted, by default -want +got:\n%s", n, diff)
			}
		}
		for _, n := range []string{"pr-7-app", "pr-7-pipeline", "pr-7-dns"} {
			if p := policies(rsp, n); p != nil {
				t.Errorf("%s has a ttl: it is deleted at expiry, got policies %v", n, p)
			}
		}
		if p := envStatus(t, rsp, "prod")["deletionPolicy"]; p != "Orphan" {
			t.Errorf("status says prod is orphaned: %v", p)
		}
	})
	t.Run("RemovedStaysRecorded", func(t *testing.T) {
		// prod (Orphan) leaves the spec: its application, still observed,
		// is orphaned and keeps syncing, so the AppProject keeps prod's
		// destination and the project and credentials stay orphaned; on
		// later runs (the application no longer observed) the record in
		// status holds that, until prod is back in the spec.
		withoutProd := withSpec(func(s map[string]any) {
			private(s)
			s["environments"] = s["environments"].([]any)[1:]
		})
		obs := map[string]map[string]any{"argo-project": observed(KindProject, true, nil), "argo-repository": observed(KindRepo, true, nil),
			"prod-app": observed(KindApp, true, map[string]any{"spec": map[string]any{"forProvider": map[string]any{"destination": map[string]any{"server": "https://prod.example.com", "namespace": "shop-live"}}}})}
		x := xr(withoutProd, withStatus(map[string]any{"name": "prod", "phase": "Ready", "deletionPolicy": "Orphan"}, map[string]any{"name": "pr-7", "phase": "Ready", "deletionPolicy": "Delete"}))
		rsp := run(t, t0, newRequest(t, x, obs, nil))
		wantDest := map[string]any{"server": "https://prod.example.com", "namespace": "shop-live"}
		check := func(rsp *fnv1.RunFunctionResponse, when string) {
			t.Helper()
			for _, n := range []string{"argo-project", "argo-repository"} {
				if diff := cmp.Diff(keep, policies(rsp, n)); diff != "" {
					t.Errorf("%s: %s must stay orphaned while prod's application may sync -want +got:\n%s", when, n, diff)
				}
			}
			dests, _ := resourceField(t, rsp, "argo-project", "spec", "forProvider", "destinations").([]any)
			found := false
			for _, d := range dests {
				found = found || cmp.Equal(d, wantDest)
			}
			if !found {
				t.Errorf("%s: the AppProject must keep the orphaned application's destination %v, got %v", when, wantDest, dests)
			}
			got := rsp.GetDesired().GetComposite().GetResource().AsMap()["status"].(map[string]any)["orphanedEnvironments"]
			if diff := cmp.Diff([]any{map[string]any{"name": "prod", "cluster": "https://prod.example.com", "namespace": "shop-live"}}, got); diff != "" {
				t.Errorf("%s: status.orphanedEnvironments -want +got:\n%s", when, diff)
			}
		}
		check(rsp, "the run prod left")
		// Next run: prod's status entry is gone, the application is no
		// longer observed; only the record remains.
		recorded := rsp.GetDesired().GetComposite().GetResource().AsMap()["status"].(map[string]any)["orphanedEnvironments"]
		x = xr(withoutProd, func(xr map[string]any) {
			xr["status"] = map[string]any{"environments": []any{map[string]any{"name": "pr-7", "phase": "Ready", "deletionPolicy": "Delete"}}, "orphanedEnvironments": recorded}
		})
		delete(obs, "prod-app")
		check(run(t, t0, newRequest(t, x, obs, nil)), "a later run")
		// prod back in the spec: managed again, no longer recorded.
		x = xr(withSpec(private), func(xr map[string]any) {
			xr["status"] = map[string]any{"orphanedEnvironments": recorded}
		})
		rsp = run(t, t0, newRequest(t, x, obs, nil))
		if got := rsp.GetDesired().GetComposite().GetResource().AsMap()["status"].(map[string]any)["orphanedEnvironments"]; got != nil {
			t.Errorf("prod is back in the spec: status.orphanedEnvironments must be empty, got %v", got)
		}
	})
	t.Run("OptIn", func(t *testing.T) {
		rsp := run(t, t0, newRequest(t, xr(withSpec(func(s map[string]any) {
			s["environments"].([]any)[0].(map[string]any)["deletionPolicy"] = "Delete"
			s["registry"].(map[string]any)["deletionPolicy"] = "Delete"
		})), projectReady(), nil))
		for _, n := range []string{"prod-app", "prod-pipeline", "prod-dns", "registry", "argo-project"} {
			if p := policies(rsp, n); p != nil {
				t.Errorf("%s opted in to deletion, got policies %v", n, p)
			}
		}
	})
	t.Run("OrphanPreview", func(t *testing.T) {
		rsp := run(t, t0, newRequest(t, xr(withSpec(func(s map[string]any) {
			s["environments"].([]any)[1].(map[string]any)["deletionPolicy"] = "Orphan"
		})), projectReady(), nil))
		if diff := cmp.Diff(keep, policies(rsp, "pr-7-app")); diff != "" {
			t.Errorf("an explicit Orphan holds for a ttl environment too -want +got:\n%s", diff)
		}
	})
	t.Run("RegistryAdoptExisting", func(t *testing.T) {
		rsp := run(t, t0, newRequest(t, xr(), projectReady(), nil))
		if got := resourceField(t, rsp, "registry", "spec", "forProvider", "adoptExisting"); got != nil {
			t.Errorf("an existing repository is not adopted unless asked, got adoptExisting %v", got)
		}
		rsp = run(t, t0, newRequest(t, xr(withSpec(func(s map[string]any) {
			s["registry"].(map[string]any)["adoptExisting"] = true
		})), projectReady(), nil))
		if got := resourceField(t, rsp, "registry", "spec", "forProvider", "adoptExisting"); got != true {
			t.Errorf("spec.registry.adoptExisting goes to the RegistryRepo, got %v", got)
		}
	})
	t.Run("BadPolicy", func(t *testing.T) {
		rsp := run(t, t0, newRequest(t, xr(withSpec(func(s map[string]any) {
			s["environments"].([]any)[0].(map[string]any)["deletionPolicy"] = "Cascade"
		})), nil, nil))
		if r := rsp.GetResults(); len(r) != 1 || r[0].GetSeverity() != fnv1.Severity_SEVERITY_FATAL || !strings.Contains(r[0].GetMessage(), "spec.environments[0].deletionPolicy") {
			t.Errorf("want a fatal result naming the field, got %v", r)
		}
	})
}

// Whether an environment gets input.defaultTTL is decided once, with an
// anchored pattern, never for a protected name, and kept in its status.
func TestDefaultTTLEligibility(t *testing.T) {
	envs := func(names ...string) xrOpt {
		return withSpec(func(s map[string]any) {
			l := []any{}
			for _, n := range names {
				l = append(l, map[string]any{"name": n, "domain": n + ".shop.example.com"})
			}
			s["environments"] = l
		})
	}
	ttl := func(rsp *fnv1.RunFunctionResponse, env string) any { return envStatus(t, rsp, env)["ttl"] }
	cases := map[string]struct {
		reason string
		x      map[string]any
		input  map[string]any
		want   map[string]any // env -> ttl (nil: none)
	}{
		"Anchored": {
			reason: "pattern 'pr' matches the name pr, never prod-eu",
			x:      xr(envs("prod-eu", "pr")), input: map[string]any{"defaultTTL": "2h", "previewPattern": "pr"},
			want: map[string]any{"prod-eu": nil, "pr": "2h0m0s"},
		},
		"Protected": {
			reason: "protected names never get the default, whatever the pattern",
			x:      xr(envs("main", "production", "feature-x")), input: map[string]any{"defaultTTL": "2h", "previewPattern": ".*"},
			want: map[string]any{"main": nil, "production": nil, "feature-x": "2h0m0s"},
		},
		"ProtectedListed": {
			reason: "the Composition's protected list replaces the default one",
			x:      xr(envs("main", "live")), input: map[string]any{"defaultTTL": "2h", "previewPattern": ".*", "protectedEnvironments": []any{"live"}},
			want: map[string]any{"main": "2h0m0s", "live": nil},
		},
		"DecidedOnce": {
			reason: "an environment seen without a ttl never gets one when the Composition's pattern changes later",
			x:      xr(envs("staging"), withStatus(map[string]any{"name": "staging", "phase": "Ready"})), input: map[string]any{"defaultTTL": "2h", "previewPattern": ".*"},
			want: map[string]any{"staging": nil},
		},
		"KeptOnce": {
			reason: "and one that got the default keeps it when the pattern no longer matches",
			x:      xr(envs("pr-9"), withStatus(map[string]any{"name": "pr-9", "phase": "Ready", "expiresAt": "2026-11-22T14:00:00Z", "ttl": "2h0m0s", "ttlFrom": "input.defaultTTL"})),
			input:  map[string]any{"defaultTTL": "2h", "previewPattern": "nothing"},
			want:   map[string]any{"pr-9": "2h0m0s"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, t0, newRequest(t, tc.x, nil, tc.input))
			if r := rsp.GetResults(); len(r) > 0 && r[0].GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
				t.Fatalf("fatal: %v", r)
			}
			for env, want := range tc.want {
				if got := ttl(rsp, env); got != want {
					t.Errorf("%s\n%s: ttl %v, want %v", tc.reason, env, got, want)
				}
			}
		})
	}
}

// New composed resources are named "<project>.<resource>" (a legacy XR's
// claim name stands for the project), so a project deleted and created
// again composes resources of the same names, which the owner markers of
// its orphaned objects accept. One composed before keeps its name.
func TestStableNames(t *testing.T) {
	name := func(rsp *fnv1.RunFunctionResponse, n string) string {
		r := rsp.GetDesired().GetResources()[n]
		if r == nil {
			t.Fatalf("no desired resource %s", n)
		}
		v, _ := r.GetResource().AsMap()["metadata"].(map[string]any)["name"].(string)
		return v
	}
	rsp := run(t, t0, newRequest(t, xr(), projectReady(), nil))
	for _, n := range []string{"prod-pipeline", "prod-app", "prod-dns", "registry"} {
		if got := name(rsp, n); got != "shop."+n {
			t.Errorf("%s: name %q, want %q", n, got, "shop."+n)
		}
	}
	obs := projectReady()
	obs["prod-pipeline"] = observed(KindPipeline, true, map[string]any{"metadata": map[string]any{"name": "shop-x8k2p"}})
	rsp = run(t, t0, newRequest(t, xr(), obs, nil))
	if got := name(rsp, "prod-pipeline"); got != "" {
		t.Errorf("a resource composed before keeps its name (Crossplane sets it), the function must not rename it: got %q", got)
	}
	legacy := xr(func(x map[string]any) {
		md := x["metadata"].(map[string]any)
		md["name"], md["namespace"] = "shop-x7k2p", ""
		md["labels"] = map[string]any{"crossplane.io/claim-name": "shop", "crossplane.io/claim-namespace": "team-shop"}
	})
	rsp = run(t, t0, newRequest(t, legacy, projectReady(), nil))
	if got := name(rsp, "prod-app"); got != "shop.prod-app" {
		t.Errorf("a legacy XR's resources are named after its claim: got %q", got)
	}
}

// TestPanicIsFatal: a bug that panics fails the run with a Fatal result;
// the function (serving every project) keeps running.
func TestPanicIsFatal(t *testing.T) {
	f := &Function{now: func() time.Time { panic("boom") }}
	rsp, err := f.RunFunction(context.Background(), newRequest(t, xr(), nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if r := rsp.GetResults(); len(r) != 1 || r[0].GetSeverity() != fnv1.Severity_SEVERITY_FATAL || !strings.Contains(r[0].GetMessage(), "boom") {
		t.Errorf("results %v, want one Fatal naming the panic", r)
	}
}

// TestStatusEntriesDecodedEach: an entry of status.environments that does
// not decode (written by hand) is left out; the others, and the expiries
// they hold, are kept.
func TestStatusEntriesDecodedEach(t *testing.T) {
	x := xr(withStatus(
		map[string]any{"name": "pr-7", "phase": "Ready", "expiresAt": "2026-11-22T13:30:00Z", "ttl": "2h0m0s"},
		map[string]any{"name": "prod", "phase": 7.0},
	))
	rs, err := readRequest(newRequest(t, x, nil, nil), nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.prev) != 1 || rs.prev[0].Name != "pr-7" || rs.prev[0].ExpiresAt != "2026-11-22T13:30:00Z" {
		t.Errorf("prev %+v, want pr-7's entry with its expiry kept", rs.prev)
	}
}

// The XR is said not Ready while anything composed is not (Creating, with
// no "Unready resources" message that changes as each turns Ready), and
// its readiness is left to Crossplane once everything is.
func TestCompositeReadiness(t *testing.T) {
	earlier := func(req *fnv1.RunFunctionRequest) *fnv1.RunFunctionRequest {
		req.Desired = &fnv1.State{Resources: map[string]*fnv1.Resource{"earlier": {Resource: st(t, observed(KindRegistry, false, nil))}}}
		return req
	}
	allReady := func() map[string]map[string]any { return allObserved(true, "prod", "pr-7") }
	dnsNotReady := func(age time.Duration) map[string]map[string]any {
		o := allReady()
		o["prod-dns"] = allObserved(false, "prod")["prod-dns"]
		o["prod-dns"]["metadata"].(map[string]any)["creationTimestamp"] = t0.Add(-age).Format(time.RFC3339)
		return o
	}
	whole := &Function{now: func() time.Time { return t0 }, composeWhole: true}
	holding := &Function{now: func() time.Time { return t0 }}
	forge := forgeObserved(true, []pull{{12, shaA, "feature/cart", false}, {13, shaB, "feature/pay", false}})
	cases := map[string]struct {
		reason string
		f      *Function
		req    *fnv1.RunFunctionRequest
		want   fnv1.Ready
	}{
		"FirstRun": {
			reason: "Nothing exists yet, the XR made 5s ago.",
			f:      whole, req: newRequest(t, xr(createdAgo(5*time.Second)), nil, nil), want: fnv1.Ready_READY_FALSE,
		},
		"Held": {
			reason: "Everything observed is Ready, but prod's application is held back (firstOfNewKinds).",
			f:      holding,
			req: newRequest(t, xr(createdAgo(5*time.Second)), func() map[string]map[string]any {
				o := allReady()
				delete(o, "prod-app")
				delete(o, "pr-7-app")
				return o
			}(), nil), want: fnv1.Ready_READY_FALSE,
		},
		"OneNotReady": {
			reason: "prod's DNSRecord, made 5s ago, is not Ready.",
			f:      whole, req: newRequest(t, xr(), dnsNotReady(5*time.Second), nil), want: fnv1.Ready_READY_FALSE,
		},
		"OneNotReadyForLong": {
			reason: "prod's DNSRecord, made a minute ago, is not Ready: Crossplane's message names it.",
			f:      whole, req: newRequest(t, xr(), dnsNotReady(time.Minute), nil), want: fnv1.Ready_READY_UNSPECIFIED,
		},
		"NeverCreated": {
			reason: "prod's DNSRecord was never created, the XR an hour old: Crossplane's message names it.",
			f:      whole,
			req: newRequest(t, xr(createdAgo(time.Hour)), func() map[string]map[string]any {
				o := allReady()
				delete(o, "prod-dns")
				return o
			}(), nil), want: fnv1.Ready_READY_UNSPECIFIED,
		},
		"AllReady": {
			reason: "Everything is Ready: Crossplane derives Available.",
			f:      whole, req: newRequest(t, xr(), allReady(), nil), want: fnv1.Ready_READY_UNSPECIFIED,
		},
		"EarlierStepLeftToCrossplane": {
			reason: "An earlier step's resource of no stated readiness: its readiness is Crossplane's (or a later step's) to say.",
			f:      whole, req: earlier(newRequest(t, xr(), allReady(), nil)), want: fnv1.Ready_READY_UNSPECIFIED,
		},
		"PreviewsHeld": {
			reason: "Two pull requests' DeployRuns, a kind new to the XR: one is held back, and a preview never holds the project's readiness.",
			f:      holding, req: newRequest(t, xr(withPreviews(2)), previewObserved(forge, "pr-12", "pr-13"), nil), want: fnv1.Ready_READY_UNSPECIFIED,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := runWith(t, tc.f, tc.req)
			fatal(t, rsp)
			if got := rsp.GetDesired().GetComposite().GetReady(); got != tc.want {
				t.Errorf("%s\ncomposite readiness %v, want %v", tc.reason, got, tc.want)
			}
		})
	}
	// The preview case must hold one DeployRun back, or it tests nothing.
	rsp := runWith(t, holding, newRequest(t, xr(withPreviews(2)), previewObserved(forge, "pr-12", "pr-13"), nil))
	if n := strings.Count(strings.Join(names(rsp), " "), "-deploy-"); n != 1 {
		t.Errorf("PreviewsHeld: %d DeployRuns composed, want 1 (the other held back): %v", n, names(rsp))
	}
}

// The Environments condition says which environments are Ready and what
// each of the others waits for (the results that report phase changes are
// dropped by Crossplane's event spam filter during a creation burst).
func TestEnvironmentsCondition(t *testing.T) {
	// notReady: name is not Ready, created age before t0 (an hour when 0).
	notReadyFor := func(name string, age time.Duration) map[string]map[string]any {
		o := allObserved(true, "prod", "pr-7")
		o[name]["status"].(map[string]any)["conditions"] = []any{map[string]any{"type": "Ready", "status": "False"}}
		if age == 0 {
			age = time.Hour
		}
		o[name]["metadata"].(map[string]any)["creationTimestamp"] = t0.Add(-age).Format(time.RFC3339)
		return o
	}
	notReady := func(name string) map[string]map[string]any { return notReadyFor(name, 0) }
	many := make([]any, 0, 40)
	for i := range 40 {
		many = append(many, map[string]any{"name": fmt.Sprintf("preview-with-a-long-name-%02d", i), "domain": fmt.Sprintf("preview-with-a-long-name-%02d.shop.example.com", i)})
	}
	// manyObserved: their resources made long ago and not Ready, named.
	var manyNames []string
	for i := range 40 {
		manyNames = append(manyNames, fmt.Sprintf("preview-with-a-long-name-%02d", i))
	}
	manyObserved := allObserved(false, manyNames...)
	longName := func(i int) string { return fmt.Sprintf("%s-%02d", strings.Repeat("e", 60), i) }
	longReady := make([]any, 0, 64)
	var longNames []string
	for i := range 64 {
		longReady = append(longReady, map[string]any{"name": longName(i), "domain": longName(i) + ".shop.example.com"})
		longNames = append(longNames, longName(i))
	}
	longObserved := allObserved(true, longNames...)
	for _, n := range longNames {
		longObserved[n+"-dns"]["status"].(map[string]any)["atProvider"] = map[string]any{"fqdn": n + ".shop.example.com."}
	}
	cases := map[string]struct {
		reason   string
		x        map[string]any
		observed map[string]map[string]any
		status   fnv1.Status
		want     []string
		// ttl, when set, is the TTL the run must ask for.
		ttl time.Duration
		// not, when set, must not be in the message.
		not string
	}{
		"FirstRun": {
			reason: "Nothing exists yet: each environment's resources are being created, its application waits for the AppProject.",
			x:      xr(createdAgo(5 * time.Second)), status: fnv1.Status_STATUS_CONDITION_FALSE,
			want: []string{"Environments being created (status.environments has each one's phase)."}, not: "prod",
		},
		"NeverCreated": {
			reason: "prod's DNSRecord is not there, the XR made an hour ago and the rest Ready: named as not created.",
			x:      xr(createdAgo(time.Hour)), observed: func() map[string]map[string]any {
				o := allObserved(true, "prod", "pr-7")
				delete(o, "prod-dns")
				return o
			}(), status: fnv1.Status_STATUS_CONDITION_FALSE,
			want: []string{"Provisioning: prod (not created: DNSRecord)."},
		},
		"ClockAhead": {
			reason: "pr-7's DNSRecord created a minute ahead of the function's clock: named, not kept young for a minute more.",
			x:      xr(), observed: notReadyFor("pr-7-dns", -time.Minute), status: fnv1.Status_STATUS_CONDITION_FALSE,
			want: []string{"Provisioning: pr-7 (not Ready: DNSRecord)."},
		},
		"ArgoProjectSlow": {
			reason: "The AppProject was made a minute ago and is not Ready: the applications' wait is named.",
			x:      xr(), observed: func() map[string]map[string]any {
				o := notReadyFor("argo-project", time.Minute)
				delete(o, "prod-app")
				delete(o, "pr-7-app")
				return o
			}(), status: fnv1.Status_STATUS_CONDITION_FALSE,
			want: []string{"Provisioning: prod (ArgoApplication waits for the ArgoProject), pr-7 (ArgoApplication waits for the ArgoProject)."},
		},
		"HostYoung": {
			reason: "Ingress on and pr-7's DNSRecord made 5s ago: its host's wait is progress, said as being created.",
			x:      xr(withIngress("Helm", nil)), observed: func() map[string]map[string]any {
				o := notReadyFor("pr-7-dns", 5*time.Second)
				delete(o, "pr-7-app")
				return o
			}(), status: fnv1.Status_STATUS_CONDITION_FALSE,
			want: []string{"Environments being created", "Provisioning: prod (host shop.example.com being handed to the ArgoApplication)."}, not: "pr-7",
		},
		"YoungNotReady": {
			reason: "pr-7's DNSRecord was created 29s ago: being created, not named, and the function runs again when it is due to be named (in 1s). Which environments are Ready already is not said meanwhile.",
			x:      xr(), observed: notReadyFor("pr-7-dns", 29*time.Second), status: fnv1.Status_STATUS_CONDITION_FALSE,
			want: []string{"Environments being created"}, not: "Ready: prod", ttl: time.Second,
		},
		"OldNotReady": {
			reason: "pr-7's DNSRecord was created 30s ago and is not Ready: named.",
			x:      xr(), observed: notReadyFor("pr-7-dns", nameUnreadyAfter), status: fnv1.Status_STATUS_CONDITION_FALSE,
			want: []string{"Ready: prod. Provisioning: pr-7 (not Ready: DNSRecord)."},
		},
		"AllReady": {
			reason: "Every environment Ready.",
			x:      xr(), observed: allObserved(true, "prod", "pr-7"), status: fnv1.Status_STATUS_CONDITION_TRUE,
			want: []string{"Ready: prod, pr-7."},
		},
		"OneNotReady": {
			reason: "pr-7's DNSRecord is not Ready: prod is, pr-7 says what it waits for.",
			x:      xr(), observed: notReady("pr-7-dns"), status: fnv1.Status_STATUS_CONDITION_FALSE,
			want: []string{"Ready: prod. Provisioning: pr-7 (not Ready: DNSRecord)."},
		},
		"HostWaits": {
			reason: "Ingress on and pr-7's DNSRecord not Ready: its host waits for the record.",
			x:      xr(withIngress("Helm", nil)), observed: notReady("pr-7-dns"), status: fnv1.Status_STATUS_CONDITION_FALSE,
			want: []string{"pr-7 (not Ready: DNSRecord; host pr-7.shop.example.com waits for the DNSRecord to hold the name)", "prod (host shop.example.com being handed to the ArgoApplication)"},
		},
		"ManyReady": {
			reason: "Sixty-four Ready environments with the longest names: the Ready list takes at most a quarter of the message.",
			x:      xr(withSpec(func(s map[string]any) { s["environments"] = longReady })), observed: longObserved, status: fnv1.Status_STATUS_CONDITION_TRUE,
			want: []string{"Ready: " + longName(0) + ", ", "more."},
		},
		"Many": {
			reason: "Forty environments waiting: the message stays bounded and says how many more.",
			x:      xr(withSpec(func(s map[string]any) { s["environments"] = many })), observed: manyObserved, status: fnv1.Status_STATUS_CONDITION_FALSE,
			want: []string{"Provisioning: preview-with-a-long-name-00 (", "more."},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, t0, newRequest(t, tc.x, tc.observed, nil))
			fatal(t, rsp)
			c := condition(rsp, ConditionEnvironments)
			if c == nil {
				t.Fatalf("%s\nno %s condition", tc.reason, ConditionEnvironments)
			}
			if c.GetStatus() != tc.status {
				t.Errorf("%s\nstatus %v, want %v (%s)", tc.reason, c.GetStatus(), tc.status, c.GetMessage())
			}
			for _, w := range tc.want {
				if !strings.Contains(c.GetMessage(), w) {
					t.Errorf("%s\nmessage %q, want it to contain %q", tc.reason, c.GetMessage(), w)
				}
			}
			if n := len(c.GetMessage()); n > maxConditionMessage+20 {
				t.Errorf("%s\nmessage of %d bytes", tc.reason, n)
			}
			if tc.not != "" && strings.Contains(c.GetMessage(), tc.not) {
				t.Errorf("%s\nmessage %q, want no %q in it", tc.reason, c.GetMessage(), tc.not)
			}
			if got := rsp.GetMeta().GetTtl().AsDuration(); tc.ttl != 0 && got != tc.ttl {
				t.Errorf("%s\nTTL %s, want %s", tc.reason, got, tc.ttl)
			}
		})
	}
}

// logRecorder keeps what the function logs.
type logRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (l *logRecorder) add(level, msg string, kv []any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintln(append([]any{level, msg}, kv...)...))
}

func (l *logRecorder) Info(msg string, kv ...any)         { l.add("info", msg, kv) }
func (l *logRecorder) Debug(msg string, kv ...any)        { l.add("debug", msg, kv) }
func (l *logRecorder) WithValues(...any) xplogging.Logger { return l }

// TestLogs: a project that cannot be composed is logged with its name and
// why; with --debug every run says what it composed; without, nothing
// else is logged.
func TestLogs(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	bad := xr(withSpec(func(s map[string]any) { s["environments"] = "not a list" }))
	cases := map[string]struct {
		debug bool
		xr    map[string]any
		want  []string
	}{
		"Composed":          {xr: xr()},
		"ComposedWithDebug": {debug: true, xr: xr(), want: []string{"debug", "Composed the project", "team-shop", "shop", "environments"}},
		"Refused":           {xr: bad, want: []string{"info", "Cannot compose the project", "team-shop", "shop", "environments"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rec := &logRecorder{}
			f := &Function{now: func() time.Time { return now }, log: rec, debug: tc.debug}
			if _, err := f.RunFunction(context.Background(), newRequest(t, tc.xr, nil, nil)); err != nil {
				t.Fatal(err)
			}
			if len(tc.want) == 0 {
				if len(rec.lines) != 0 {
					t.Errorf("logged %q, want nothing", rec.lines)
				}
				return
			}
			if len(rec.lines) != 1 {
				t.Fatalf("logged %q, want one line", rec.lines)
			}
			for _, w := range tc.want {
				if !strings.Contains(rec.lines[0], w) {
					t.Errorf("logged %q, want it to say %q", rec.lines[0], w)
				}
			}
		})
	}
}

// TestTeardownOrderAnnotated: input.teardownOrder becomes each
// environment resource's delete-after annotation, which the provider
// holds deletions by.
func TestTeardownOrderAnnotated(t *testing.T) {
	in := map[string]any{"teardownOrder": []any{"JenkinsPipeline", "ArgoApplication", "DNSRecord"}}
	rsp := run(t, t0, newRequest(t, xr(), allObserved(true, "prod", "pr-7"), in))
	fatal(t, rsp)
	for n, want := range map[string]any{"pr-7-pipeline": nil, "pr-7-app": "JenkinsPipeline", "pr-7-dns": "ArgoApplication", "argo-project": "ArgoApplication"} {
		if diff := cmp.Diff(want, resourceField(t, rsp, n, "metadata", "annotations", contract.AnnotationDeleteAfter)); diff != "" {
			t.Errorf("%s's %s -want +got:\n%s", n, contract.AnnotationDeleteAfter, diff)
		}
	}
}

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

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
)

// TestDeclaredParametersAndTriggers: spec.pipeline.parameters follow
// ENVIRONMENT and REVISION on every environment's job, spec.pipeline.triggers
// are its triggers, an environment's own replace them whole, and a parameter named as one of the fixed two is a fatal
// result naming its field (the XRD's CEL rule refuses it first).
func TestDeclaredParametersAndTriggers(t *testing.T) {
	fixed := func(env string) []any {
		return []any{
			map[string]any{"name": "ENVIRONMENT", "type": "string", "default": env, "description": "The environment to deploy to."},
			map[string]any{"name": "REVISION", "type": "string", "default": "", "description": "The git revision to build; empty builds the head of the branch."},
		}
	}
	declared := []any{
		map[string]any{"name": "SKIP_TESTS", "type": "boolean", "default": "false"},
		map[string]any{"name": "TARGET", "type": "choice", "choices": []any{"amd64", "arm64"}},
	}
	triggers := map[string]any{"cron": "H 2 * * *", "upstream": []any{"team/lib/main"}}
	cases := map[string]struct {
		reason   string
		pipeline map[string]any
		// envs are environments' pipeline, by index.
		envs       map[int]map[string]any
		wantParams map[string][]any
		// wantTriggers are the jobs' triggers, by environment.
		wantTriggers map[string]any
		wantFatal    string
	}{
		"None": {
			reason:     "Without declared parameters or triggers a job has ENVIRONMENT and REVISION only, and no triggers.",
			pipeline:   map[string]any{},
			wantParams: map[string][]any{"prod": fixed("prod"), "pr-7": fixed("pr-7")},
		},
		"Declared": {
			reason:   "Declared parameters follow the fixed two on every environment's job, in order; the triggers are copied.",
			pipeline: map[string]any{"parameters": declared, "triggers": triggers},
			wantParams: map[string][]any{
				"prod": append(fixed("prod"), declared...),
				"pr-7": append(fixed("pr-7"), declared...),
			},
			wantTriggers: map[string]any{"prod": triggers, "pr-7": triggers},
		},
		"EnvironmentOverride": {
			reason:   "An environment's parameters and triggers replace the project's whole; an empty list leaves the fixed two.",
			pipeline: map[string]any{"parameters": declared, "triggers": triggers},
			envs: map[int]map[string]any{
				0: {"parameters": []any{}, "triggers": map[string]any{"pollSCM": "H/5 * * * *"}},
				1: {"parameters": declared[1:]},
			},
			wantParams: map[string][]any{
				"prod": fixed("prod"),
				"pr-7": append(fixed("pr-7"), declared[1:]...),
			},
			wantTriggers: map[string]any{"prod": map[string]any{"pollSCM": "H/5 * * * *"}, "pr-7": triggers},
		},
		"EnvironmentReserved": {
			reason:    "An environment's declared REVISION is refused like the project's.",
			pipeline:  map[string]any{},
			envs:      map[int]map[string]any{1: {"parameters": []any{map[string]any{"name": "REVISION"}}}},
			wantFatal: `spec.environments[1].pipeline.parameters[0].name: "REVISION" is a parameter every job already has; name yours otherwise`,
		},
		"ReservedEnvironment": {
			reason:    "A declared ENVIRONMENT would give the job the name twice.",
			pipeline:  map[string]any{"parameters": []any{declared[0], map[string]any{"name": "ENVIRONMENT"}}},
			wantFatal: `spec.pipeline.parameters[1].name: "ENVIRONMENT" is a parameter every job already has; name yours otherwise`,
		},
		"ReservedRevision": {
			reason:    "A declared REVISION would give the job the name twice.",
			pipeline:  map[string]any{"parameters": []any{map[string]any{"name": "REVISION", "default": "main"}}},
			wantFatal: `spec.pipeline.parameters[0].name: "REVISION" is a parameter every job already has; name yours otherwise`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, t0, newRequest(t, xr(withSpec(func(s map[string]any) {
				s["pipeline"] = tc.pipeline
				for i, p := range tc.envs {
					s["environments"].([]any)[i].(map[string]any)["pipeline"] = p
				}
			})), projectReady(), nil))
			if tc.wantFatal != "" {
				r := rsp.GetResults()
				if len(r) != 1 || r[0].GetSeverity() != fnv1.Severity_SEVERITY_FATAL {
					t.Fatalf("%s\nwant one fatal result, got %v", tc.reason, r)
				}
				if diff := cmp.Diff(tc.wantFatal, r[0].GetMessage()); diff != "" {
					t.Errorf("%s\nfatal result -want +got:\n%s", tc.reason, diff)
				}
				if len(rsp.GetDesired().GetResources()) != 0 {
					t.Errorf("%s\nnothing may be composed from a refused spec, got %v", tc.reason, names(rsp))
				}
				return
			}
			for env, want := range tc.wantParams {
				if diff := cmp.Diff(want, resourceField(t, rsp, env+"-pipeline", "spec", "forProvider", "parameters")); diff != "" {
					t.Errorf("%s\n%s parameters -want +got:\n%s", tc.reason, env, diff)
				}
				if diff := cmp.Diff(tc.wantTriggers[env], resourceField(t, rsp, env+"-pipeline", "spec", "forProvider", "triggers")); diff != "" {
					t.Errorf("%s\n%s triggers -want +got:\n%s", tc.reason, env, diff)
				}
			}
		})
	}
}

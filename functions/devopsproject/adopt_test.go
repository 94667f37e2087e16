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

// spec.adoptExisting turns adoption on per kind, on exactly the composed
// resources of that kind; spec.environments[].applicationName names an
// environment's Argo CD application.
func TestAdoptExisting(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	fields := func(rsp *fnv1.RunFunctionResponse) map[string]any {
		out := map[string]any{}
		for _, n := range []string{"prod-pipeline", "prod-app", "prod-dns", "registry"} {
			out[n] = resourceField(t, rsp, n, "spec", "forProvider", "adoptExisting")
		}
		return out
	}
	cases := map[string]struct {
		reason string
		adopt  map[string]any
		legacy bool
		want   map[string]any
	}{
		"Unset": {
			reason: "Without spec.adoptExisting nothing is adopted: behaviour as before.",
			want:   map[string]any{"prod-pipeline": nil, "prod-app": nil, "prod-dns": nil, "registry": nil},
		},
		"PerKind": {
			reason: "Each switch reaches its own kind only: jobs and applications adopted, DNS and registry not.",
			adopt:  map[string]any{"pipelines": true, "applications": true},
			want:   map[string]any{"prod-pipeline": true, "prod-app": true, "prod-dns": nil, "registry": nil},
		},
		"All": {
			reason: "Every kind on.",
			adopt:  map[string]any{"pipelines": true, "applications": true, "dnsRecords": true, "registry": true},
			want:   map[string]any{"prod-pipeline": true, "prod-app": true, "prod-dns": true, "registry": true},
		},
		"RegistryOlderField": {
			reason: "spec.registry.adoptExisting, the older field, still adopts the repository.",
			legacy: true,
			want:   map[string]any{"prod-pipeline": nil, "prod-app": nil, "prod-dns": nil, "registry": true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			x := xr(withSpec(func(s map[string]any) {
				if tc.adopt != nil {
					s["adoptExisting"] = tc.adopt
				}
				if tc.legacy {
					s["registry"].(map[string]any)["adoptExisting"] = true
				}
			}))
			rsp := run(t, t0, newRequest(t, x, projectReady(), nil))
			if diff := cmp.Diff(tc.want, fields(rsp)); diff != "" {
				t.Errorf("%s\nadoptExisting per composed resource: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestApplicationName(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	extName := func(rsp *fnv1.RunFunctionResponse) any {
		return resourceField(t, rsp, "prod-app", "metadata", "annotations", "crossplane.io/external-name")
	}
	keptApp := map[string]any{"metadata": map[string]any{"annotations": map[string]any{"crossplane.io/external-name": "team-shop.shop.prod"}}}
	cases := map[string]struct {
		reason   string
		name     string
		observed map[string]map[string]any
		want     any
		fatal    string
	}{
		"Default": {
			reason: "Without applicationName, the application is <namespace>.<project>.<env>.",
			want:   "team-shop.shop.prod",
		},
		"Named": {
			reason: "applicationName names the application, so an existing one (the operator's) is taken over under its own name.",
			name:   "shop-prod", want: "shop-prod",
		},
		"NamedOverKept": {
			reason: "Naming it in the spec is how an environment's application moves, as for its namespace and folder.",
			name:   "shop-prod", observed: map[string]map[string]any{"prod-app": observed(KindApp, true, keptApp)}, want: "shop-prod",
		},
		"Invalid": {
			reason: "A name Argo CD would refuse is a fatal result naming the field (for a Composition used with an older XRD).",
			name:   "Shop_Prod", fatal: "spec.environments[0].applicationName",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			obs := projectReady()
			for k, v := range tc.observed {
				obs[k] = v
			}
			x := xr(withSpec(func(s map[string]any) {
				if tc.name != "" {
					s["environments"].([]any)[0].(map[string]any)["applicationName"] = tc.name
				}
			}))
			rsp := run(t, t0, newRequest(t, x, obs, nil))
			if tc.fatal != "" {
				if r := rsp.GetResults(); len(r) != 1 || r[0].GetSeverity() != fnv1.Severity_SEVERITY_FATAL || !strings.Contains(r[0].GetMessage(), tc.fatal) {
					t.Errorf("%s\nwant a fatal result naming %s, got %v", tc.reason, tc.fatal, r)
				}
				return
			}
			if diff := cmp.Diff(tc.want, extName(rsp)); diff != "" {
				t.Errorf("%s\nthe application's external name: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

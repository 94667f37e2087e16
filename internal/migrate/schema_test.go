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

package migrate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
	"sigs.k8s.io/yaml"
)

// xrdValidator validates against the DevOpsProject's schema in
// package/configuration/xrd.yaml.
func xrdValidator(t *testing.T) *validate.SchemaValidator {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "package", "configuration", "xrd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var xrd struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(b, &xrd); err != nil {
		t.Fatal(err)
	}
	s := &spec.Schema{}
	if err := json.Unmarshal(xrd.Spec.Versions[0].Schema.OpenAPIV3Schema, s); err != nil {
		t.Fatal(err)
	}
	return validate.NewSchemaValidator(s, nil, "", strfmt.Default)
}

// TestOutputMatchesXRD validates every DevOpsProject the golden tests
// write against the XRD's OpenAPI schema (types, patterns, enums,
// required fields), with the validator the API server uses. The XRD's CEL
// rules (a domain inside the zone, one config reference) need an API
// server: Translate keeps domains inside the zone itself, and the --apply
// test in cmd/devopsctl runs them where envtest assets exist.
func TestOutputMatchesXRD(t *testing.T) {
	v := xrdValidator(t)
	cases := map[string]struct {
		reason  string
		fixture string
		mutate  func(*Project)
		wantErr bool
	}{
		"Shop": {
			reason: "The full project the operator made validates.", fixture: "shop.yaml",
		},
		"InlineCredentials": {
			reason: "A project with a Helm environment and a ClusterProviderConfig validates.", fixture: "inline-credentials.yaml",
		},
		"InlineBuild": {
			reason: "A project with a build carried over from a JenkinsSetting's spec.config validates.", fixture: "inline-build.yaml",
		},
		"Bad": {
			reason:  "The check fails an object the API server refuses (an environment name that is no DNS label), so it can fail.",
			fixture: "shop.yaml", mutate: func(p *Project) { p.Spec.Environments[0].Name = "Alpha_1" }, wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res := migrateFile(t, filepath.Join("testdata", "operator", tc.fixture), Options{})
			if len(res.Projects) == 0 {
				t.Fatalf("%s\nno DevOpsProject written", tc.reason)
			}
			for _, p := range res.Projects {
				if tc.mutate != nil {
					tc.mutate(&p)
				}
				b, _ := json.Marshal(p)
				obj := map[string]any{}
				if err := json.Unmarshal(b, &obj); err != nil {
					t.Fatal(err)
				}
				r := v.Validate(obj)
				if got := !r.IsValid(); got != tc.wantErr {
					t.Errorf("%s\nvalidation errors %v, want errors: %v", tc.reason, r.Errors, tc.wantErr)
				}
			}
		})
	}
}

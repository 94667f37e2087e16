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
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/migrate")

// secrets are strings of the fixtures' inline credentials: they must
// appear in no output.
var secrets = []string{"TOPSECRET", "hunter2", "OPENSSH"}

// TestGolden carries each fixture in testdata/operator over and compares
// the DevOpsProjects and the report with testdata/migrate (go test
// -update rewrites them).
func TestGolden(t *testing.T) {
	cases := map[string]struct {
		reason string
		opts   Options
	}{
		"shop": {
			reason: "A project with every operator kind, linked by ownerReferences (a kubectl List): everything adopted under the same names.",
		},
		"inline-build": {
			reason: "A JenkinsSetting's inline configuration that is a build becomes spec.pipeline.build; one that is not is reported and not carried over.",
		},
		"inline-credentials": {
			reason: "Multi-document YAML linked by spec.project: inline credentials are never printed, an environment without a domain is left out and said so, a child of a missing project is reported.",
			opts:   Options{ProviderConfig: &ConfigRef{Kind: "ClusterProviderConfig", Name: "platform"}},
		},
		"url-credentials": {
			reason: "A password in the repository URL or the registry's endpoint is dropped and said so: it is neither printed nor written into the DevOpsProject.",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res := migrateFile(t, filepath.Join("testdata", "operator", name+".yaml"), tc.opts)
			y, err := res.YAML()
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.reason, filepath.Join("testdata", "migrate", name+".yaml"), string(y))
			golden(t, tc.reason, filepath.Join("testdata", "migrate", name+".report.txt"), res.Report.String())
			for _, s := range secrets {
				if strings.Contains(string(y), s) || strings.Contains(res.Report.String(), s) {
					t.Errorf("%s\nthe output holds %q, part of an inline credential", tc.reason, s)
				}
			}
		})
	}
}

func migrateFile(t *testing.T, path string, o Options) Result {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := ReadBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	objs, err = Operator(objs, schema.GroupVersion{Group: "freeleaps.com", Version: "v1alpha1"})
	if err != nil {
		t.Fatal(err)
	}
	return Translate(objs, o)
}

func golden(t *testing.T, reason, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s\n%s (go test -update rewrites it): -want, +got:\n%s", reason, path, diff)
	}
}

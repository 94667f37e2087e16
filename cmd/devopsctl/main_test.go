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
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/freeleaps/provider-devops/internal/migrate"
)

const testdata = "../../internal/migrate/testdata"

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fakeCluster serves the objects of fixture as the operator's CRs would
// be served, and records the patches sent.
func fakeCluster(t *testing.T, fixture string) (*fake.FakeDynamicClient, *[]k8stesting.PatchActionImpl) {
	t.Helper()
	objs, err := migrate.ReadBytes([]byte(mustRead(t, filepath.Join(testdata, "operator", fixture))))
	if err != nil {
		t.Fatal(err)
	}
	lists := map[schema.GroupVersionResource]string{devopsProjects: "DevOpsProjectList"}
	for _, k := range migrate.Kinds() {
		lists[schema.GroupVersionResource{Group: "freeleaps.com", Version: "v1alpha1", Resource: k.Resource}] = k.Kind + "List"
	}
	c := fake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), lists)
	resources := map[string]string{}
	for _, k := range migrate.Kinds() {
		resources[k.Kind] = k.Resource
	}
	for _, o := range objs {
		if r := resources[o.GetKind()]; r != "" {
			// By resource: the tracker's guess from the kind would be
			// gitcredentialses.
			gvr := schema.GroupVersionResource{Group: "freeleaps.com", Version: "v1alpha1", Resource: r}
			if err := c.Tracker().Create(gvr, o, o.GetNamespace()); err != nil {
				t.Fatal(err)
			}
		}
	}
	var patches []k8stesting.PatchActionImpl
	c.PrependReactor("patch", "devopsprojects", func(a k8stesting.Action) (bool, runtime.Object, error) {
		patches = append(patches, a.(k8stesting.PatchActionImpl))
		return true, nil, nil
	})
	return c, &patches
}

func TestMigrate(t *testing.T) {
	shopYAML := mustRead(t, filepath.Join(testdata, "migrate", "shop.yaml"))
	shopReport := mustRead(t, filepath.Join(testdata, "migrate", "shop.report.txt"))
	type want struct {
		code   int
		stdout string
		// stderr is a part of what is written there.
		stderr  string
		patches int
	}
	cases := map[string]struct {
		reason  string
		args    []string
		stdin   string
		cluster string
		want    want
	}{
		"DryRunFromFile": {
			reason: "From a file, dry run: the DevOpsProjects on stdout (the golden output), the report on stderr, nothing applied.",
			args:   []string{"migrate", "-f", filepath.Join(testdata, "operator", "shop.yaml")},
			want:   want{stdout: shopYAML, stderr: shopReport},
		},
		"DryRunFromStdin": {
			reason: "- reads stdin, as kubectl get -o yaml | devopsctl migrate -f - does.",
			args:   []string{"migrate", "-f", "-"},
			stdin:  mustRead(t, filepath.Join(testdata, "operator", "shop.yaml")),
			want:   want{stdout: shopYAML, stderr: shopReport},
		},
		"DryRunFromCluster": {
			reason:  "From the cluster (one namespace), through the dynamic client: the same DevOpsProjects as from the exported file.",
			args:    []string{"migrate", "-n", "team-shop"},
			cluster: "shop.yaml",
			want:    want{stdout: shopYAML, stderr: shopReport},
		},
		"Apply": {
			reason:  "--apply sends each DevOpsProject as a server-side apply patch under the tool's field manager, and prints no YAML.",
			args:    []string{"migrate", "-A", "--apply"},
			cluster: "shop.yaml",
			want:    want{stdout: "DevOpsProject team-shop/shop: applied\n", stderr: shopReport, patches: 1},
		},
		"NothingSelected": {
			reason: "Without a file or a namespace selection nothing is read: an error says what to pass.",
			args:   []string{"migrate"},
			want:   want{code: 1, stderr: "say what to migrate"},
		},
		"FileAndNamespace": {
			reason: "--namespace selects from the cluster; with a file it would be ignored, so it is refused.",
			args:   []string{"migrate", "-f", "x.yaml", "-n", "team-shop"},
			want:   want{code: 1, stderr: "--namespace and --all-namespaces select what is read from the cluster"},
		},
		"WrongGroup": {
			reason: "Objects of the operator's kinds in another group than --group are refused, naming the flag, rather than carried over as nothing.",
			args:   []string{"migrate", "-f", filepath.Join(testdata, "operator", "shop.yaml"), "--group", "example.com"},
			want:   want{code: 1, stderr: "pass --group"},
		},
		"BadProviderConfig": {
			reason: "A --provider-config that is not Kind/name is refused before anything is read.",
			args:   []string{"migrate", "-f", "-", "--provider-config", "platform"},
			want:   want{code: 1, stderr: "must be ClusterProviderConfig/<name> or ProviderConfig/<name>"},
		},
		"UnknownCommand": {
			reason: "An unknown command is a usage error.",
			args:   []string{"migrat"},
			want:   want{code: 2},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			var patches *[]k8stesting.PatchActionImpl
			e := env{stdin: strings.NewReader(tc.stdin), stdout: &stdout, stderr: &stderr,
				connect: func(string, string) (dynamic.Interface, error) {
					t.Fatalf("%s\nno cluster is to be reached", tc.reason)
					return nil, nil
				}}
			if tc.cluster != "" {
				var c *fake.FakeDynamicClient
				c, patches = fakeCluster(t, tc.cluster)
				e.connect = func(string, string) (dynamic.Interface, error) { return c, nil }
			}
			code := run(context.Background(), tc.args, e)
			if code != tc.want.code {
				t.Errorf("%s\nexit code %d, want %d; stderr:\n%s", tc.reason, code, tc.want.code, stderr.String())
			}
			if diff := cmp.Diff(tc.want.stdout, stdout.String()); diff != "" {
				t.Errorf("%s\nstdout: -want, +got:\n%s", tc.reason, diff)
			}
			if !strings.Contains(stderr.String(), tc.want.stderr) {
				t.Errorf("%s\nstderr: want it to contain %q, got:\n%s", tc.reason, tc.want.stderr, stderr.String())
			}
			got := 0
			if patches != nil {
				got = len(*patches)
				for _, p := range *patches {
					if p.PatchType != types.ApplyPatchType || p.PatchOptions.FieldManager != fieldManager || p.PatchOptions.Force != nil {
						t.Errorf("%s\npatch %s %s by %q (force %v), want an unforced server-side apply by %q", tc.reason, p.Name, p.PatchType, p.PatchOptions.FieldManager, p.PatchOptions.Force, fieldManager)
					}
				}
			}
			if got != tc.want.patches {
				t.Errorf("%s\n%d patches sent, want %d", tc.reason, got, tc.want.patches)
			}
		})
	}
}

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
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	"github.com/freeleaps/provider-devops/internal/testing/integration"
)

func TestMain(m *testing.M) { controlplane.Main(m) }

// TestApplyToAPIServer applies what migrate writes to a real API server
// holding the CRD Crossplane makes from the XRD: accepted, schema and CEL
// rules included, under the field manager devopsctl; a second run changes
// nothing; a field a person changed meanwhile is a conflict, not
// overwritten.
func TestApplyToAPIServer(t *testing.T) {
	integration.Test(t, "kube-apiserver and etcd")
	cp := controlplane.Shared(t)
	controlplane.InstallXRD(t, cp, filepath.Join("package", "configuration", "xrd.yaml"))
	ctx := context.Background()
	for _, ns := range []string{"team-shop", "team-blog"} {
		controlplane.Must(t, cp.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	}
	dyn, err := dynamic.NewForConfig(cp.Config)
	controlplane.Must(t, err)
	migrateApply := func(fixture string, extra ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		args := append([]string{"migrate", "--apply", "-f", filepath.Join(testdata, "operator", fixture)}, extra...)
		code := run(ctx, args, env{stdout: &stdout, stderr: &stderr, connect: func(string, string) (dynamic.Interface, error) { return dyn, nil }})
		return code, stdout.String() + stderr.String()
	}
	project := func(ns, name string) *unstructured.Unstructured {
		u, err := dyn.Resource(devopsProjects).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		controlplane.Must(t, err)
		return u
	}

	cases := []struct {
		reason  string
		fixture string
		extra   []string
		ns      string
		name    string
	}{
		{reason: "The full project is accepted as written.", fixture: "shop.yaml", ns: "team-shop", name: "shop"},
		{reason: "A Helm environment and a ClusterProviderConfig are accepted.", fixture: "inline-credentials.yaml", extra: []string{"--provider-config", "ClusterProviderConfig/platform"}, ns: "team-blog", name: "blog"},
	}
	for _, tc := range cases {
		if code, out := migrateApply(tc.fixture, tc.extra...); code != 0 || !strings.Contains(out, "DevOpsProject "+tc.ns+"/"+tc.name+": applied") {
			t.Fatalf("%s\nexit code %d:\n%s", tc.reason, code, out)
		}
		u := project(tc.ns, tc.name)
		if adopt, _, _ := unstructured.NestedBool(u.Object, "spec", "adoptExisting", "applications"); !adopt {
			t.Errorf("%s\nspec.adoptExisting.applications not set: %v", tc.reason, u.Object["spec"])
		}
		managers := map[string]bool{}
		for _, f := range u.GetManagedFields() {
			managers[f.Manager] = true
		}
		if !managers[fieldManager] || len(managers) != 1 {
			t.Errorf("%s\nfield managers %v, want only %s", tc.reason, managers, fieldManager)
		}
	}

	before := project("team-shop", "shop").GetResourceVersion()
	if code, out := migrateApply("shop.yaml"); code != 0 {
		t.Fatalf("a second run must succeed: %s", out)
	}
	if got := project("team-shop", "shop").GetResourceVersion(); got != before {
		t.Errorf("a second run changed the DevOpsProject (resourceVersion %s, was %s)", got, before)
	}

	// A person moves the registry under their own field manager: the next
	// run reports a conflict and leaves their change.
	_, err = dyn.Resource(devopsProjects).Namespace("team-shop").Patch(ctx, "shop", types.MergePatchType,
		[]byte(`{"spec":{"registry":{"name":"shop-images"}}}`), metav1.PatchOptions{FieldManager: "kubectl-edit"})
	controlplane.Must(t, err)
	code, out := migrateApply("shop.yaml")
	if code != 1 || !strings.Contains(out, "DevOpsProject team-shop/shop: not applied") || !strings.Contains(out, "conflict") {
		t.Errorf("a field another manager owns must be a conflict: exit code %d:\n%s", code, out)
	}
	if name, _, _ := unstructured.NestedString(project("team-shop", "shop").Object, "spec", "registry", "name"); name != "shop-images" {
		t.Errorf("the person's change was overwritten: registry name %q", name)
	}
}

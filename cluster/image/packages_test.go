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
	"os"
	"path/filepath"
	"slices"
	"testing"

	"sigs.k8s.io/yaml"

	pkgmetav1 "github.com/crossplane/crossplane/apis/v2/pkg/meta/v1"
)

// The package metadata make xpkg builds from: the kinds and capabilities
// Crossplane v2 needs (safe-start for the provider, composition for the
// function) and the configuration's dependencies with version constraints.
func TestPackageMetadata(t *testing.T) {
	read := func(dir string, into any) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("..", "..", "package", dir, "crossplane.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.UnmarshalStrict(b, into); err != nil {
			t.Fatalf("package/%s/crossplane.yaml: %v", dir, err)
		}
	}
	p := &pkgmetav1.Provider{}
	read("provider", p)
	if p.Kind != "Provider" || p.APIVersion != "meta.pkg.crossplane.io/v1" || !slices.Contains(p.Spec.Capabilities, "safe-start") {
		t.Errorf("provider: %s %s capabilities %v", p.APIVersion, p.Kind, p.Spec.Capabilities)
	}
	f := &pkgmetav1.Function{}
	read("function", f)
	if f.Kind != "Function" || !slices.Contains(f.Spec.Capabilities, "composition") {
		t.Errorf("function: %s capabilities %v", f.Kind, f.Spec.Capabilities)
	}
	c := &pkgmetav1.Configuration{}
	read("configuration", c)
	if c.Kind != "Configuration" || c.Spec.Crossplane == nil || c.Spec.Crossplane.Version != ">=v2.0.0" || len(c.Spec.DependsOn) != 2 {
		t.Fatalf("configuration: %+v", c.Spec)
	}
	for _, d := range c.Spec.DependsOn {
		if d.Package == nil || d.Version == "" {
			t.Errorf("dependency without package or version constraint: %+v", d)
		}
	}
}

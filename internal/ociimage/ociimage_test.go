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

package ociimage

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// TestBuildTrees: a tree's files land under its target with their
// directories, read-only, and the same inputs give the same digest.
func TestBuildTrees(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "tool")
	ca := filepath.Join(dir, "ca.crt")
	crds := filepath.Join(dir, "crds")
	for p, data := range map[string]string{bin: "#!", ca: "CA", filepath.Join(crds, "a.yaml"): "a", filepath.Join(crds, "sub", "b.yaml"): "b"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	img, err := Build(bin, ca, "amd64", nil, Tree{From: crds, To: "/crds"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	r := mutate.Extract(img)
	defer func() { _ = r.Close() }()
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		got[strings.TrimSuffix(h.Name, "/")] = string(b)
		if h.Name == "crds/sub/b.yaml" && h.Mode != 0o644 {
			t.Errorf("%s mode %o, want 644", h.Name, h.Mode)
		}
	}
	for name, want := range map[string]string{"crds": "", "crds/sub": "", "crds/a.yaml": "a", "crds/sub/b.yaml": "b", "usr/local/bin/tool": "#!"} {
		if v, ok := got[name]; !ok || v != want {
			t.Errorf("%s: %q (present %v), want %q", name, v, ok, want)
		}
	}
	again, err := Build(bin, ca, "amd64", nil, Tree{From: crds, To: "/crds"})
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := img.Digest()
	d2, _ := again.Digest()
	if d1 != d2 {
		t.Errorf("digests differ: %s, %s", d1, d2)
	}
	if _, err := Build(bin, ca, "amd64", nil, Tree{From: crds, To: "crds"}); err == nil {
		t.Error("a relative target was accepted")
	}
}

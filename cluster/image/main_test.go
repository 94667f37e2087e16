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
	"archive/tar"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/freeleaps/provider-devops/internal/ociimage"
)

func TestBuild(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "provider")
	if err := os.WriteFile(bin, []byte("#!fake binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(ca, []byte("-----BEGIN CERTIFICATE-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lbls := labels{"org.opencontainers.image.title": "provider-devops"}
	img, err := ociimage.Build(bin, ca, "amd64", lbls)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.Config.User != "65532:65532" || len(cf.Config.Entrypoint) != 1 || cf.Config.Entrypoint[0] != "/usr/local/bin/provider" || cf.OS != "linux" || cf.Architecture != "amd64" {
		t.Errorf("config: user %q entrypoint %v os %s arch %s", cf.Config.User, cf.Config.Entrypoint, cf.OS, cf.Architecture)
	}
	if cf.Config.Labels["org.opencontainers.image.title"] != "provider-devops" {
		t.Errorf("labels: %v", cf.Config.Labels)
	}
	files := map[string]*tar.Header{}
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		files[strings.TrimSuffix(h.Name, "/")] = h
	}
	for name, mode := range map[string]int64{"usr/local/bin/provider": 0o755, "etc/ssl/certs/ca-certificates.crt": 0o644, "etc/passwd": 0o644, "tmp": 0o1777} {
		h, ok := files[name]
		if !ok {
			t.Errorf("image lacks %s", name)
			continue
		}
		if h.Mode&0o7777 != mode {
			t.Errorf("%s mode %o, want %o", name, h.Mode, mode)
		}
	}
	if h := files["home/nonroot"]; h == nil || h.Uid != ociimage.NonRoot {
		t.Errorf("home of the non-root user: %+v", h)
	}

	// Same inputs, same digest; and the tarball reads back.
	again, err := ociimage.Build(bin, ca, "amd64", lbls)
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := img.Digest()
	d2, _ := again.Digest()
	if d1 != d2 {
		t.Errorf("not reproducible: %s != %s", d1, d2)
	}
	out := filepath.Join(dir, "image.tar")
	if err := run(bin, out, "provider-devops:v0.0.1", ca, "amd64", lbls); err != nil {
		t.Fatal(err)
	}
	back, err := tarball.ImageFromPath(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The tarball records the config (the image id), not the manifest.
	c1, _ := img.ConfigName()
	if c3, _ := back.ConfigName(); c3 != c1 {
		t.Errorf("tarball holds image %s, built %s", c3, c1)
	}
}

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

// Package ociimage assembles a minimal OCI runtime image around one static
// binary, without Docker.
//
// The image has two layers: a base with /etc/passwd and /etc/group naming
// the non-root user 65532, the CA certificates of the build machine (Debian's
// ca-certificates package) and a /tmp; and the binary in /usr/local/bin. It
// runs as 65532:65532. Timestamps are fixed, so the same inputs give the same
// image digest.
package ociimage

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// NonRoot is the user and group the image runs as.
const NonRoot = 65532

// Tree is a directory of the build machine copied into an image: its
// regular files, read-only, owned by root.
type Tree struct {
	// From is the directory on the build machine.
	From string
	// To is where it goes in the image, absolute.
	To string
}

// Build returns the image of binary, with trees in a third layer.
func Build(binary, ca, arch string, lbls map[string]string, trees ...Tree) (v1.Image, error) {
	bin, err := os.ReadFile(binary)
	if err != nil {
		return nil, err
	}
	certs, err := os.ReadFile(ca)
	if err != nil {
		return nil, fmt.Errorf("CA certificates (apt-get install ca-certificates): %w", err)
	}
	base, err := layer([]file{
		{name: "etc/", dir: true, mode: 0o755},
		{name: "etc/passwd", mode: 0o644, data: []byte(fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", NonRoot, NonRoot))},
		{name: "etc/group", mode: 0o644, data: []byte(fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", NonRoot))},
		{name: "etc/ssl/", dir: true, mode: 0o755},
		{name: "etc/ssl/certs/", dir: true, mode: 0o755},
		{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, data: certs},
		{name: "home/", dir: true, mode: 0o755},
		{name: "home/nonroot/", dir: true, mode: 0o700, owner: NonRoot},
		{name: "tmp/", dir: true, mode: 0o1777},
	})
	if err != nil {
		return nil, err
	}
	entry := "/usr/local/bin/" + path.Base(binary)
	app, err := layer([]file{
		{name: "usr/", dir: true, mode: 0o755},
		{name: "usr/local/", dir: true, mode: 0o755},
		{name: "usr/local/bin/", dir: true, mode: 0o755},
		{name: strings.TrimPrefix(entry, "/"), mode: 0o755, data: bin},
	})
	if err != nil {
		return nil, err
	}
	layers := []v1.Layer{base, app}
	if len(trees) > 0 {
		l, err := treeLayer(trees)
		if err != nil {
			return nil, err
		}
		layers = append(layers, l)
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layers...)
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS = arch, "linux"
	cf.Created = v1.Time{Time: time.Unix(0, 0).UTC()}
	cf.Config.Entrypoint = []string{entry}
	cf.Config.User = fmt.Sprintf("%d:%d", NonRoot, NonRoot)
	cf.Config.WorkingDir = "/"
	cf.Config.Env = []string{"PATH=/usr/local/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"}
	cf.Config.Labels = lbls
	return mutate.ConfigFile(img, cf)
}

// treeLayer is the layer of trees: their directories and regular files,
// in a stable order.
func treeLayer(trees []Tree) (v1.Layer, error) {
	var files []file
	seen := map[string]bool{}
	dir := func(name string) {
		for _, d := range parents(name) {
			if !seen[d] {
				seen[d] = true
				files = append(files, file{name: d + "/", dir: true, mode: 0o755})
			}
		}
	}
	for _, t := range trees {
		if !path.IsAbs(t.To) {
			return nil, fmt.Errorf("tree %s: %q is not absolute", t.From, t.To)
		}
		// Read through a root: a symbolic link cannot lead out of the tree.
		root, err := os.OpenRoot(t.From)
		if err != nil {
			return nil, fmt.Errorf("tree %s: %w", t.From, err)
		}
		tree := root.FS()
		err = fs.WalkDir(tree, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			data, err := fs.ReadFile(tree, p)
			if err != nil {
				return err
			}
			name := strings.TrimPrefix(path.Join(t.To, p), "/")
			dir(name)
			files = append(files, file{name: name, mode: 0o644, data: data})
			return nil
		})
		_ = root.Close()
		if err != nil {
			return nil, fmt.Errorf("tree %s: %w", t.From, err)
		}
	}
	return layer(files)
}

// parents are the directories above name, outermost first ("a/b/c" gives
// "a" and "a/b").
func parents(name string) []string {
	var out []string
	for d := path.Dir(name); d != "." && d != "/"; d = path.Dir(d) {
		out = append([]string{d}, out...)
	}
	return out
}

type file struct {
	name  string
	dir   bool
	mode  int64
	owner int
	data  []byte
}

// layer is a gzip-compressed tar of files, with fixed timestamps.
func layer(files []file) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: f.mode, Uid: f.owner, Gid: f.owner, ModTime: time.Unix(0, 0), Format: tar.FormatPAX}
		if f.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }, tarball.WithMediaType(types.OCILayer))
}

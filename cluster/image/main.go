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

// Command image assembles a minimal OCI runtime image around one static
// binary, without Docker (internal/ociimage), and writes it as an image
// tarball (the format `crossplane xpkg build --embed-runtime-image-tarball`
// reads).
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/freeleaps/provider-devops/internal/ociimage"
)

type labels map[string]string

func (l labels) String() string { return fmt.Sprint(map[string]string(l)) }

func (l labels) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("label %q is not key=value", v)
	}
	l[k] = val
	return nil
}

func main() {
	var (
		binary = flag.String("binary", "", "static binary to run (required)")
		out    = flag.String("out", "", "image tarball to write (required)")
		ref    = flag.String("tag", "", "image reference recorded in the tarball, e.g. provider-devops:v0.1.0 (required)")
		ca     = flag.String("ca-certificates", "/etc/ssl/certs/ca-certificates.crt", "CA bundle to include")
		arch   = flag.String("arch", runtime.GOARCH, "architecture of the binary")
		lbls   = labels{}
	)
	flag.Var(lbls, "label", "image label key=value (repeatable)")
	flag.Parse()
	if *binary == "" || *out == "" || *ref == "" {
		fmt.Fprintln(os.Stderr, "image: -binary, -out and -tag are required")
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*binary, *out, *ref, *ca, *arch, lbls); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(binary, out, ref, ca, arch string, lbls labels) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return fmt.Errorf("-tag %q: %w", ref, err)
	}
	img, err := ociimage.Build(binary, ca, arch, lbls)
	if err != nil {
		return err
	}
	if err := tarball.WriteToFile(out, tag, img); err != nil {
		return fmt.Errorf("cannot write %s: %w", out, err)
	}
	d, _ := img.Digest()
	fmt.Printf("%s: %s %s\n", out, tag, d)
	return nil
}

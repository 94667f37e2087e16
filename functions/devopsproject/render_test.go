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
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	"github.com/freeleaps/provider-devops/internal/testing/integration"
	"github.com/freeleaps/provider-devops/internal/testing/loopback"
)

var update = flag.Bool("update", false, "rewrite the golden render outputs")

// renderNow is the clock the function runs with in render tests, so the
// computed expiresAt values are reproducible.
const renderNow = "2026-11-22T12:00:00Z"

// TestRender runs the real crossplane CLI: `crossplane render` on the
// DevOpsProject examples and the fixtures in testdata/render-input against the function started with --insecure, its
// output compared with testdata/render/*.yaml and piped into `crossplane
// beta validate` with the provider's CRDs and both XRDs.
func TestRender(t *testing.T) {
	integration.Test(t, "the function binary, rendered by the crossplane CLI")
	cli := os.Getenv("CROSSPLANE_CLI")
	if cli == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CROSSPLANE_CLI is not set; make test builds the crossplane CLI and sets it")
		}
		t.Skip("CROSSPLANE_CLI is not set (make test sets it); skipped outside CI")
	}
	root := controlplane.RepoRoot()
	examples := filepath.Join(root, "examples", "devopsproject")
	// Fixtures (observed states, XRs with a status, the Development
	// runtime) are the test's; examples/ holds only what users apply.
	inputs := filepath.Join("testdata", "render-input")
	tmp := t.TempDir()

	addr := startFunction(t, tmp)
	fns, err := os.ReadFile(filepath.Join(inputs, "functions.yaml"))
	controlplane.Must(t, err)
	functions := filepath.Join(tmp, "functions.yaml")
	controlplane.Must(t, os.WriteFile(functions, bytes.ReplaceAll(fns, []byte("localhost:9443"), []byte(addr)), 0o600))
	schemas, cache := validateInputs(t, root, tmp)

	cases := map[string]struct{ xr, composition, observed string }{
		"first-run":          {"xr.yaml", "composition.yaml", ""},
		"all-ready":          {"xr.yaml", "composition.yaml", "observed-ready.yaml"},
		"expiring-soon":      {"xr-expiring-soon.yaml", "composition.yaml", "observed-ready.yaml"},
		"expired-phase1":     {"xr-expired.yaml", "composition.yaml", "observed-ready.yaml"},
		"expired-phase2":     {"xr-expired-phase2.yaml", "composition.yaml", "observed-pr-42-orphaned.yaml"},
		"legacy-claim":       {"xr-legacy.yaml", "composition-legacy.yaml", ""},
		"phase2-not-applied": {"xr-expired-phase2.yaml", "composition.yaml", "observed-ready.yaml"},
		"ingress":            {"xr-ingress.yaml", "composition.yaml", "observed-ingress.yaml"},
		"ingress-address":    {"xr-ingress-address.yaml", "composition-ingress.yaml", "observed-ingress.yaml"},
		"private-repo":       {"xr-private-repo.yaml", "composition.yaml", "observed-ready.yaml"},
		"build-first-run":    {"xr-build.yaml", "composition.yaml", ""},
		"build":              {"xr-build.yaml", "composition.yaml", "observed-ready.yaml"},
		"build-file":         {"xr-build-file.yaml", "composition.yaml", "observed-ready.yaml"},
		"adopt":              {"xr-adopt.yaml", "composition.yaml", "observed-adopt.yaml"},
		"previews-first-run": {"xr-previews.yaml", "composition.yaml", ""},
		"previews":           {"xr-previews.yaml", "composition.yaml", "observed-previews.yaml"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			xr := filepath.Join(examples, tc.xr)
			if _, err := os.Stat(xr); err != nil {
				xr = filepath.Join(inputs, tc.xr)
			}
			comp := filepath.Join(root, "package", "configuration", tc.composition)
			if _, err := os.Stat(comp); err != nil {
				comp = filepath.Join(inputs, tc.composition)
			}
			args := []string{"render", xr, comp, functions, "--include-full-xr", "--timeout=60s"}
			if tc.observed != "" {
				args = append(args, "--observed-resources="+filepath.Join(inputs, tc.observed))
			}
			out := runCLI(t, cli, args...)
			golden := filepath.Join("testdata", "render", name+".yaml")
			if *update {
				controlplane.Must(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				controlplane.Must(t, os.WriteFile(golden, out, 0o644))
			}
			want, err := os.ReadFile(golden)
			controlplane.Must(t, err)
			if diff := cmp.Diff(string(want), string(out)); diff != "" {
				t.Errorf("crossplane render output differs from %s (make render updates it) -want +got:\n%s", golden, diff)
			}
			rendered := filepath.Join(tmp, name+".yaml")
			controlplane.Must(t, os.WriteFile(rendered, out, 0o600))
			v := runCLI(t, cli, "beta", "validate", schemas, rendered, "--cache-dir="+cache, "--crossplane-image=xpkg.crossplane.io/crossplane/crossplane:v2.1.3")
			if !bytes.Contains(v, []byte(", 0 failure cases")) || !bytes.Contains(v, []byte(" 0 missing schemas")) {
				t.Errorf("crossplane beta validate:\n%s", v)
			}
		})
	}
}

func runCLI(t *testing.T, cli string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(cli, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("crossplane %s: %v\n%s", strings.Join(args[:2], " "), err, stderr.String())
	}
	return out
}

// startFunction builds and starts the function with --insecure on a free
// loopback port and returns its address.
func startFunction(t *testing.T, tmp string) string {
	t.Helper()
	bin := filepath.Join(tmp, "function-devopsproject")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	port, err := loopback.FreePort()
	controlplane.Must(t, err)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(bin, "--insecure", "--address="+addr, "--metrics-address=127.0.0.1:0", "--now="+renderNow)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	controlplane.Must(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			_ = c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("the function did not listen on %s:\n%s", addr, logs.String())
		}
	}
}

// validateInputs gathers the schemas (provider CRDs, both XRDs) and seeds
// the validate cache with Crossplane's own CRDs from the module cache, so
// validate works offline.
func validateInputs(t *testing.T, root, tmp string) (schemas, cache string) {
	t.Helper()
	schemas = filepath.Join(tmp, "schemas")
	controlplane.Must(t, os.MkdirAll(schemas, 0o755))
	crds, _ := filepath.Glob(filepath.Join(root, "package", "provider", "crds", "*.yaml"))
	xrds, _ := filepath.Glob(filepath.Join(root, "package", "configuration", "xrd*.yaml"))
	for _, f := range append(crds, xrds...) {
		b, err := os.ReadFile(f)
		controlplane.Must(t, err)
		controlplane.Must(t, os.WriteFile(filepath.Join(schemas, filepath.Base(f)), b, 0o600))
	}
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	controlplane.Must(t, err)
	xpcrds, _ := filepath.Glob(filepath.Join(strings.TrimSpace(string(modcache)), "github.com", "crossplane", "crossplane", "v2@v2.1.3", "cluster", "crds", "*.yaml"))
	if len(xpcrds) == 0 {
		t.Fatal("Crossplane v2.1.3's CRDs are not in the module cache; building the CLI (make test) downloads them")
	}
	var pkg bytes.Buffer
	for _, f := range xpcrds {
		b, err := os.ReadFile(f)
		controlplane.Must(t, err)
		fmt.Fprintf(&pkg, "---\n%s\n", b)
	}
	cache = filepath.Join(tmp, "xpkg-cache")
	dir := filepath.Join(cache, "xpkg.crossplane.io", "crossplane", "crossplane@v2.1.3")
	controlplane.Must(t, os.MkdirAll(dir, 0o755))
	controlplane.Must(t, os.WriteFile(filepath.Join(dir, "package.yaml"), pkg.Bytes(), 0o600))
	return schemas, cache
}

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

// Package integration marks the tests that start a server: a real
// kube-apiserver and etcd, Argo CD, BIND, RabbitMQ, a registry, a node,
// or the provider's and function's own binaries. make test runs them;
// make unit passes -short, and they skip, so it starts no server.
package integration

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Test skips t under -short, saying which server it would start.
func Test(t testing.TB, starts string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("starts %s: an integration test, which make test runs (make unit passes -short)", starts)
	}
}

// Tool is the path of a program the test runs, such as Debian's groovy or
// jenkins-jobs. Without it the test fails in CI (CI=true), so CI never
// passes by running nothing, and skips elsewhere, saying what to install.
func Tool(t testing.TB, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not installed (Debian package %s; hack/apt-deps.sh installs it)", name, pkg)
		return ""
	}
	t.Skipf("%s is not installed (Debian package %s; hack/apt-deps.sh installs it); skipped outside CI", name, pkg)
	return ""
}

// Binary is the executable the environment variable env names (make test
// sets it from script, which builds it into the cache), or "".
func Binary(env string) string {
	p := os.Getenv(env)
	if p == "" {
		return ""
	}
	if fi, err := os.Stat(p); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return ""
	}
	return p
}

// RequireBinary returns Binary(env) for a test that starts what, a
// server. Without it the test fails in CI (CI set), so CI never passes by
// running nothing, and is skipped elsewhere, saying how to get it. Call it
// before any costly setup.
func RequireBinary(t testing.TB, env, script, what string) string {
	t.Helper()
	Test(t, what)
	if b := Binary(env); b != "" {
		return b
	}
	why := env + " is not set to the binary " + script + " builds (make test sets it)"
	if os.Getenv("CI") != "" {
		t.Fatal(why)
	}
	t.Skip(why + "; skipped outside CI")
	return ""
}

// OnFreePorts runs start, which binds ports it chose free, up to three
// times: a port free when chosen may be taken before the server binds it,
// and start then says "address already in use". Other errors fail t.
func OnFreePorts[T any](t testing.TB, start func(attempt int) (T, error)) T {
	t.Helper()
	for attempt := 1; ; attempt++ {
		s, err := start(attempt)
		if err == nil {
			return s
		}
		if attempt == 3 || !strings.Contains(err.Error(), "address already in use") {
			t.Fatal(err)
		}
	}
}

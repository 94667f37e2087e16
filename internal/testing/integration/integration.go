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

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

// Package e2e installs the provider, function and configuration packages
// into a real Crossplane v2 control plane on this machine and runs the
// day-one scenario, asserting every step (cluster/local). `make e2e` builds
// what it needs; in CI (CI=true) a missing piece fails the test, elsewhere
// it is skipped.
package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/freeleaps/provider-devops/cluster/local"
)

func TestDevOpsProjectEndToEnd(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := local.ConfigFromEnv(root, t.TempDir())
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skipf("skipped outside CI: %v", err)
	}
	t0 := time.Now()
	cfg.Logf = func(format string, args ...any) {
		t.Logf("[%6.1fs] "+format, append([]any{time.Since(t0).Seconds()}, args...)...)
	}
	cfg.ProviderArgs = []string{"--poll=30s"}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	c, err := local.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := c.RunScenario(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("summary:\n%s", r.Summary())
}

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

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/freeleaps/provider-devops/internal/testing/integration"
	"github.com/freeleaps/provider-devops/test/e2e/framework"
)

// TestSoak runs four DevOpsProjects (sixteen environments) in a real
// Crossplane v2 with the real Argo CD, and samples the provider's and the
// function's RSS every 30 s for 10 minutes (SOAK_DURATION overrides) after
// a minute's warm-up, with --poll=30s so that each resource is polled
// twenty times meanwhile. Neither may grow by more than 10% (plus 2 MiB of
// slack for the collector's timing) from the first third of the samples to
// the last. It stops by itself; `make soak` runs it (it is not part of
// `make test`: it takes about 15 minutes, and is skipped unless SOAK is
// set).
func TestSoak(t *testing.T) {
	integration.Test(t, "Crossplane on a one-node cluster")
	if os.Getenv("SOAK") == "" {
		t.Skip("the soak runs with make soak (SOAK=1)")
	}
	d := 10 * time.Minute
	if v := os.Getenv("SOAK_DURATION"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			t.Fatalf("SOAK_DURATION: %v", err)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := framework.ConfigFromEnv(root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	cfg.Logf = func(format string, args ...any) {
		t.Logf("[%6.1fs] "+format, append([]any{time.Since(t0).Seconds()}, args...)...)
	}
	cfg.ProviderArgs = []string{"--poll=30s"}
	ctx, cancel := context.WithTimeout(context.Background(), d+25*time.Minute)
	defer cancel()
	c, err := framework.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := c.Soak(ctx, 4, time.Minute, d, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	p, f, pf, ff := r.Growth()
	t.Logf("RSS of the provider and the function, %d projects, %s:\n%s", r.Projects, d, r.Table())
	t.Logf("growth, first third to last third of the samples: provider %+.1f MiB (%+.1f%%), function %+.1f MiB (%+.1f%%)", float64(p)/(1<<20), pf*100, float64(f)/(1<<20), ff*100)
	const slack = 2 << 20
	if pf > 0.10 && p > slack {
		t.Errorf("the provider's RSS grew by %.1f%% in steady state", pf*100)
	}
	if ff > 0.10 && f > slack {
		t.Errorf("the function's RSS grew by %.1f%% in steady state", ff*100)
	}
}

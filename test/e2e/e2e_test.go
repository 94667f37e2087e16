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
// day-one scenario, asserting every step (test/e2e/framework). `make e2e` builds
// what it needs; in CI (CI=true) a missing piece fails the test, elsewhere
// it is skipped.
package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/freeleaps/provider-devops/internal/testing/gitea"
	"github.com/freeleaps/provider-devops/internal/testing/integration"
	"github.com/freeleaps/provider-devops/test/e2e/framework"
)

func TestDevOpsProjectEndToEnd(t *testing.T) {
	integration.Test(t, "Crossplane on a one-node cluster")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := framework.ConfigFromEnv(root, t.TempDir())
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
	// A 15s lease: the crash's takeover in a quarter of the default.
	cfg.ProviderArgs = []string{"--poll=30s", "--leader-election-lease-duration=15s"}
	// A real Prometheus scrapes every provider and function replica, as a
	// PodMonitor would, and a real Jaeger receives the provider's traces.
	prom, _ := observe(t, &cfg)
	// The forge runs before the cluster: Argo CD reaches its
	// repositories by name (framework.ForgeGitHost).
	if gitea.Bin() != "" || os.Getenv("CI") != "" {
		cfg.Forge = gitea.Start(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	c, err := framework.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if cfg.Runtime == framework.RuntimePods {
		t.Run("Install", func(t *testing.T) {
			pods, err := c.CheckInstall(ctx)
			if err != nil {
				t.Fatalf("%v\n%s", err, pods)
			}
			t.Logf("the packages run as Pods:\n%s", pods)
		})
	}
	t.Run("ExamplesApply", func(t *testing.T) { examplesApply(ctx, t, c, root) })
	if !t.Run("Scenario", func(t *testing.T) {
		r, err := c.RunScenario(ctx, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("summary:\n%s", r.Summary())
	}) {
		return
	}
	t.Run("Metrics", func(t *testing.T) { checkMetrics(ctx, t, prom) })
	// After the scenario, whose project is gone by then, and before the
	// examples: what the backends hold changes only by the migration.
	t.Run("Migration", func(t *testing.T) {
		cli := filepath.Join(t.TempDir(), "devopsctl")
		build := exec.CommandContext(ctx, "go", "build", "-o", cli, "./cmd/devopsctl")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build ./cmd/devopsctl: %v\n%s", err, out)
		}
		got, err := c.RunMigration(ctx, cli)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("migration: %s", got)
	})
	t.Run("ExamplesReady", func(t *testing.T) {
		if _, err := c.RunExamples(ctx, root); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("Previews", func(t *testing.T) {
		if cfg.Forge == nil {
			t.Skip("GITEA is not set (make e2e sets it): no forge; skipped outside CI")
		}
		r, err := c.RunPreviews(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("previews: %s", r)
	})
}

// examplesApply sends every object under examples/ to the control plane
// with the packages installed, as a server-side dry run: each applies as it
// is with kubectl apply -f (the namespaces they name are created first, as
// a user would have them).
func examplesApply(ctx context.Context, t *testing.T, c *framework.Cluster, root string) {
	files, err := filepath.Glob(filepath.Join(root, "examples", "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(b), "\n---\n") {
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if len(u.Object) == 0 {
				continue
			}
			n++
			if ns := u.GetNamespace(); ns != "" {
				nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
				if err := c.Kube.Create(ctx, nsObj); client.IgnoreAlreadyExists(err) != nil {
					t.Fatal(err)
				}
			}
			// A kind a package brings may take a moment to be served.
			deadline := time.Now().Add(2 * time.Minute)
			for {
				err = c.Kube.Create(ctx, u.DeepCopy(), client.DryRunAll)
				if kerrors.IsAlreadyExists(err) {
					// kubectl apply would update it (the harness made one
					// of that name): validate the update instead.
					cur := &unstructured.Unstructured{}
					cur.SetGroupVersionKind(u.GroupVersionKind())
					if err = c.Kube.Get(ctx, client.ObjectKeyFromObject(u), cur); err == nil {
						upd := u.DeepCopy()
						upd.SetResourceVersion(cur.GetResourceVersion())
						err = c.Kube.Update(ctx, upd, client.DryRunAll)
					}
				}
				if err == nil || !meta.IsNoMatchError(err) || time.Now().After(deadline) {
					break
				}
				time.Sleep(2 * time.Second)
			}
			rel, _ := filepath.Rel(root, f)
			if err != nil {
				t.Errorf("%s: %s %s refused: %v", rel, u.GetKind(), u.GetName(), err)
			}
		}
	}
	if n < 15 {
		t.Errorf("expected at least 15 example objects, found %d", n)
	}
	t.Logf("%d example objects apply (server-side dry run)", n)
}

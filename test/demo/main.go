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

// Command demo runs provider-devops end to end on this machine: a real
// Crossplane v2 control plane with the packages installed, a DevOpsProject
// with four environments, each with an Ingress (host, class, TLS secret and
// cert-manager issuer handed to its Helm chart or Kustomize overlay), a
// deploy request over RabbitMQ (built, committed to the GitOps repository
// and synced by Argo CD, with the deployment history and the legacy UI's
// heartbeats printed), a preview environment expiring and the project
// deleted; then a pull request on a real Gitea previewed (opened, pushed
// to, unlabelled and labelled, merged); then it prints a summary and the
// environments' Ingresses, and stops everything it started. `make demo`
// builds what it needs and runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/freeleaps/provider-devops/internal/testing/gitea"
	"github.com/freeleaps/provider-devops/test/e2e/framework"
)

func main() {
	keep := flag.Bool("keep", false, "Keep the work directory (logs of every process, kubeconfig) instead of removing it.")
	steady := flag.Duration("steady", 30*time.Second, "How long to measure the steady state for.")
	flag.Parse()
	if err := run(*keep, *steady); err != nil {
		fmt.Fprintln(os.Stderr, "demo failed:", err)
		os.Exit(1)
	}
}

func run(keep bool, steady time.Duration) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "provider-devops-demo-")
	if err != nil {
		return err
	}
	t0 := time.Now()
	logf := func(format string, args ...any) {
		fmt.Printf("[%6.1fs] %s\n", time.Since(t0).Seconds(), fmt.Sprintf(format, args...))
	}
	defer func() {
		if keep {
			logf("kept %s (logs/ has every process's log)", dir)
			return
		}
		_ = os.RemoveAll(dir)
	}()
	cfg, err := framework.ConfigFromEnv(root, dir)
	if err != nil {
		return err
	}
	cfg.Logf = logf
	// The forge whose pull request the demo previews, started before the
	// cluster: Argo CD reaches its repositories by name.
	if bin := gitea.Bin(); bin != "" {
		forge, err := gitea.Run(bin, filepath.Join(dir, "gitea"))
		if err != nil {
			return fmt.Errorf("gitea: %w", err)
		}
		defer forge.Close()
		cfg.Forge = forge
	}
	// A 15s lease: the crash's takeover in a quarter of the default.
	cfg.ProviderArgs = []string{"--poll=30s", "--leader-election-lease-duration=15s"}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	c, err := framework.Start(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		logf("stopping every process the demo started")
		c.Close()
	}()
	logf("Crossplane is up; kubeconfig: %s", c.KubeConfig)
	if cfg.Runtime == framework.RuntimePods {
		pods, err := c.CheckInstall(ctx)
		if err != nil {
			return err
		}
		logf("the packages run as Pods on the node:\n%s", pods)
	}
	r, err := c.RunScenario(ctx, steady)
	if err != nil {
		return fmt.Errorf("%w (logs: %s/logs; rerun with --keep to look at them)", err, dir)
	}
	if cfg.Forge != nil {
		p, err := c.RunPreviews(ctx)
		if err != nil {
			return fmt.Errorf("previews: %w (logs: %s/logs; rerun with --keep to look at them)", err, dir)
		}
		r.Previews = &p
	} else {
		logf("no previews: GITEA is not set (make demo sets it)")
	}
	fmt.Printf("\nSummary (%s in all)\n%s", time.Since(t0).Round(time.Second), r.Summary())
	fmt.Printf("\nEach environment's Ingress, as Argo CD created it from the environment's chart or overlay:\n%s", r.Ingresses)
	return nil
}

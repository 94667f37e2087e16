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

package deployrun_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	devops "github.com/freeleaps/provider-devops/internal/controller"
	"github.com/freeleaps/provider-devops/internal/controller/argoapplication"
	"github.com/freeleaps/provider-devops/internal/controller/deployrun"
	"github.com/freeleaps/provider-devops/internal/controller/jenkinspipeline"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/testing/argocdserver"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	fakejenkins "github.com/freeleaps/provider-devops/internal/testing/jenkins"
)

// deployParts are one deployment's times, from the test's side (polled
// every 20 ms, Argo CD's application every 50 ms): what the build and Argo
// CD's operation took, and what is left, which is the provider's.
type deployParts struct {
	queued   time.Duration // request → the build queued in Jenkins
	build    time.Duration // queued → the build finished (the executor's)
	toSync   time.Duration // build finished → Argo CD's operation seen running
	argo     time.Duration // operation running → Synced and Healthy seen
	toDone   time.Duration // Synced and Healthy → DeployRun Succeeded seen
	total    time.Duration
	attempts int32
}

// ours is what the deployment took beyond the build and Argo CD's
// operation.
func (p deployParts) ours() time.Duration { return p.total - p.build - p.argo }

// BenchmarkDeploy runs DEPLOYS deployments (20 by default) one after the
// other through the provider's pipeline, application and DeployRun
// controllers at the provider's default flags, a real Argo CD and the
// fake Jenkins, whose executor (this benchmark) starts each queued build
// at once, commits a new version to the repository Argo CD reads and
// finishes the build after DEPLOY_BUILD (1s). It prints each deployment's
// parts and the median and p95 of the provider's own: the total less the
// build and Argo CD's operation.
func BenchmarkDeploy(b *testing.B) {
	deploys := 20
	if v := os.Getenv("DEPLOYS"); v != "" {
		if _, err := fmt.Sscan(v, &deploys); err != nil || deploys < 1 {
			b.Fatalf("DEPLOYS: %q is not a positive number", v)
		}
	}
	buildTime := time.Second
	if v := os.Getenv("DEPLOY_BUILD"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("DEPLOY_BUILD: %v", err)
		}
		buildTime = d
	}
	env := controlplane.Shared(b)
	s := argocdserver.Shared(b, env)
	jenkins := fakejenkins.New("ci", token)
	b.Cleanup(jenkins.Close)
	ctx := context.Background()
	c := env.Client
	ns, appPath := "deploybench", "deploy-bench"
	_, err := s.Apps.Commit(map[string]string{appPath + "/configmap.yaml": configMap("v0")}, "bench v0")
	controlplane.Must(b, err)
	a := createEnvironment(b, c, s, jenkins.URL, ns, "bench", appPath, nil).app

	rate := devops.DefaultMaxReconcileRate
	controlplane.StartManagerWith(b, devops.RESTConfig(env.Config, rate), env, devops.Options(logging.NewNopLogger(), rate, devops.DefaultPollInterval, true),
		func(mgr ctrl.Manager, o controller.Options) error {
			if err := mrcontroller.Setup(mgr, o, jenkinspipeline.Descriptor, jenkinspipeline.NewConnector(mgr.GetClient(), controlplane.TenantGuard(), nil)); err != nil {
				return err
			}
			if err := mrcontroller.Setup(mgr, o, argoapplication.Descriptor, argoapplication.NewConnector(mgr.GetClient(), controlplane.TenantGuard(), nil)); err != nil {
				return err
			}
			return deployrun.Setup(mgr, o, deployrun.Options{Keep: 3, Guard: controlplane.TenantGuard()})
		})
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		_ = c.Get(ctx, client.ObjectKeyFromObject(a), a)
		if jenkins.Exists("bench-dev") && a.Status.AtProvider.URL != "" {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("pipeline and application not ready to deploy: %+v", a.Status)
		}
	}
	argo, err := argocd.New(argocd.Config{URL: s.URL, Token: s.Token, Namespace: argocdserver.Namespace})
	controlplane.Must(b, err)

	var all []deployParts
	for i := 0; b.Loop(); i++ {
		for k := range deploys {
			parts := deployOnce(b, c, jenkins, s, argo, meta.GetExternalName(a), ns, fmt.Sprintf("bench-%d-%d", i, k), appPath, buildTime)
			fmt.Printf("deployment %2d: queued %5.2fs  build %5.2fs  to sync %5.2fs  Argo CD %5.2fs  to Succeeded %5.2fs  total %5.2fs  ours %5.2fs  (sync asked %d times)\n",
				k+1, parts.queued.Seconds(), parts.build.Seconds(), parts.toSync.Seconds(), parts.argo.Seconds(), parts.toDone.Seconds(), parts.total.Seconds(), parts.ours().Seconds(), max(parts.attempts, 1))
			all = append(all, parts)
		}
	}
	ours := make([]time.Duration, 0, len(all))
	for _, p := range all {
		ours = append(ours, p.ours())
	}
	slices.Sort(ours)
	median, p95 := ours[len(ours)/2], ours[min(len(ours)-1, len(ours)*95/100)]
	b.ReportMetric(median.Seconds(), "ours-p50-s")
	b.ReportMetric(p95.Seconds(), "ours-p95-s")
	fmt.Printf("%d deployments: the provider's own time (total less build and Argo CD's operation) p50 %.2fs, p95 %.2fs\n", len(all), median.Seconds(), p95.Seconds())
}

// deployOnce runs one deployment and times its parts.
func deployOnce(b *testing.B, c client.Client, jenkins *fakejenkins.Server, s *argocdserver.Server, argo *argocd.Client, app, ns, name, appPath string, buildTime time.Duration) deployParts {
	ctx := context.Background()
	var parts deployParts
	start := time.Now()
	d := &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: v1alpha1.DeployRunSpec{Project: "bench", Environment: "dev", Revision: "main"}}
	controlplane.Must(b, c.Create(ctx, d))
	until := func(what string, limit time.Duration, every time.Duration, done func() bool) time.Time {
		for deadline := time.Now().Add(limit); !done(); time.Sleep(every) {
			if time.Now().After(deadline) {
				_ = c.Get(ctx, client.ObjectKeyFromObject(d), d)
				b.Fatalf("%s: %s not within %s; the DeployRun: %s %s", name, what, limit, d.Status.Phase, d.Status.Message)
			}
		}
		return time.Now()
	}
	queued := until("a build queued", time.Minute, 20*time.Millisecond, func() bool { return jenkins.Queued("bench-dev") == 1 })
	jenkins.RunQueue()
	builds := jenkins.Builds("bench-dev")
	number := builds[len(builds)-1].Number
	sha, err := s.Apps.Commit(map[string]string{appPath + "/configmap.yaml": configMap(name)}, name)
	controlplane.Must(b, err)
	jenkins.SetDescription("bench-dev", number, "built "+name+"\nrevision="+sha)
	time.Sleep(time.Until(queued.Add(buildTime)))
	jenkins.Finish("bench-dev", "SUCCESS")
	built := time.Now()
	var running, healthy time.Time
	until("Argo CD's operation at the build's commit", 2*time.Minute, 50*time.Millisecond, func() bool {
		got, err := argo.Get(ctx, app)
		if err != nil || got.Status.OperationState == nil || got.Status.OperationState.SyncResult == nil || got.Status.OperationState.SyncResult.Revision != sha {
			return false
		}
		if running.IsZero() {
			running = time.Now()
		}
		return got.Status.OperationState.Phase == "Succeeded" && got.Status.Sync.Revision == sha && got.Status.Sync.Status == "Synced" && got.Status.Health.Status == "Healthy"
	})
	healthy = time.Now()
	done := until("DeployRun Succeeded", 2*time.Minute, 20*time.Millisecond, func() bool {
		_ = c.Get(ctx, client.ObjectKeyFromObject(d), d)
		if d.Status.Phase == v1alpha1.DeployFailed {
			b.Fatalf("%s failed: %s", name, d.Status.Message)
		}
		return d.Status.Phase == v1alpha1.DeploySucceeded
	})
	parts.queued, parts.build = queued.Sub(start), built.Sub(queued)
	parts.toSync, parts.argo, parts.toDone = running.Sub(built), healthy.Sub(running), done.Sub(healthy)
	parts.total = done.Sub(start)
	if d.Status.Sync != nil {
		parts.attempts = d.Status.Sync.Attempt
	}
	if !strings.Contains(d.Status.Message, "Synced and Healthy") {
		b.Errorf("%s: %s", name, d.Status.Message)
	}
	return parts
}

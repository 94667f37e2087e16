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
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	devops "github.com/freeleaps/provider-devops/internal/controller"
	"github.com/freeleaps/provider-devops/internal/controller/argoapplication"
	"github.com/freeleaps/provider-devops/internal/controller/deployrun"
	"github.com/freeleaps/provider-devops/internal/controller/jenkinspipeline"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/testing/argocdserver"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	"github.com/freeleaps/provider-devops/internal/testing/gitserver"
	fakejenkins "github.com/freeleaps/provider-devops/internal/testing/jenkins"
)

// deployParts are one deployment's times, from the test's side (the
// DeployRun and the queue polled every deployer.every, Argo CD's
// application every deployer.argoEvery): what the build and Argo CD took,
// and what is left, which is the provider's.
type deployParts struct {
	queued    time.Duration // request → the build queued in Jenkins, past its quiet period
	build     time.Duration // queued → the build finished (the executor's)
	toAsk     time.Duration // build finished → the sync seen asked of Argo CD
	argoQueue time.Duration // asked → Argo CD's operation seen running
	argo      time.Duration // operation running → Synced and Healthy seen
	toDone    time.Duration // Synced and Healthy → DeployRun Succeeded seen
	total     time.Duration
	attempts  int32
}

// ours is what the deployment took beyond the build and Argo CD's
// operation: an upper bound, as it holds the time Argo CD's controller
// took to start the operation (argoQueue).
func (p deployParts) ours() time.Duration { return p.total - p.build - p.argo }

// line is one deployment's parts on one line.
func (p deployParts) line() string {
	return fmt.Sprintf("queued %5.2fs  build %5.2fs  to sync asked %5.2fs  to running %5.2fs  Argo CD %5.2fs  to Succeeded %5.2fs  total %5.2fs  ours %5.2fs  (sync asked %d times)",
		p.queued.Seconds(), p.build.Seconds(), p.toAsk.Seconds(), p.argoQueue.Seconds(), p.argo.Seconds(), p.toDone.Seconds(), p.total.Seconds(), p.ours().Seconds(), max(p.attempts, 1))
}

// percentiles are the median and p95 of the deployments' own time.
func percentiles(all []deployParts) (median, p95 time.Duration) {
	ours := make([]time.Duration, 0, len(all))
	for _, p := range all {
		ours = append(ours, p.ours())
	}
	slices.Sort(ours)
	return ours[len(ours)/2], ours[min(len(ours)-1, len(ours)*95/100)]
}

// envInt and envDuration read a benchmark's setting, else def.
func envInt(b *testing.B, name string, def int) int {
	if v := os.Getenv(name); v != "" {
		if _, err := fmt.Sscan(v, &def); err != nil || def < 1 {
			b.Fatalf("%s: %q is not a positive number", name, v)
		}
	}
	return def
}

func envDuration(b *testing.B, name string, def time.Duration) time.Duration {
	if v := os.Getenv(name); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		return d
	}
	return def
}

// startDeployControllers runs the pipeline, application and DeployRun
// controllers at the provider's default flags.
func startDeployControllers(b *testing.B, env *controlplane.Env) {
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
}

// newDeployer makes project's environment (dev) in namespace ns, with its
// own application path in the repository Argo CD reads: the sample apps'
// when shared, else a repository of the project's own.
func newDeployer(b *testing.B, env *controlplane.Env, s *argocdserver.Server, jenkins *fakejenkins.Server, ns, project string, shared bool, buildTime time.Duration) *deployer {
	appPath := "deploy-" + project
	files := map[string]string{appPath + "/configmap.yaml": configMap("v0")}
	repo, err := s.Apps, error(nil)
	if shared {
		_, err = repo.Commit(files, project+" v0")
	} else {
		repo, err = s.Git.Create("bench-"+project, files)
	}
	controlplane.Must(b, err)
	a := createEnvironment(b, env.Client, s, jenkins.URL, ns, project, appPath, func(e environment) {
		e.app.Spec.ForProvider.Source.RepoURL = repo.URL
	}).app
	return &deployer{c: env.Client, jenkins: jenkins, s: s, repo: repo, app: a, ns: ns, project: project, job: project + "-dev", appPath: appPath,
		buildTime: buildTime, every: 20 * time.Millisecond, argoEvery: 50 * time.Millisecond}
}

// ready waits until the deployers' pipelines and applications exist.
func ready(b *testing.B, c client.Client, ds ...*deployer) *argocd.Client {
	ctx := context.Background()
	for _, d := range ds {
		for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
			_ = c.Get(ctx, client.ObjectKeyFromObject(d.app), d.app)
			if d.jenkins.Exists(d.job) && d.app.Status.AtProvider.URL != "" {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("%s: pipeline and application not ready to deploy: %+v", d.project, d.app.Status)
			}
		}
	}
	argo, err := argocd.New(argocd.Config{URL: ds[0].s.URL, Token: ds[0].s.Token, Namespace: argocdserver.Namespace})
	controlplane.Must(b, err)
	for _, d := range ds {
		d.argo = argo
	}
	return argo
}

// BenchmarkDeploy runs DEPLOYS deployments (20 by default) one after the
// other through the provider's pipeline, application and DeployRun
// controllers at the provider's default flags, a real Argo CD and the
// fake Jenkins, whose executor (this benchmark) starts each queued build
// at once, commits a new version to the repository Argo CD reads and
// finishes the build after DEPLOY_BUILD (1s). It prints each deployment's
// parts and the median and p95 of the provider's own: the total less the
// build and Argo CD's operation.
func BenchmarkDeploy(b *testing.B) {
	deploys := envInt(b, "DEPLOYS", 20)
	buildTime := envDuration(b, "DEPLOY_BUILD", time.Second)
	env := controlplane.Shared(b)
	s := argocdserver.Shared(b, env)
	jenkins := fakejenkins.New("ci", token)
	b.Cleanup(jenkins.Close)
	d := newDeployer(b, env, s, jenkins, "deploybench", "bench", true, buildTime)
	startDeployControllers(b, env)
	ready(b, env.Client, d)

	var all []deployParts
	for i := 0; b.Loop(); i++ {
		for k := range deploys {
			parts, err := d.once(fmt.Sprintf("bench-%d-%d", i, k))
			if err != nil {
				b.Fatal(err)
			}
			fmt.Printf("deployment %2d: %s\n", k+1, parts.line())
			all = append(all, parts)
		}
	}
	median, p95 := percentiles(all)
	b.ReportMetric(median.Seconds(), "ours-p50-s")
	b.ReportMetric(p95.Seconds(), "ours-p95-s")
	fmt.Printf("%d deployments: the provider's own time (total less build and Argo CD's operation) p50 %.2fs, p95 %.2fs\n", len(all), median.Seconds(), p95.Seconds())
}

// BenchmarkDeployConcurrent runs DEPLOY_PROJECTS projects (20), each in
// its own namespace with its own pipeline, application, executor and
// repository (one repository for all with DEPLOY_SHARED_REPO=1).
// First one project deploys DEPLOYS times (10) alone; then every project
// deploys at once, and again DEPLOY_PAUSE (3s) after each deployment
// ends, for DEPLOY_FOR (1m). It prints each project's deployments, the
// median and p95 of the provider's own time alone and together, and
// their ratio: the bound is 2.
//
// Both phases poll as the concurrent one must to leave the machine to
// what it measures: the DeployRun and the queue every 100ms, Argo CD's
// application every 250ms.
func BenchmarkDeployConcurrent(b *testing.B) {
	projects := envInt(b, "DEPLOY_PROJECTS", 20)
	deploys := envInt(b, "DEPLOYS", 10)
	buildTime := envDuration(b, "DEPLOY_BUILD", time.Second)
	pause := envDuration(b, "DEPLOY_PAUSE", 3*time.Second)
	span := envDuration(b, "DEPLOY_FOR", time.Minute)
	shared := os.Getenv("DEPLOY_SHARED_REPO") != ""
	env := controlplane.Shared(b)
	s := argocdserver.Shared(b, env)
	jenkins := fakejenkins.New("ci", token)
	b.Cleanup(jenkins.Close)
	ds := make([]*deployer, projects)
	for i := range ds {
		ds[i] = newDeployer(b, env, s, jenkins, fmt.Sprintf("deploybench-%02d", i+1), fmt.Sprintf("p%02d", i+1), shared, buildTime)
		ds[i].every, ds[i].argoEvery = 100*time.Millisecond, 250*time.Millisecond
	}
	startDeployControllers(b, env)
	ready(b, env.Client, ds...)

	var alone, together []deployParts
	for i := 0; b.Loop(); i++ {
		for k := range deploys {
			parts, err := ds[0].once(fmt.Sprintf("alone-%d-%d", i, k))
			if err != nil {
				b.Fatal(err)
			}
			fmt.Printf("alone       %2d: %s\n", k+1, parts.line())
			alone = append(alone, parts)
		}
		got := make([][]deployParts, len(ds))
		errs := make([]error, len(ds))
		var wg sync.WaitGroup
		end := time.Now().Add(span)
		for p, d := range ds {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := 0; k == 0 || time.Now().Before(end); k++ {
					if k > 0 {
						time.Sleep(pause)
					}
					parts, err := d.once(fmt.Sprintf("together-%d-%d", i, k))
					if err != nil {
						errs[p] = err
						return
					}
					got[p] = append(got[p], parts)
				}
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			b.Fatal(err)
		}
		for p, parts := range got {
			for k, part := range parts {
				fmt.Printf("%s %2d: %s\n", ds[p].project, k+1, part.line())
			}
			together = append(together, parts...)
		}
	}
	m1, p1 := percentiles(alone)
	m2, p2 := percentiles(together)
	b.ReportMetric(m1.Seconds(), "alone-p50-s")
	b.ReportMetric(p1.Seconds(), "alone-p95-s")
	b.ReportMetric(m2.Seconds(), "together-p50-s")
	b.ReportMetric(p2.Seconds(), "together-p95-s")
	fmt.Printf("the provider's own time (total less build and Argo CD's operation): %d deployments of one project alone p50 %.2fs, p95 %.2fs; %d deployments of %d projects at once p50 %.2fs, p95 %.2fs; ratio p50 %.2f, p95 %.2f\n",
		len(alone), m1.Seconds(), p1.Seconds(), len(together), len(ds), m2.Seconds(), p2.Seconds(), m2.Seconds()/m1.Seconds(), p2.Seconds()/p1.Seconds())
}

// deployer deploys one project's dev environment, as its Jenkins executor
// and a user asking for deployments would.
type deployer struct {
	c                client.Client
	jenkins          *fakejenkins.Server
	s                *argocdserver.Server
	repo             *gitserver.Repo
	argo             *argocd.Client
	app              *argov1alpha1.ArgoApplication
	ns, project, job string
	appPath          string
	buildTime        time.Duration
	every, argoEvery time.Duration
}

// once runs one deployment and times its parts.
func (x *deployer) once(name string) (deployParts, error) {
	ctx := context.Background()
	var parts deployParts
	start := time.Now()
	d := &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: x.ns}, Spec: v1alpha1.DeployRunSpec{Project: x.project, Environment: "dev", Revision: "main"}}
	if err := x.c.Create(ctx, d); err != nil {
		return parts, err
	}
	until := func(what string, limit time.Duration, every time.Duration, done func() (bool, error)) (time.Time, error) {
		for deadline := time.Now().Add(limit); ; time.Sleep(every) {
			ok, err := done()
			if ok || err != nil {
				return time.Now(), err
			}
			if time.Now().After(deadline) {
				_ = x.c.Get(ctx, client.ObjectKeyFromObject(d), d)
				return time.Time{}, fmt.Errorf("%s/%s: %s not within %s; the DeployRun: %s %s", x.ns, name, what, limit, d.Status.Phase, d.Status.Message)
			}
		}
	}
	// Queued and past its quiet period: what the request's delay decides.
	queued, err := until("a build queued for an executor", time.Minute, x.every, func() (bool, error) { return x.jenkins.Buildable(x.job) == 1, nil })
	if err != nil {
		return parts, err
	}
	x.jenkins.RunQueueOf(x.job)
	builds := x.jenkins.Builds(x.job)
	if len(builds) == 0 || !builds[len(builds)-1].Building {
		return parts, fmt.Errorf("%s/%s: the executor started no build of %s", x.ns, name, x.job)
	}
	number := builds[len(builds)-1].Number
	sha, err := x.repo.Commit(map[string]string{x.appPath + "/configmap.yaml": configMap(name)}, name)
	if err != nil {
		return parts, err
	}
	x.jenkins.SetDescription(x.job, number, "built "+name+"\nrevision="+sha)
	time.Sleep(time.Until(queued.Add(x.buildTime)))
	x.jenkins.Finish(x.job, "SUCCESS")
	built := time.Now()
	var asked, running time.Time
	healthy, err := until("Argo CD's operation at the build's commit", 2*time.Minute, x.argoEvery, func() (bool, error) {
		got, err := x.argo.Get(ctx, meta.GetExternalName(x.app))
		if err != nil {
			return false, nil
		}
		if asked.IsZero() && got.Operation != nil && got.Operation.Sync != nil && got.Operation.Sync.Revision == sha {
			asked = time.Now()
		}
		op := got.Status.OperationState
		if op == nil || op.Operation.Sync == nil || op.Operation.Sync.Revision != sha {
			return false, nil
		}
		if running.IsZero() {
			running = time.Now()
			if asked.IsZero() {
				asked = running
			}
		}
		// Another project's commit may have moved the target on: Argo CD
		// then compares with that commit (after the sync ended).
		st := got.Status
		compared := st.Sync.Revision == sha || st.ReconciledAt != nil && op.FinishedAt != nil && st.ReconciledAt.After(*op.FinishedAt)
		return op.Phase == "Succeeded" && compared && st.Sync.Status == "Synced" && st.Health.Status == "Healthy", nil
	})
	if err != nil {
		return parts, err
	}
	done, err := until("DeployRun Succeeded", 2*time.Minute, x.every, func() (bool, error) {
		_ = x.c.Get(ctx, client.ObjectKeyFromObject(d), d)
		if d.Status.Phase == v1alpha1.DeployFailed {
			return false, fmt.Errorf("%s/%s failed: %s", x.ns, name, d.Status.Message)
		}
		return d.Status.Phase == v1alpha1.DeploySucceeded, nil
	})
	if err != nil {
		return parts, err
	}
	parts.queued, parts.build = queued.Sub(start), built.Sub(queued)
	parts.toAsk, parts.argoQueue, parts.argo, parts.toDone = asked.Sub(built), running.Sub(asked), healthy.Sub(running), done.Sub(healthy)
	parts.total = done.Sub(start)
	if d.Status.Sync != nil {
		parts.attempts = d.Status.Sync.Attempt
	}
	if !strings.Contains(d.Status.Message, "Synced and Healthy") {
		return parts, fmt.Errorf("%s/%s: %s", x.ns, name, d.Status.Message)
	}
	return parts, nil
}

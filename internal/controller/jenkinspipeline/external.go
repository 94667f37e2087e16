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
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.opentelemetry.io/otel/trace"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/tracing"
)

const (
	errFmtAmbiguous  = "Jenkins did not answer the build request for buildRequest %q, which it may have queued: the next reconcile looks for it in the queue and the last builds before queueing it again"
	errGet           = "cannot observe the Jenkins job"
	errCreate        = "cannot create the Jenkins job"
	errUpdate        = "cannot update the Jenkins job"
	errDelete        = "cannot delete the Jenkins job"
	errRecord        = "cannot record in status"
	errBuildDisabled = "spec.forProvider.buildRequest %q was not queued: the job is disabled (spec.forProvider.disabled); enable it to build"
	errFmtNotOwned   = "Jenkins job %q exists and no JenkinsPipeline manages it: it was left untouched. Set spec.forProvider.adoptExisting: true to take it over (its builds are kept), delete or rename it in Jenkins, or point this resource elsewhere (spec.forProvider.folder/name)"
	errFmtOthers     = "Jenkins job %q exists and is managed by %s, not by this resource: it was left untouched, whatever adoptExisting says. Delete or rename it in Jenkins, or point this resource elsewhere (spec.forProvider.folder/name)"
)

type external struct {
	client Client
	kube   client.Client
	now    func() time.Time
	// observed is the pipeline Observe read, for Update to compare
	// against, and config the config.xml it was read from, which Update
	// changes only where the resource manages it.
	observed *jenkins.Pipeline
	config   []byte
	// files reads spec.forProvider.source.buildFile, held to limits (the
	// ProviderConfig's, for the resource's namespace); file is what
	// Observe read, for Create and Update.
	files  BuildFiles
	limits *pcv1alpha1.JenkinsConfig
	file   buildFile
}

// Observe reads the job (config.xml and build state) and compares the
// managed fields.
func (e *external) Observe(ctx context.Context, cr *v1alpha1.JenkinsPipeline) (managed.ExternalObservation, error) {
	path := meta.GetExternalName(cr)
	if cr.Spec.ForProvider.Source.BuildFile != nil && !meta.WasDeleted(cr) {
		// Read at every poll, as the Kopf operator read its project's
		// configuration every 5 minutes.
		e.file = e.readBuildFile(ctx, cr)
	}
	job, err := e.client.Get(ctx, path)
	if jenkins.IsNotFound(err) {
		return managed.ExternalObservation{ResourceExists: false}, nil
	}
	if err != nil {
		return managed.ExternalObservation{}, errors.Wrap(err, errGet)
	}
	adopting, err := claim(cr, path, job.Pipeline.Owner)
	switch {
	case (err != nil || adopting) && meta.WasDeleted(cr):
		// Never ours (or not yet): let the resource go and leave the job.
		return managed.ExternalObservation{ResourceExists: false}, nil
	case err != nil:
		return managed.ExternalObservation{}, err
	}
	if err := e.confirm(ctx, cr, path); err != nil {
		return managed.ExternalObservation{}, err
	}
	e.observed, e.config = job.Pipeline, job.Config
	cr.Status.AtProvider = Observation(job, cr.Status.AtProvider)
	cr.SetConditions(xpv2.Available())

	want, err := e.desired(cr, job.Pipeline)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	diff := e.drift(cr, *job.Pipeline, want, adopting)
	return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: diff == "", Diff: diff}, nil
}

// drift is how the job differs from want, and what else Update has to do:
// a build file to report, an owner line to add, a build to queue. A job
// in step with a good build file records the file's commit.
func (e *external) drift(cr *v1alpha1.JenkinsPipeline, job, want jenkins.Pipeline, adopting bool) string {
	diff := cmp.Diff(jenkins.Normalize(jenkins.Managed(job, want)), jenkins.Normalize(want), cmpopts.EquateEmpty())
	if ferr := e.fileErr(cr); ferr != nil {
		diff += ferr.Error() + "\n"
	} else if diff == "" && e.file.commit != "" {
		cr.Status.AtProvider.BuildFileCommit = e.file.commit
	}
	if adopting {
		diff += "owner line to be added to the description (adoptExisting)\n"
	}
	if req := pendingBuild(cr); req != "" {
		diff += fmt.Sprintf("buildRequest %q not yet queued\n", req)
	}
	return diff
}

// Create creates the job and any missing folder, and records the folders it
// created so that deletion removes exactly those.
func (e *external) Create(ctx context.Context, cr *v1alpha1.JenkinsPipeline) (managed.ExternalCreation, error) {
	cr.SetConditions(xpv2.Creating())
	want, err := e.desired(cr, nil)
	if err != nil {
		return managed.ExternalCreation{}, err
	}
	created, err := e.client.Create(ctx, meta.GetExternalName(cr), want)
	if err == nil && e.file.commit != "" {
		cr.Status.AtProvider.BuildFileCommit = e.file.commit
	}
	if len(created) > 0 {
		folders := append(append([]string(nil), cr.Status.AtProvider.CreatedFolders...), created...)
		if rerr := e.record(ctx, cr, func(o *v1alpha1.JenkinsPipelineObservation) { o.CreatedFolders = folders }); rerr != nil && err == nil {
			err = rerr
		}
	}
	return managed.ExternalCreation{}, errors.Wrap(err, errCreate)
}

// Update writes config.xml when the managed fields differ, then queues the
// requested build, if any.
func (e *external) Update(ctx context.Context, cr *v1alpha1.JenkinsPipeline) (managed.ExternalUpdate, error) {
	path := meta.GetExternalName(cr)
	want, err := e.desired(cr, e.observed)
	if err != nil {
		return managed.ExternalUpdate{}, err
	}
	if e.observed == nil || !cmp.Equal(jenkins.Normalize(jenkins.Managed(*e.observed, want)), jenkins.Normalize(want), cmpopts.EquateEmpty()) {
		if err := e.client.Update(ctx, path, want, e.config); err != nil {
			return managed.ExternalUpdate{}, errors.Wrap(err, errUpdate)
		}
	}
	// A bad build file is reported, and the other fields are corrected.
	// A requested build still runs, on the pipeline the job keeps (the
	// last good file's, or the one an adopted job came with): deployments
	// go on while the file is fixed, as they did before it broke. Not when
	// the ProviderConfig refuses the file: the kept script may hold what
	// the platform has withdrawn since.
	ferr := e.fileErr(cr)
	if ferr == nil && e.file.commit != "" {
		cr.Status.AtProvider.BuildFileCommit = e.file.commit
	}
	req := pendingBuild(cr)
	switch {
	case req == "", e.file.refused && ferr != nil:
		return managed.ExternalUpdate{}, ferr
	case cr.Spec.ForProvider.Disabled:
		return managed.ExternalUpdate{}, errors.Errorf(errBuildDisabled, req)
	}
	if err := e.build(ctx, cr, path, req); err != nil {
		return managed.ExternalUpdate{}, err
	}
	return managed.ExternalUpdate{}, ferr
}

// build queues one build for req. The request is recorded as handled, and
// unconfirmed, in status *before* the build is queued: a crash or a lost
// answer after queueing must never queue it again blindly (confirm looks
// for it first). If Jenkins refuses the build, the record is rolled back so
// the request is retried.
func (e *external) build(ctx context.Context, cr *v1alpha1.JenkinsPipeline, path, req string) error {
	prev := cr.Status.AtProvider.HandledBuildRequest
	u := &v1alpha1.UnconfirmedBuild{Request: req, SentAt: metav1.NewTime(e.now().Truncate(time.Second))}
	if b := cr.Status.AtProvider.LastBuild; b != nil {
		u.AfterBuild = b.Number
	}
	if err := e.record(ctx, cr, func(o *v1alpha1.JenkinsPipelineObservation) {
		o.HandledBuildRequest, o.UnconfirmedBuild, o.HandledBuildQueueItem, o.HandledBuildNumber = req, u, 0, 0
	}); err != nil {
		return err
	}
	id, err := e.client.Build(buildTrace(ctx, cr, req), path, len(cr.Spec.ForProvider.Parameters) > 0, cr.Spec.ForProvider.BuildParameters)
	if err != nil {
		if jenkins.IsAmbiguous(err) {
			return errors.Wrapf(err, errFmtAmbiguous, req)
		}
		if rerr := e.record(ctx, cr, func(o *v1alpha1.JenkinsPipelineObservation) { o.HandledBuildRequest, o.UnconfirmedBuild = prev, nil }); rerr != nil {
			return errors.Wrapf(err, "%s; and the request could not be marked for retry (%v): change spec.forProvider.buildRequest to try again", errUpdate, rerr)
		}
		return errors.Wrap(err, errUpdate)
	}
	// Confirmed: the reconciler's status write records it.
	cr.Status.AtProvider.UnconfirmedBuild = nil
	cr.Status.AtProvider.HandledBuildQueueItem = id
	cr.Status.AtProvider.InQueue = true
	return nil
}

// confirm settles a build request sent without Jenkins's answer (a crash,
// a timeout, a dropped connection): found in the queue or among the last
// builds since it was sent, it is done; not found, it is pending again and
// queued by this reconcile's Update.
func (e *external) confirm(ctx context.Context, cr *v1alpha1.JenkinsPipeline, path string) error {
	u := cr.Status.AtProvider.UnconfirmedBuild
	if u == nil {
		return nil
	}
	if u.Request != cr.Status.AtProvider.HandledBuildRequest {
		cr.Status.AtProvider.UnconfirmedBuild = nil
		return nil
	}
	where, err := e.client.FindBuild(ctx, path, cr.Spec.ForProvider.BuildParameters, u.AfterBuild)
	if err != nil {
		return errors.Wrapf(err, "cannot check whether the build for buildRequest %q was queued", u.Request)
	}
	if where == "" {
		// Never queued: retry, with the same optimistic lock.
		return e.record(ctx, cr, func(o *v1alpha1.JenkinsPipelineObservation) { o.HandledBuildRequest, o.UnconfirmedBuild = "", nil })
	}
	n, _ := strconv.ParseInt(strings.TrimPrefix(where, "#"), 10, 64)
	return e.record(ctx, cr, func(o *v1alpha1.JenkinsPipelineObservation) { o.UnconfirmedBuild, o.HandledBuildNumber = nil, n })
}

// Delete deletes the job and the empty folders this resource created.
func (e *external) Delete(ctx context.Context, cr *v1alpha1.JenkinsPipeline) (managed.ExternalDelete, error) {
	cr.SetConditions(xpv2.Deleting())
	err := e.client.Delete(ctx, meta.GetExternalName(cr), cr.Status.AtProvider.CreatedFolders)
	return managed.ExternalDelete{}, errors.Wrap(err, errDelete)
}

// Disconnect has nothing to release: the HTTP transport is shared.
func (e *external) Disconnect(_ context.Context) error { return nil }

// record patches status.atProvider at once, outside the reconciler's own
// status write, for facts that must survive a crash or a conflict: folders
// created and build requests queued. Only the changed field is sent.
func (e *external) record(ctx context.Context, cr *v1alpha1.JenkinsPipeline, mutate func(*v1alpha1.JenkinsPipelineObservation)) error {
	p := cr.DeepCopy()
	orig := p.DeepCopy()
	mutate(&p.Status.AtProvider)
	// Optimistic lock: a status written meanwhile (another reconcile, a
	// request handled from a newer read) makes this fail and the next
	// reconcile decide again from a fresh read, instead of overwriting it.
	if err := e.kube.Status().Patch(ctx, p, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		return errors.Wrap(err, errRecord)
	}
	mutate(&cr.Status.AtProvider)
	cr.SetResourceVersion(p.GetResourceVersion())
	return nil
}

func pendingBuild(cr *v1alpha1.JenkinsPipeline) string {
	if r := cr.Spec.ForProvider.BuildRequest; r != "" && r != cr.Status.AtProvider.HandledBuildRequest {
		return r
	}
	return ""
}

// claim applies the owner rule (mrcontroller.ClaimOf) to the job at path,
// whose description names owner: adopting is true for a job nobody owns
// that adoptExisting takes over; an error says why the job is refused. An
// Observe-only resource may watch any job.
func claim(cr *v1alpha1.JenkinsPipeline, path, owner string) (adopting bool, err error) {
	if !mrcontroller.MayWrite(cr) {
		return false, nil
	}
	switch mrcontroller.ClaimOf(owner, Owner(cr), cr.Spec.ForProvider.AdoptExisting) {
	case mrcontroller.ClaimOurs:
		return false, nil
	case mrcontroller.ClaimAdopt:
		return true, nil
	case mrcontroller.ClaimOthers:
		return false, errors.Errorf(errFmtOthers, path, "JenkinsPipeline "+owner)
	case mrcontroller.ClaimUnowned:
	}
	return false, errors.Errorf(errFmtNotOwned, path)
}

// buildTrace is ctx in the trace the build for req belongs to, when the
// DeployRun that asked for it named one (contract.AnnotationBuildTrace).
func buildTrace(ctx context.Context, cr *v1alpha1.JenkinsPipeline, req string) context.Context {
	tp, ok := strings.CutPrefix(cr.GetAnnotations()[contract.AnnotationBuildTrace], req+" ")
	if !ok || req == "" {
		return ctx
	}
	if sc := tracing.ParseTraceParent(tp); sc.IsValid() {
		return trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	return ctx
}

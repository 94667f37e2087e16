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
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/contract"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
	"github.com/freeleaps/provider-devops/internal/tracing"
)

// building asks the pipeline for the build, then follows it to its result.
// The build's record is worked on in a copy, which the transition carries:
// what a look learned (the request, the queue item, the number) is kept
// whatever it decides.
func (r *Reconciler) building(ctx context.Context, d *v1alpha1.DeployRun, e *env) (transition, error) {
	b := d.Status.Build.DeepCopy()
	t, err := r.build(ctx, d, e, b)
	t.build = b
	return t, err
}

// build decides Building's transition, recording in b what it learns.
func (r *Reconciler) build(ctx context.Context, d *v1alpha1.DeployRun, e *env, b *v1alpha1.DeployBuild) (transition, error) {
	p := e.pipeline
	if p.Name != b.Pipeline {
		return failed(fmt.Sprintf("the environment's JenkinsPipeline changed from %s to %s during the build", b.Pipeline, p.Name)), nil
	}
	st := p.Status.AtProvider
	switch {
	case b.Request == "":
		return r.askBuild(ctx, d, p, b)
	case st.HandledBuildRequest != b.Request:
		return r.awaitQueued(ctx, p, b)
	case st.UnconfirmedBuild != nil:
		if u := st.UnconfirmedBuild; u.Request == b.Request {
			b.AfterBuild = max(b.AfterBuild, u.AfterBuild)
		}
		return waiting(fmt.Sprintf("waiting for Jenkins to confirm the build JenkinsPipeline %s asked for", p.Name)), nil
	}
	if b.QueueItem == 0 && b.Number == 0 {
		b.QueueItem, b.Number = st.HandledBuildQueueItem, st.HandledBuildNumber
	}
	return r.followBuild(ctx, d, e, b)
}

// askBuild asks the pipeline for the deployment's build, once. Another
// request the pipeline has not handled yet (someone set buildRequest by
// hand) is never overwritten: it is waited out.
func (r *Reconciler) askBuild(ctx context.Context, d *v1alpha1.DeployRun, p *jenkinsv1alpha1.JenkinsPipeline, b *v1alpha1.DeployBuild) (transition, error) {
	st := p.Status.AtProvider
	if pending := p.Spec.ForProvider.BuildRequest; pending != "" && pending != st.HandledBuildRequest && pending != Token(d) {
		return waiting(fmt.Sprintf("waiting for JenkinsPipeline %s to handle another build request (%s) before asking for this deployment's", p.Name, truncate(pending))), nil
	}
	if p.Spec.ForProvider.BuildRequest != Token(d) {
		msg, err := r.requestBuild(ctx, d, p)
		if err != nil {
			return transition{}, err
		}
		if msg != "" {
			return failed(msg), nil
		}
	}
	b.Request, b.Job = Token(d), meta.GetExternalName(p)
	if lb := st.LastBuild; lb != nil {
		b.AfterBuild = lb.Number
	}
	return waiting(fmt.Sprintf("waiting for JenkinsPipeline %s to queue the build", p.Name)), nil
}

// awaitQueued waits for the pipeline to handle the deployment's request,
// and fails the deployment when someone changed the request meanwhile.
func (r *Reconciler) awaitQueued(ctx context.Context, p *jenkinsv1alpha1.JenkinsPipeline, b *v1alpha1.DeployBuild) (transition, error) {
	if p.Spec.ForProvider.BuildRequest == b.Request {
		return waiting(fmt.Sprintf("waiting for JenkinsPipeline %s to queue the build%s", p.Name, syncedNote(p))), nil
	}
	// The cache may not have seen the request made a moment ago: only the
	// API server's copy decides that it was changed.
	fresh := &jenkinsv1alpha1.JenkinsPipeline{}
	if err := r.live.Get(ctx, client.ObjectKeyFromObject(p), fresh); err != nil {
		return transition{}, errors.Wrapf(err, "cannot read JenkinsPipeline %s", p.Name)
	}
	if fresh.Spec.ForProvider.BuildRequest == b.Request || fresh.Status.AtProvider.HandledBuildRequest == b.Request {
		return transition{requeue: time.Second}, nil
	}
	return failed(fmt.Sprintf("spec.forProvider.buildRequest of JenkinsPipeline %s was changed to %q before it queued this deployment's build: leave it alone during a deployment", fresh.Name, truncate(fresh.Spec.ForProvider.BuildRequest))), nil
}

// followBuild follows the build the pipeline queued in Jenkins to its
// result, only ever in the job whose build the deployment follows.
func (r *Reconciler) followBuild(ctx context.Context, d *v1alpha1.DeployRun, e *env, b *v1alpha1.DeployBuild) (transition, error) {
	p := e.pipeline
	jc, err := r.o.NewBuilds(ctx, p)
	if err != nil {
		return transition{}, errors.Wrapf(err, "cannot reach Jenkins for JenkinsPipeline %s", p.Name)
	}
	path := meta.GetExternalName(p)
	if b.Job != "" && path != b.Job {
		return failed(fmt.Sprintf("JenkinsPipeline %s now names Jenkins job %q, not %q whose build this deployment follows: leave its external name alone during a deployment", p.Name, truncate(path), truncate(b.Job))), nil
	}
	if b.Number == 0 {
		n, t, err := r.buildNumber(ctx, jc, d, b, path)
		if err != nil || n == 0 {
			return t, err
		}
		b.Number = n
	}
	info, err := jc.GetBuild(ctx, path, b.Number)
	if err != nil {
		return transition{}, errors.Wrapf(err, "cannot read build #%d of Jenkins job %s", b.Number, path)
	}
	if b.QueueItem != 0 && info.QueueID != 0 && info.QueueID != b.QueueItem {
		return failed(fmt.Sprintf("build #%d of Jenkins job %s came from queue item %d, not %d which JenkinsPipeline %s queued for this deployment: Jenkins has no trace of this deployment's build", b.Number, path, info.QueueID, b.QueueItem, p.Name)), nil
	}
	b.URL = info.URL
	if info.Building || info.Result == "" {
		return waiting(fmt.Sprintf("build #%d running", b.Number)), nil
	}
	b.Result = info.Result
	b.StartedAt, b.FinishedAt = buildTimes(info)
	return r.built(ctx, d, e, b, info)
}

// buildTimes are when Jenkins started and, by its duration, ended a
// build; nil where it did not say.
func buildTimes(info *jenkins.BuildInfo) (started, finished *metav1.Time) {
	if info.Timestamp.Unix() <= 0 {
		return nil, nil
	}
	started = &metav1.Time{Time: info.Timestamp}
	if info.Duration > 0 {
		finished = &metav1.Time{Time: info.Timestamp.Add(info.Duration)}
	}
	return started, finished
}

// built decides what follows a build that ended: a failed deployment, a
// deployment that its build completed (an environment without an
// ArgoApplication), or the sync of what it built.
func (r *Reconciler) built(ctx context.Context, d *v1alpha1.DeployRun, e *env, b *v1alpha1.DeployBuild, info *jenkins.BuildInfo) (transition, error) {
	if info.Result != "SUCCESS" {
		return failed(fmt.Sprintf("build #%d ended %s: see its console at %sconsole", b.Number, info.Result, withSlash(info.URL))), nil
	}
	rev, msg := ProducedRevision(info.Description)
	if msg != "" {
		return failed(fmt.Sprintf("build #%d %s", b.Number, msg)), nil
	}
	b.Revision = rev
	if e.app == nil && wantsApp(e.pipeline) {
		return failed(fmt.Sprintf("build #%d succeeded, but the environment's ArgoApplication went away: nothing deployed it", b.Number)), nil
	}
	if e.app == nil {
		url, err := r.liveURL(ctx, d)
		if err != nil {
			return transition{}, err
		}
		return transition{next: v1alpha1.DeploySucceeded, url: &url,
			message: fmt.Sprintf("build #%d succeeded; the environment has no ArgoApplication, so its build is the whole deployment", b.Number)}, nil
	}
	s := &v1alpha1.DeploySync{Application: e.app.Name, Revision: cmp.Or(rev, d.Spec.Revision)}
	// The status write wakes the deployment at once; Poll is a fallback.
	return transition{next: v1alpha1.DeployDeploying, sync: s, requeue: Poll,
		message: fmt.Sprintf("build #%d succeeded; syncing ArgoApplication %s to %s", b.Number, e.app.Name, revisionName(s.Revision))}, nil
}

func syncedNote(p *jenkinsv1alpha1.JenkinsPipeline) string {
	for _, c := range p.Status.Conditions {
		if c.Type == xpv2.TypeSynced && c.Status == corev1.ConditionFalse && c.Message != "" {
			return " (it reports: " + truncateMsg(c.Message) + ")"
		}
	}
	return ""
}

func withSlash(u string) string {
	if u == "" || strings.HasSuffix(u, "/") {
		return u
	}
	return u + "/"
}

// requestBuild sets the pipeline's buildRequest to the deployment's token,
// with its parameters. msg says why the pipeline refused it.
func (r *Reconciler) requestBuild(ctx context.Context, d *v1alpha1.DeployRun, p *jenkinsv1alpha1.JenkinsPipeline) (msg string, err error) {
	orig := p.DeepCopy()
	p.Spec.ForProvider.BuildRequest = Token(d)
	p.Spec.ForProvider.BuildParameters = buildParameters(d)
	// The build is queued as a span of this phase.
	if tp := tracing.TraceParent(trace.SpanContextFromContext(ctx)); tp != "" && tracing.Enabled() {
		meta.AddAnnotations(p, map[string]string{contract.AnnotationBuildTrace: Token(d) + " " + tp})
	}
	// Optimistic lock: decided on what was read.
	if err := r.kube.Patch(ctx, p, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		if kerrors.IsInvalid(err) {
			return fmt.Sprintf("JenkinsPipeline %s refused the build request: %v", p.Name, err), nil
		}
		return "", errors.Wrapf(err, "cannot set spec.forProvider.buildRequest of JenkinsPipeline %s", p.Name)
	}
	r.record.Eventf(d, corev1.EventTypeNormal, "BuildRequested", "Asked JenkinsPipeline %s for a build", p.Name)
	return "", nil
}

// buildNumber finds the number of the deployment's build b. Without one, t
// says why: the build waits in the queue, or it will never run.
func (r *Reconciler) buildNumber(ctx context.Context, jc Builds, d *v1alpha1.DeployRun, b *v1alpha1.DeployBuild, path string) (n int64, t transition, err error) {
	if b.QueueItem != 0 {
		q, err := jc.QueueItem(ctx, b.QueueItem)
		switch {
		case err == nil && q.Job != path:
			return 0, failed(fmt.Sprintf("Jenkins queue item %d is not of job %s but of %q: it is not this deployment's build", b.QueueItem, path, truncate(q.Job))), nil
		case err == nil && q.Cancelled:
			return 0, failed(fmt.Sprintf("the build was cancelled in Jenkins' queue (item %d)", b.QueueItem)), nil
		case err == nil && q.Number == 0:
			return 0, waiting("build waiting in Jenkins' queue" + why(q.Why)), nil
		case err == nil:
			return q.Number, transition{}, nil
		case !jenkins.IsNotFound(err):
			return 0, transition{}, errors.Wrapf(err, "cannot read Jenkins queue item %d", b.QueueItem)
		}
		// Jenkins forgets an item some minutes after it left the queue:
		// look for the build by its parameters.
	}
	where, err := jc.FindBuild(ctx, path, buildParameters(d), b.AfterBuild)
	if err != nil {
		return 0, transition{}, errors.Wrapf(err, "cannot look for the build of Jenkins job %s", path)
	}
	if n, ok := strings.CutPrefix(where, "#"); ok {
		var num int64
		_, _ = fmt.Sscan(n, &num)
		// A number that does not read is looked for again.
		return num, transition{requeue: Poll}, nil
	}
	if where == "queue" {
		return 0, waiting("build waiting in Jenkins' queue"), nil
	}
	return 0, failed(fmt.Sprintf("Jenkins has no trace of the build JenkinsPipeline %s queued (queue item %d): it was deleted or never ran", b.Pipeline, b.QueueItem)), nil
}

func why(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// ProducedRevision reads the revision a build reports it produced: a line
// "revision=<git ref or commit id>" in its description. msg says why a
// reported one cannot be used.
func ProducedRevision(description string) (rev, msg string) {
	for _, line := range strings.Split(description, "\n") {
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "revision=")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if !v1alpha1.IsRevision(v) {
			return "", fmt.Sprintf("reported revision %q in its description, which is not a git ref or commit id", truncate(v))
		}
		return v, ""
	}
	return "", ""
}

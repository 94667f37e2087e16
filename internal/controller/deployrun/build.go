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

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
)

// building asks the pipeline for the build, then follows it to its result.
func (r *Reconciler) building(ctx context.Context, d *v1alpha1.DeployRun, e *env) (reconcile.Result, error) {
	b := d.Status.Build
	p := e.pipeline
	if p.Name != b.Pipeline {
		r.fail(d, fmt.Sprintf("the environment's JenkinsPipeline changed from %s to %s during the build", b.Pipeline, p.Name))
		return reconcile.Result{}, nil
	}
	st := p.Status.AtProvider
	if b.Request == "" {
		// Ask once. Another request the pipeline has not handled yet
		// (someone set buildRequest by hand) is never overwritten: it is
		// waited out.
		if pending := p.Spec.ForProvider.BuildRequest; pending != "" && pending != st.HandledBuildRequest && pending != Token(d) {
			r.note(d, fmt.Sprintf("waiting for JenkinsPipeline %s to handle another build request (%s) before asking for this deployment's", p.Name, truncate(pending)))
			return reconcile.Result{RequeueAfter: Poll}, nil
		}
		if p.Spec.ForProvider.BuildRequest != Token(d) {
			if err := r.requestBuild(ctx, d, p); err != nil || d.Status.Phase.Final() {
				return reconcile.Result{}, err
			}
		}
		b.Request, b.Job = Token(d), meta.GetExternalName(p)
		if lb := st.LastBuild; lb != nil {
			b.AfterBuild = lb.Number
		}
		r.note(d, fmt.Sprintf("waiting for JenkinsPipeline %s to queue the build", p.Name))
		return reconcile.Result{RequeueAfter: Poll}, nil
	}
	if st.HandledBuildRequest != b.Request {
		if p.Spec.ForProvider.BuildRequest != b.Request {
			// The cache may not have seen the request made a moment ago:
			// only the API server's copy decides that it was changed.
			fresh := &jenkinsv1alpha1.JenkinsPipeline{}
			if err := r.live.Get(ctx, client.ObjectKeyFromObject(p), fresh); err != nil {
				return reconcile.Result{}, errors.Wrapf(err, "cannot read JenkinsPipeline %s", p.Name)
			}
			if fresh.Spec.ForProvider.BuildRequest == b.Request || fresh.Status.AtProvider.HandledBuildRequest == b.Request {
				return reconcile.Result{RequeueAfter: time.Second}, nil
			}
			p = fresh
			r.fail(d, fmt.Sprintf("spec.forProvider.buildRequest of JenkinsPipeline %s was changed to %q before it queued this deployment's build: leave it alone during a deployment", p.Name, truncate(p.Spec.ForProvider.BuildRequest)))
			return reconcile.Result{}, nil
		}
		r.note(d, fmt.Sprintf("waiting for JenkinsPipeline %s to queue the build%s", p.Name, syncedNote(p)))
		return reconcile.Result{RequeueAfter: Poll}, nil
	}
	if u := st.UnconfirmedBuild; u != nil {
		if u.Request == b.Request {
			b.AfterBuild = max(b.AfterBuild, u.AfterBuild)
		}
		r.note(d, fmt.Sprintf("waiting for Jenkins to confirm the build JenkinsPipeline %s asked for", p.Name))
		return reconcile.Result{RequeueAfter: Poll}, nil
	}
	if b.QueueItem == 0 && b.Number == 0 {
		b.QueueItem, b.Number = st.HandledBuildQueueItem, st.HandledBuildNumber
	}
	jc, err := r.o.NewBuilds(ctx, p)
	if err != nil {
		return reconcile.Result{}, errors.Wrapf(err, "cannot reach Jenkins for JenkinsPipeline %s", p.Name)
	}
	path := meta.GetExternalName(p)
	if b.Job != "" && path != b.Job {
		r.fail(d, fmt.Sprintf("JenkinsPipeline %s now names Jenkins job %q, not %q whose build this deployment follows: leave its external name alone during a deployment", p.Name, truncate(path), truncate(b.Job)))
		return reconcile.Result{}, nil
	}
	if b.Number == 0 {
		n, msg, err := r.buildNumber(ctx, jc, d, path)
		if err != nil {
			return reconcile.Result{}, err
		}
		if msg != "" {
			r.fail(d, msg)
			return reconcile.Result{}, nil
		}
		if n == 0 {
			return reconcile.Result{RequeueAfter: Poll}, nil
		}
		b.Number = n
	}
	info, err := jc.GetBuild(ctx, path, b.Number)
	if err != nil {
		return reconcile.Result{}, errors.Wrapf(err, "cannot read build #%d of Jenkins job %s", b.Number, path)
	}
	if b.QueueItem != 0 && info.QueueID != 0 && info.QueueID != b.QueueItem {
		r.fail(d, fmt.Sprintf("build #%d of Jenkins job %s came from queue item %d, not %d which JenkinsPipeline %s queued for this deployment: Jenkins has no trace of this deployment's build", b.Number, path, info.QueueID, b.QueueItem, p.Name))
		return reconcile.Result{}, nil
	}
	b.URL = info.URL
	if info.Building || info.Result == "" {
		r.note(d, fmt.Sprintf("build #%d running", b.Number))
		return reconcile.Result{RequeueAfter: Poll}, nil
	}
	b.Result = info.Result
	if info.Result != "SUCCESS" {
		r.fail(d, fmt.Sprintf("build #%d ended %s: see its console at %sconsole", b.Number, info.Result, withSlash(info.URL)))
		return reconcile.Result{}, nil
	}
	rev, msg := ProducedRevision(info.Description)
	if msg != "" {
		r.fail(d, fmt.Sprintf("build #%d %s", b.Number, msg))
		return reconcile.Result{}, nil
	}
	b.Revision = rev
	if e.app == nil && wantsApp(p) {
		r.fail(d, fmt.Sprintf("build #%d succeeded, but the environment's ArgoApplication went away: nothing deployed it", b.Number))
		return reconcile.Result{}, nil
	}
	if e.app == nil {
		url, err := r.liveURL(ctx, d)
		if err != nil {
			return reconcile.Result{}, err
		}
		d.Status.URL = url
		r.enter(d, v1alpha1.DeploySucceeded, fmt.Sprintf("build #%d succeeded; the environment has no ArgoApplication, so its build is the whole deployment", b.Number))
		return reconcile.Result{}, nil
	}
	d.Status.Sync = &v1alpha1.DeploySync{Application: e.app.Name, Revision: cmp.Or(rev, d.Spec.Revision)}
	r.enter(d, v1alpha1.DeployDeploying, fmt.Sprintf("build #%d succeeded; syncing ArgoApplication %s to %s", b.Number, e.app.Name, revisionName(d.Status.Sync.Revision)))
	return reconcile.Result{RequeueAfter: Poll}, nil // the status write wakes it at once
}

func syncedNote(p *jenkinsv1alpha1.JenkinsPipeline) string {
	for _, c := range p.Status.Conditions {
		if c.Type == "Synced" && c.Status == corev1.ConditionFalse && c.Message != "" {
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
// with its parameters.
func (r *Reconciler) requestBuild(ctx context.Context, d *v1alpha1.DeployRun, p *jenkinsv1alpha1.JenkinsPipeline) error {
	orig := p.DeepCopy()
	p.Spec.ForProvider.BuildRequest = Token(d)
	p.Spec.ForProvider.BuildParameters = buildParameters(d)
	// Optimistic lock: decided on what was read.
	if err := r.kube.Patch(ctx, p, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		if kerrors.IsInvalid(err) {
			r.fail(d, fmt.Sprintf("JenkinsPipeline %s refused the build request: %v", p.Name, err))
			return nil
		}
		return errors.Wrapf(err, "cannot set spec.forProvider.buildRequest of JenkinsPipeline %s", p.Name)
	}
	r.record.Eventf(d, corev1.EventTypeNormal, "BuildRequested", "Asked JenkinsPipeline %s for a build", p.Name)
	return nil
}

// buildNumber finds the number of the deployment's build: 0 while it waits
// in the queue, or msg when it will never run.
func (r *Reconciler) buildNumber(ctx context.Context, jc Builds, d *v1alpha1.DeployRun, path string) (int64, string, error) {
	b := d.Status.Build
	if b.QueueItem != 0 {
		q, err := jc.QueueItem(ctx, b.QueueItem)
		switch {
		case err == nil && q.Job != path:
			return 0, fmt.Sprintf("Jenkins queue item %d is not of job %s but of %q: it is not this deployment's build", b.QueueItem, path, truncate(q.Job)), nil
		case err == nil && q.Cancelled:
			return 0, fmt.Sprintf("the build was cancelled in Jenkins' queue (item %d)", b.QueueItem), nil
		case err == nil && q.Number == 0:
			r.note(d, "build waiting in Jenkins' queue"+why(q.Why))
			return 0, "", nil
		case err == nil:
			return q.Number, "", nil
		case !jenkins.IsNotFound(err):
			return 0, "", errors.Wrapf(err, "cannot read Jenkins queue item %d", b.QueueItem)
		}
		// Jenkins forgets an item some minutes after it left the queue:
		// look for the build by its parameters.
	}
	where, err := jc.FindBuild(ctx, path, buildParameters(d), b.AfterBuild)
	if err != nil {
		return 0, "", errors.Wrapf(err, "cannot look for the build of Jenkins job %s", path)
	}
	if n, ok := strings.CutPrefix(where, "#"); ok {
		var num int64
		_, _ = fmt.Sscan(n, &num)
		return num, "", nil
	}
	if where == "queue" {
		r.note(d, "build waiting in Jenkins' queue")
		return 0, "", nil
	}
	return 0, fmt.Sprintf("Jenkins has no trace of the build JenkinsPipeline %s queued (queue item %d): it was deleted or never ran", d.Status.Build.Pipeline, b.QueueItem), nil
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

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
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/controller/argoaccess"
)

func revisionName(r string) string {
	if r == "" {
		return "its target revision"
	}
	return r
}

// deploying asks Argo CD to sync the application to the revision, once,
// and follows that operation to its end.
func (r *Reconciler) deploying(ctx context.Context, d *v1alpha1.DeployRun, e *env) (reconcile.Result, error) {
	s := d.Status.Sync
	a := e.app
	if a == nil || a.Name != s.Application {
		r.fail(d, fmt.Sprintf("the environment's ArgoApplication %s went away during the deployment", s.Application))
		return reconcile.Result{}, nil
	}
	name := meta.GetExternalName(a)
	if name == "" {
		r.note(d, fmt.Sprintf("waiting for ArgoApplication %s to create its Argo CD application", a.Name))
		return reconcile.Result{RequeueAfter: Poll}, nil
	}
	ac, tenancy, err := r.o.NewSyncs(ctx, a)
	if err != nil {
		return reconcile.Result{}, errors.Wrapf(err, "cannot reach Argo CD for ArgoApplication %s", a.Name)
	}
	app, err := ac.Get(ctx, name)
	if err != nil {
		return reconcile.Result{}, errors.Wrapf(err, "cannot read Argo CD application %s", name)
	}
	// Sync only what the environment's ArgoApplication owns.
	if app.Metadata.Labels[contract.LabelOwner] != argoaccess.Owner(a.GetNamespace(), a.GetName()) {
		r.fail(d, fmt.Sprintf("Argo CD application %s is not owned by ArgoApplication %s (label %s): it was not synced", name, a.Name, contract.LabelOwner))
		return reconcile.Result{}, nil
	}
	if app.Spec.Source == nil {
		r.fail(d, fmt.Sprintf("Argo CD application %s has no single source (spec.sources or a source hydrator): a deployment syncs one source", name))
		return reconcile.Result{}, nil
	}
	if s.ExternalName == "" {
		s.ExternalName = name
	}
	if msg := sameApp(s, name, app, a); msg != "" {
		r.fail(d, msg)
		return reconcile.Result{}, nil
	}
	mine := infoValue(d)
	op := app.Status.OperationState
	switch {
	case op != nil && op.Operation.HasInfo(InfoName, mine):
		s.Phase = op.Phase
		switch op.Phase {
		case "Succeeded":
			if op.SyncResult != nil {
				s.SyncedRevision = op.SyncResult.Revision
			}
			r.enter(d, v1alpha1.DeployVerifying, fmt.Sprintf("synced to %s; waiting for Argo CD to report the application Synced and Healthy", short(s.SyncedRevision)))
			return reconcile.Result{RequeueAfter: Poll}, nil // the status write wakes it at once
		case "Error":
			// Argo CD could not run it (a repository fetch that failed,
			// for one): not the sync failing. Asked for again, as a new
			// operation of its own.
			if n := max(1, s.Attempt); n < maxSyncAttempts {
				s.Attempt, s.StartedAt = n+1, nil
				r.note(d, fmt.Sprintf("Argo CD could not run the sync of application %s (attempt %d of %d), asking again: %s", name, n, maxSyncAttempts, truncateMsg(op.Message)))
				return reconcile.Result{RequeueAfter: Poll}, nil
			}
			r.fail(d, fmt.Sprintf("Argo CD could not run the sync of application %s after %d attempts: %s", name, maxSyncAttempts, truncateMsg(op.Message)))
			return reconcile.Result{}, nil
		case "Failed":
			r.fail(d, fmt.Sprintf("Argo CD sync of application %s failed: %s", name, truncateMsg(op.Message)))
			return reconcile.Result{}, nil
		}
		r.note(d, fmt.Sprintf("Argo CD syncing application %s (%s)", name, strings.ToLower(cmp.Or(op.Phase, "Running"))))
		return reconcile.Result{RequeueAfter: Poll}, nil
	case app.Operation.HasInfo(InfoName, mine):
		r.note(d, fmt.Sprintf("Argo CD has the sync of application %s and has not started it yet", name))
		return reconcile.Result{RequeueAfter: Poll}, nil
	}
	if s.StartedAt != nil && r.o.Now().Sub(s.StartedAt.Time) < 30*time.Second {
		// Asked moments ago: Argo CD may not show it yet.
		return reconcile.Result{RequeueAfter: Poll}, nil
	}
	rev := s.Revision
	if automated(app) && rev != "" && rev != app.Spec.Source.TargetRevision {
		// Argo CD refuses a sync to another revision than the target of an
		// application that syncs itself: sync to the target and check, in
		// Verifying, that it is the built commit. A ref other than the
		// target cannot be checked that way: refused now, not after the
		// verify timeout.
		if b := d.Status.Build; b == nil || !isCommitID(b.Revision) {
			r.fail(d, fmt.Sprintf("Argo CD application %s syncs itself (automated) to its target revision %q, so it cannot be deployed at %s: deploy %q, have the build report the commit it produced (revision=<sha> in its description), or turn automated sync off", name, app.Spec.Source.TargetRevision, rev, app.Spec.Source.TargetRevision))
			return reconcile.Result{}, nil
		}
		rev = ""
	}
	// The application's AppProject must be the environment's tenant's,
	// as the ArgoApplication's own reconciler requires.
	if err := tenancy.CheckProject(ctx, ac, "the Argo CD application's spec.project", app.Spec.Project); err != nil {
		return reconcile.Result{}, errors.Wrapf(err, "will not sync Argo CD application %s", name)
	}
	now := metav1.NewTime(r.o.Now())
	s.StartedAt = &now
	err = ac.SyncWith(ctx, name, a.Spec.ForProvider.Project, rev, []argocd.Info{{Name: InfoName, Value: mine}})
	switch {
	case argocd.IsOperationInProgress(err):
		s.StartedAt = nil
		r.note(d, fmt.Sprintf("waiting for another operation on Argo CD application %s to end before syncing", name))
		return reconcile.Result{RequeueAfter: Poll}, nil
	case argocd.IsAutoSyncRevision(err), err != nil && isInvalid(err):
		r.fail(d, fmt.Sprintf("Argo CD refused to sync application %s to %s: %v", name, revisionName(rev), err))
		return reconcile.Result{}, nil
	case err != nil:
		s.StartedAt = nil
		return reconcile.Result{}, errors.Wrapf(err, "cannot sync Argo CD application %s", name)
	}
	r.record.Eventf(d, corev1.EventTypeNormal, "SyncRequested", "Asked Argo CD to sync application %s to %s", name, revisionName(rev))
	r.note(d, fmt.Sprintf("Argo CD asked to sync application %s to %s", name, revisionName(rev)))
	return reconcile.Result{RequeueAfter: Poll}, nil
}

func isInvalid(err error) bool { return argocd.IsInvalidArgument(err) }

// sameApp says why app is not the one the deployment started to sync: an
// ArgoApplication pointed at another Argo CD application, or one moved to
// another AppProject than the ArgoApplication names.
func sameApp(s *v1alpha1.DeploySync, name string, app *argocd.Application, a *argov1alpha1.ArgoApplication) string {
	if s.ExternalName != "" && name != s.ExternalName {
		return fmt.Sprintf("ArgoApplication %s now names Argo CD application %q, not %q which this deployment syncs: leave its external name alone during a deployment", a.Name, truncate(name), truncate(s.ExternalName))
	}
	if app.Spec.Project != a.Spec.ForProvider.Project {
		return fmt.Sprintf("Argo CD application %s is in AppProject %q, not %q which ArgoApplication %s names: it was not synced", name, truncate(app.Spec.Project), a.Spec.ForProvider.Project, a.Name)
	}
	return ""
}

func automated(app *argocd.Application) bool {
	p := app.Spec.SyncPolicy
	return p != nil && p.Automated != nil && (p.Automated.Enabled == nil || *p.Automated.Enabled)
}

// infoValue marks the deployment's own sync operation: its namespace,
// name, uid and, from the second, the attempt.
func infoValue(d *v1alpha1.DeployRun) string {
	v := d.Namespace + "/" + d.Name + "/" + string(d.UID)
	if s := d.Status.Sync; s != nil && s.Attempt > 1 {
		v += "#" + strconv.Itoa(int(s.Attempt))
	}
	return v
}

// maxSyncAttempts is how many times a sync Argo CD could not run is asked
// for.
const maxSyncAttempts = 3

func short(rev string) string {
	if len(rev) == 40 {
		return rev[:12]
	}
	return revisionName(rev)
}

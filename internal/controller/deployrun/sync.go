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
// and follows that operation to its end. The sync's record is worked on in
// a copy, which the transition carries.
func (r *Reconciler) deploying(ctx context.Context, d *v1alpha1.DeployRun, e *env) (transition, error) {
	s := d.Status.Sync.DeepCopy()
	t, err := r.deploy(ctx, d, e, s)
	t.sync = s
	return t, err
}

// argoApp is the Argo CD application a deployment syncs, as one look found
// it: the environment's ArgoApplication a, its Argo CD application's name
// and state, and the client and tenancy of a's ProviderConfig.
type argoApp struct {
	a       *argov1alpha1.ArgoApplication
	name    string
	app     *argocd.Application
	syncs   Syncs
	tenancy *argoaccess.Tenancy
}

// deploy decides Deploying's transition, recording in s what it learns.
func (r *Reconciler) deploy(ctx context.Context, d *v1alpha1.DeployRun, e *env, s *v1alpha1.DeploySync) (transition, error) {
	a := e.app
	if a == nil || a.Name != s.Application {
		return failed(fmt.Sprintf("the environment's ArgoApplication %s went away during the deployment", s.Application)), nil
	}
	name := meta.GetExternalName(a)
	if name == "" {
		return waiting(fmt.Sprintf("waiting for ArgoApplication %s to create its Argo CD application", a.Name)), nil
	}
	ac, tenancy, err := r.o.NewSyncs(ctx, a)
	if err != nil {
		return transition{}, errors.Wrapf(err, "cannot reach Argo CD for ArgoApplication %s", a.Name)
	}
	app, err := ac.Get(ctx, name)
	if err != nil {
		return transition{}, errors.Wrapf(err, "cannot read Argo CD application %s", name)
	}
	// Sync only what the environment's ArgoApplication owns.
	if app.Metadata.Labels[contract.LabelOwner] != argoaccess.Owner(a.GetNamespace(), a.GetName()) {
		return failed(fmt.Sprintf("Argo CD application %s is not owned by ArgoApplication %s (label %s): it was not synced", name, a.Name, contract.LabelOwner)), nil
	}
	if app.Spec.Source == nil {
		return failed(fmt.Sprintf("Argo CD application %s has no single source (spec.sources or a source hydrator): a deployment syncs one source", name)), nil
	}
	if s.ExternalName == "" {
		s.ExternalName = name
	}
	if msg := sameApp(s, name, app, a); msg != "" {
		return failed(msg), nil
	}
	if t, ok := ownOperation(d, s, name, app); ok {
		return t, nil
	}
	if t, ok := automatedInstead(s, name, app); ok {
		return t, nil
	}
	if s.StartedAt != nil && r.o.Now().Sub(s.StartedAt.Time) < 30*time.Second {
		// Asked moments ago: Argo CD may not show it yet.
		return transition{requeue: Poll}, nil
	}
	if s.StartedAt != nil {
		// Asked before, and Argo CD shows neither that operation nor it
		// pending: say what it shows instead, for whoever wonders why the
		// deployment took longer.
		r.record.Eventf(d, corev1.EventTypeNormal, "SyncLost", "Argo CD no longer shows the sync asked at %s (it shows %s): asking again",
			s.StartedAt.UTC().Format(time.RFC3339), describeOperation(app))
	}
	return r.sync(ctx, d, s, argoApp{a: a, name: name, app: app, syncs: ac, tenancy: tenancy})
}

// ownOperation follows the deployment's own sync operation, when Argo CD
// has one (ok).
func ownOperation(d *v1alpha1.DeployRun, s *v1alpha1.DeploySync, name string, app *argocd.Application) (t transition, ok bool) {
	mine := infoValue(d)
	op := app.Status.OperationState
	switch {
	case op != nil && op.Operation.HasInfo(contract.InfoDeployRun, mine):
		return operationState(s, name, op), true
	case app.Operation.HasInfo(contract.InfoDeployRun, mine):
		return waiting(fmt.Sprintf("Argo CD has the sync of application %s and has not started it yet", name)), true
	}
	return transition{}, false
}

// automatedInstead follows Argo CD's automated sync of an application that
// syncs itself, when it started after the deployment asked for its own
// sync (to the same target: an automated application is synced to its
// target revision) and no operation waits: Argo CD then runs that one in
// place of the deployment's. Seen in the e2e: the requested operation
// shown Running, then replaced by the automated one, which succeeded a
// second later, while the deployment waited 30s to ask again. What it
// synced is checked in Verifying as for the deployment's own.
func automatedInstead(s *v1alpha1.DeploySync, name string, app *argocd.Application) (transition, bool) {
	op := app.Status.OperationState
	if s.StartedAt == nil || op == nil || op.StartedAt == nil || app.Operation != nil || !automated(app) {
		return transition{}, false
	}
	// The ask is kept to the second: an automated sync of the same
	// second counts as after it.
	if by := op.Operation.InitiatedBy; by == nil || !by.Automated || op.StartedAt.Before(s.StartedAt.Truncate(time.Second)) {
		return transition{}, false
	}
	t := operationState(s, name, op)
	if t.next == "" && !t.fail {
		t.message = "Argo CD's automated sync runs in place of the one asked: " + t.message
	}
	return t, true
}

// operationState is what the state of the deployment's own sync operation
// decides.
func operationState(s *v1alpha1.DeploySync, name string, op *argocd.OperationState) transition {
	s.Phase = op.Phase
	if op.StartedAt != nil {
		s.OperationStartedAt = &metav1.Time{Time: *op.StartedAt}
	}
	if op.FinishedAt != nil {
		s.OperationFinishedAt = &metav1.Time{Time: *op.FinishedAt}
	}
	switch op.Phase {
	case "Succeeded":
		if op.SyncResult != nil {
			s.SyncedRevision = op.SyncResult.Revision
		}
		// The status write wakes the deployment at once; Poll is a
		// fallback.
		return transition{next: v1alpha1.DeployVerifying, requeue: Poll,
			message: fmt.Sprintf("synced to %s; waiting for Argo CD to report the application Synced and Healthy", short(s.SyncedRevision))}
	case "Error":
		// Argo CD could not run it (a repository fetch that failed, for
		// one): not the sync failing. Asked for again, as a new operation
		// of its own.
		if n := max(1, s.Attempt); n < maxSyncAttempts {
			s.Attempt, s.StartedAt = n+1, nil
			return waiting(fmt.Sprintf("Argo CD could not run the sync of application %s (attempt %d of %d), asking again: %s", name, n, maxSyncAttempts, truncateMsg(op.Message)))
		}
		return failed(fmt.Sprintf("Argo CD could not run the sync of application %s after %d attempts: %s", name, maxSyncAttempts, truncateMsg(op.Message)))
	case "Failed":
		return failed(fmt.Sprintf("Argo CD sync of application %s failed: %s", name, truncateMsg(op.Message)))
	}
	// What Argo CD says it waits for (a hook, a resource's health, a
	// retry) is what the person waiting wants to read.
	msg := fmt.Sprintf("Argo CD syncing application %s (%s)", name, strings.ToLower(cmp.Or(op.Phase, "Running")))
	if op.Message != "" {
		msg += ": " + truncateMsg(op.Message)
	}
	return waiting(msg)
}

// sync asks Argo CD to sync the application to the revision, marking the
// operation as the deployment's own.
func (r *Reconciler) sync(ctx context.Context, d *v1alpha1.DeployRun, s *v1alpha1.DeploySync, g argoApp) (transition, error) {
	name, app := g.name, g.app
	rev := s.Revision
	if automated(app) && rev != "" && rev != app.Spec.Source.TargetRevision {
		// Argo CD refuses a sync to another revision than the target of an
		// application that syncs itself: sync to the target and check, in
		// Verifying, that it is the built commit. A ref other than the
		// target cannot be checked that way: refused now, not after the
		// verify timeout.
		if b := d.Status.Build; b == nil || !isCommitID(b.Revision) {
			return failed(fmt.Sprintf("Argo CD application %s syncs itself (automated) to its target revision %q, so it cannot be deployed at %s: deploy %q, have the build report the commit it produced (revision=<sha> in its description), or turn automated sync off", name, app.Spec.Source.TargetRevision, rev, app.Spec.Source.TargetRevision)), nil
		}
		rev = ""
	}
	// The application's AppProject must be the environment's tenant's,
	// as the ArgoApplication's own reconciler requires.
	if err := g.tenancy.CheckProject(ctx, g.syncs, "the Argo CD application's spec.project", app.Spec.Project); err != nil {
		return transition{}, errors.Wrapf(err, "will not sync Argo CD application %s", name)
	}
	now := metav1.NewTime(r.o.Now())
	s.StartedAt = &now
	err := g.syncs.SyncWith(ctx, name, g.a.Spec.ForProvider.Project, rev, []argocd.Info{{Name: contract.InfoDeployRun, Value: infoValue(d)}})
	switch {
	case argocd.IsOperationInProgress(err):
		s.StartedAt = nil
		return waiting(fmt.Sprintf("waiting for another operation on Argo CD application %s to end before syncing", name)), nil
	case argocd.IsAutoSyncRevision(err), err != nil && isInvalid(err):
		return failed(fmt.Sprintf("Argo CD refused to sync application %s to %s: %v", name, revisionName(rev), err)), nil
	case err != nil:
		s.StartedAt = nil
		return transition{}, errors.Wrapf(err, "cannot sync Argo CD application %s", name)
	}
	r.record.Eventf(d, corev1.EventTypeNormal, "SyncRequested", "Asked Argo CD to sync application %s to %s", name, revisionName(rev))
	return waiting(fmt.Sprintf("Argo CD asked to sync application %s to %s", name, revisionName(rev))), nil
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

// describeOperation says what operation Argo CD shows for app, for a
// message: its phase, when it started, who started it.
func describeOperation(app *argocd.Application) string {
	op := app.Status.OperationState
	pending := ""
	if app.Operation != nil {
		pending = "; an operation is pending" + initiator(app.Operation.InitiatedBy)
	}
	if op == nil {
		return "no operation" + pending
	}
	at := "?"
	if op.StartedAt != nil {
		at = op.StartedAt.UTC().Format(time.RFC3339)
	}
	msg := ""
	if op.Message != "" {
		msg = ": " + truncate(op.Message)
	}
	return fmt.Sprintf("an operation %s, started %s%s%s%s", cmp.Or(op.Phase, "Running"), at, initiator(op.Operation.InitiatedBy), msg, pending)
}

func initiator(by *argocd.InitiatedBy) string {
	switch {
	case by == nil:
		return ""
	case by.Automated:
		return " by automated sync"
	case by.Username != "":
		return " by " + truncate(by.Username)
	}
	return ""
}

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
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
)

// cancelGrace bounds how long a deleted deployment tries to abort its build
// before it lets go anyway: an unreachable Jenkins must not keep the
// object, or its namespace, from being deleted.
const cancelGrace = 2 * time.Minute

// cancel aborts the build of a deployment deleted while it runs (and its
// Argo CD sync), then lets the object go.
func (r *Reconciler) cancel(ctx context.Context, d *v1alpha1.DeployRun) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(d, Finalizer) {
		return reconcile.Result{}, nil
	}
	err := r.abort(ctx, d)
	if err == nil {
		// No longer the environment's current deployment.
		err = r.recordOn(ctx, d)
	}
	if err != nil && r.o.Now().Sub(d.DeletionTimestamp.Time) < cancelGrace {
		return reconcile.Result{}, err
	}
	if err != nil {
		r.record.Eventf(d, corev1.EventTypeWarning, "CancelFailed", "Gave up aborting the deployment after %s: %v", cancelGrace, err)
	}
	orig := d.DeepCopy()
	controllerutil.RemoveFinalizer(d, Finalizer)
	if err := r.kube.Patch(ctx, d, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !d.Status.Phase.Final() {
		ended(d, OutcomeCanceled, r.o.Now())
		traceOf(d).finished(ctx, d, OutcomeCanceled, r.o.Now())
	}
	return reconcile.Result{}, nil
}

// abort stops what a deployment deleted while it runs has under way: its
// build request, queue item or build in Building, its Argo CD sync in
// Deploying.
func (r *Reconciler) abort(ctx context.Context, d *v1alpha1.DeployRun) error {
	if d.Status.Phase.Final() {
		return nil
	}
	e, msg, err := r.environment(ctx, d)
	if err != nil || msg != "" {
		return err // nothing of an unknown environment to abort
	}
	if missingRecord(d) != "" {
		return nil // what it asked for is not known: nothing to abort
	}
	switch d.Status.Phase {
	case v1alpha1.DeployBuilding:
		return r.abortBuild(ctx, d, e.pipeline)
	case v1alpha1.DeployDeploying:
		return r.abortSync(ctx, d, e.app)
	case v1alpha1.DeployPending, v1alpha1.DeployVerifying:
		// Nothing asked for yet, or a sync that ended: nothing to stop.
	case v1alpha1.DeploySucceeded, v1alpha1.DeployFailed:
		// Final: returned above.
	}
	return nil
}

// abortBuild withdraws the deployment's build request that the pipeline
// has not handled yet, or cancels the queue item or stops the build that
// the pipeline recorded for it.
func (r *Reconciler) abortBuild(ctx context.Context, d *v1alpha1.DeployRun, p *jenkinsv1alpha1.JenkinsPipeline) error {
	b := d.Status.Build
	if b.Request == "" || p.Status.AtProvider.HandledBuildRequest != b.Request {
		return r.withdraw(ctx, d, p)
	}
	// The pipeline handled this deployment's request: its build is the
	// one the pipeline recorded. An observe-only pipeline builds nothing,
	// and its job may be anyone's: its status (the tenant's to write)
	// never makes a cancel act on it.
	if observeOnly(p) {
		return nil
	}
	jc, err := r.o.NewBuilds(ctx, p)
	if err != nil {
		return err
	}
	// Only ever the pipeline's own job (its ProviderConfig allowed it):
	// the numbers in status are the tenant's to write, and queue ids are
	// global to a Jenkins.
	path := meta.GetExternalName(p)
	if b.Job != "" && b.Job != path {
		return nil // pointed at another job meanwhile: nothing of ours there
	}
	n, id := b.Number, b.QueueItem
	if n == 0 && id == 0 {
		n, id = p.Status.AtProvider.HandledBuildNumber, p.Status.AtProvider.HandledBuildQueueItem
	}
	if n == 0 && id != 0 {
		if n, err = dequeue(ctx, jc, path, id); err != nil {
			return err
		}
	}
	if n == 0 {
		return nil
	}
	err = jc.StopBuild(ctx, path, n)
	if err == nil {
		r.record.Eventf(d, corev1.EventTypeNormal, "Cancelled", "Aborted build #%d", n)
	}
	if jenkins.IsNotFound(err) {
		return nil
	}
	return err
}

// withdraw takes the deployment's request back from a pipeline that has
// not queued it yet.
func (r *Reconciler) withdraw(ctx context.Context, d *v1alpha1.DeployRun, p *jenkinsv1alpha1.JenkinsPipeline) error {
	if p.Spec.ForProvider.BuildRequest != Token(d) {
		return nil // never asked, or someone else's request now
	}
	orig := p.DeepCopy()
	p.Spec.ForProvider.BuildRequest = ""
	if err := r.kube.Patch(ctx, p, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		return errors.Wrapf(err, "cannot withdraw the build request from JenkinsPipeline %s", p.Name)
	}
	return nil
}

// dequeue cancels Jenkins queue item id of job path while it waits, and
// returns the number of the build it became once it left the queue (0:
// nothing left to stop, the item forgotten or another job's).
func dequeue(ctx context.Context, jc Builds, path string, id int64) (int64, error) {
	q, err := jc.QueueItem(ctx, id)
	if jenkins.IsNotFound(err) {
		return 0, nil // forgotten by Jenkins: nothing to find it by
	}
	if err != nil {
		return 0, err
	}
	switch {
	case q.Job != path:
		return 0, nil // another job's item: never cancelled from here
	case q.Number == 0:
		return 0, jc.CancelQueueItem(ctx, id)
	}
	return q.Number, nil
}

// abortSync terminates the deployment's own Argo CD sync while it runs.
func (r *Reconciler) abortSync(ctx context.Context, d *v1alpha1.DeployRun, a *argov1alpha1.ArgoApplication) error {
	if a == nil {
		return nil
	}
	ac, _, err := r.o.NewSyncs(ctx, a)
	if err != nil {
		return err
	}
	name := meta.GetExternalName(a)
	app, err := ac.Get(ctx, name)
	if err != nil {
		return err
	}
	if op := app.Status.OperationState; op != nil && op.Operation.HasInfo(contract.InfoDeployRun, infoValue(d)) && op.Phase == "Running" {
		return ac.TerminateOperation(ctx, name, a.Spec.ForProvider.Project)
	}
	if app.Operation.HasInfo(contract.InfoDeployRun, infoValue(d)) {
		// Asked for, not started: Argo CD terminates only a running
		// operation. Look again (with back-off) until it runs.
		return errors.Errorf("Argo CD has not started this deployment's sync of application %s yet: it is terminated once it starts", name)
	}
	return nil
}

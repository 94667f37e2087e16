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
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
)

// prune deletes the oldest finished deployments of d's environment beyond
// the number kept.
func (r *Reconciler) prune(ctx context.Context, d *v1alpha1.DeployRun) error {
	l := &v1alpha1.DeployRunList{}
	if err := r.kube.List(ctx, l, client.InNamespace(d.Namespace)); err != nil {
		return errors.Wrap(err, "cannot list DeployRuns")
	}
	// done is d's environment's history. stray are the deployments that
	// never started and belong to no project (an unknown environment, a
	// typo): they have no environment's history to go with, so the
	// namespace keeps the newest Keep of them.
	var done, stray []*v1alpha1.DeployRun
	for i := range l.Items {
		o := &l.Items[i]
		if o.UID == d.UID {
			// The cache may not have seen d's last status yet.
			o = d
		}
		if !o.Status.Phase.Final() || o.DeletionTimestamp != nil || composed(o) {
			continue
		}
		if o.Spec.Project == d.Spec.Project && o.Spec.Environment == d.Spec.Environment {
			done = append(done, o)
		}
		if o.Status.StartedAt == nil && len(o.OwnerReferences) == 0 {
			stray = append(stray, o)
		}
	}
	if err := r.deleteOldest(ctx, done); err != nil {
		return err
	}
	return r.deleteOldest(ctx, stray)
}

// composed is true for a DeployRun a composite resource holds (a
// preview's deployment of its pull request's head): it is its composite's
// to delete, and deleting it here would have Crossplane create it again,
// which deploys again.
func composed(d *v1alpha1.DeployRun) bool {
	_, ok := d.GetLabels()[labelComposite]
	return ok && metav1.GetControllerOf(d) != nil
}

// labelComposite is the label Crossplane sets on what a composite
// resource composes.
const labelComposite = "crossplane.io/composite"

// deleteOldest deletes the oldest of the finished deployments done beyond
// the number kept.
func (r *Reconciler) deleteOldest(ctx context.Context, done []*v1alpha1.DeployRun) error {
	if len(done) <= r.o.Keep {
		return nil
	}
	slices.SortFunc(done, newestFirst)
	for _, o := range done[r.o.Keep:] {
		if err := r.kube.Delete(ctx, o, client.Preconditions{UID: &o.UID}); client.IgnoreNotFound(err) != nil {
			return errors.Wrapf(err, "cannot delete DeployRun %s beyond the history kept", o.Name)
		}
	}
	return nil
}

// newestFirst orders finished deployments newest first. Status times are
// whole seconds, so two deployments of one environment that finished in
// the same second (a failed build right after a success) are told apart by
// when they started, then by the queue's order, which is the order an
// environment's deployments run in.
func newestFirst(a, b *v1alpha1.DeployRun) int {
	if c := finished(b).Compare(finished(a)); c != 0 {
		return c
	}
	if c := started(b).Compare(started(a)); c != 0 {
		return c
	}
	switch {
	case before(b, a):
		return -1
	case before(a, b):
		return 1
	}
	return 0
}

func started(d *v1alpha1.DeployRun) time.Time {
	if d.Status.StartedAt != nil {
		return d.Status.StartedAt.Time
	}
	return d.CreationTimestamp.Time
}

func finished(d *v1alpha1.DeployRun) time.Time {
	if d.Status.FinishedAt != nil {
		return d.Status.FinishedAt.Time
	}
	return d.CreationTimestamp.Time
}

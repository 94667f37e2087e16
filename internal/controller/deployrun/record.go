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

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/apis/contract"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
)

// recordOn keeps the environment's JenkinsPipeline's status.deployments in
// step with d: d is current from its build on until it ends, and the last
// succeeded once it succeeds. The composition function reads it from
// there into the DevOpsProject's status (the pipeline is composed, so its
// change wakes the project at once; a DeployRun is not). Safe to repeat:
// it writes only what changed, and a crash between d's status and this
// write is mended at d's next reconcile.
func (r *Reconciler) recordOn(ctx context.Context, d *v1alpha1.DeployRun) error {
	if d.Status.StartedAt == nil {
		return nil // never left Pending: never current, never succeeded
	}
	pl := &jenkinsv1alpha1.JenkinsPipelineList{}
	if err := r.kube.List(ctx, pl, client.InNamespace(d.Namespace), client.MatchingLabels{contract.LabelProject: d.Spec.Project, contract.LabelEnvironment: d.Spec.Environment}); err != nil {
		return errors.Wrap(err, "cannot list JenkinsPipelines")
	}
	p, msg := one(pl.Items, "JenkinsPipeline", "")
	if msg != "" {
		return nil // gone with its environment: nothing to record on
	}
	want := recorded(p.Status.Deployments, d)
	if equality.Semantic.DeepEqual(want, p.Status.Deployments) {
		return nil
	}
	orig := p.DeepCopy()
	p.Status.Deployments = want
	// Optimistic: a stale cached pipeline fails and is retried, never
	// written over the managed reconciler's newer status.
	return errors.Wrapf(client.IgnoreNotFound(r.kube.Status().Patch(ctx, p, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))),
		"cannot record DeployRun %s on JenkinsPipeline %s", d.Name, p.Name)
}

// recorded is what status.deployments says once d is recorded in cur.
func recorded(cur *jenkinsv1alpha1.PipelineDeployments, d *v1alpha1.DeployRun) *jenkinsv1alpha1.PipelineDeployments {
	out := &jenkinsv1alpha1.PipelineDeployments{}
	if cur != nil {
		out = cur.DeepCopy()
	}
	s := summary(d)
	switch {
	case !d.Status.Phase.Final() && d.DeletionTimestamp == nil:
		out.Current = s
	case out.Current != nil && out.Current.Name == d.Name:
		out.Current = nil
	}
	if d.Status.Phase == v1alpha1.DeploySucceeded {
		if l := out.LastSucceeded; l == nil || l.Name == d.Name || l.FinishedAt == nil || l.FinishedAt.Before(d.Status.FinishedAt) {
			out.LastSucceeded = s
		}
	}
	if out.Current == nil && out.LastSucceeded == nil {
		return nil
	}
	return out
}

// summary is d as status.deployments names it.
func summary(d *v1alpha1.DeployRun) *jenkinsv1alpha1.DeploymentSummary {
	s := &jenkinsv1alpha1.DeploymentSummary{Name: d.Name, Phase: string(phaseOf(d)), Revision: d.Spec.Revision,
		StartedAt: d.Status.StartedAt, FinishedAt: d.Status.FinishedAt, URL: d.Status.URL}
	if b := d.Status.Build; b != nil && b.Revision != "" {
		s.Revision = b.Revision
	}
	if y := d.Status.Sync; y != nil && y.SyncedRevision != "" {
		s.Revision = y.SyncedRevision
	}
	return s
}

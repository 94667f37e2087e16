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
	"fmt"
	"maps"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
)

// pending waits for the deployment's turn, checks its request against the
// pipeline, and moves on to Building, where the build is asked for.
func (r *Reconciler) pending(ctx context.Context, d *v1alpha1.DeployRun, e *env) (transition, error) {
	ahead, place, err := r.ahead(ctx, d)
	if err != nil {
		return transition{}, err
	}
	if place > MaxWaiting {
		return failed(fmt.Sprintf("%d deployments of environment %s are already waiting (at most %d): wait for them, or delete the ones no longer wanted", place-1, d.Spec.Environment, MaxWaiting)), nil
	}
	if ahead != nil {
		return waiting(fmt.Sprintf("queued behind DeployRun %s (%s) of the same environment: one deployment of an environment runs at a time", ahead.Name, phaseOf(ahead))), nil
	}
	if renewing(d) && expiredAt(e.pipeline, r.o.Now()) {
		return waitingForRenewal(d, fmt.Sprintf("JenkinsPipeline %s is still the expired environment's", e.pipeline.Name)), nil
	}
	if e.app == nil && wantsApp(e.pipeline) {
		return waiting(fmt.Sprintf("waiting for the environment's ArgoApplication: JenkinsPipeline %s is deployed by one (annotation %s), which is not there yet", e.pipeline.Name, contract.AnnotationDeployedBy)), nil
	}
	if msg := checkRequest(d, e.pipeline); msg != "" {
		return failed(msg), nil
	}
	if err := r.own(ctx, d, e); err != nil {
		return transition{}, err
	}
	now := metav1.NewTime(r.o.Now())
	// The phase is recorded before the build is asked for: the request is
	// a token the pipeline builds once, so asking again after a crash is
	// harmless, and a request never asked for is asked at the next look.
	// Request stays empty until the build is asked for (building). The
	// status write wakes the deployment at once; Poll is a fallback.
	return transition{next: v1alpha1.DeployBuilding, message: fmt.Sprintf("asking JenkinsPipeline %s for a build", e.pipeline.Name),
		startedAt: &now, build: &v1alpha1.DeployBuild{Pipeline: e.pipeline.Name}, requeue: Poll}, nil
}

// renewing is true for a deployment still Pending whose request renewed
// its expired environment: it waits for the environment to come back
// (within spec.timeouts.pending) instead of failing for want of it.
func renewing(d *v1alpha1.DeployRun) bool {
	return d.GetAnnotations()[contract.AnnotationRenews] != "" && (d.Status.Phase == "" || d.Status.Phase == v1alpha1.DeployPending)
}

// waitingForRenewal says what a renewing deployment waits for: why (msg)
// it cannot start yet.
func waitingForRenewal(d *v1alpha1.DeployRun, msg string) transition {
	return waiting(fmt.Sprintf("waiting for environment %s to come back: its deploy request renewed it (DevOpsProject %s annotation %s%s=%s); %s",
		d.Spec.Environment, d.Spec.Project, contract.AnnotationRenewPrefix, d.Spec.Environment, truncate(d.GetAnnotations()[contract.AnnotationRenews]), msg))
}

// expiredAt is true for a pipeline whose environment's expiry (the
// function's annotation) has passed at now: the renewal has not reached
// it yet, or it is about to go.
func expiredAt(p *jenkinsv1alpha1.JenkinsPipeline, now time.Time) bool {
	t, err := time.Parse(time.RFC3339, p.GetAnnotations()[contract.AnnotationExpiresAt])
	return err == nil && !now.Before(t)
}

// observeOnly is true for a pipeline whose management policies do not let
// the provider change its job (no Update, no "*"): it may name a job that
// another team owns.
func observeOnly(p *jenkinsv1alpha1.JenkinsPipeline) bool {
	pol := p.GetManagementPolicies()
	return len(pol) > 0 && !slices.Contains(pol, xpv2.ManagementActionAll) && !slices.Contains(pol, xpv2.ManagementActionUpdate)
}

// wantsApp is true for a pipeline whose builds an ArgoApplication deploys.
func wantsApp(p *jenkinsv1alpha1.JenkinsPipeline) bool {
	return p.GetAnnotations()[contract.AnnotationDeployedBy] == argov1alpha1.ArgoApplicationKind
}

func phaseOf(d *v1alpha1.DeployRun) v1alpha1.DeployPhase {
	if d.Status.Phase == "" {
		return v1alpha1.DeployPending
	}
	return d.Status.Phase
}

// ahead returns the deployment of the same environment that runs before d
// (the oldest one not final, if it is not d) and d's place among those
// waiting (1: next).
//
// The cache answers while someone is ahead (a waiting deployment looks
// every Poll: the API server is not listed for each); that d's turn has
// come is confirmed from the API server, which has every deployment
// created a moment ago.
func (r *Reconciler) ahead(ctx context.Context, d *v1alpha1.DeployRun) (*v1alpha1.DeployRun, int, error) {
	a, place, err := aheadIn(ctx, r.kube, r.o.Indexed, d)
	if err != nil || a != nil {
		return a, place, err
	}
	return aheadIn(ctx, r.live, false, d)
}

func aheadIn(ctx context.Context, c client.Reader, indexed bool, d *v1alpha1.DeployRun) (*v1alpha1.DeployRun, int, error) {
	l, err := inEnvironment(ctx, c, indexed, d.Namespace, d.Spec.Project, d.Spec.Environment)
	if err != nil {
		return nil, 0, err
	}
	var first, running *v1alpha1.DeployRun
	place := 1
	for i := range l {
		o := &l[i]
		if o.Status.Phase.Final() || o.GetDeletionTimestamp() != nil {
			continue
		}
		// One already past Pending runs, whatever its age.
		if o.UID != d.UID && o.Status.Phase != "" && o.Status.Phase != v1alpha1.DeployPending {
			running = o
			continue
		}
		if o.UID != d.UID && before(o, d) {
			place++
		}
		if first == nil || before(o, first) {
			first = o
		}
	}
	switch {
	case running != nil:
		return running, place, nil
	case first == nil || first.UID == d.UID:
		return nil, place, nil
	}
	return first, place, nil
}

func before(a, b *v1alpha1.DeployRun) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Name < b.Name
}

// checkRequest holds the request to what the pipeline declares.
func checkRequest(d *v1alpha1.DeployRun, p *jenkinsv1alpha1.JenkinsPipeline) string {
	if observeOnly(p) {
		return fmt.Sprintf("JenkinsPipeline %s only observes its job (spec.managementPolicies): it builds nothing, so it cannot be deployed", p.Name)
	}
	if p.Spec.ForProvider.Disabled {
		return fmt.Sprintf("JenkinsPipeline %s is disabled (spec.forProvider.disabled): enable it to deploy", p.Name)
	}
	declared := map[string]jenkinsv1alpha1.Parameter{}
	for _, x := range p.Spec.ForProvider.Parameters {
		declared[x.Name] = x
	}
	params := buildParameters(d)
	for _, k := range slices.Sorted(maps.Keys(params)) {
		decl, ok := declared[k]
		if !ok {
			if k == jenkinsv1alpha1.RevisionParameter {
				return fmt.Sprintf("JenkinsPipeline %s declares no %s parameter, so it cannot build a revision: declare it, or leave spec.revision empty", p.Name, k)
			}
			return fmt.Sprintf("JenkinsPipeline %s declares no parameter %q (spec.parameters)", p.Name, k)
		}
		if msg := decl.Check(params[k]); msg != "" {
			return fmt.Sprintf("JenkinsPipeline %s parameter %s: %s", p.Name, k, msg)
		}
	}
	return ""
}

// buildParameters are the build's parameters: spec.parameters and the
// revision as REVISION.
func buildParameters(d *v1alpha1.DeployRun) map[string]string {
	out := make(map[string]string, len(d.Spec.Parameters)+1)
	for k, v := range d.Spec.Parameters {
		out[k] = v
	}
	if d.Spec.Revision != "" {
		out[jenkinsv1alpha1.RevisionParameter] = d.Spec.Revision
	}
	return out
}

// Token is the buildRequest a deployment sets: unique per object.
func Token(d *v1alpha1.DeployRun) string { return "deployrun-" + string(d.UID) }

// own makes the DevOpsProject that composed the environment an owner of
// the deployment, so the history goes with the project.
func (r *Reconciler) own(ctx context.Context, d *v1alpha1.DeployRun, e *env) error {
	ref := metav1.GetControllerOf(e.pipeline)
	if ref == nil || slices.ContainsFunc(d.OwnerReferences, func(o metav1.OwnerReference) bool { return o.UID == ref.UID }) {
		return nil
	}
	// Patched on a copy: the answer would overwrite d's status with the
	// stored one, losing what this reconcile recorded (its Pending entry).
	orig, cp := d.DeepCopy(), d.DeepCopy()
	cp.OwnerReferences = append(cp.OwnerReferences, metav1.OwnerReference{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, UID: ref.UID})
	if err := r.kube.Patch(ctx, cp, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		return errors.Wrap(err, "cannot make the DevOpsProject an owner of the DeployRun")
	}
	d.OwnerReferences, d.ResourceVersion = cp.OwnerReferences, cp.ResourceVersion
	return nil
}

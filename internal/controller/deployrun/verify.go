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

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	"github.com/freeleaps/provider-devops/apis/contract"
	dnsv1alpha1 "github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/controller/argoaccess"
)

// What Argo CD reports of an application in sync, and of a healthy one.
const (
	syncStatusSynced = "Synced"
	healthHealthy    = "Healthy"
)

// settleAfterSync is how long after its sync ended Argo CD's comparison of
// an application is taken as final: its repo server may resolve the
// target revision from a cache for a while.
const settleAfterSync = time.Minute

// comparedSince is true once Argo CD compared the application again well
// after the deployment's own sync ended: what it reports then is final.
func comparedSince(app *argocd.Application, d *v1alpha1.DeployRun) bool {
	op, at := app.Status.OperationState, app.Status.ReconciledAt
	if op == nil || !op.Operation.HasInfo(contract.InfoDeployRun, infoValue(d)) || op.FinishedAt == nil || at == nil {
		return false
	}
	return at.After(op.FinishedAt.Add(settleAfterSync))
}

// verifying waits for Argo CD to report the application Synced at the
// revision deployed and Healthy. The sync's record is worked on in a copy,
// which the transition carries.
func (r *Reconciler) verifying(ctx context.Context, d *v1alpha1.DeployRun, e *env) (transition, error) {
	s := d.Status.Sync.DeepCopy()
	t, err := r.verify(ctx, d, e, s)
	t.sync = s
	return t, err
}

// verify decides Verifying's transition, recording in s the application's
// health.
func (r *Reconciler) verify(ctx context.Context, d *v1alpha1.DeployRun, e *env, s *v1alpha1.DeploySync) (transition, error) {
	a := e.app
	if a == nil || a.Name != s.Application {
		return failed(fmt.Sprintf("the environment's ArgoApplication %s went away during the deployment", s.Application)), nil
	}
	name := meta.GetExternalName(a)
	ac, _, err := r.o.NewSyncs(ctx, a)
	if err != nil {
		return transition{}, errors.Wrapf(err, "cannot reach Argo CD for ArgoApplication %s", a.Name)
	}
	app, err := ac.Get(ctx, name)
	if err != nil {
		return transition{}, errors.Wrapf(err, "cannot read Argo CD application %s", name)
	}
	if app.Metadata.Labels[contract.LabelOwner] != argoaccess.Owner(a.GetNamespace(), a.GetName()) || app.Spec.Source == nil {
		return failed(fmt.Sprintf("Argo CD application %s is no longer the one ArgoApplication %s owns: it was not verified", name, a.Name)), nil
	}
	if msg := sameApp(s, name, app, a); msg != "" {
		return failed(msg), nil
	}
	s.Health = app.Status.Health.Status
	want := s.SyncedRevision
	if b := d.Status.Build; b != nil && isCommitID(b.Revision) && want != "" && !strings.HasPrefix(want, b.Revision) {
		return failed(fmt.Sprintf("Argo CD synced %s, not %s, which the build produced: the application's target revision %q does not point at the build's commit", short(want), short(b.Revision), app.Spec.Source.TargetRevision)), nil
	}
	return r.compare(ctx, d, ac, name, app, want)
}

// compare decides on what Argo CD reports of the application against the
// revision the deployment synced (want).
func (r *Reconciler) compare(ctx context.Context, d *v1alpha1.DeployRun, ac Syncs, name string, app *argocd.Application, want string) (transition, error) {
	// The target moved on (another project's commit to a shared
	// repository, most often) and Argo CD finds the application Synced
	// there: the same manifests, if that comparison saw what the sync made
	// live (settled); then only its health is left to wait for.
	moved := app.Status.Sync.Revision != want && movedOn(app, d, want)
	if moved && !settled(app) {
		return r.compareAgain(ctx, ac, name, app, want)
	}
	switch {
	case moved:
	case app.Status.Sync.Revision != want && comparedSince(app, d):
		// Argo CD compares an application with its target revision: one
		// synced to another commit stays OutOfSync at the target's.
		return failed(fmt.Sprintf("Argo CD compares application %s with its target revision %q, now at %s, not with %s which this deployment synced: deploy a revision the target points at, or change the target", name, app.Spec.Source.TargetRevision, short(app.Status.Sync.Revision), short(want))), nil
	case app.Status.Sync.Revision != want:
		return waiting(fmt.Sprintf("Argo CD reports application %s at %s, waiting for %s", name, short(app.Status.Sync.Revision), short(want))), nil
	case app.Status.Sync.Status != syncStatusSynced:
		return waiting(fmt.Sprintf("Argo CD reports application %s %s at %s", name, cmp.Or(app.Status.Sync.Status, "Unknown"), short(want))), nil
	}
	if app.Status.Health.Status != healthHealthy {
		return waiting(fmt.Sprintf("Argo CD reports application %s %s%s", name, cmp.Or(app.Status.Health.Status, "Unknown"), why(app.Status.Health.Message))), nil
	}
	t, err := r.healthy(ctx, d, want)
	if moved && t.next == v1alpha1.DeploySucceeded {
		t.message += fmt.Sprintf(" (Argo CD now compares it with its target revision %q at %s, which holds the same manifests)", app.Spec.Source.TargetRevision, short(app.Status.Sync.Revision))
	}
	return t, err
}

// movedOn is true when Argo CD, comparing the application with its
// target at another commit than want after this deployment's sync to want
// ended, finds it Synced, and no later operation touched it: what the
// sync to want made live is what the target now holds, so that commit
// left this application's manifests as they were (settled says whether
// that comparison can be trusted).
func movedOn(app *argocd.Application, d *v1alpha1.DeployRun, want string) bool {
	op, at := app.Status.OperationState, app.Status.ReconciledAt
	if want == "" || op == nil || !op.Operation.HasInfo(contract.InfoDeployRun, infoValue(d)) || op.Phase != "Succeeded" || op.FinishedAt == nil ||
		op.SyncResult == nil || op.SyncResult.Revision != want || at == nil || app.Status.Sync.Revision == "" {
		return false
	}
	// Argo CD keeps times to the second: a comparison in the same second
	// as the sync's end may be the one from before it.
	return app.Status.Sync.Status == syncStatusSynced && at.After(*op.FinishedAt)
}

// settleMoved is how long after its sync ended a comparison at a moved
// target is taken as final: Argo CD compares with the live state its
// watches cached, which may lag the sync's last apply, and a target moved
// back to what was live before the sync would then look Synced.
const settleMoved = 3 * time.Second

// refreshEvery is how often a deployment waiting for such a comparison
// asks Argo CD for one.
const refreshEvery = 10 * time.Second

// settled is true when Argo CD compared the application settleMoved or
// more after the deployment's sync ended (movedOn holds).
func settled(app *argocd.Application) bool {
	return app.Status.ReconciledAt.After(app.Status.OperationState.FinishedAt.Add(settleMoved))
}

// compareAgain waits for a comparison of a moved target that can be
// trusted (settled), asking Argo CD for one rather than waiting for its
// periodic comparison.
func (r *Reconciler) compareAgain(ctx context.Context, ac Syncs, name string, app *argocd.Application, want string) (transition, error) {
	// Once, then every refreshEvery while Argo CD has not compared:
	// twenty deployments asking each second would load the repo server
	// that must render them.
	due := app.Status.OperationState.FinishedAt.Add(settleMoved)
	if since := r.o.Now().Sub(due); since >= 0 && since%refreshEvery < FastPoll {
		if err := ac.Refresh(ctx, name); err != nil {
			return transition{}, errors.Wrapf(err, "cannot ask Argo CD to compare application %s again", name)
		}
	}
	t := waiting(fmt.Sprintf("Argo CD reports application %s Synced at %s, its target moved on from %s: comparing again to be sure", name, short(app.Status.Sync.Revision), short(want)))
	t.requeue = FastPoll
	return t, nil
}

// healthy ends a deployment Synced and Healthy at want: it succeeds, with its
// live URL, once that URL answers when HTTPCheck is on.
func (r *Reconciler) healthy(ctx context.Context, d *v1alpha1.DeployRun, want string) (transition, error) {
	url, err := r.liveURL(ctx, d)
	if err != nil {
		return transition{}, err
	}
	msg := fmt.Sprintf("deployed %s: Synced and Healthy", short(want))
	if r.o.HTTPCheck != nil && url != "" {
		a := checkURL(ctx, r.o.HTTPCheck, url)
		if a.reachable && !a.ok {
			// The URL is recorded already: it is the environment's.
			t := waiting(fmt.Sprintf("Synced and Healthy at %s; waiting for the live URL: %s", short(want), a.msg))
			t.url = &url
			return t, nil
		}
		msg += "; " + a.msg
	}
	if url != "" {
		msg += "; live at " + url
	}
	return transition{next: v1alpha1.DeploySucceeded, message: msg, url: &url}, nil
}

func isCommitID(s string) bool {
	if len(s) < 7 || len(s) > 40 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// liveURL is the environment's URL: https:// and the FQDN of its DNS
// record; "" when it has none.
func (r *Reconciler) liveURL(ctx context.Context, d *v1alpha1.DeployRun) (string, error) {
	l := &dnsv1alpha1.DNSRecordList{}
	if err := r.kube.List(ctx, l, client.InNamespace(d.Namespace), client.MatchingLabels{contract.LabelProject: d.Spec.Project, contract.LabelEnvironment: d.Spec.Environment}); err != nil {
		return "", errors.Wrap(err, "cannot list DNSRecords")
	}
	rec, _ := one(l.Items, "DNSRecord", "")
	if rec == nil || rec.Status.AtProvider.FQDN == "" {
		return "", nil
	}
	host := strings.TrimSuffix(rec.Status.AtProvider.FQDN, ".")
	// The composition says whether the name answers with TLS; only the
	// scheme is taken from it (an annotation is the tenant's to edit, the
	// record's FQDN is what the provider observed).
	if rec.GetAnnotations()[contract.AnnotationURL] == "http://"+host {
		return "http://" + host, nil
	}
	return "https://" + host, nil
}

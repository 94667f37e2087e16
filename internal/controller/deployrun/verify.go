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
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	"github.com/freeleaps/provider-devops/apis/contract"
	dnsv1alpha1 "github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/controller/argoaccess"
)

// settleAfterSync is how long after its sync ended Argo CD's comparison of
// an application is taken as final: its repo server may resolve the
// target revision from a cache for a while.
const settleAfterSync = time.Minute

// comparedSince is true once Argo CD compared the application again well
// after the deployment's own sync ended: what it reports then is final.
func comparedSince(app *argocd.Application, d *v1alpha1.DeployRun) bool {
	op, at := app.Status.OperationState, app.Status.ReconciledAt
	if op == nil || !op.Operation.HasInfo(InfoName, infoValue(d)) || op.FinishedAt == nil || at == nil {
		return false
	}
	return at.After(op.FinishedAt.Add(settleAfterSync))
}

// verifying waits for Argo CD to report the application Synced at the
// revision deployed and Healthy.
func (r *Reconciler) verifying(ctx context.Context, d *v1alpha1.DeployRun, e *env) (reconcile.Result, error) {
	s := d.Status.Sync
	a := e.app
	if a == nil || a.Name != s.Application {
		r.fail(d, fmt.Sprintf("the environment's ArgoApplication %s went away during the deployment", s.Application))
		return reconcile.Result{}, nil
	}
	name := meta.GetExternalName(a)
	ac, _, err := r.o.NewSyncs(ctx, a)
	if err != nil {
		return reconcile.Result{}, errors.Wrapf(err, "cannot reach Argo CD for ArgoApplication %s", a.Name)
	}
	app, err := ac.Get(ctx, name)
	if err != nil {
		return reconcile.Result{}, errors.Wrapf(err, "cannot read Argo CD application %s", name)
	}
	if app.Metadata.Labels[contract.LabelOwner] != argoaccess.Owner(a.GetNamespace(), a.GetName()) || app.Spec.Source == nil {
		r.fail(d, fmt.Sprintf("Argo CD application %s is no longer the one ArgoApplication %s owns: it was not verified", name, a.Name))
		return reconcile.Result{}, nil
	}
	if msg := sameApp(s, name, app, a); msg != "" {
		r.fail(d, msg)
		return reconcile.Result{}, nil
	}
	s.Health = app.Status.Health.Status
	want := s.SyncedRevision
	if b := d.Status.Build; b != nil && isCommitID(b.Revision) && want != "" && !strings.HasPrefix(want, b.Revision) {
		r.fail(d, fmt.Sprintf("Argo CD synced %s, not %s, which the build produced: the application's target revision %q does not point at the build's commit", short(want), short(b.Revision), app.Spec.Source.TargetRevision))
		return reconcile.Result{}, nil
	}
	switch {
	case app.Status.Sync.Revision != want && comparedSince(app, d):
		// Argo CD compares an application with its target revision: one
		// synced to another commit stays OutOfSync at the target's.
		r.fail(d, fmt.Sprintf("Argo CD compares application %s with its target revision %q, now at %s, not with %s which this deployment synced: deploy a revision the target points at, or change the target", name, app.Spec.Source.TargetRevision, short(app.Status.Sync.Revision), short(want)))
		return reconcile.Result{}, nil
	case app.Status.Sync.Revision != want:
		r.note(d, fmt.Sprintf("Argo CD reports application %s at %s, waiting for %s", name, short(app.Status.Sync.Revision), short(want)))
	case app.Status.Sync.Status != "Synced":
		r.note(d, fmt.Sprintf("Argo CD reports application %s %s at %s", name, cmp.Or(app.Status.Sync.Status, "Unknown"), short(want)))
	case app.Status.Health.Status != "Healthy":
		r.note(d, fmt.Sprintf("Argo CD reports application %s %s%s", name, cmp.Or(app.Status.Health.Status, "Unknown"), why(app.Status.Health.Message)))
	default:
		url, err := r.liveURL(ctx, d)
		if err != nil {
			return reconcile.Result{}, err
		}
		d.Status.URL = url
		msg := fmt.Sprintf("deployed %s: Synced and Healthy", short(want))
		if r.o.HTTPCheck != nil && url != "" {
			a := checkURL(ctx, r.o.HTTPCheck, url)
			if a.reachable && !a.ok {
				r.note(d, fmt.Sprintf("Synced and Healthy at %s; waiting for the live URL: %s", short(want), a.msg))
				return reconcile.Result{RequeueAfter: Poll}, nil
			}
			msg += "; " + a.msg
		}
		if url != "" {
			msg += "; live at " + url
		}
		r.enter(d, v1alpha1.DeploySucceeded, msg)
		return reconcile.Result{}, nil
	}
	return reconcile.Result{RequeueAfter: Poll}, nil
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

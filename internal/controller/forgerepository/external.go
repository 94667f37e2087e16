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

package forgerepository

import (
	"context"
	"fmt"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/forge/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/gitea"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

const (
	errList       = "cannot list the open pull requests"
	errFmtNoRepo  = "repository %s not found on %s, or the token cannot read it"
	errFmtReport  = "cannot report on pull request #%d"
	errFmtStatus  = "cannot set commit status %q on %s"
	errFmtComment = "cannot write the comment"
)

type external struct {
	client Client
	// forge is the forge's URL, for messages.
	forge string
	// forks is false when the tenancy lists no fork's pull request.
	forks bool
	// login returns the token's login (cached per connector).
	login func(context.Context) (string, error)
	// now is the clock; nil is time.Now.
	now func() time.Time
}

// Marker is the hidden line that marks cr's comment on each pull request:
// how UpsertComment finds it again when its id is lost, and never edits
// another resource's comment.
func Marker(cr *v1alpha1.ForgeRepository) string {
	return "<!-- provider-devops ForgeRepository " + cr.GetNamespace() + "/" + cr.GetName() + " -->"
}

func (e *external) clock() time.Time {
	if e.now == nil {
		return time.Now()
	}
	return e.now()
}

// Observe lists the repository's open pull requests. The repository
// always "exists": nothing is created or deleted on the forge, so a
// resource being deleted is let go at once. On an error status is left as
// it was, so what a preview was built from is kept while the forge is
// down. Up to date means every report for a listed pull request was
// posted as it now reads.
func (e *external) Observe(ctx context.Context, cr *v1alpha1.ForgeRepository) (managed.ExternalObservation, error) {
	if meta.WasDeleted(cr) {
		return managed.ExternalObservation{ResourceExists: false}, nil
	}
	p := cr.Spec.ForProvider
	prs, err := e.client.OpenPullRequests(ctx, p.Repository)
	switch s := httpapi.StatusOf(err); {
	case err == nil:
	case s == http.StatusNotFound || s == http.StatusForbidden:
		// Gitea answers 404 for a private repository the token may not
		// read: the two cannot be told apart.
		return managed.ExternalObservation{}, errors.Wrapf(err, errFmtNoRepo, p.Repository, httpapi.Redact(e.forge))
	default:
		return managed.ExternalObservation{}, errors.Wrap(err, errList)
	}
	listed, skipped := Select(prs, p.PullRequests, e.forks)
	Record(&cr.Status.AtProvider, listed, skipped, e.clock())
	cr.SetConditions(xpv2.Available())
	diff := ""
	for _, r := range Pending(p, cr.Status.AtProvider) {
		diff += fmt.Sprintf("pull request #%d: report to be posted\n", r.Number)
	}
	return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: diff == "", Diff: diff}, nil
}

// Create has nothing to create: Observe always finds the repository.
func (e *external) Create(context.Context, *v1alpha1.ForgeRepository) (managed.ExternalCreation, error) {
	return managed.ExternalCreation{}, nil
}

// Update posts the pending reports: a commit status each, and the
// comment when one is asked for. It posts all it can, records each one
// posted, and returns an error naming every pull request it failed on.
func (e *external) Update(ctx context.Context, cr *v1alpha1.ForgeRepository) (managed.ExternalUpdate, error) {
	var errs []error
	for _, r := range Pending(cr.Spec.ForProvider, cr.Status.AtProvider) {
		rep, err := e.post(ctx, cr, r)
		if err != nil {
			errs = append(errs, errors.Wrapf(err, errFmtReport, r.Number))
			continue
		}
		setReported(&cr.Status.AtProvider, rep)
	}
	return managed.ExternalUpdate{}, errors.Join(errs...)
}

// post puts report r on the forge and returns what to record of it.
func (e *external) post(ctx context.Context, cr *v1alpha1.ForgeRepository, r v1alpha1.PullRequestReport) (v1alpha1.Reported, error) {
	p := cr.Spec.ForProvider
	sc := StatusContext(p)
	prev, _ := reported(cr.Status.AtProvider, r.Number)
	// The comment first: written again unchanged it is only read, while
	// every status posted adds one to the commit's list, so a report
	// retried after a failure adds no status that failure made needless.
	id := prev.CommentID
	if r.Comment != "" {
		login, err := e.login(ctx)
		if err != nil {
			return v1alpha1.Reported{}, err
		}
		if id, err = e.client.UpsertComment(ctx, p.Repository, r.Number, id, login, Marker(cr), r.Comment); err != nil {
			return v1alpha1.Reported{}, errors.Wrap(err, errFmtComment)
		}
	}
	st := gitea.Status{State: gitea.State(r.State), Context: sc, Description: r.Description, TargetURL: r.TargetURL}
	if err := e.client.SetStatus(ctx, p.Repository, r.SHA, st); err != nil {
		return v1alpha1.Reported{}, errors.Wrapf(err, errFmtStatus, sc, r.SHA)
	}
	at := metav1.NewTime(e.clock())
	return v1alpha1.Reported{Number: r.Number, Digest: Digest(r, sc), CommentID: id, At: &at}, nil
}

// Delete has nothing to delete: statuses and comments stay on the forge.
func (e *external) Delete(context.Context, *v1alpha1.ForgeRepository) (managed.ExternalDelete, error) {
	return managed.ExternalDelete{}, nil
}

// Disconnect has nothing to release.
func (e *external) Disconnect(context.Context) error { return nil }

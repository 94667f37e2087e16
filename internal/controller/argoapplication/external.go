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

package argoapplication

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/controller/argoaccess"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
)

const (
	errGet               = "cannot observe the Argo CD application"
	errCreate            = "cannot create the Argo CD application"
	errUpdate            = "cannot update the Argo CD application"
	errDelete            = "cannot delete the Argo CD application"
	errFmtNotOwned       = "Argo CD application %q exists and no resource manages it (it has no label %s): it was left untouched. Set spec.forProvider.adoptExisting: true to take it over in place, or delete or rename it in Argo CD"
	errFmtOthers         = "Argo CD application %q exists and is managed by %q (label %s), not by this resource (%q): it was left untouched, whatever adoptExisting says"
	errAdopt             = "cannot adopt the Argo CD application"
	errFmtExistsOnCreate = "Argo CD application %q already exists with a different spec and is not managed by this resource: it was left untouched"
)

type external struct {
	client Client
	// server is the Argo CD URL, for the application's link in status.
	server string
	// observed is what Observe read, for Update's patch in the same
	// reconcile.
	observed *argocd.Application
	// tenancy, when set, limits the application to its namespace's
	// projects.
	tenancy *argoaccess.Tenancy
}

// Observe reads the application once and compares the managed fields.
func (e *external) Observe(ctx context.Context, cr *v1alpha1.ArgoApplication) (managed.ExternalObservation, error) {
	name := meta.GetExternalName(cr)
	app, err := e.client.Get(ctx, name)
	if argocd.IsNotFound(err) {
		return managed.ExternalObservation{ResourceExists: false}, nil
	}
	if err != nil {
		return managed.ExternalObservation{}, errors.Wrap(err, errGet)
	}
	adopting, letGo, err := e.claim(ctx, cr, app)
	if letGo || err != nil {
		return managed.ExternalObservation{ResourceExists: false}, err
	}

	e.observed = app
	cr.Status.AtProvider = Observation(app)
	if e.server != "" {
		cr.Status.AtProvider.URL = strings.TrimSuffix(e.server, "/") + "/applications/" + url.PathEscape(name)
	}
	cr.SetConditions(Readiness(app))

	want := Desired(cr)
	diff := cmp.Diff(Normalize(want.Spec), Normalize(app.Spec), cmpopts.EquateEmpty())
	// Only our finalizer counts: others' (post-delete hooks, tools) stay.
	if cascade(cr) != hasCascadeFinalizer(app.Metadata.Finalizers) {
		diff += fmt.Sprintf("finalizers: want the cascade finalizer %v, got %v\n", cascade(cr), app.Metadata.Finalizers)
	}
	if adopting {
		diff += fmt.Sprintf("metadata.labels[%s]: to be written (adoptExisting)\n", contract.LabelOwner)
	}
	return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: diff == "", Diff: diff}, nil
}

// claim applies the owner rule (mrcontroller.ClaimOf) to app, found under
// cr's name. adopting: nobody's, taken over as adoptExisting asks (within
// the namespace's tenancy); letGo: not this resource's while it is being
// deleted, so it lets go touching nothing; an error says why it is refused.
func (e *external) claim(ctx context.Context, cr *v1alpha1.ArgoApplication, app *argocd.Application) (adopting, letGo bool, err error) {
	got := app.Metadata.Labels[contract.LabelOwner]
	c := mrcontroller.ClaimOf(got, Owner(cr), cr.Spec.ForProvider.AdoptExisting)
	switch {
	case c == mrcontroller.ClaimOurs:
		return false, false, nil
	case meta.WasDeleted(cr):
		// Ownership cannot be proven (the label was edited, another team
		// recreated the name, or it was never taken over): let go.
		return false, true, nil
	case !mrcontroller.MayWrite(cr):
		// Observe-only: an application of another namespace's project is
		// not shown, and through a ClusterProviderConfig only one of the
		// namespace's own projects is.
		return false, false, e.tenancy.CheckProject(ctx, e.client, "the observed application's spec.project", app.Spec.Project)
	case c == mrcontroller.ClaimAdopt:
		if err := e.tenancy.CheckAdoption(ctx, e.client, app); err != nil {
			return false, false, errors.Wrap(err, errAdopt)
		}
		return true, false, nil
	case c == mrcontroller.ClaimOthers:
		return false, false, errors.Errorf(errFmtOthers, meta.GetExternalName(cr), got, contract.LabelOwner, Owner(cr))
	}
	return false, false, errors.Errorf(errFmtNotOwned, meta.GetExternalName(cr), contract.LabelOwner)
}

// Create creates the application. An existing application of that name that
// is not ours is refused, never overwritten.
func (e *external) Create(ctx context.Context, cr *v1alpha1.ArgoApplication) (managed.ExternalCreation, error) {
	if err := e.tenancy.CheckProject(ctx, e.client, "spec.forProvider.project", cr.Spec.ForProvider.Project); err != nil {
		return managed.ExternalCreation{}, err
	}
	if err := e.tenancy.CheckNewApplication(meta.GetExternalName(cr)); err != nil {
		return managed.ExternalCreation{}, err
	}
	cr.SetConditions(xpv2.Creating())
	_, err := e.client.Create(ctx, Desired(cr))
	if argocd.IsAlreadyExists(err) {
		return managed.ExternalCreation{}, errors.Errorf(errFmtExistsOnCreate, meta.GetExternalName(cr))
	}
	return managed.ExternalCreation{}, errors.Wrap(err, errCreate)
}

// Update writes the managed fields back with a merge patch, so what others
// put on the application (notification state in annotations, labels,
// finalizers, spec fields we do not manage) survives. Argo CD's PUT would
// replace the annotations and the whole spec.
func (e *external) Update(ctx context.Context, cr *v1alpha1.ArgoApplication) (managed.ExternalUpdate, error) {
	observed := e.observed
	if observed == nil {
		var err error
		if observed, err = e.client.Get(ctx, meta.GetExternalName(cr)); err != nil {
			return managed.ExternalUpdate{}, errors.Wrap(err, errUpdate)
		}
	}
	if err := e.tenancy.CheckProject(ctx, e.client, "spec.forProvider.project", cr.Spec.ForProvider.Project); err != nil {
		return managed.ExternalUpdate{}, err
	}
	patch, err := MergePatch(cr, observed)
	if err != nil {
		return managed.ExternalUpdate{}, errors.Wrap(err, errUpdate)
	}
	_, err = e.client.Patch(ctx, meta.GetExternalName(cr), patch)
	return managed.ExternalUpdate{}, errors.Wrap(err, errUpdate)
}

// Delete deletes the application, cascading to its workloads unless
// spec.forProvider.cascade is false.
func (e *external) Delete(ctx context.Context, cr *v1alpha1.ArgoApplication) (managed.ExternalDelete, error) {
	cr.SetConditions(xpv2.Deleting())
	// The project the application is in, which may not be the one asked
	// for (a move Argo CD refused): naming another one answers NotFound.
	project := cr.Spec.ForProvider.Project
	if e.observed != nil && e.observed.Spec.Project != "" {
		project = e.observed.Spec.Project
	}
	err := e.client.Delete(ctx, meta.GetExternalName(cr), project, cascade(cr))
	if argocd.IsNotFound(err) {
		return managed.ExternalDelete{}, nil
	}
	return managed.ExternalDelete{}, errors.Wrap(err, errDelete)
}

// Disconnect has nothing to release: the HTTP client pools its connections.
func (e *external) Disconnect(_ context.Context) error { return nil }

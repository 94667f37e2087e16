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

package registryrepo

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/registry"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
)

const (
	errGet    = "cannot observe the repository"
	errCreate = "cannot create the repository"
	errUpdate = "cannot update the repository"
	errDelete = "cannot delete the repository"

	errFmtHasImages   = "repository %s holds %d tags and was left in place: set spec.forProvider.deleteImages: true to delete it with its images, or remove Delete from spec.managementPolicies to keep it"
	errFmtOtherOwner  = "repository %s is managed by RegistryRepo %s, not by this resource: it was left untouched, whatever adoptExisting says"
	errFmtNotOwned    = "repository %s already exists and no RegistryRepo owns it: it was left untouched. Set spec.forProvider.adoptExisting: true to take it over (deleting this resource then deletes it only with deleteImages), or use another name"
	errFmtUnknownTags = "repository %s may hold images (this registry does not report its tags in one read) and was left in place: set spec.forProvider.deleteImages: true to delete it with whatever images it holds, or remove Delete from spec.managementPolicies to keep it"
	errFmtNoProject   = "Harbor project %q does not exist, and namespace %q may not create it: %s spec.registry.tenancy.repositories does not name it exactly (a glob there could name another team's project). Ask the platform team to create project %q"
)

type external struct {
	client registry.Client
	kube   client.Client
	// tenancy bounds the namespace through a ClusterProviderConfig; nil
	// for a namespaced ProviderConfig.
	tenancy *Tenancy
}

// Owner is the owner value recorded on cr's repository.
func Owner(cr *v1alpha1.RegistryRepo) string { return cr.GetNamespace() + "/" + cr.GetName() }

// Desired is the repository cr asks for.
func Desired(cr *v1alpha1.RegistryRepo) registry.Repo {
	p := cr.Spec.ForProvider
	r := registry.Repo{Namespace: p.Namespace, Name: p.Name, Private: p.Visibility != v1alpha1.VisibilityPublic, Description: p.Description, Owner: Owner(cr)}
	if h := p.Harbor; h != nil {
		r.CreateProject, r.StorageQuotaBytes, r.ImmutableTags = h.CreateProject, h.StorageQuotaBytes, h.ImmutableTags
	}
	r.ProjectOwned = cr.Status.AtProvider.CreatedProject
	return r
}

// Observe reads the repository and compares what the registry manages:
// visibility and description (Docker Hub), visibility (Harbor project).
func (e *external) Observe(ctx context.Context, cr *v1alpha1.RegistryRepo) (managed.ExternalObservation, error) {
	want := Desired(cr)
	o, err := e.client.Get(ctx, want)
	if err != nil {
		return managed.ExternalObservation{}, errors.Wrap(err, errGet)
	}
	if o == nil || emptied(cr, o) {
		return managed.ExternalObservation{ResourceExists: false}, nil
	}
	// The Harbor project is this resource's only if it was created after
	// the resource: status is writable by the resource's editors, and a
	// claim written there must not hand them another's project.
	if want.ProjectOwned && o.ProjectCreated != nil && !createdSince(o.ProjectCreated, cr) {
		want.ProjectOwned = false
	}
	diff, letGo, err := ownership(cr, o, want)
	if err != nil || letGo {
		return managed.ExternalObservation{}, err
	}
	foreign := unclaimedWithImages(o, cr, want.FullName())
	switch {
	case foreign && meta.WasDeleted(cr):
		// Never claimed: let go, its images untouched.
		return managed.ExternalObservation{ResourceExists: false}, nil
	case foreign && mrcontroller.MayWrite(cr):
		return managed.ExternalObservation{}, errors.Errorf(errFmtNotOwned, want.FullName())
	}
	cr.Status.AtProvider = observation(o, want, foreign)
	cr.SetConditions(xpv2.Available())
	diff += e.drift(o, want)
	return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: diff == "", Diff: diff}, nil
}

// emptied is true for a repository that exists until its first push
// (Harbor, OCI): it is gone for a deleted resource once no image is left.
func emptied(cr *v1alpha1.RegistryRepo, o *registry.Observed) bool {
	return meta.WasDeleted(cr) && o.Implicit && (o.TagCount == nil || *o.TagCount == 0)
}

// ownership checks the owner the registry records for the repository
// (when it records one): diff says it is to be recorded, letGo that a
// deleted resource lets the repository go (its images untouched), err
// that the resource may not write another's.
func ownership(cr *v1alpha1.RegistryRepo, o *registry.Observed, want registry.Repo) (diff string, letGo bool, err error) {
	if o.Owner == nil {
		return "", false, nil
	}
	switch owner := *o.Owner; {
	case owner == want.Owner:
	case meta.WasDeleted(cr):
		// Ownership cannot be proven (the line was edited away, or the
		// repository is another's): let go, images untouched.
		return "", true, nil
	case owner != "":
		if mrcontroller.MayWrite(cr) {
			return "", false, errors.Errorf(errFmtOtherOwner, want.FullName(), owner)
		}
	case cr.Spec.ForProvider.AdoptExisting || createdAfter(o.Created, cr) || (want.ProjectOwned && o.Created != nil):
		// Unowned: adopted when asked to, or claimed when it came into
		// being after this resource (Harbor's first push), or in the
		// project this resource created.
		return "owner: to be recorded on the repository\n", false, nil
	case mrcontroller.MayWrite(cr):
		return "", false, errors.Errorf(errFmtNotOwned, want.FullName())
	}
	return "", false, nil
}

// observation is what status shows of the repository; a foreign one
// (observe-only) is shown, not claimed.
func observation(o *registry.Observed, want registry.Repo, foreign bool) v1alpha1.RegistryRepoObservation {
	obs := v1alpha1.RegistryRepoObservation{URL: o.URL, FullName: want.FullName(), TagCount: o.TagCount, CreatedProject: want.ProjectOwned}
	if foreign {
		obs.FullName = ""
	}
	if o.Private != nil && o.ProjectWide {
		obs.Visibility = v1alpha1.VisibilityPublic
		if *o.Private {
			obs.Visibility = v1alpha1.VisibilityPrivate
		}
	}
	if o.LastPushed != nil {
		t := metav1.NewTime(*o.LastPushed)
		obs.LastPushed = &t
	}
	return obs
}

// drift is how the managed fields differ: visibility (of a project-wide
// setting only when this resource manages the project) and description.
func (e *external) drift(o *registry.Observed, want registry.Repo) string {
	diff := ""
	if o.Private != nil && *o.Private != want.Private && (!o.ProjectWide || e.managesProject(want.ProjectOwned)) {
		diff += fmt.Sprintf("visibility: want private=%t, got private=%t\n", want.Private, *o.Private)
	}
	if o.Description != nil && *o.Description != want.Description {
		diff += fmt.Sprintf("description: want %q, got %q\n", want.Description, *o.Description)
	}
	return diff
}

// unclaimedWithImages is true for a repository on a registry that records
// no owner (OCI: no owner text, yet tags) that held images before this
// resource claimed it, and that it was not asked to adopt: whatever its
// name, it is another's, and deleteImages must not delete its images.
// The resource claims such a repository by recording
// status.atProvider.fullName, on the first observation that finds it
// empty or adopts it; status is the provider's to write.
func unclaimedWithImages(o *registry.Observed, cr *v1alpha1.RegistryRepo, full string) bool {
	return o.Owner == nil && o.TagCount != nil && *o.TagCount > 0 &&
		cr.Status.AtProvider.FullName != full && !cr.Spec.ForProvider.AdoptExisting
}

// createdSince is true when t is known and not before cr was created
// (whole seconds, as Kubernetes keeps the creation time): a project this
// resource created, in its first reconcile, may share that second.
func createdSince(t *time.Time, cr *v1alpha1.RegistryRepo) bool {
	return t != nil && !t.Before(cr.GetCreationTimestamp().Time)
}

// createdAfter is true when t is known and after the second cr was created
// in: a repository pushed in that same second may predate the resource,
// and is adopted only when asked.
func createdAfter(t *time.Time, cr *v1alpha1.RegistryRepo) bool {
	return t != nil && !t.Before(cr.GetCreationTimestamp().Add(time.Second))
}

// Create makes the repository. One that appeared since Observe (409) is
// checked for its owner on the next observation.
//
// Through a ClusterProviderConfig the platform's account would create a
// missing Harbor project: only one the tenancy names exactly for this
// namespace, never one a glob reaches, which could be another team's
// project created first to squat it.
func (e *external) Create(ctx context.Context, cr *v1alpha1.RegistryRepo) (managed.ExternalCreation, error) {
	cr.SetConditions(xpv2.Creating())
	want := Desired(cr)
	mayCreate := e.tenancy.MayCreateProject(want.Namespace, want.Name)
	want.CreateProject = want.CreateProject && mayCreate
	created, err := e.client.Create(ctx, want)
	var missing *registry.ProjectMissingError
	switch {
	case registry.IsConflict(err):
		err = nil
	case !mayCreate && errors.As(err, &missing):
		return managed.ExternalCreation{}, errors.Errorf(errFmtNoProject, missing.Project, e.tenancy.Namespace, e.tenancy.Config, missing.Project)
	}
	if created.Project {
		// Recorded at once, outside the reconciler's own status write: a
		// crash or a conflict must not make the project look foreign (its
		// visibility unmanaged) or, worse, the other way round.
		p := cr.DeepCopy()
		orig := p.DeepCopy()
		p.Status.AtProvider.CreatedProject = true
		if perr := e.kube.Status().Patch(ctx, p, client.MergeFrom(orig)); perr != nil && err == nil {
			err = errors.Wrap(perr, "cannot record the created project in status")
		}
		cr.Status.AtProvider.CreatedProject = true
		cr.SetResourceVersion(p.GetResourceVersion())
	}
	return managed.ExternalCreation{}, errors.Wrap(err, errCreate)
}

// managesProject says whether the resource sets the visibility of the
// Harbor project it created (owned). Through a ClusterProviderConfig it
// does not: the project stays private, for the platform team to publish.
// A pattern may give several namespaces one project (acme/{namespace}/*),
// and whichever created it first must not publish the others' images.
func (e *external) managesProject(owned bool) bool { return owned && e.tenancy == nil }

// Update sets visibility and description.
func (e *external) Update(ctx context.Context, cr *v1alpha1.RegistryRepo) (managed.ExternalUpdate, error) {
	want := Desired(cr)
	want.ProjectOwned = e.managesProject(want.ProjectOwned)
	return managed.ExternalUpdate{}, errors.Wrap(e.client.Update(ctx, want), errUpdate)
}

// Delete removes the repository and its images, but only an empty one
// unless spec.forProvider.deleteImages says so: images are users' data.
func (e *external) Delete(ctx context.Context, cr *v1alpha1.RegistryRepo) (managed.ExternalDelete, error) {
	cr.SetConditions(xpv2.Deleting())
	want := Desired(cr)
	if !cr.Spec.ForProvider.DeleteImages {
		// A fresh read: what Observe saw may be a poll old, and a push may
		// have come since.
		o, err := e.client.Get(ctx, want)
		if err != nil {
			return managed.ExternalDelete{}, errors.Wrap(err, errDelete)
		}
		switch {
		case o == nil:
			return managed.ExternalDelete{}, nil
		case o.TagCount == nil:
			return managed.ExternalDelete{}, errors.Errorf(errFmtUnknownTags, want.FullName())
		case *o.TagCount > 0:
			return managed.ExternalDelete{}, errors.Errorf(errFmtHasImages, want.FullName(), *o.TagCount)
		}
	}
	return managed.ExternalDelete{}, errors.Wrap(e.client.Delete(ctx, want), errDelete)
}

// Disconnect has nothing to release.
func (e *external) Disconnect(context.Context) error { return nil }

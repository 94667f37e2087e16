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

package argoproject

import (
	"context"
	"fmt"
	"net/url"
	"slices"
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
	errGet          = "cannot observe the Argo CD project"
	errCreate       = "cannot create the Argo CD project"
	errUpdate       = "cannot update the Argo CD project"
	errDelete       = "cannot delete the Argo CD project"
	errFmtStillUsed = "the Argo CD project keeps source repositories or destinations this resource no longer lists until its applications stop using them: %s"
	errFmtNotOwned  = "Argo CD project %q exists and is not managed by this resource (label %s=%q): it was left untouched. Use another name, or set that label on the project to let this resource adopt it"
)

type external struct {
	client Client
	server string
	// observed is what Observe read, for Update's read-modify-write.
	observed *argocd.Project
	// tenancy keeps an observe-only resource off another namespace's
	// project.
	tenancy *argoaccess.Tenancy
	// nameRefused is why the tenancy does not allow the project's name.
	// Observe refuses it unless the project exists already held by this
	// resource (its owner label): one created under a name no longer
	// allowed (the older default "{namespace}-*") stays managed where it
	// is, never recreated or let go.
	nameRefused error
}

// Owner is the owner label value of cr.
func Owner(cr *v1alpha1.ArgoProject) string {
	return argoaccess.Owner(cr.GetNamespace(), cr.GetName())
}

// Desired is the project cr asks for.
func Desired(cr *v1alpha1.ArgoProject) *argocd.Project {
	p := cr.Spec.ForProvider
	out := &argocd.Project{
		Metadata: argocd.ObjectMeta{Name: meta.GetExternalName(cr), Labels: map[string]string{
			contract.LabelOwner:          Owner(cr),
			contract.LabelOwnerNamespace: cr.GetNamespace(),
			contract.LabelOwnerUID:       string(cr.GetUID()),
		}},
		Spec: argocd.ProjectSpec{
			Description:      p.Description,
			SourceRepos:      p.SourceRepos,
			SourceNamespaces: p.SourceNamespaces,
		},
	}
	for _, d := range p.Destinations {
		out.Spec.Destinations = append(out.Spec.Destinations, argocd.ProjectDestination{Server: d.Server, Name: d.Name, Namespace: d.Namespace})
	}
	for _, g := range p.ClusterResourceWhitelist {
		out.Spec.ClusterResourceWhitelist = append(out.Spec.ClusterResourceWhitelist, argocd.GroupKind{Group: g.Group, Kind: g.Kind})
	}
	for _, g := range p.NamespaceResourceBlacklist {
		out.Spec.NamespaceResourceBlacklist = append(out.Spec.NamespaceResourceBlacklist, argocd.GroupKind{Group: g.Group, Kind: g.Kind})
	}
	for _, r := range p.Roles {
		out.Spec.Roles = append(out.Spec.Roles, argocd.ProjectRole{Name: r.Name, Description: r.Description, Policies: r.Policies, Groups: r.Groups})
	}
	return out
}

// takenOver is true when cr manages a project it neither created nor
// took over before: one without its UID label (every project this
// provider creates has it) that its resource never recorded creating (in
// the annotation of a version before the UID label). The Created
// condition does not count: a create cut short by a crash is recorded by
// a rule of thumb (mrcontroller), and the label says it for certain.
func takenOver(cr *v1alpha1.ArgoProject, p *argocd.Project) bool {
	return p.Metadata.Labels[contract.LabelOwnerUID] != string(cr.GetUID()) &&
		(p.Metadata.Labels[contract.LabelOwnerUID] != "" || meta.GetExternalCreateSucceeded(cr).IsZero())
}

// compared is the managed spec without what Argo CD adds (role tokens).
func compared(s argocd.ProjectSpec) argocd.ProjectSpec {
	roles := make([]argocd.ProjectRole, len(s.Roles))
	for i, r := range s.Roles {
		r.JWTTokens = nil
		roles[i] = r
	}
	s.Roles = roles
	return s
}

// Observe reads the project and compares the managed fields.
func (e *external) Observe(ctx context.Context, cr *v1alpha1.ArgoProject) (managed.ExternalObservation, error) {
	name := meta.GetExternalName(cr)
	p, err := e.client.GetProject(ctx, name)
	missing := argocd.IsNotFound(err)
	if err != nil && !missing {
		return managed.ExternalObservation{}, errors.Wrap(err, errGet)
	}
	ours := !missing && p.Metadata.Labels[contract.LabelOwner] == Owner(cr)
	if e.nameRefused != nil && !ours {
		// Refused, and let go untouched on delete.
		if meta.WasDeleted(cr) {
			return managed.ExternalObservation{ResourceExists: false}, nil
		}
		return managed.ExternalObservation{}, e.nameRefused
	}
	if missing {
		return managed.ExternalObservation{ResourceExists: false}, nil
	}
	if !ours {
		if exists, err := e.another(cr, p); !exists || err != nil {
			return managed.ExternalObservation{ResourceExists: exists}, err
		}
	}
	e.observed = p
	if e.server != "" {
		cr.Status.AtProvider.URL = e.server + "/settings/projects/" + url.PathEscape(name)
	}
	cr.SetConditions(xpv2.Available())
	diff := cmp.Diff(compared(Desired(cr).Spec), compared(p.Spec), cmpopts.EquateEmpty())
	if ns := p.Metadata.Labels[contract.LabelOwnerNamespace]; ns != cr.GetNamespace() {
		diff += fmt.Sprintf("metadata.labels[%s]: want %q, got %q\n", contract.LabelOwnerNamespace, cr.GetNamespace(), ns)
	}
	if uid := p.Metadata.Labels[contract.LabelOwnerUID]; uid != string(cr.GetUID()) && mrcontroller.MayWrite(cr) {
		diff += fmt.Sprintf("metadata.labels[%s]: want %q, got %q\n", contract.LabelOwnerUID, cr.GetUID(), uid)
	}
	return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: diff == "", Diff: diff}, nil
}

// another says what a project this resource does not own is to it: gone
// for a resource being deleted (let go untouched), an error for one that
// may write it, and for an observe-only one the project itself, unless it
// is another namespace's (not shown, and through a ClusterProviderConfig
// only the namespace's own is).
func (e *external) another(cr *v1alpha1.ArgoProject, p *argocd.Project) (exists bool, err error) {
	switch {
	case meta.WasDeleted(cr):
		return false, nil
	case mrcontroller.MayWrite(cr):
		return false, errors.Errorf(errFmtNotOwned, meta.GetExternalName(cr), contract.LabelOwner, Owner(cr))
	}
	if err := e.tenancy.OwnsProject(p, "metadata.name"); err != nil {
		return false, err
	}
	return true, nil
}

// Create creates the project; one of that name that appeared meanwhile is
// refused by Argo CD (no upsert) and reported.
func (e *external) Create(ctx context.Context, cr *v1alpha1.ArgoProject) (managed.ExternalCreation, error) {
	cr.SetConditions(xpv2.Creating())
	return managed.ExternalCreation{}, errors.Wrap(e.client.CreateProject(ctx, Desired(cr)), errCreate)
}

// Update writes the managed fields over the project read by Observe.
func (e *external) Update(ctx context.Context, cr *v1alpha1.ArgoProject) (managed.ExternalUpdate, error) {
	if e.observed == nil {
		return managed.ExternalUpdate{}, errors.New(errUpdate + ": not observed")
	}
	want := Desired(cr)
	want.Raw = e.observed.Raw
	if takenOver(cr, e.observed) {
		// Whoever made the project may hold tokens of its roles, which
		// would act with the roles this resource grants: they are
		// revoked. Not for a project this resource created before it
		// was labelled with its UID (an earlier release).
		raw, n, err := argocd.WithoutRoleTokens(e.observed.Raw)
		if err != nil {
			return managed.ExternalUpdate{}, errors.Wrap(err, errUpdate)
		}
		want.Raw = raw
		cr.Status.AtProvider.RevokedRoleTokens += n
	}
	err := e.client.UpdateProject(ctx, want)
	if appsInvalidated(err) {
		// Argo CD refuses to take a source or destination away from
		// applications that use it, and refuses those applications the
		// new one until the project has it: a changed git URL or
		// namespace would wait on itself. The project keeps what it had
		// as well (within the tenancy) until its applications moved; a
		// later update takes the rest away.
		wider, ok := e.keepingOld(want)
		switch {
		case !ok:
		case addsTo(wider, e.observed):
			err = e.client.UpdateProject(ctx, wider)
		default:
			// Only the narrowing is left, and Argo CD refuses it until
			// the applications moved: said, and retried (not a terminal
			// refusal: it resolves itself once they move).
			return managed.ExternalUpdate{}, errors.Errorf(errFmtStillUsed, err.Error())
		}
	}
	return managed.ExternalUpdate{}, errors.Wrap(err, errUpdate)
}

// addsTo is true when p has a source repository or destination observed
// does not.
func addsTo(p, observed *argocd.Project) bool {
	return lacks(observed.Spec.SourceRepos, p.Spec.SourceRepos) || lacks(observed.Spec.Destinations, p.Spec.Destinations)
}

// lacks is true when have misses an element of want.
func lacks[T comparable](have, want []T) bool {
	return slices.ContainsFunc(want, func(x T) bool { return !slices.Contains(have, x) })
}

// union is a with the elements of b it misses appended.
func union[T comparable](a, b []T) []T {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// appsInvalidated is Argo CD's refusal of a project update that would
// leave some of its applications without their source or destination.
func appsInvalidated(err error) bool {
	return argocd.IsInvalidArgument(err) && strings.Contains(err.Error(), "as a result of project update")
}

// keepingOld is want with the source repositories and destinations of the
// project as observed added, when there are any and the tenancy allows
// them (an unbounded tenancy allows all: only a ClusterProviderConfig's
// bounds its projects).
func (e *external) keepingOld(want *argocd.Project) (*argocd.Project, bool) {
	if !addsTo(e.observed, want) {
		return nil, false
	}
	wider := *want
	wider.Spec.SourceRepos = union(want.Spec.SourceRepos, e.observed.Spec.SourceRepos)
	wider.Spec.Destinations = union(want.Spec.Destinations, e.observed.Spec.Destinations)
	check := v1alpha1.ArgoProjectParameters{SourceRepos: wider.Spec.SourceRepos}
	for _, d := range wider.Spec.Destinations {
		check.Destinations = append(check.Destinations, v1alpha1.ProjectDestination{Server: d.Server, Name: d.Name, Namespace: d.Namespace})
	}
	if e.tenancy.CheckProjectSpec(check) != nil {
		return nil, false
	}
	return &wider, true
}

// Delete deletes the project. Argo CD refuses while applications use it;
// the error says so and deletion is retried.
func (e *external) Delete(ctx context.Context, cr *v1alpha1.ArgoProject) (managed.ExternalDelete, error) {
	cr.SetConditions(xpv2.Deleting())
	err := e.client.DeleteProject(ctx, meta.GetExternalName(cr))
	if argocd.IsNotFound(err) {
		err = nil
	}
	return managed.ExternalDelete{}, errors.Wrap(err, errDelete)
}

// Disconnect has nothing to release.
func (e *external) Disconnect(context.Context) error { return nil }

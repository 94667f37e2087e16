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

package argoaccess

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
)

// Refusals a kind's tests compare with (exported for them); the others
// are this package's own.
const (
	ErrFmtProjectGet      = "cannot check Argo CD project %q"
	ErrFmtProjectNotOurs  = "%s: Argo CD project %q is not managed by an ArgoProject in namespace %q (its label %s is %q): through a ClusterProviderConfig a resource may use only its own namespace's projects. Create an ArgoProject for it in this namespace"
	ErrFmtProjectOthers   = "%s: Argo CD project %q belongs to namespace %q (its label %s), not to %q: a resource never uses another namespace's project"
	ErrFmtAppName         = "Argo CD application %q: through %s a new application's name must begin with %q, so that no namespace takes another's: set the annotation crossplane.io/external-name"
	errFmtProjectName     = "spec.forProvider.name (external name) %q: this namespace may not manage an Argo CD project of that name: %s spec.argocd.tenancy.projectNames allows %s"
	errFmtSourceRepo      = "%s: source repository %q is not allowed: %s spec.argocd.tenancy.sourceRepos allows %s"
	ErrFmtProjectMissing  = "Argo CD project %q does not exist yet: create its ArgoProject first (retrying)"
	errFmtDestination     = "%s: destination %s namespace %q is not allowed for namespace %q: %s spec.argocd.tenancy.destinationNamespaces allows %s"
	errFmtSourceNamespace = "%s: Applications in namespace %q may not use this project: for namespace %q, %s spec.argocd.tenancy.destinationNamespaces allows %s"
	errFmtDestCluster     = "%s: destination cluster %q is not allowed: %s spec.argocd.tenancy.destinationClusters allows %s"
	errFmtClusterResource = "%s: cluster-scoped kind %s is not allowed: %s spec.argocd.tenancy.clusterResources allows %s"
	errFmtAdoptName       = "Argo CD application %q is not adopted: its name begins with another namespace's prefix, and through %s a namespace takes over only names beginning with %q or holding no dot"
)

// Default tenancy of a ClusterProviderConfig without spec.argocd.tenancy.
//
//nolint:gochecknoglobals // read-only, never written
var (
	DefaultDestinationNamespaces = []string{"{namespace}", "{namespace}--*"}
	DefaultDestinationClusters   = []string{"*"}
	// DefaultProjectNames: no namespace name holds a dot, so "team" can
	// never take a name "team-a" needs (as "{namespace}-*" let it).
	DefaultProjectNames = []string{"{namespace}.*"}
	DefaultSourceRepos  = []string{"*"}
)

// Tenancy is what one namespace may ask of Argo CD. Through a namespaced
// ProviderConfig, whose token is the namespace's own, it only keeps the
// namespace off projects another namespace's ArgoProject manages; through
// a ClusterProviderConfig (Bounded), whose token is the platform's, it
// also bounds the projects the namespace may create.
type Tenancy struct {
	// Namespace is the tenant: the namespace of the resource reconciled.
	Namespace string
	// Config names the ProviderConfig or ClusterProviderConfig in messages.
	Config string
	// Bounded is true through a ClusterProviderConfig.
	Bounded bool
	// DestinationNamespaces and ProjectNames with {namespace} expanded,
	// DestinationClusters and SourceRepos: globs.
	DestinationNamespaces, DestinationClusters, ProjectNames, SourceRepos []string
	// ClusterResources are the cluster-scoped kinds projects may allow.
	ClusterResources []pcv1alpha1.ArgoCDGroupKind
}

// TenancyOf returns the tenancy of namespace ns under pc's argocd section
// s, with defaults; nil for a resource without a namespace.
func TenancyOf(pc *backendconfig.Config, s *pcv1alpha1.ArgoCDConfig, ns string) *Tenancy {
	if ns == "" {
		return nil
	}
	t := &Tenancy{Namespace: ns, Config: pc.String()}
	if pc.Namespace != "" {
		return t
	}
	t.Bounded = true
	tn := s.Tenancy
	if tn == nil {
		tn = &pcv1alpha1.ArgoCDTenancy{}
	}
	t.DestinationNamespaces = backendconfig.ExpandNamespace(tn.DestinationNamespaces, DefaultDestinationNamespaces, ns)
	t.ProjectNames = backendconfig.ExpandNamespace(tn.ProjectNames, DefaultProjectNames, ns)
	t.DestinationClusters, t.SourceRepos = DefaultDestinationClusters, DefaultSourceRepos
	if len(tn.DestinationClusters) > 0 {
		t.DestinationClusters = tn.DestinationClusters
	}
	if len(tn.SourceRepos) > 0 {
		t.SourceRepos = tn.SourceRepos
	}
	t.ClusterResources = tn.ClusterResources
	return t
}

// ProjectGetter reads AppProjects.
type ProjectGetter interface {
	GetProject(ctx context.Context, name string) (*argocd.Project, error)
}

// CheckProject returns an error when project is managed by an ArgoProject
// of another namespace and, when t is Bounded, unless an ArgoProject of t's
// namespace manages it. what names the field in messages. A nil t allows
// any project.
func (t *Tenancy) CheckProject(ctx context.Context, c ProjectGetter, what, project string) error {
	if t == nil {
		return nil
	}
	p, err := c.GetProject(ctx, project)
	if argocd.IsNotFound(err) {
		return errors.Errorf(ErrFmtProjectMissing, project)
	}
	if err != nil {
		return errors.Wrapf(err, ErrFmtProjectGet, project)
	}
	return t.owns(what, project, p)
}

// OwnsProject is CheckProject on a project already read.
func (t *Tenancy) OwnsProject(p *argocd.Project, what string) error {
	if t == nil {
		return nil
	}
	return t.owns(what, p.Metadata.Name, p)
}

func (t *Tenancy) owns(what, name string, p *argocd.Project) error {
	got := p.Metadata.Labels[contract.LabelOwnerNamespace]
	switch {
	case got != "" && got != t.Namespace:
		return errors.Errorf(ErrFmtProjectOthers, what, name, got, contract.LabelOwnerNamespace, t.Namespace)
	case t.Bounded && got != t.Namespace:
		return errors.Errorf(ErrFmtProjectNotOurs, what, name, t.Namespace, contract.LabelOwnerNamespace, got)
	}
	return nil
}

// CheckNewApplication returns an error when a Bounded t does not let its
// namespace create an Argo CD application of that name: only names that
// begin "<namespace>." (a DevOpsProject's are "<namespace>.<name>.<env>"),
// so no namespace can take the name another's project will need. An
// application the resource already holds keeps its name (Create is not
// called for it).
func (t *Tenancy) CheckNewApplication(name string) error {
	if t == nil || !t.Bounded || strings.HasPrefix(name, t.Namespace+".") {
		return nil
	}
	return errors.Errorf(ErrFmtAppName, name, t.Config, t.Namespace+".")
}

// CheckAdoption returns an error when t's namespace may not take over app,
// an application that carries no owner label (adoptExisting): it sits in
// another namespace's project, or, when t is Bounded, it deploys to a
// cluster or namespace the namespace may not use, or its name is one
// another namespace's projects are named by ("<namespace>."). A project
// nobody's ArgoProject manages (the Kopf operator's, "default") is no
// obstacle: the application leaves it for the resource's own. A nil t
// allows any application.
func (t *Tenancy) CheckAdoption(ctx context.Context, c ProjectGetter, app *argocd.Application) error {
	if t == nil {
		return nil
	}
	const what = "the adopted application's spec.project"
	if project := app.Spec.Project; project != "" {
		p, err := c.GetProject(ctx, project)
		switch {
		case argocd.IsNotFound(err):
		case err != nil:
			return errors.Wrapf(err, ErrFmtProjectGet, project)
		default:
			if got := p.Metadata.Labels[contract.LabelOwnerNamespace]; got != "" && got != t.Namespace {
				return errors.Errorf(ErrFmtProjectOthers, what, project, got, contract.LabelOwnerNamespace, t.Namespace)
			}
		}
	}
	if !t.Bounded {
		return nil
	}
	name := app.Metadata.Name
	if strings.Contains(name, ".") && !strings.HasPrefix(name, t.Namespace+".") {
		return errors.Errorf(errFmtAdoptName, name, t.Config, t.Namespace+".")
	}
	d := app.Spec.Destination
	cluster := cmp.Or(d.Server, d.Name)
	if !matchAny(t.DestinationClusters, cluster) {
		return errors.Errorf(errFmtDestCluster, "the adopted application's spec.destination", cluster, t.Config, backendconfig.QuoteAll(t.DestinationClusters))
	}
	if !matchAny(t.DestinationNamespaces, d.Namespace) {
		return errors.Errorf(errFmtDestination, "the adopted application's spec.destination", cluster, d.Namespace, t.Namespace, t.Config, backendconfig.QuoteAll(t.DestinationNamespaces))
	}
	return nil
}

// CheckProjectName returns an error when a Bounded t does not allow an
// AppProject of that name.
func (t *Tenancy) CheckProjectName(name string) error {
	if t == nil || !t.Bounded || matchAny(t.ProjectNames, name) {
		return nil
	}
	return errors.Errorf(errFmtProjectName, name, t.Config, backendconfig.QuoteAll(t.ProjectNames))
}

// CheckProjectSpec returns an error naming the first part of p that t does
// not allow: a destination, a source repository or a cluster-scoped kind.
// Only a Bounded t bounds these.
func (t *Tenancy) CheckProjectSpec(p v1alpha1.ArgoProjectParameters) error {
	if t == nil || !t.Bounded {
		return nil
	}
	for i, r := range p.SourceRepos {
		if !matchAny(t.SourceRepos, r) {
			return errors.Errorf(errFmtSourceRepo, fmt.Sprintf("spec.forProvider.sourceRepos[%d]", i), r, t.Config, backendconfig.QuoteAll(t.SourceRepos))
		}
	}
	for i, d := range p.Destinations {
		field := fmt.Sprintf("spec.forProvider.destinations[%d]", i)
		cluster := d.Server
		if cluster == "" {
			cluster = d.Name
		}
		if !matchAny(t.DestinationClusters, cluster) {
			return errors.Errorf(errFmtDestCluster, field, cluster, t.Config, backendconfig.QuoteAll(t.DestinationClusters))
		}
		if !matchAny(t.DestinationNamespaces, d.Namespace) {
			return errors.Errorf(errFmtDestination, field, cluster, d.Namespace, t.Namespace, t.Config, backendconfig.QuoteAll(t.DestinationNamespaces))
		}
	}
	// Applications living in another namespace (Argo CD's apps in any
	// namespace) would deploy with this project's rights: the same bound.
	for i, ns := range p.SourceNamespaces {
		if !matchAny(t.DestinationNamespaces, ns) {
			return errors.Errorf(errFmtSourceNamespace, fmt.Sprintf("spec.forProvider.sourceNamespaces[%d]", i), ns, t.Namespace, t.Config, backendconfig.QuoteAll(t.DestinationNamespaces))
		}
	}
	for i, gk := range p.ClusterResourceWhitelist {
		if !kindAllowed(t.ClusterResources, gk) {
			allowed := make([]string, len(t.ClusterResources))
			for j, a := range t.ClusterResources {
				allowed[j] = groupKind(a.Group, a.Kind)
			}
			return errors.Errorf(errFmtClusterResource, fmt.Sprintf("spec.forProvider.clusterResourceWhitelist[%d]", i), groupKind(gk.Group, gk.Kind), t.Config, backendconfig.QuoteAll(allowed))
		}
	}
	return nil
}

// kindAllowed is true when gk is listed, "*" in the list matching anything
// and a "*" asked for matching only "*".
func kindAllowed(allowed []pcv1alpha1.ArgoCDGroupKind, gk v1alpha1.ProjectGroupKind) bool {
	for _, a := range allowed {
		if (a.Group == "*" || a.Group == gk.Group) && (a.Kind == "*" || a.Kind == gk.Kind) {
			return true
		}
	}
	return false
}

// matchAny is true when one glob matches s; "*" matches "/" too (cluster
// URLs). A glob asked for is matched as written, so "*" is allowed only by
// a pattern that matches a literal "*".
func matchAny(globs []string, s string) bool {
	asked := strings.ContainsAny(s, "*?[")
	for _, g := range globs {
		if asked {
			// A glob asked for must be within the pattern, not merely
			// match it as a string ("team-?" matches "team-*"): it is
			// allowed by the same glob, by "*", or by a prefix pattern
			// ("team-a-*") it starts with.
			prefix, isPrefix := strings.CutSuffix(g, "*")
			if g == s || g == "*" || (isPrefix && !strings.ContainsAny(prefix, "*?[") && strings.HasPrefix(s, prefix)) {
				return true
			}
			continue
		}
		if backendconfig.MatchPath([]string{g}, s) {
			return true
		}
	}
	return false
}

func groupKind(group, kind string) string {
	if group == "" {
		return kind
	}
	return kind + "." + group
}

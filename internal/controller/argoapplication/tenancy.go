package argoapplication

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/providerconfig"
)

// OwnerNamespaceLabel names, on an AppProject, the namespace of the
// ArgoProject that manages it. Through a ClusterProviderConfig, an
// application or repository may use only a project of its own namespace.
const OwnerNamespaceLabel = "devops.freeleaps.io/owner-namespace"

const (
	errFmtProjectGet      = "cannot check Argo CD project %q"
	errFmtProjectNotOurs  = "%s: Argo CD project %q is not managed by an ArgoProject in namespace %q (its label %s is %q): through a ClusterProviderConfig a resource may use only its own namespace's projects. Create an ArgoProject for it in this namespace"
	errFmtProjectMissing  = "Argo CD project %q does not exist yet: create its ArgoProject first (retrying)"
	errFmtDestination     = "%s: destination %s namespace %q is not allowed for namespace %q: %s spec.argocd.tenancy.destinationNamespaces allows %s"
	errFmtDestCluster     = "%s: destination cluster %q is not allowed: %s spec.argocd.tenancy.destinationClusters allows %s"
	errFmtClusterResource = "%s: cluster-scoped kind %s is not allowed: %s spec.argocd.tenancy.clusterResources allows %s"
)

// Default tenancy of a ClusterProviderConfig without spec.argocd.tenancy.
var (
	DefaultDestinationNamespaces = []string{"{namespace}", "{namespace}-*"}
	DefaultDestinationClusters   = []string{"*"}
)

// Tenancy is what a ClusterProviderConfig lets one namespace ask of Argo
// CD. A nil Tenancy (a namespaced ProviderConfig, whose token is the
// namespace's own) allows whatever that token may do.
type Tenancy struct {
	// Namespace is the tenant: the namespace of the resource reconciled.
	Namespace string
	// Config names the ClusterProviderConfig in messages.
	Config string
	// DestinationNamespaces with {namespace} expanded, and
	// DestinationClusters: globs.
	DestinationNamespaces, DestinationClusters []string
	// ClusterResources are the cluster-scoped kinds projects may allow.
	ClusterResources []pcv1alpha1.ArgoCDGroupKind
}

// TenancyOf returns the tenancy of namespace ns under pc's argocd section
// s, with defaults; nil for a namespaced ProviderConfig.
func TenancyOf(pc *providerconfig.Config, s *pcv1alpha1.ArgoCDConfig, ns string) *Tenancy {
	if pc.Namespace != "" || ns == "" {
		return nil
	}
	t := &Tenancy{Namespace: ns, Config: pc.String(), DestinationNamespaces: DefaultDestinationNamespaces, DestinationClusters: DefaultDestinationClusters}
	if s.Tenancy != nil {
		if len(s.Tenancy.DestinationNamespaces) > 0 {
			t.DestinationNamespaces = s.Tenancy.DestinationNamespaces
		}
		if len(s.Tenancy.DestinationClusters) > 0 {
			t.DestinationClusters = s.Tenancy.DestinationClusters
		}
		t.ClusterResources = s.Tenancy.ClusterResources
	}
	expanded := make([]string, len(t.DestinationNamespaces))
	for i, p := range t.DestinationNamespaces {
		expanded[i] = strings.ReplaceAll(p, "{namespace}", ns)
	}
	t.DestinationNamespaces = expanded
	return t
}

// ProjectGetter reads AppProjects.
type ProjectGetter interface {
	GetProject(ctx context.Context, name string) (*argocd.Project, error)
}

// CheckProject returns an error unless project is managed by an ArgoProject
// of t's namespace. what names the field in messages. A nil t allows any
// project.
func (t *Tenancy) CheckProject(ctx context.Context, c ProjectGetter, what, project string) error {
	if t == nil {
		return nil
	}
	p, err := c.GetProject(ctx, project)
	if argocd.IsNotFound(err) {
		return errors.Errorf(errFmtProjectMissing, project)
	}
	if err != nil {
		return errors.Wrapf(err, errFmtProjectGet, project)
	}
	if got := p.Metadata.Labels[OwnerNamespaceLabel]; got != t.Namespace {
		return errors.Errorf(errFmtProjectNotOurs, what, project, t.Namespace, OwnerNamespaceLabel, got)
	}
	return nil
}

// CheckProjectSpec returns an error naming the first destination or
// cluster-scoped kind of p that t does not allow; nil t allows all.
func (t *Tenancy) CheckProjectSpec(p v1alpha1.ArgoProjectParameters) error {
	if t == nil {
		return nil
	}
	for i, d := range p.Destinations {
		field := fmt.Sprintf("spec.forProvider.destinations[%d]", i)
		cluster := d.Server
		if cluster == "" {
			cluster = d.Name
		}
		if !matchAny(t.DestinationClusters, cluster) {
			return errors.Errorf(errFmtDestCluster, field, cluster, t.Config, quoteAll(t.DestinationClusters))
		}
		if !matchAny(t.DestinationNamespaces, d.Namespace) {
			return errors.Errorf(errFmtDestination, field, cluster, d.Namespace, t.Namespace, t.Config, quoteAll(t.DestinationNamespaces))
		}
	}
	for i, gk := range p.ClusterResourceWhitelist {
		if !kindAllowed(t.ClusterResources, gk) {
			allowed := make([]string, len(t.ClusterResources))
			for j, a := range t.ClusterResources {
				allowed[j] = groupKind(a.Group, a.Kind)
			}
			return errors.Errorf(errFmtClusterResource, fmt.Sprintf("spec.forProvider.clusterResourceWhitelist[%d]", i), groupKind(gk.Group, gk.Kind), t.Config, quoteAll(allowed))
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
	const sep = "\x00"
	for _, g := range globs {
		if ok, _ := path.Match(strings.ReplaceAll(g, "/", sep), strings.ReplaceAll(s, "/", sep)); ok {
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

func quoteAll(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

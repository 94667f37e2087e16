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
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/apis/forge/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
)

// DefaultRepositories bound a namespace through a ClusterProviderConfig
// without spec.forge.tenancy.repositories: the forge organisation named
// like the namespace.
var DefaultRepositories = []string{"{namespace}/*"} //nolint:gochecknoglobals // read-only, never written

const (
	errFmtRepository = "repository %q is not allowed for namespace %q: %s spec.forge.tenancy.repositories allows %s"
	errFmtForks      = "spec.forProvider.pullRequests.forkAuthors is not allowed for namespace %q: %s does not let namespaces list pull requests from forks (spec.forge.tenancy.allowForks); a preview of a fork builds its author's code with the project's credentials. Remove forkAuthors"
)

// Tenancy is what a ClusterProviderConfig lets one namespace ask of a
// forge; nil (a namespaced ProviderConfig, whose token is the namespace's
// own) bounds nothing.
type Tenancy struct {
	Namespace, Config string
	// Repositories with {namespace} expanded, in lower case.
	Repositories []string
	AllowForks   bool
}

// TenancyOf returns the tenancy of namespace ns under pc's forge section
// s, with defaults; nil for a namespaced ProviderConfig (whose tenancy,
// were it set, is ignored: a namespace does not bound itself).
func TenancyOf(pc *backendconfig.Config, s *pcv1alpha1.ForgeConfig, ns string) *Tenancy {
	if pc.Namespace != "" {
		return nil
	}
	t := &Tenancy{Namespace: ns, Config: pc.String()}
	var raw []string
	if tn := s.Tenancy; tn != nil {
		raw, t.AllowForks = tn.Repositories, tn.AllowForks
	}
	for _, p := range backendconfig.ExpandNamespace(raw, DefaultRepositories, ns) {
		t.Repositories = append(t.Repositories, strings.ToLower(p))
	}
	return t
}

// ForksAllowed is whether pull requests from forks may be listed at all;
// nil t allows them (forkAuthors still names whose).
func (t *Tenancy) ForksAllowed() bool { return t == nil || t.AllowForks }

// Check returns an error naming what of p t does not allow; nil t allows
// all. Repositories match without regard to case: Gitea and Forgejo
// resolve owner and name so (Team-A/Shop is team-a/shop), and a match
// that minded case would refuse a namespace its own repository, or, with
// a pattern written in capitals, let none match.
func (t *Tenancy) Check(p v1alpha1.ForgeRepositoryParameters) error {
	if t == nil {
		return nil
	}
	if !backendconfig.MatchPath(t.Repositories, strings.ToLower(p.Repository)) {
		return errors.Errorf(errFmtRepository, p.Repository, t.Namespace, t.Config, backendconfig.QuoteAll(t.Repositories))
	}
	if len(p.PullRequests.ForkAuthors) > 0 && !t.AllowForks {
		return errors.Errorf(errFmtForks, t.Namespace, t.Config)
	}
	return nil
}

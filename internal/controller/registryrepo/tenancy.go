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
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
)

// DefaultRepositories bound a namespace through a ClusterProviderConfig
// without spec.registry.tenancy.
var DefaultRepositories = []string{"{namespace}/*"} //nolint:gochecknoglobals // read-only, never written

const (
	errFmtRepository = "repository %q is not allowed for namespace %q: %s spec.registry.tenancy.repositories allows %s"
	errFmtQuota      = "spec.forProvider.harbor.storageQuotaBytes is not allowed through %s: projects made with the platform's account get the quota Harbor gives them (the platform team sets it); remove the field"
	errFmtAdopt      = "spec.forProvider.adoptExisting is not allowed: %s does not let namespaces take over repositories no RegistryRepo owns (spec.registry.tenancy.adoptExisting)"
)

// Tenancy is what a ClusterProviderConfig lets one namespace ask of a
// registry; nil (a namespaced ProviderConfig, whose credentials are the
// namespace's own) bounds nothing.
type Tenancy struct {
	Namespace, Config string
	// Repositories with {namespace} expanded.
	Repositories  []string
	AdoptExisting bool
	// own are the expanded patterns whose project segment is exactly
	// {namespace}: the only ones that may create a project.
	own []string
}

// TenancyOf returns the tenancy of namespace ns under pc's registry
// section s, with defaults; nil for a namespaced ProviderConfig.
func TenancyOf(pc *backendconfig.Config, s *pcv1alpha1.RegistryConfig, ns string) *Tenancy {
	if pc.Namespace != "" {
		return nil
	}
	raw := DefaultRepositories
	t := &Tenancy{Namespace: ns, Config: pc.String()}
	if tn := s.Tenancy; tn != nil {
		if len(tn.Repositories) > 0 {
			raw = tn.Repositories
		}
		t.AdoptExisting = tn.AdoptExisting
	}
	t.Repositories = backendconfig.ExpandNamespace(raw, DefaultRepositories, ns)
	for _, p := range raw {
		if seg, _, ok := strings.Cut(p, "/"); ok && seg == "{namespace}" {
			t.own = append(t.own, backendconfig.ExpandNamespace([]string{p}, nil, ns)...)
		}
	}
	return t
}

// MayCreateProject is true when t lets its namespace create the missing
// Harbor project of repository project/name: one of its patterns that
// allows the repository has the project segment {namespace} exactly (the
// default {namespace}/* names project <namespace>), so the project is the
// namespace's alone. A glob there would let a namespace create, and so
// squat, a project named for another team (*/{namespace}-* lets team-evil
// name team-b/team-evil-x), and a fixed name (acme/{namespace}/*) is
// shared: the first team to create it would set its quota and tag rules
// for all. nil t allows all: a namespaced ProviderConfig's credentials
// are the namespace's own.
func (t *Tenancy) MayCreateProject(project, name string) bool {
	if t == nil {
		return true
	}
	return project == t.Namespace && backendconfig.MatchPath(t.own, project+"/"+name)
}

// Check returns an error naming what of p t does not allow; nil t allows
// all.
func (t *Tenancy) Check(p v1alpha1.RegistryRepoParameters) error {
	if t == nil {
		return nil
	}
	full := p.Namespace + "/" + p.Name
	if !backendconfig.MatchPath(t.Repositories, full) {
		return errors.Errorf(errFmtRepository, full, t.Namespace, t.Config, backendconfig.QuoteAll(t.Repositories))
	}
	if p.AdoptExisting && !t.AdoptExisting {
		return errors.Errorf(errFmtAdopt, t.Config)
	}
	// The project is created with the platform's account: its storage is
	// the platform's to give (Harbor's default quota), not the tenant's
	// to lift (-1 is unlimited).
	if p.Harbor != nil && p.Harbor.StorageQuotaBytes != nil {
		return errors.Errorf(errFmtQuota, t.Config)
	}
	return nil
}

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

package dnsrecord

import (
	"path"
	"slices"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
)

// Default tenancy of a ClusterProviderConfig without spec.dns.tenancy.
//
//nolint:gochecknoglobals // read-only, never written
var (
	DefaultNames = []string{"*"}
	DefaultTypes = []string{"A", "AAAA", "CNAME", "TXT", "MX", "SRV"}
)

const (
	errFmtName  = "spec.forProvider.name %q is not allowed for namespace %q: %s spec.dns.tenancy.names allows %s (names that speak for the whole zone - the apex, \"*\", _acme-challenge, _dmarc, *._domainkey under the apex - only through \"@\")"
	errFmtType  = "spec.forProvider.type %s is not allowed: %s spec.dns.tenancy.types allows %s"
	errFmtAdopt = "spec.forProvider.adoptExisting is not allowed: %s does not let namespaces take over record sets no DNSRecord owns (spec.dns.tenancy.adoptExisting)"
)

// Tenancy is what a ClusterProviderConfig lets one namespace ask of a
// zone; nil (a namespaced ProviderConfig, whose credentials are the
// namespace's own) bounds nothing.
type Tenancy struct {
	Namespace, Config string
	// Names with {namespace} expanded; Types.
	Names, Types  []string
	AdoptExisting bool
}

// TenancyOf returns the tenancy of namespace ns under pc's dns section s,
// with defaults; nil for a namespaced ProviderConfig.
func TenancyOf(pc *backendconfig.Config, s *pcv1alpha1.DNSConfig, ns string) *Tenancy {
	if pc.Namespace != "" {
		return nil
	}
	t := &Tenancy{Namespace: ns, Config: pc.String(), Names: DefaultNames, Types: DefaultTypes}
	if tn := s.Tenancy; tn != nil {
		t.Names = tn.Names
		if len(tn.Types) > 0 {
			t.Types = tn.Types
		}
		t.AdoptExisting = tn.AdoptExisting
	}
	t.Names = backendconfig.ExpandNamespace(t.Names, DefaultNames, ns)
	return t
}

// Check returns an error naming the first field of p that t does not
// allow; nil t allows all.
func (t *Tenancy) Check(p v1alpha1.DNSRecordParameters) error {
	if t == nil {
		return nil
	}
	if !t.nameAllowed(p.Name) {
		return errors.Errorf(errFmtName, p.Name, t.Namespace, t.Config, backendconfig.QuoteAll(t.Names))
	}
	if !slices.Contains(t.Types, string(p.Type)) {
		return errors.Errorf(errFmtType, p.Type, t.Config, strings.Join(t.Types, ", "))
	}
	if p.AdoptExisting && !t.AdoptExisting {
		return errors.Errorf(errFmtAdopt, t.Config)
	}
	return nil
}

// ZoneWide is true for a name that speaks for the whole zone: the apex, a
// top-level wildcard, or underscore labels right under the apex
// (_acme-challenge: certificates for the zone and *.zone; _dmarc,
// sel._domainkey, _mta-sts: its mail identity; _x._tcp: its services).
func ZoneWide(name string) bool {
	labels := strings.Split(strings.ToLower(strings.TrimSuffix(name, ".")), ".")
	// The name an underscore record speaks for is what follows its last
	// underscore label: sel._domainkey and _acme-challenge speak for the
	// apex, _acme-challenge.shop for shop.
	for i := len(labels) - 1; i >= 0; i-- {
		if strings.HasPrefix(labels[i], "_") {
			labels = labels[i+1:]
			break
		}
	}
	rest := strings.Join(labels, ".")
	return rest == "" || rest == "@" || rest == "*"
}

// nameAllowed is true when a pattern matches name; a zone-wide name (the
// apex, "*", "_acme-challenge"...) only by the pattern "@".
func (t *Tenancy) nameAllowed(name string) bool {
	for _, g := range t.Names {
		if ZoneWide(name) || g == "@" {
			if ZoneWide(name) && g == "@" {
				return true
			}
			continue
		}
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

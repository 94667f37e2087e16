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
	"strings"
	"testing"

	"github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
)

func TestDNSTenancy(t *testing.T) {
	cpc := &backendconfig.Config{Kind: "ClusterProviderConfig", Name: "platform"}
	defaults := TenancyOf(cpc, &pcv1alpha1.DNSConfig{}, "team-a")
	scoped := TenancyOf(cpc, &pcv1alpha1.DNSConfig{Tenancy: &pcv1alpha1.DNSTenancy{Names: []string{"{namespace}", "*.{namespace}", "@"}, Types: []string{"A", "CAA"}, AdoptExisting: true}}, "team-a")
	own := TenancyOf(&backendconfig.Config{Kind: "ProviderConfig", Name: "default", Namespace: "team-a"}, &pcv1alpha1.DNSConfig{}, "team-a")
	rec := func(name string, typ v1alpha1.RecordType, adopt bool) v1alpha1.DNSRecordParameters {
		return v1alpha1.DNSRecordParameters{Zone: "example.com", Name: name, Type: typ, AdoptExisting: adopt}
	}
	cases := map[string]struct {
		reason string
		t      *Tenancy
		p      v1alpha1.DNSRecordParameters
		want   string // a part of the error; "" for none
	}{
		"DefaultName":       {reason: "Any name below the apex, by default.", t: defaults, p: rec("shop.team-a", "CNAME", false)},
		"DefaultApex":       {reason: "The apex is everyone's: refused unless a pattern is \"@\".", t: defaults, p: rec("@", "A", false), want: `spec.forProvider.name "@" is not allowed for namespace "team-a"`},
		"ZoneCertificate":   {reason: "_acme-challenge under the apex obtains certificates for the zone and *.zone: zone-wide.", t: defaults, p: rec("_acme-challenge", "TXT", false), want: `spec.forProvider.name "_acme-challenge" is not allowed`},
		"ZoneDKIM":          {reason: "A DKIM key under the apex signs mail as the zone.", t: defaults, p: rec("sel._domainkey", "TXT", false), want: "is not allowed"},
		"ZoneDMARC":         {reason: "The zone's mail policy.", t: defaults, p: rec("_dmarc", "TXT", false), want: "is not allowed"},
		"ZoneWildcard":      {reason: "A top-level wildcard answers for every name nobody else has.", t: defaults, p: rec("*", "A", false), want: `spec.forProvider.name "*" is not allowed`},
		"OwnChallenge":      {reason: "A challenge for a name below the apex is about that name only.", t: defaults, p: rec("_acme-challenge.shop", "TXT", false)},
		"ScopedZoneWide":    {reason: "\"@\" allows zone-wide names.", t: scoped, p: rec("_acme-challenge", "A", false)},
		"DefaultNS":         {reason: "A delegation hands the subtree to other servers: refused by default.", t: defaults, p: rec("shop", "NS", false), want: "spec.forProvider.type NS is not allowed"},
		"DefaultCAA":        {reason: "CAA decides who issues certificates: refused by default.", t: defaults, p: rec("shop", "CAA", false), want: "type CAA is not allowed"},
		"DefaultAdopt":      {reason: "Through the platform's credentials the platform's own records (www, MX) are never adopted by default.", t: defaults, p: rec("www", "A", true), want: "adoptExisting is not allowed"},
		"ScopedOwn":         {reason: "{namespace} expands.", t: scoped, p: rec("api.team-a", "A", true)},
		"ScopedOther":       {reason: "Another team's names are outside the pattern.", t: scoped, p: rec("api.team-b", "A", false), want: `"*.team-a"`},
		"ScopedApex":        {reason: "\"@\" allows the apex.", t: scoped, p: rec("@", "CAA", false)},
		"ScopedTypes":       {reason: "Only the listed types.", t: scoped, p: rec("team-a", "TXT", false), want: "allows A, CAA"},
		"OwnProviderConfig": {reason: "A namespace's own credentials are bounded by the zone's own rights only.", t: own, p: rec("@", "NS", true)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := tc.t.Check(tc.p)
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("%s\nCheck(%+v): want an error containing %q, got %v", tc.reason, tc.p, tc.want, err)
			}
		})
	}
}

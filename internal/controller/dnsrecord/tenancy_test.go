package dnsrecord

import (
	"strings"
	"testing"

	"github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/providerconfig"
)

func TestDNSTenancy(t *testing.T) {
	cpc := &providerconfig.Config{Kind: "ClusterProviderConfig", Name: "platform"}
	defaults := TenancyOf(cpc, &pcv1alpha1.DNSConfig{}, "team-a")
	scoped := TenancyOf(cpc, &pcv1alpha1.DNSConfig{Tenancy: &pcv1alpha1.DNSTenancy{Names: []string{"{namespace}", "*.{namespace}", "@"}, Types: []string{"A", "CAA"}, AdoptExisting: true}}, "team-a")
	own := TenancyOf(&providerconfig.Config{Kind: "ProviderConfig", Name: "default", Namespace: "team-a"}, &pcv1alpha1.DNSConfig{}, "team-a")
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

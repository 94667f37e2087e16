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

package dns_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mdns "github.com/miekg/dns"

	"github.com/freeleaps/provider-devops/internal/clients/dns"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/testing/bind"
)

func rfc2136Client(t *testing.T, s *bind.Server, secret string) *dns.Client {
	t.Helper()
	c, err := dns.New(dns.Config{Provider: "rfc2136", Server: s.Addr, KeyName: bind.KeyName, Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRFC2136AgainstBIND(t *testing.T) {
	s := bind.Start(t)
	c := rfc2136Client(t, s, s.Secret)
	ctx := context.Background()
	owner := dns.Owner{ID: dns.DefaultOwnerID, Resource: "team/www"}

	cases := map[string]struct {
		reason string
		set    dns.RRset
		query  string
		qtype  uint16
		want   []string // as BIND serves them
	}{
		"A": {
			reason: "two addresses in one record set",
			set:    dns.RRset{Name: "www", Type: "A", TTL: 300 * time.Second, Values: []string{"192.0.2.2", "192.0.2.1"}},
			query:  "www.example.test.", qtype: mdns.TypeA, want: []string{"192.0.2.1", "192.0.2.2"},
		},
		"AAAA": {
			reason: "an IPv6 address in non-canonical form",
			set:    dns.RRset{Name: "v6", Type: "AAAA", TTL: 300 * time.Second, Values: []string{"2001:DB8:0:0::1"}},
			query:  "v6.example.test.", qtype: mdns.TypeAAAA, want: []string{"2001:db8::1"},
		},
		"CNAME": {
			reason: "a target without a trailing dot is absolute, not relative to the zone",
			set:    dns.RRset{Name: "alias", Type: "CNAME", TTL: 300 * time.Second, Values: []string{"Shop.Example.NET"}},
			query:  "alias.example.test.", qtype: mdns.TypeCNAME, want: []string{"shop.example.net."},
		},
		"TXT": {
			reason: "text with spaces and an equals sign stays one string",
			set:    dns.RRset{Name: "_acme-challenge.api", Type: "TXT", TTL: 60 * time.Second, Values: []string{"v=spf1 include:_spf.example.net ~all"}},
			query:  "_acme-challenge.api.example.test.", qtype: mdns.TypeTXT, want: []string{`"v=spf1 include:_spf.example.net ~all"`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if err := c.Set(ctx, bind.Zone, tc.set, owner); err != nil {
				t.Fatalf("%s: Set: %v", tc.reason, err)
			}
			got := s.Values(tc.query, tc.qtype)
			if diff := cmp.Diff(tc.want, sorted(got)); diff != "" {
				t.Errorf("%s: BIND serves -want +got:\n%s", tc.reason, diff)
			}
			obs, err := c.Get(ctx, bind.Zone, tc.set.Name, tc.set.Type)
			if err != nil {
				t.Fatal(err)
			}
			if obs.RRset == nil || obs.Owner != owner {
				t.Fatalf("%s: Get: %+v", tc.reason, obs)
			}
			if diff := cmp.Diff(dns.NormalizeValues(tc.set.Type, tc.set.Values), obs.RRset.Values); diff != "" {
				t.Errorf("%s: observed values must equal desired after normalisation: -want +got:\n%s", tc.reason, diff)
			}
			if obs.RRset.TTL != tc.set.TTL {
				t.Errorf("%s: TTL %s, want %s", tc.reason, obs.RRset.TTL, tc.set.TTL)
			}
			if err := c.Delete(ctx, bind.Zone, tc.set, owner); err != nil {
				t.Fatal(err)
			}
			if got := s.Values(tc.query, tc.qtype); len(got) != 0 {
				t.Errorf("%s: still served after Delete: %v", tc.reason, got)
			}
			if got := s.Values(dns.OwnerName(tc.set.Name, tc.set.Type)+"."+bind.Zone, mdns.TypeTXT); len(got) != 0 {
				t.Errorf("%s: ownership record left after Delete: %v", tc.reason, got)
			}
		})
	}

	t.Run("DeleteKeepsForeignValues", func(t *testing.T) {
		mine := dns.RRset{Name: "mixed", Type: "A", TTL: 300 * time.Second, Values: []string{"192.0.2.10"}}
		if err := c.Set(ctx, bind.Zone, mine, owner); err != nil {
			t.Fatal(err)
		}
		s.NSUpdate(t, "update add mixed.example.test. 300 A 192.0.2.99")
		if err := c.Delete(ctx, bind.Zone, mine, owner); err != nil {
			t.Fatal(err)
		}
		if got := s.Values("mixed.example.test.", mdns.TypeA); !cmp.Equal(got, []string{"192.0.2.99"}) {
			t.Errorf("Delete must remove exactly its own values, BIND serves %v", got)
		}
	})

	t.Run("NotOwned", func(t *testing.T) {
		s.NSUpdate(t, "update add legacy.example.test. 300 A 192.0.2.50")
		obs, err := c.Get(ctx, bind.Zone, "legacy", "A")
		if err != nil || obs.RRset == nil || obs.Owner != (dns.Owner{}) {
			t.Errorf("a record set nobody claims: got %+v, %v", obs, err)
		}
	})

	t.Run("WrongKey", func(t *testing.T) {
		bad := rfc2136Client(t, s, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
		_, err := bad.Get(ctx, bind.Zone, "www", "A")
		if err == nil || !strings.Contains(err.Error(), "rejected the TSIG key") || !httpapi.IsTerminal(err) {
			t.Errorf("a wrong TSIG secret must be named and be terminal, got %v", err)
		}
		err = bad.Set(ctx, bind.Zone, dns.RRset{Name: "x", Type: "A", TTL: time.Minute, Values: []string{"192.0.2.1"}}, owner)
		if err == nil || !strings.Contains(err.Error(), "rejected the TSIG key") {
			t.Errorf("a wrong TSIG secret on update must be named, got %v", err)
		}
		if strings.Contains(err.Error(), s.Secret) {
			t.Error("the error leaks the secret")
		}
	})

	t.Run("Unreachable", func(t *testing.T) {
		c, _ := dns.New(dns.Config{Provider: "rfc2136", Server: "127.0.0.1:1", KeyName: bind.KeyName, Secret: s.Secret})
		_, err := c.Get(ctx, bind.Zone, "www", "A")
		if !httpapi.IsTransient(err) {
			t.Errorf("a refused connection is transient, got %v", err)
		}
	})
}

func TestOwnerName(t *testing.T) {
	cases := map[string]struct{ name, typ, want string }{
		"Apex":     {"@", "A", "_devops-owner-a"},
		"Host":     {"www", "CNAME", "_devops-owner-cname.www"},
		"Wildcard": {"*.preview", "A", "_devops-owner-a-wildcard.preview"},
		"Star":     {"*", "TXT", "_devops-owner-txt-wildcard"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := dns.OwnerName(tc.name, tc.typ); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNormalizeValues(t *testing.T) {
	cases := map[string]struct {
		typ      string
		in, want []string
	}{
		"ASet":     {"A", []string{"192.0.2.2", "192.0.2.1", "192.0.2.2"}, []string{"192.0.2.1", "192.0.2.2"}},
		"AAAA":     {"AAAA", []string{"2001:DB8::0:1"}, []string{"2001:db8::1"}},
		"CNAME":    {"CNAME", []string{"Target.Example.com"}, []string{"target.example.com."}},
		"MX":       {"MX", []string{"010  Mail.Example.com"}, []string{"10 mail.example.com."}},
		"SRV":      {"SRV", []string{"10 5 5060 sip.example.com"}, []string{"10 5 5060 sip.example.com."}},
		"TXTExact": {"TXT", []string{"Case Matters"}, []string{"Case Matters"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, dns.NormalizeValues(tc.typ, tc.in)); diff != "" {
				t.Errorf("-want +got:\n%s", diff)
			}
		})
	}
}

func TestNewRejectsBadCredentials(t *testing.T) {
	for _, c := range []dns.Config{
		{Provider: "rfc2136", Secret: "not base64 !!"},
		{Provider: "godaddy", Secret: "no-colon"},
		{Provider: "route53", Secret: "x"},
	} {
		if _, err := dns.New(c); err == nil || strings.Contains(err.Error(), c.Secret) {
			t.Errorf("%s: want an error that does not quote the secret, got %v", c.Provider, err)
		}
	}
}

func sorted(in []string) []string {
	out := append([]string(nil), in...)
	slices.Sort(out)
	return out
}

// A create decided on a read never overwrites a record set another writer
// made since: against BIND, Create is one update with "RRset does not
// exist" prerequisites, refused as a transient error, leaving BIND as the
// other writer left it. Without anything in the way it writes the record
// set and its ownership record, as Set does.
func TestCreateDoesNotOverwrite(t *testing.T) {
	s := bind.Start(t)
	c := rfc2136Client(t, s, s.Secret)
	ctx := context.Background()
	mine := dns.Owner{ID: dns.DefaultOwnerID, Resource: "team-a/www"}
	www := dns.RRset{Name: "race", Type: "A", TTL: 300 * time.Second, Values: []string{"192.0.2.1"}}

	// Another writer (another control plane, a person) got there first.
	if err := c.Set(ctx, bind.Zone, dns.RRset{Name: "race", Type: "A", TTL: 300 * time.Second, Values: []string{"198.51.100.7"}}, dns.Owner{}); err != nil {
		t.Fatal(err)
	}
	err := c.Create(ctx, bind.Zone, www, mine)
	if err == nil || !strings.Contains(err.Error(), "another writer created") || !httpapi.IsTransient(err) {
		t.Fatalf("Create over an existing record set: %v, want a transient refusal", err)
	}
	if got := s.Values("race.example.test.", mdns.TypeA); !slices.Equal(got, []string{"198.51.100.7"}) {
		t.Errorf("BIND serves %v, want the other writer's record untouched", got)
	}
	obs, err := c.Get(ctx, bind.Zone, "race", "A")
	if err != nil || obs.Owner != (dns.Owner{}) {
		t.Errorf("ownership written by a refused create: %+v %v", obs, err)
	}

	// Free name: created with its ownership record.
	free := dns.RRset{Name: "free", Type: "TXT", TTL: 60 * time.Second, Values: []string{strings.Repeat("long text ", 40)}}
	if err := c.Create(ctx, bind.Zone, free, mine); err != nil {
		t.Fatal(err)
	}
	obs, err = c.Get(ctx, bind.Zone, "free", "TXT")
	if err != nil || obs.RRset == nil || obs.Owner != mine || !slices.Equal(obs.RRset.Values, dns.NormalizeValues("TXT", free.Values)) {
		t.Fatalf("created: %+v %v", obs, err)
	}
	// Created twice (a retry after a lost answer): refused, nothing changed.
	if err := c.Create(ctx, bind.Zone, free, mine); err == nil || !httpapi.IsTransient(err) {
		t.Errorf("a second create: %v, want a transient refusal", err)
	}
}

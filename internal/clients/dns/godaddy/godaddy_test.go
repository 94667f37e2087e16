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

package godaddy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/libdns/libdns"

	"github.com/freeleaps/provider-devops/internal/clients/dns"
	"github.com/freeleaps/provider-devops/internal/clients/dns/godaddy"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	fake "github.com/freeleaps/provider-devops/internal/testing/godaddy"
)

const (
	gdKey    = "k3y"
	gdSecret = "s3cr3t-value"
	gdZone   = "example.com."
)

func godaddyClient(t *testing.T, url, secret string) *dns.Client {
	t.Helper()
	c, err := dns.New(dns.Config{Provider: "godaddy", URL: url, Secret: gdKey + ":" + secret})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestGoDaddyAgainstFake(t *testing.T) {
	s := fake.New(gdKey, gdSecret, "example.com")
	defer s.Close()
	c := godaddyClient(t, s.URL, gdSecret)
	ctx := context.Background()
	owner := dns.Owner{ID: dns.DefaultOwnerID, Resource: "team/www"}

	cases := map[string]struct {
		reason string
		set    dns.RRset
		want   []string // as GoDaddy stores the data
	}{
		"A": {
			reason: "two addresses go in one PUT; libdns/godaddy would keep only the last",
			set:    dns.RRset{Name: "www", Type: "A", TTL: 300 * time.Second, Values: []string{"192.0.2.2", "192.0.2.1"}},
			want:   []string{"192.0.2.1", "192.0.2.2"},
		},
		"CNAME": {
			reason: "GoDaddy stores targets without the trailing dot",
			set:    dns.RRset{Name: "alias", Type: "CNAME", TTL: 3600 * time.Second, Values: []string{"shop.example.net."}},
			want:   []string{"shop.example.net"},
		},
		"MX": {
			reason: "the priority travels in its own field",
			set:    dns.RRset{Name: "@", Type: "MX", TTL: 3600 * time.Second, Values: []string{"10 mx1.example.net", "20 mx2.example.net"}},
			want:   []string{"mx1.example.net", "mx2.example.net"},
		},
		"TXT": {
			reason: "text with spaces is one value",
			set:    dns.RRset{Name: "_verify", Type: "TXT", TTL: 600 * time.Second, Values: []string{"token=abc 123"}},
			want:   []string{"token=abc 123"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if err := c.Set(ctx, gdZone, tc.set, owner); err != nil {
				t.Fatalf("%s: Set: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, s.Values("example.com", tc.set.Type, tc.set.Name)); diff != "" {
				t.Errorf("%s: GoDaddy stores -want +got:\n%s", tc.reason, diff)
			}
			obs, err := c.Get(ctx, gdZone, tc.set.Name, tc.set.Type)
			if err != nil {
				t.Fatal(err)
			}
			if obs.RRset == nil || obs.Owner != owner {
				t.Fatalf("%s: Get: %+v", tc.reason, obs)
			}
			if diff := cmp.Diff(dns.NormalizeValues(tc.set.Type, tc.set.Values), obs.RRset.Values); diff != "" {
				t.Errorf("%s: observed values must equal desired after normalisation: -want +got:\n%s", tc.reason, diff)
			}
			if want := c.EffectiveTTL(tc.set.TTL); obs.RRset.TTL != want || want < 600*time.Second {
				t.Errorf("%s: TTL %s, want the provider-imposed %s", tc.reason, obs.RRset.TTL, want)
			}
			if err := c.Delete(ctx, gdZone, tc.set, owner); err != nil {
				t.Fatal(err)
			}
			if got := s.Values("example.com", tc.set.Type, tc.set.Name); len(got) != 0 {
				t.Errorf("%s: still stored after Delete: %v", tc.reason, got)
			}
			if got := s.Values("example.com", "TXT", dns.OwnerName(tc.set.Name, tc.set.Type)); len(got) != 0 {
				t.Errorf("%s: ownership record left after Delete: %v", tc.reason, got)
			}
		})
	}

	t.Run("DeleteKeepsForeignValues", func(t *testing.T) {
		mine := dns.RRset{Name: "mixed", Type: "A", TTL: 600 * time.Second, Values: []string{"192.0.2.10"}}
		if err := c.Set(ctx, gdZone, mine, owner); err != nil {
			t.Fatal(err)
		}
		s.Put("example.com", "A", "mixed", fake.Record{Data: "192.0.2.10", TTL: 600}, fake.Record{Data: "192.0.2.99", TTL: 600})
		if err := c.Delete(ctx, gdZone, mine, owner); err != nil {
			t.Fatal(err)
		}
		if got := s.Values("example.com", "A", "mixed"); !cmp.Equal(got, []string{"192.0.2.99"}) {
			t.Errorf("Delete must remove exactly its own values, GoDaddy stores %v", got)
		}
	})

	t.Run("SteadyStateIsOneRead", func(t *testing.T) {
		s.ResetCounts()
		if _, err := c.Get(ctx, gdZone, "mixed", "A"); err != nil {
			t.Fatal(err)
		}
		if g, p, d := s.Count(http.MethodGet), s.Count(http.MethodPut), s.Count(http.MethodDelete); g != 1 || p+d != 0 {
			t.Errorf("Get made %d GETs, %d PUTs, %d DELETEs; want 1 GET", g, p, d)
		}
	})

	t.Run("WrongKey", func(t *testing.T) {
		bad := godaddyClient(t, s.URL, "wrong")
		_, err := bad.Get(ctx, gdZone, "www", "A")
		if err == nil || !strings.Contains(err.Error(), "GoDaddy rejected the credentials (401 Unauthorized): check the ProviderConfig's dns credentials") || httpapi.IsTransient(err) || !httpapi.IsTerminal(err) {
			t.Errorf("a wrong key must be named and be terminal, not transient, got %v", err)
		}
		if strings.Contains(err.Error(), gdSecret) || strings.Contains(err.Error(), "wrong") {
			t.Error("the error leaks a secret")
		}
	})

	t.Run("UnknownDomain", func(t *testing.T) {
		_, err := c.Get(ctx, "example.org.", "www", "A")
		if err == nil || !strings.Contains(err.Error(), "UNKNOWN_DOMAIN") {
			t.Errorf("want GoDaddy's UNKNOWN_DOMAIN answer, got %v", err)
		}
	})

	t.Run("RateLimited", func(t *testing.T) {
		s.FailNext(1, http.StatusTooManyRequests, 30)
		_, err := c.Get(ctx, gdZone, "www", "A")
		if !httpapi.IsTransient(err) || !strings.Contains(err.Error(), "retry after 30s") {
			t.Errorf("a 429 is transient and says how long to wait, got %v", err)
		}
	})

	t.Run("RateLimitedForYears", func(t *testing.T) {
		s.FailNext(1, http.StatusTooManyRequests, 315360000)
		_, err := c.Get(ctx, gdZone, "www", "A")
		if got := httpapi.RetryAfter(err); got != 10*time.Minute {
			t.Errorf("GoDaddy's retryAfterSec of ten years is taken for 10m, got %s (%v)", got, err)
		}
	})
}

// TestGoDaddyProvider checks what the client cannot reach: GoDaddy's own
// validation, paging and a hung API.
func TestGoDaddyProvider(t *testing.T) {
	s := fake.New(gdKey, gdSecret, "example.com")
	defer s.Close()
	p := &godaddy.Provider{URL: s.URL, Key: gdKey, Secret: gdSecret}
	ctx := context.Background()

	t.Run("MinimumTTL", func(t *testing.T) {
		_, err := p.SetRecords(ctx, gdZone, []libdns.Record{libdns.RR{Name: "x", Type: "A", TTL: time.Minute, Data: "192.0.2.1"}})
		if err == nil || !strings.Contains(err.Error(), "422: INVALID_BODY") || !strings.Contains(err.Error(), "records[0].ttl") || !httpapi.IsTerminal(err) {
			t.Errorf("GoDaddy refuses a TTL under 600 s naming the field, got %v", err)
		}
	})

	t.Run("Paging", func(t *testing.T) {
		const n = 1203
		recs := make([]fake.Record, 0, n)
		for i := range n {
			recs = append(recs, fake.Record{Data: fmt.Sprintf("10.0.%d.%d", i/256, i%256), TTL: 600})
		}
		s.Put("example.com", "A", "bulk", recs...)
		s.ResetCounts()
		got, err := p.GetRecords(ctx, gdZone)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) < n {
			t.Errorf("read %d records over the pages, want at least %d", len(got), n)
		}
		if c := s.Count(http.MethodGet); c != 3 {
			t.Errorf("%d records take 3 pages of 500, made %d GETs", n, c)
		}
	})

	t.Run("EndlessPages", func(t *testing.T) {
		// A server of the tenant's that answers every page full: the read
		// stops at godaddy.MaxRecords with a terminal error.
		page, _ := json.Marshal(slices.Repeat([]map[string]any{{"type": "A", "name": "x", "data": "192.0.2.1", "ttl": 600}}, 500))
		pages := 0
		endless := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			pages++
			_, _ = w.Write(page)
		}))
		defer endless.Close()
		_, err := (&godaddy.Provider{URL: endless.URL, Key: gdKey, Secret: gdSecret}).GetRecords(ctx, gdZone)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("run past %d", godaddy.MaxRecords)) || !httpapi.IsTerminal(err) {
			t.Fatalf("got %v, want a terminal error past %d records", err, godaddy.MaxRecords)
		}
		if want := godaddy.MaxRecords/500 + 1; pages != want {
			t.Errorf("read %d pages, want %d", pages, want)
		}
	})

	t.Run("HonoursContext", func(t *testing.T) {
		release := make(chan struct{})
		hung := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
		defer hung.Close()
		defer close(release)
		ctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := (&godaddy.Provider{URL: hung.URL, Key: gdKey, Secret: gdSecret}).GetRecords(ctx, gdZone)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Error("a hung API must fail when the context ends")
			}
		case <-time.After(20 * time.Second):
			t.Fatal("GetRecords ignored its context: libdns/godaddy's flaw is back")
		}
	})
}

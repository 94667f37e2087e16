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

package dns

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/libdns/libdns"
)

// recorder is a libdns provider that logs each call and fails the call
// numbered failAt (1-based; 0: never), as a crash or outage would.
type recorder struct {
	calls  []string
	failAt int
}

func (r *recorder) log(op string, recs []libdns.Record) error {
	var names []string
	for _, rec := range recs {
		names = append(names, rec.RR().Name+"/"+rec.RR().Type)
	}
	r.calls = append(r.calls, op+" "+strings.Join(names, ","))
	if len(r.calls) == r.failAt {
		return errors.New("connection reset")
	}
	return nil
}

func (r *recorder) GetRecords(context.Context, string) ([]libdns.Record, error) { return nil, nil }
func (r *recorder) SetRecords(_ context.Context, _ string, recs []libdns.Record) ([]libdns.Record, error) {
	return recs, r.log("set", recs)
}
func (r *recorder) DeleteRecords(_ context.Context, _ string, recs []libdns.Record) ([]libdns.Record, error) {
	return recs, r.log("delete", recs)
}

// TestOwnershipOrder: where a provider cannot write both in one update, the
// ownership record is written before the record set and deleted after it,
// so no failure in between leaves a record set that nobody owns (which
// another resource with adoptExisting could then take).
func TestOwnershipOrder(t *testing.T) {
	set := RRset{Name: "www", Type: "A", TTL: time.Minute, Values: []string{"192.0.2.1"}}
	owner := Owner{ID: "cp1", Resource: "team/www"}
	cases := map[string]struct {
		atomic bool
		op     func(*Client) error
		failAt int
		want   []string
	}{
		"SetOwnerFirst": {op: func(c *Client) error { return c.Set(context.Background(), "example.com", set, owner) },
			want: []string{"set _devops-owner-a.www/TXT", "set www/A"}},
		"SetFailsAfterOwner": {op: func(c *Client) error { return c.Set(context.Background(), "example.com", set, owner) },
			failAt: 1, want: []string{"set _devops-owner-a.www/TXT"}},
		"DeleteOwnerLast": {op: func(c *Client) error { return c.Delete(context.Background(), "example.com", set, owner) },
			want: []string{"delete www/A", "delete _devops-owner-a.www/TXT"}},
		"DeleteFailsBeforeOwner": {op: func(c *Client) error { return c.Delete(context.Background(), "example.com", set, owner) },
			failAt: 1, want: []string{"delete www/A"}},
		"AtomicSetIsOneUpdate": {atomic: true, op: func(c *Client) error { return c.Set(context.Background(), "example.com", set, owner) },
			want: []string{"set www/A,_devops-owner-a.www/TXT"}},
		"AtomicDeleteIsOneUpdate": {atomic: true, op: func(c *Client) error { return c.Delete(context.Background(), "example.com", set, owner) },
			want: []string{"delete www/A,_devops-owner-a.www/TXT"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := &recorder{failAt: tc.failAt}
			err := tc.op(&Client{p: r, b: backend{atomic: tc.atomic}})
			if (err != nil) != (tc.failAt != 0) {
				t.Errorf("error: %v", err)
			}
			if strings.Join(r.calls, "; ") != strings.Join(tc.want, "; ") {
				t.Errorf("calls:\n got %q\nwant %q", r.calls, tc.want)
			}
		})
	}
	if !backends["rfc2136"].atomic || backends["godaddy"].atomic {
		t.Error("RFC 2136 updates are atomic, GoDaddy PUTs are not")
	}
}

func TestParseOwner(t *testing.T) {
	cases := map[string]struct {
		in   string
		want Owner
		ok   bool
	}{
		"Current":       {`"heritage=provider-devops,owner=cp1,resource=team/www"`, Owner{ID: "cp1", Resource: "team/www"}, true},
		"BeforeOwnerID": {"heritage=provider-devops,resource=team/www", Owner{ID: DefaultOwnerID, Resource: "team/www"}, true},
		"EmptyID":       {"heritage=provider-devops,owner=,resource=team/www", Owner{}, false},
		"NoResource":    {"heritage=provider-devops,owner=cp1", Owner{}, false},
		"ExternalDNS":   {"heritage=external-dns,external-dns/owner=default", Owner{}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := parseOwner(tc.in)
			if got != tc.want || ok != tc.ok {
				t.Errorf("parseOwner(%q) = %+v, %v; want %+v, %v", tc.in, got, ok, tc.want, tc.ok)
			}
			if ok {
				if back, _ := parseOwner(ownerValue(got)); back != got {
					t.Errorf("round trip: %+v", back)
				}
			}
		})
	}
}

func TestIsOwnershipName(t *testing.T) {
	for name, want := range map[string]bool{
		"_devops-owner-a.www": true, "_DEVOPS-OWNER-TXT": true, "x._devops-owner-a-wildcard": true,
		"www": false, "_acme-challenge": false, "devops-owner": false, "*.preview": false,
	} {
		if got := IsOwnershipName(name); got != want {
			t.Errorf("IsOwnershipName(%q) = %v, want %v", name, got, want)
		}
	}
}

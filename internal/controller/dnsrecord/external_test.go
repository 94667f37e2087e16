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
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/dns"
)

// zone is a Client over one record set that fails the test on any write.
type zone struct {
	t   *testing.T
	obs dns.Observed
}

func (z zone) Get(context.Context, string, string, string) (*dns.Observed, error) { return &z.obs, nil }
func (z zone) Set(context.Context, string, dns.RRset, dns.Owner) error {
	z.t.Error("the record set was written")
	return nil
}
func (z zone) Delete(context.Context, string, dns.RRset, dns.Owner) error {
	z.t.Error("the record set was deleted")
	return nil
}
func (z zone) EffectiveTTL(d time.Duration) time.Duration { return d }

// TestObserveRefuses covers what the CRD cannot: a name stored before the
// CRD refused ownership names, and records other owners hold.
func TestObserveRefuses(t *testing.T) {
	www := &dns.RRset{Name: "www", Type: "A", TTL: 300 * time.Second, Values: []string{"192.0.2.1"}}
	cases := map[string]struct {
		name    string
		obs     dns.Observed
		deleted bool
		want    string // error substring; "" means no error and nothing exists
	}{
		"OwnershipName":        {name: "_devops-owner-a.www", want: "labels starting with \"_devops-owner\" are the provider's ownership records"},
		"OwnershipNameDeleted": {name: "_devops-owner-a.www", deleted: true},
		"OtherOwnerID":         {name: "www", obs: dns.Observed{RRset: www, Owner: dns.Owner{ID: "cp2", Resource: "ns/r"}}, want: `owner id "cp2"`},
		"OtherOwnerIDDeleted":  {name: "www", obs: dns.Observed{RRset: www, Owner: dns.Owner{ID: "cp2", Resource: "ns/r"}}, deleted: true},
		"OtherResource":        {name: "www", obs: dns.Observed{RRset: www, Owner: dns.Owner{ID: "cp1", Resource: "ns/other"}}, want: "is owned by DNSRecord ns/other"},
		"PendingOther":         {name: "www", obs: dns.Observed{Owner: dns.Owner{ID: "cp1", Resource: "ns/other"}}, want: "is owned by DNSRecord ns/other"},
		"NeighbourOtherNamespace": {name: "_acme-challenge.www", obs: dns.Observed{Related: []dns.Owned{{Name: "www", Type: "CNAME", Owner: dns.Owner{ID: "cp1", Resource: "team-b/www"}}}},
			want: "is owned by DNSRecord team-b/www (owner id cp1) of another namespace"},
		"NeighbourOtherControlPlane": {name: "www", obs: dns.Observed{Related: []dns.Owned{{Name: "www", Type: "AAAA", Owner: dns.Owner{ID: "cp2", Resource: "ns/www6"}}}},
			want: "www.example.com. AAAA, at the same name, above or below it"},
		"NeighbourAdopting": {name: "www", obs: dns.Observed{RRset: www, Related: []dns.Owned{{Name: "*.www", Type: "A", Owner: dns.Owner{ID: "cp1", Resource: "team-b/wild"}}}},
			want: "of another namespace"},
		"NeighbourOwnNamespace":          {name: "api.www", obs: dns.Observed{Related: []dns.Owned{{Name: "www", Type: "A", Owner: dns.Owner{ID: "cp1", Resource: "ns/www"}}}}},
		"NeighbourOtherNamespaceDeleted": {name: "_acme-challenge.www", deleted: true, obs: dns.Observed{Related: []dns.Owned{{Name: "www", Type: "CNAME", Owner: dns.Owner{ID: "cp1", Resource: "team-b/www"}}}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := &v1alpha1.DNSRecord{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "r"}}
			cr.Spec.ForProvider = v1alpha1.DNSRecordParameters{Zone: "example.com", Name: tc.name, Type: "A", Values: []string{"192.0.2.1"}, AdoptExisting: true}
			if tc.deleted {
				now := metav1.Now()
				cr.SetDeletionTimestamp(&now)
			}
			e := &external{client: zone{t: t, obs: tc.obs}, ownerID: "cp1"}
			o, err := e.Observe(context.Background(), cr)
			switch {
			case tc.want == "" && (err != nil || o.ResourceExists):
				t.Errorf("want the resource let go, got %+v, %v", o, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("want an error containing %q, got %v", tc.want, err)
			}
		})
	}
}

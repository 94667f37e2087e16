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

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/dns"
)

// Every DNS provider error the tests need is made here, so that a change
// of the client's error type changes these functions only. dns.Error keeps
// its message unexported and the controller only wraps what it gets, so
// these are plain errors worded as the client words them.

func errUnreachable() error {
	return errors.New("cannot read zone example.com: cannot reach the DNS server: dial udp 192.0.2.53:53: i/o timeout")
}

func errRefused() error {
	return errors.New("cannot update zone example.com: the DNS server refused: the key may not update or transfer this zone, or the zone is not served there (REFUSED)")
}

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
func (z zone) Create(context.Context, string, dns.RRset, dns.Owner) error {
	z.t.Error("the record set was created")
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

// mockZone is a DNS provider holding what one read of the zone says; it
// records every write. Its provider rounds TTLs up to a minute.
type mockZone struct {
	obs    dns.Observed
	getErr error
	setErr error
	delErr error

	sets    []write
	deletes []write
}

// write is one Set or Delete.
type write struct {
	Zone  string
	RRset dns.RRset
	Owner dns.Owner
}

func (z *mockZone) Get(context.Context, string, string, string) (*dns.Observed, error) {
	if z.getErr != nil {
		return nil, z.getErr
	}
	return &z.obs, nil
}

func (z *mockZone) Set(_ context.Context, zone string, want dns.RRset, owner dns.Owner) error {
	z.sets = append(z.sets, write{Zone: zone, RRset: want, Owner: owner})
	return z.setErr
}

// Create is recorded as a Set: the tests ask what was written.
func (z *mockZone) Create(ctx context.Context, zone string, want dns.RRset, owner dns.Owner) error {
	return z.Set(ctx, zone, want, owner)
}

func (z *mockZone) Delete(_ context.Context, zone string, have dns.RRset, owner dns.Owner) error {
	z.deletes = append(z.deletes, write{Zone: zone, RRset: have, Owner: owner})
	return z.delErr
}

func (z *mockZone) EffectiveTTL(d time.Duration) time.Duration { return max(d, time.Minute) }

var (
	ours   = dns.Owner{ID: "cp1", Resource: "team-a/www"}
	theirs = dns.Owner{ID: "cp1", Resource: "team-b/www"}
)

func record(mod ...func(*v1alpha1.DNSRecord)) *v1alpha1.DNSRecord {
	cr := &v1alpha1.DNSRecord{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "www"}}
	cr.Spec.ForProvider = v1alpha1.DNSRecordParameters{Zone: "example.com", Name: "www", Type: "A", Values: []string{"192.0.2.2", "192.0.2.1"}}
	for _, f := range mod {
		f(cr)
	}
	return cr
}

func adopting(cr *v1alpha1.DNSRecord) { cr.Spec.ForProvider.AdoptExisting = true }

func deletedRecord(cr *v1alpha1.DNSRecord) {
	cr.SetDeletionTimestamp(&metav1.Time{Time: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)})
}

func observing(cr *v1alpha1.DNSRecord) {
	cr.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
}

// rrset is the record set record() asks for, as the zone holds it.
func rrset(mod ...func(*dns.RRset)) *dns.RRset {
	r := &dns.RRset{Name: "www", Type: "A", TTL: 300 * time.Second, Values: []string{"192.0.2.1", "192.0.2.2"}}
	for _, f := range mod {
		f(r)
	}
	return r
}

func TestObserve(t *testing.T) {
	held := v1alpha1.DNSRecordObservation{FQDN: "www.example.com.", Values: []string{"192.0.2.1", "192.0.2.2"}, TTL: 300}
	type want struct {
		obs        managed.ExternalObservation
		err        error
		atProvider v1alpha1.DNSRecordObservation
	}
	cases := map[string]struct {
		reason string
		cr     *v1alpha1.DNSRecord
		obs    dns.Observed
		getErr error
		strict bool
		want   want
	}{
		"Absent": {
			reason: "A record set the zone does not hold does not exist: it is created, and no error is raised.",
			cr:     record(),
			want:   want{obs: managed.ExternalObservation{ResourceExists: false}},
		},
		"GetFails": {
			reason: "A failed read of the zone is an error, never 'absent'.",
			cr:     record(), getErr: errUnreachable(),
			want: want{err: errors.Wrap(errUnreachable(), errGet)},
		},
		"UpToDate": {
			reason: "Our record set with the values (in any order) and TTL asked for: up to date and Ready.",
			cr:     record(),
			obs:    dns.Observed{RRset: rrset(), Owner: ours},
			want:   want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, atProvider: held},
		},
		"ProviderTTLIsNotDrift": {
			reason: "A TTL the provider rounds up (30s asked, a minute held) is not drift.",
			cr:     record(func(cr *v1alpha1.DNSRecord) { cr.Spec.ForProvider.TTL = ptr[int64](30) }),
			obs:    dns.Observed{RRset: rrset(func(r *dns.RRset) { r.TTL = time.Minute }), Owner: ours},
			want: want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				atProvider: v1alpha1.DNSRecordObservation{FQDN: held.FQDN, Values: held.Values, TTL: 60}},
		},
		"ValuesDrift": {
			reason: "A value changed in the zone is drift, and the Diff names it.",
			cr:     record(),
			obs:    dns.Observed{RRset: rrset(func(r *dns.RRset) { r.Values = []string{"192.0.2.1", "198.51.100.7"} }), Owner: ours},
			want: want{obs: managed.ExternalObservation{ResourceExists: true, Diff: "198.51.100.7"},
				atProvider: v1alpha1.DNSRecordObservation{FQDN: held.FQDN, Values: []string{"192.0.2.1", "198.51.100.7"}, TTL: 300}},
		},
		"TTLDrift": {
			reason: "A TTL changed in the zone is drift, and the Diff names both.",
			cr:     record(),
			obs:    dns.Observed{RRset: rrset(func(r *dns.RRset) { r.TTL = time.Hour }), Owner: ours},
			want: want{obs: managed.ExternalObservation{ResourceExists: true, Diff: "ttl: want 5m0s, got 1h0m0s\n"},
				atProvider: v1alpha1.DNSRecordObservation{FQDN: held.FQDN, Values: held.Values, TTL: 3600}},
		},
		"Unowned": {
			reason: "A record set without an ownership record is refused unless adoption is asked for, and nothing is written.",
			cr:     record(),
			obs:    dns.Observed{RRset: rrset()},
			want:   want{err: errors.Errorf(errFmtNotOwned, "www.example.com. A")},
		},
		"UnownedAdopt": {
			reason: "With adoptExisting, a record set nobody owns is taken over: the ownership record is to be written.",
			cr:     record(adopting),
			obs:    dns.Observed{RRset: rrset()},
			want:   want{obs: managed.ExternalObservation{ResourceExists: true, Diff: "ownership record to be written (adoptExisting)\n"}, atProvider: held},
		},
		"AnotherResourceAdopt": {
			reason: "adoptExisting never takes a record set another DNSRecord owns.",
			cr:     record(adopting),
			obs:    dns.Observed{RRset: rrset(), Owner: theirs},
			want:   want{err: errors.Errorf(errFmtOwnedByOther, "www.example.com. A", "team-b/www", dns.OwnerName("www", "A"))},
		},
		"UnownedDeleted": {
			reason: "Being deleted, a record set it never owned is let go: 'absent', so it is not deleted.",
			cr:     record(adopting, deletedRecord),
			obs:    dns.Observed{RRset: rrset()},
			want:   want{obs: managed.ExternalObservation{ResourceExists: false}},
		},
		"OwnedDeleted": {
			reason: "Being deleted, its own record set exists: the reconciler goes on to delete it.",
			cr:     record(deletedRecord),
			obs:    dns.Observed{RRset: rrset(), Owner: ours},
			want:   want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, atProvider: held},
		},
		"LeftoverOwnershipDeleted": {
			reason: "Being deleted, its ownership record left alone by an interrupted delete still exists, so Delete removes it.",
			cr:     record(deletedRecord),
			obs:    dns.Observed{Owner: ours},
			want:   want{obs: managed.ExternalObservation{ResourceExists: true}},
		},
		"LeftoverOwnership": {
			reason: "Not being deleted, its own ownership record without a record set is not the record set: it is created.",
			cr:     record(),
			obs:    dns.Observed{Owner: ours},
			want:   want{obs: managed.ExternalObservation{ResourceExists: false}},
		},
		"ObserveOnlyUnowned": {
			reason: "Observe-only, a record set nobody owns is shown: observing writes nothing, so there is nothing to refuse.",
			cr:     record(observing),
			obs:    dns.Observed{RRset: rrset()},
			want:   want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, atProvider: held},
		},
		"ObserveOnlyAnotherOwner": {
			reason: "Observe-only, another resource's record set is shown, not refused.",
			cr:     record(observing),
			obs:    dns.Observed{RRset: rrset(), Owner: theirs},
			want:   want{obs: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, atProvider: held},
		},
		"ObserveOnlyPendingOther": {
			reason: "Observe-only, another resource's ownership record without a record set is not refused: the record set is absent.",
			cr:     record(observing),
			obs:    dns.Observed{Owner: theirs},
			want:   want{obs: managed.ExternalObservation{ResourceExists: false}},
		},
		"UnownedNeighbourStrict": {
			reason: "Through a ClusterProviderConfig, a new record set beside one nobody owns (the platform's) is refused.",
			cr:     record(), strict: true,
			obs:  dns.Observed{Neighbours: []dns.RRsetRef{{Name: "www", Type: "MX"}}},
			want: want{err: errors.Errorf(errFmtUnownedNeighbour, "www.example.com.", "A", "www.example.com.", "MX")},
		},
		"OwnNeighbourStrict": {
			reason: "Through a ClusterProviderConfig, a new record set beside the namespace's own is allowed.",
			cr:     record(), strict: true,
			obs: dns.Observed{
				Related:    []dns.Owned{{Name: "www", Type: "aaaa", Owner: dns.Owner{ID: "cp1", Resource: "team-a/www6"}}},
				Neighbours: []dns.RRsetRef{{Name: "www", Type: "AAAA"}},
			},
			want: want{obs: managed.ExternalObservation{ResourceExists: false}},
		},
		"UnownedNeighbourNotStrict": {
			reason: "Through the namespace's own ProviderConfig, a record set beside one nobody owns is the credentials' business: allowed.",
			cr:     record(),
			obs:    dns.Observed{Neighbours: []dns.RRsetRef{{Name: "www", Type: "MX"}}},
			want:   want{obs: managed.ExternalObservation{ResourceExists: false}},
		},
		"AdoptBesideUnownedStrict": {
			reason: "Adoption through a ClusterProviderConfig is refused beside a record set nobody owns, as a create would be.",
			cr:     record(adopting), strict: true,
			obs:  dns.Observed{RRset: rrset(), Neighbours: []dns.RRsetRef{{Name: "_acme-challenge.www", Type: "TXT"}}},
			want: want{err: errors.Errorf(errFmtUnownedNeighbour, "www.example.com.", "A", "_acme-challenge.www.example.com.", "TXT")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			z := &mockZone{obs: tc.obs, getErr: tc.getErr}
			e := &external{client: z, ownerID: "cp1", strict: tc.strict}
			got, err := e.Observe(context.Background(), tc.cr)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Fatalf("%s\nObserve(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			// cmp words its Diff its own way: only a part of it is asked for.
			if w := tc.want.obs.Diff; (w == "") != (got.Diff == "") || !strings.Contains(got.Diff, w) {
				t.Errorf("%s\nObserve(...).Diff: want it to contain %q, got %q", tc.reason, w, got.Diff)
			}
			got.Diff, tc.want.obs.Diff = "", ""
			if diff := cmp.Diff(tc.want.obs, got); diff != "" {
				t.Errorf("%s\nObserve(...): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.atProvider, tc.cr.Status.AtProvider); diff != "" {
				t.Errorf("%s\nstatus.atProvider: -want, +got:\n%s", tc.reason, diff)
			}
			if len(z.sets)+len(z.deletes) != 0 {
				t.Errorf("%s\nObserve wrote to the zone: %+v", tc.reason, z)
			}
		})
	}
}

func TestWrite(t *testing.T) {
	want := []write{{Zone: "example.com", RRset: dns.RRset{Name: "www", Type: "A", TTL: 300 * time.Second, Values: []string{"192.0.2.2", "192.0.2.1"}}, Owner: ours}}
	type op func(e *external, cr *v1alpha1.DNSRecord) error
	create := func(e *external, cr *v1alpha1.DNSRecord) error {
		_, err := e.Create(context.Background(), cr)
		return err
	}
	update := func(e *external, cr *v1alpha1.DNSRecord) error {
		_, err := e.Update(context.Background(), cr)
		return err
	}
	del := func(e *external, cr *v1alpha1.DNSRecord) error {
		_, err := e.Delete(context.Background(), cr)
		return err
	}
	cases := map[string]struct {
		reason      string
		op          op
		cr          *v1alpha1.DNSRecord
		setErr      error
		delErr      error
		err         error
		sets        []write
		deletes     []write
		readyReason string // the Ready reason afterwards, when the operation sets one
	}{
		"Create": {
			reason: "The record set is written with its ownership record naming this control plane and resource, with the default TTL.",
			op:     create, cr: record(), sets: want, readyReason: string(xpv2.ReasonCreating),
		},
		"CreateTTL": {
			reason: "An explicit TTL is written as asked.",
			op:     create, cr: record(func(cr *v1alpha1.DNSRecord) { cr.Spec.ForProvider.TTL = ptr[int64](3600) }),
			sets:        []write{{Zone: "example.com", RRset: dns.RRset{Name: "www", Type: "A", TTL: time.Hour, Values: []string{"192.0.2.2", "192.0.2.1"}}, Owner: ours}},
			readyReason: string(xpv2.ReasonCreating),
		},
		"CreateFails": {
			reason: "A refused write is an error wrapping the server's answer.",
			op:     create, cr: record(), setErr: errRefused(),
			err: errors.Wrap(errRefused(), errSet), sets: want, readyReason: string(xpv2.ReasonCreating),
		},
		"Update": {
			reason: "An update replaces the record set and writes the ownership record (which an adoption needs).",
			op:     update, cr: record(adopting), sets: want,
		},
		"UpdateFails": {
			reason: "A refused update is an error.",
			op:     update, cr: record(), setErr: errRefused(),
			err: errors.Wrap(errRefused(), errSet), sets: want,
		},
		"Delete": {
			reason: "A delete removes exactly the values this resource manages, and its ownership record.",
			op:     del, cr: record(deletedRecord), deletes: want, readyReason: string(xpv2.ReasonDeleting),
		},
		"DeleteFails": {
			reason: "A failed delete is an error, so the resource keeps its finalizer and the delete is retried.",
			op:     del, cr: record(deletedRecord), delErr: errUnreachable(),
			err: errors.Wrap(errUnreachable(), errDelete), deletes: want, readyReason: string(xpv2.ReasonDeleting),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			z := &mockZone{setErr: tc.setErr, delErr: tc.delErr}
			e := &external{client: z, ownerID: "cp1"}
			err := tc.op(e, tc.cr)
			if diff := cmp.Diff(tc.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("%s\n-want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.sets, z.sets); diff != "" {
				t.Errorf("%s\nSet: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.deletes, z.deletes); diff != "" {
				t.Errorf("%s\nDelete: -want, +got:\n%s", tc.reason, diff)
			}
			if got := string(tc.cr.GetCondition(xpv2.TypeReady).Reason); tc.readyReason != "" && got != tc.readyReason {
				t.Errorf("%s\nReady reason: want %s, got %s", tc.reason, tc.readyReason, got)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

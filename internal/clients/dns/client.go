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

// Package dns manages one record set (all values of a name and type) in a
// DNS zone through the libdns interfaces, with external-dns style ownership:
// a companion TXT record names the resource that owns the record set, so a
// record set someone else made is never overwritten or deleted.
package dns

import (
	"context"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/libdns/libdns"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	dnsv1alpha1 "github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
)

// Client manages record sets through one provider.
type Client struct {
	p Provider
	b backend
	// id is the provider and credentials the client reads with (the zone
	// cache's key); now is the clock.
	id  string
	now func() time.Time
	// share is who the zone cache counts the client's reads against
	// (Config.Share; GetCached falls back to id).
	share string
	cache *ZoneCache
}

// New returns a client. It does no I/O.
func New(c Config) (*Client, error) {
	b, ok := backends[c.Provider]
	if !ok {
		return nil, errors.Errorf("unknown DNS provider %q", c.Provider)
	}
	p, err := b.new(c)
	if err != nil {
		return nil, err
	}
	return &Client{p: p, b: b, id: identity(c), now: time.Now, share: c.Share, cache: c.Cache}, nil
}

// RRset is one record set. Name is relative to the zone ("@" for the apex).
type RRset struct {
	Name   string
	Type   string
	TTL    time.Duration
	Values []string
}

// Observed is what one read of the zone says about a record set.
type Observed struct {
	// RRset is nil when the record set does not exist.
	RRset *RRset
	// Owner is named by the ownership record; the zero Owner if none.
	Owner Owner
	// Related are the other record sets with an ownership record at the
	// same name (another type), above it or below it in the zone: who
	// holds the neighbourhood. The apex is nobody's ancestor; a wildcard
	// "*.x" counts as x.
	Related []Owned
	// Neighbours are all other record sets at the same name, above or
	// below it (owned or not, ownership records aside), by name and type.
	Neighbours []RRsetRef
}

// RRsetRef names a record set.
type RRsetRef struct{ Name, Type string }

// Get reads the zone once and returns the record set name/typ and its
// ownership record.
func (c *Client) Get(ctx context.Context, zone, name, typ string) (*Observed, error) {
	if c.cache != nil {
		// A read that begins after this call, shared with the others
		// waiting for one (zonecache.go).
		r, err := c.readFresh(ctx, zone)
		if err != nil {
			return nil, err
		}
		return observe(r.recs, name, typ), nil
	}
	recs, err := c.p.GetRecords(ctx, zone)
	if err != nil {
		return nil, classify(err, "cannot read zone "+zone)
	}
	return observe(recs, name, typ), nil
}

// observe finds the record set name/typ, its ownership record and its
// neighbourhood in a zone's records.
func observe(recs []libdns.Record, name, typ string) *Observed {
	name, ownerName := normName(name), OwnerName(name, typ)
	out := &Observed{}
	for _, r := range recs {
		rr := r.RR()
		rn := normName(rr.Name)
		switch {
		case rn == name && strings.EqualFold(rr.Type, typ):
			if out.RRset == nil {
				out.RRset = &RRset{Name: name, Type: strings.ToUpper(typ), TTL: rr.TTL}
			}
			out.RRset.Values = append(out.RRset.Values, rr.Data)
		case rn == ownerName && rr.Type == typeTXT:
			if o, ok := parseOwner(rr.Data); ok {
				out.Owner = o
			}
		case rr.Type == typeTXT && IsOwnershipName(rn):
			out.relate(name, rn, rr.Data)
		case Related(name, rn) && !(rn == name && strings.EqualFold(rr.Type, typ)):
			ref := RRsetRef{Name: rn, Type: strings.ToUpper(rr.Type)}
			if !slices.Contains(out.Neighbours, ref) {
				out.Neighbours = append(out.Neighbours, ref)
			}
		}
	}
	if out.RRset != nil {
		out.RRset.Values = NormalizeValues(out.RRset.Type, out.RRset.Values)
	}
	return out
}

// relate records the ownership record rn (holding data) when it owns a
// record set related to name.
func (o *Observed) relate(name, rn, data string) {
	on, ot, ok := ownedBy(rn)
	if !ok || !Related(name, on) {
		return
	}
	if owner, ok := parseOwner(data); ok {
		o.Related = append(o.Related, Owned{Name: on, Type: ot, Owner: owner})
	}
}

// Set replaces the record set with want and writes the ownership record
// naming owner. Providers that support it (RFC 2136) do both in one atomic
// update; for the others the ownership record is written first.
func (c *Client) Set(ctx context.Context, zone string, want RRset, owner Owner) error {
	defer c.forget(zone, want.Name)
	set, own := c.records(want), c.ownership(want, owner)
	if c.b.atomic {
		set, own = append(set, own...), nil
	}
	for _, recs := range [][]libdns.Record{own, set} {
		if len(recs) == 0 {
			continue
		}
		if _, err := c.p.SetRecords(ctx, zone, recs); err != nil {
			return classify(err, "cannot write the record set")
		}
	}
	return nil
}

// creator is a provider that can add records only where none are
// (RFC 2136 prerequisites).
type creator interface {
	CreateRecords(ctx context.Context, zone string, records []libdns.Record) error
}

// Create writes a new record set and its ownership record. Where the
// provider can, the write applies only if neither exists (one atomic
// update with prerequisites), so a create decided on a read never
// overwrites a record set another writer made since; elsewhere it is Set.
func (c *Client) Create(ctx context.Context, zone string, want RRset, owner Owner) error {
	p, ok := c.p.(creator)
	if !ok || !c.b.atomic {
		return c.Set(ctx, zone, want, owner)
	}
	defer c.forget(zone, want.Name)
	if err := p.CreateRecords(ctx, zone, append(c.records(want), c.ownership(want, owner)...)); err != nil {
		return classify(err, "cannot create the record set")
	}
	return nil
}

// Delete removes exactly the values of have and then the ownership record
// (in one atomic update where the provider supports it).
func (c *Client) Delete(ctx context.Context, zone string, have RRset, owner Owner) error {
	defer c.forget(zone, have.Name)
	set, own := c.records(have), c.ownership(have, owner)
	if c.b.atomic {
		set, own = append(set, own...), nil
	}
	for _, recs := range [][]libdns.Record{set, own} {
		if len(recs) == 0 {
			continue
		}
		if _, err := c.p.DeleteRecords(ctx, zone, recs); err != nil {
			return classify(err, "cannot delete the record set")
		}
	}
	return nil
}

// EffectiveTTL is the TTL the provider will apply for want.
func (c *Client) EffectiveTTL(want time.Duration) time.Duration {
	return max(want, c.b.minTTL)
}

func (c *Client) records(s RRset) []libdns.Record {
	ttl := c.EffectiveTTL(s.TTL)
	out := make([]libdns.Record, 0, len(s.Values)+1)
	for _, v := range NormalizeValues(s.Type, s.Values) {
		out = append(out, libdns.RR{Name: normName(s.Name), Type: s.Type, TTL: ttl, Data: v})
	}
	return out
}

func normName(n string) string {
	n = strings.ToLower(strings.TrimSuffix(n, "."))
	if n == "" {
		return "@"
	}
	return n
}

// FQDN is the record set's fully qualified name.
func FQDN(name, zone string) string { return dnsv1alpha1.FQDN(name, zone) }

// sortedUnique sorts and removes duplicates in place.
func sortedUnique(in []string) []string {
	sort.Strings(in)
	out := in[:0]
	for i, v := range in {
		if i == 0 || v != in[i-1] {
			out = append(out, v)
		}
	}
	return out
}

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
	"encoding/base64"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/libdns/libdns"
	"github.com/libdns/rfc2136"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/dns/godaddy"
)

// Provider is what the client needs of a libdns provider.
type Provider interface {
	libdns.RecordGetter
	libdns.RecordSetter
	libdns.RecordDeleter
}

// Config selects and configures a provider.
type Config struct {
	// Provider is the ProviderConfig's dns.provider: godaddy or rfc2136.
	Provider string
	// Secret is the provider's credential: "key:secret" for GoDaddy, the
	// base64 TSIG secret for RFC 2136. It never appears in an error.
	Secret string
	// Server, KeyName and KeyAlgorithm configure RFC 2136.
	Server, KeyName, KeyAlgorithm string
	// URL is a REST provider's API endpoint ("" for its default).
	URL string
}

// backend is one libdns provider: how to build it from a Config, and what
// it imposes on record sets.
type backend struct {
	new func(Config) (Provider, error)
	// minTTL is the shortest TTL the provider applies.
	minTTL time.Duration
	// atomic providers write a record set and its ownership record in one
	// update. The others write the ownership record first and delete it
	// last, so a crash in between never leaves a record set without owner.
	atomic bool
}

// backends lists the supported providers. Adding a libdns provider is one
// entry here (and its name in the ProviderConfig's enum).
var backends = map[string]backend{
	"rfc2136": {new: func(c Config) (Provider, error) {
		if _, err := base64.StdEncoding.DecodeString(c.Secret); err != nil || c.Secret == "" {
			return nil, errors.New("the RFC 2136 TSIG secret must be base64, as tsig-keygen prints it")
		}
		alg := c.KeyAlgorithm
		if alg == "" {
			alg = "hmac-sha256"
		}
		return &rfc2136.Provider{Server: c.Server, KeyName: c.KeyName, KeyAlg: alg, Key: c.Secret}, nil
	}, atomic: true},
	"godaddy": {new: func(c Config) (Provider, error) {
		k, s, ok := strings.Cut(strings.TrimSpace(c.Secret), ":")
		if !ok || k == "" || s == "" {
			return nil, errors.New(`the GoDaddy credentials must be "key:secret"`)
		}
		return &godaddy.Provider{URL: c.URL, Key: k, Secret: s}, nil
	}, minTTL: 600 * time.Second},
}

// Client manages record sets through one provider.
type Client struct {
	p Provider
	b backend
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
	return &Client{p: p, b: b}, nil
}

// RRset is one record set. Name is relative to the zone ("@" for the apex).
type RRset struct {
	Name   string
	Type   string
	TTL    time.Duration
	Values []string
}

// Owner is who holds a record set: a resource (namespace/name) in the
// control plane identified by ID, like external-dns's --txt-owner-id. Two
// control planes with different IDs never touch each other's record sets,
// even for resources of the same namespace and name.
type Owner struct {
	ID       string
	Resource string
}

// DefaultOwnerID is the owner ID of ownership records written before owner
// IDs existed, and the provider's default.
const DefaultOwnerID = "default"

// String names the owner in messages.
func (o Owner) String() string {
	if o.ID == DefaultOwnerID {
		return o.Resource
	}
	return o.Resource + " (owner id " + o.ID + ")"
}

// OwnerPrefix starts the first label of every ownership record. A record
// set whose name has a label starting with it is refused: writing one could
// rewrite another record set's ownership.
const OwnerPrefix = "_devops-owner"

// IsOwnershipName is true when name (relative or absolute) has a label
// starting with OwnerPrefix.
func IsOwnershipName(name string) bool {
	for _, l := range strings.Split(strings.ToLower(name), ".") {
		if strings.HasPrefix(l, OwnerPrefix) {
			return true
		}
	}
	return false
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
}

// Owned is a record set named by an ownership record.
type Owned struct {
	Name, Type string
	Owner      Owner
}

// Get reads the zone once and returns the record set name/typ and its
// ownership record.
func (c *Client) Get(ctx context.Context, zone, name, typ string) (*Observed, error) {
	recs, err := c.p.GetRecords(ctx, zone)
	if err != nil {
		return nil, classify(err, "cannot read zone "+zone)
	}
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
		case rn == ownerName && rr.Type == "TXT":
			if o, ok := parseOwner(rr.Data); ok {
				out.Owner = o
			}
		case rr.Type == "TXT" && IsOwnershipName(rn):
			if on, ot, ok := ownedBy(rn); ok && Related(name, on) {
				if o, ok := parseOwner(rr.Data); ok {
					out.Related = append(out.Related, Owned{Name: on, Type: ot, Owner: o})
				}
			}
		}
	}
	if out.RRset != nil {
		out.RRset.Values = NormalizeValues(out.RRset.Type, out.RRset.Values)
	}
	return out, nil
}

// Set replaces the record set with want and writes the ownership record
// naming owner. Providers that support it (RFC 2136) do both in one atomic
// update; for the others the ownership record is written first.
func (c *Client) Set(ctx context.Context, zone string, want RRset, owner Owner) error {
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

// Delete removes exactly the values of have and then the ownership record
// (in one atomic update where the provider supports it).
func (c *Client) Delete(ctx context.Context, zone string, have RRset, owner Owner) error {
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

func (c *Client) ownership(s RRset, owner Owner) []libdns.Record {
	if owner.Resource == "" {
		return nil
	}
	return []libdns.Record{libdns.RR{Name: OwnerName(s.Name, s.Type), Type: "TXT", TTL: c.EffectiveTTL(s.TTL), Data: ownerValue(owner)}}
}

// OwnerName is the name of the ownership TXT record of name/typ: a child
// label, so it can sit beside a CNAME; a wildcard's owner lives beside it.
func OwnerName(name, typ string) string {
	label := OwnerPrefix + "-" + strings.ToLower(typ)
	switch name = normName(name); {
	case name == "@":
		return label
	case name == "*":
		return label + "-wildcard"
	case strings.HasPrefix(name, "*."):
		return label + "-wildcard." + name[2:]
	default:
		return label + "." + name
	}
}

// ownedBy reads an ownership record's name back into the name and type of
// the record set it owns (OwnerName's inverse).
func ownedBy(ownerName string) (name, typ string, ok bool) {
	first, rest, _ := strings.Cut(ownerName, ".")
	t, ok := strings.CutPrefix(first, OwnerPrefix+"-")
	if !ok || t == "" {
		return "", "", false
	}
	wildcard := false
	if t, wildcard = strings.CutSuffix(t, "-wildcard"); wildcard {
		if rest == "" {
			return "*", strings.ToUpper(t), true
		}
		return "*." + rest, strings.ToUpper(t), true
	}
	if rest == "" {
		rest = "@"
	}
	return rest, strings.ToUpper(t), true
}

// Related is true when names a and b (relative to one zone) are the same
// name or one is below the other; the apex is below nothing, and "*.x"
// stands for x.
func Related(a, b string) bool {
	base := func(n string) string {
		n = normName(n)
		if n == "*" {
			return "@"
		}
		return strings.TrimPrefix(n, "*.")
	}
	a, b = base(a), base(b)
	below := func(x, y string) bool { return y != "@" && strings.HasSuffix(x, "."+y) }
	return a == b || below(a, b) || below(b, a)
}

const heritage = "heritage=provider-devops,"

// ownerValue is the ownership record's text:
// "heritage=provider-devops,owner=<id>,resource=<namespace>/<name>".
func ownerValue(o Owner) string {
	return heritage + "owner=" + o.ID + ",resource=" + o.Resource
}

// parseOwner reads an ownership record. Records written before owner IDs
// existed have no owner= field and belong to DefaultOwnerID.
func parseOwner(v string) (Owner, bool) {
	v = strings.Trim(v, `"`)
	rest, ok := strings.CutPrefix(v, heritage)
	if !ok {
		return Owner{}, false
	}
	o := Owner{ID: DefaultOwnerID}
	if id, r, ok := strings.Cut(rest, ","); ok && strings.HasPrefix(id, "owner=") {
		o.ID, rest = strings.TrimPrefix(id, "owner="), r
	}
	res, ok := strings.CutPrefix(rest, "resource=")
	if !ok || res == "" || o.ID == "" {
		return Owner{}, false
	}
	o.Resource = res
	return o, true
}

func normName(n string) string {
	n = strings.ToLower(strings.TrimSuffix(n, "."))
	if n == "" {
		return "@"
	}
	return n
}

// FQDN is the record set's fully qualified name.
func FQDN(name, zone string) string {
	zone = strings.TrimSuffix(strings.ToLower(zone), ".") + "."
	if n := normName(name); n != "@" {
		return n + "." + zone
	}
	return zone
}

// ExternalName is the deterministic external name "<fqdn>/<TYPE>".
func ExternalName(name, zone, typ string) string {
	return fmt.Sprintf("%s/%s", FQDN(name, zone), strings.ToUpper(typ))
}

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

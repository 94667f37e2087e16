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
	}},
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

// Observed is what one read of the zone says about a record set.
type Observed struct {
	// RRset is nil when the record set does not exist.
	RRset *RRset
	// Owner is the resource named by the ownership record, "" if none.
	Owner string
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
		}
	}
	if out.RRset != nil {
		out.RRset.Values = NormalizeValues(out.RRset.Type, out.RRset.Values)
	}
	return out, nil
}

// Set replaces the record set with want and writes the ownership record
// naming owner. Providers that support it (RFC 2136) do both in one atomic
// update.
func (c *Client) Set(ctx context.Context, zone string, want RRset, owner string) error {
	if _, err := c.p.SetRecords(ctx, zone, c.records(want, owner)); err != nil {
		return classify(err, "cannot write the record set")
	}
	return nil
}

// Delete removes exactly the values of have and the ownership record.
func (c *Client) Delete(ctx context.Context, zone string, have RRset, owner string) error {
	if _, err := c.p.DeleteRecords(ctx, zone, c.records(have, owner)); err != nil {
		return classify(err, "cannot delete the record set")
	}
	return nil
}

// EffectiveTTL is the TTL the provider will apply for want.
func (c *Client) EffectiveTTL(want time.Duration) time.Duration {
	return max(want, c.b.minTTL)
}

func (c *Client) records(s RRset, owner string) []libdns.Record {
	ttl := c.EffectiveTTL(s.TTL)
	out := make([]libdns.Record, 0, len(s.Values)+1)
	for _, v := range NormalizeValues(s.Type, s.Values) {
		out = append(out, libdns.RR{Name: normName(s.Name), Type: s.Type, TTL: ttl, Data: v})
	}
	if owner != "" {
		out = append(out, libdns.RR{Name: OwnerName(s.Name, s.Type), Type: "TXT", TTL: ttl, Data: ownerValue(owner)})
	}
	return out
}

// OwnerName is the name of the ownership TXT record of name/typ: a child
// label, so it can sit beside a CNAME; a wildcard's owner lives beside it.
func OwnerName(name, typ string) string {
	label := "_devops-owner-" + strings.ToLower(typ)
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

const heritage = "heritage=provider-devops,resource="

func ownerValue(owner string) string { return heritage + owner }

func parseOwner(v string) (string, bool) {
	v = strings.Trim(v, `"`)
	if !strings.HasPrefix(v, heritage) {
		return "", false
	}
	return strings.TrimPrefix(v, heritage), true
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

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
	"fmt"
	"math"
	"net"
	"strings"
	"time"

	"github.com/libdns/libdns"
	"github.com/libdns/rfc2136"
	"github.com/miekg/dns"

	"github.com/freeleaps/provider-devops/internal/clients/netguard"
)

// Bounds of a zone read over RFC 2136 (AXFR). The server is a tenant's
// choice: a transfer must neither outlive the reconcile that asked for it
// nor hold more than a zone this provider could manage.
const (
	// MaxZoneRecords is the most records a zone transfer may carry; one
	// carrying more is a terminal error on the resource that asked.
	MaxZoneRecords = 200_000
	// MaxZoneBytes bounds the names and values a transfer may carry in
	// all (one message holds at most 64 KiB): 200,000 ordinary records
	// are about 10 MiB, a few huge TXT records could be gigabytes.
	MaxZoneBytes = 32 << 20
	// maxTransfer bounds a transfer whose context has no deadline.
	maxTransfer = 2 * time.Minute
)

// errZoneTooLarge is the terminal error of an over-size transfer.
type errZoneTooLarge struct {
	zone, what string
}

func (e errZoneTooLarge) Error() string {
	return fmt.Sprintf("the zone transfer of %s carried more than %s: the server is not one this provider can manage a zone on", e.zone, e.what)
}

// rfc2136Provider is libdns/rfc2136's provider with GetRecords bounded:
// its own transfer stops when the context ends (libdns/rfc2136's sets a
// fresh 2 s read deadline per message and never looks at the context, so
// a server sending one record every 1.9 s held a worker for ever) and
// after maxRecords records (it kept every record a server sent).
type rfc2136Provider struct {
	*rfc2136.Provider
	maxRecords, maxBytes int
	// tenant: a namespaced config names the server, and guard is the
	// platform's rule for it (guard.go).
	tenant bool
	guard  *netguard.Guard
}

// GetRecords transfers the zone (AXFR, signed with the TSIG key).
func (p *rfc2136Provider) GetRecords(ctx context.Context, zone string) (_ []libdns.Record, err error) {
	defer measure(ctx, time.Now(), &err)
	zone = dns.Fqdn(zone)
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, maxTransfer)
		defer cancel()
	}
	server, err := p.server(ctx)
	if err != nil {
		return nil, err
	}
	// server() checked the host name; the address is checked again here.
	var d net.Dialer
	if p.tenant {
		d = *p.guard.Dialer(0)
	}
	conn, err := d.DialContext(ctx, "tcp", server)
	if err != nil {
		return nil, fmt.Errorf("dial: %w", err)
	}
	// Closing the connection is the only way to stop the transfer's reads
	// (each resets its own deadline); it then ends with an error.
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	key := dns.Fqdn(p.KeyName)
	tn := dns.Transfer{Conn: &dns.Conn{Conn: conn}, TsigSecret: map[string]string{key: p.Key}}
	q := &dns.Msg{}
	q.SetAxfr(zone)
	q.SetTsig(key, dns.Fqdn(p.KeyAlg), 300, time.Now().Unix())
	envelopes, err := tn.In(q, server)
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("start zone transfer: %w", err)
	}
	// Whatever ends the loop, the transfer's goroutine is let finish: the
	// connection is closed and the rest of its envelopes drained.
	defer func() {
		_ = conn.Close()
		go drain(envelopes)
	}()
	records := make([]libdns.Record, 0, 64)
	size := 0
	for e := range envelopes {
		if e.Error != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("zone transfer: %w", ctx.Err())
			}
			return nil, fmt.Errorf("zone transfer: %w", e.Error)
		}
		if len(records)+len(e.RR) > p.maxRecords {
			return nil, errZoneTooLarge{zone: zone, what: fmt.Sprintf("%d records", p.maxRecords)}
		}
		for _, rr := range e.RR {
			r := rrRecord(rr, zone)
			if size += len(r.Name) + len(r.Data); size > p.maxBytes {
				return nil, errZoneTooLarge{zone: zone, what: fmt.Sprintf("%d MiB of names and values", p.maxBytes>>20)}
			}
			rec, err := r.Parse()
			if err != nil {
				return nil, fmt.Errorf("parse record: %w", err)
			}
			records = append(records, rec)
		}
	}
	return records, nil
}

// drain reads what is left of a transfer, so its goroutine can end.
func drain(envelopes chan *dns.Envelope) {
	for range envelopes {
		// Discarded: the transfer has already failed or been refused.
	}
}

// rrRecord is rr as a libdns record relative to zone: its value is the
// presentation form without the header (a TXT record's strings joined).
func rrRecord(rr dns.RR, zone string) libdns.RR {
	h := rr.Header()
	r := libdns.RR{Name: libdns.RelativeName(h.Name, zone), TTL: time.Duration(h.Ttl) * time.Second, Type: dns.TypeToString[h.Rrtype]}
	if txt, ok := rr.(*dns.TXT); ok {
		r.Data = strings.Join(txt.Txt, "")
		return r
	}
	prefix := h.String()
	if _, ok := rr.(*dns.RFC3597); ok {
		// Unknown types print their header as "TYPEn" in class "CLASSn".
		r.Type = fmt.Sprintf("TYPE%d", h.Rrtype)
		prefix = fmt.Sprintf("%s\t%d\tCLASS%d\t%s\t", strings.SplitN(prefix, "\t", 2)[0], h.Ttl, h.Class, r.Type)
	}
	r.Data = strings.TrimPrefix(rr.String(), prefix)
	return r
}

// errRaced is a create refused because a record set it would write
// appeared after the read that decided to create it.
type errRaced struct{ what string }

func (e errRaced) Error() string {
	return "another writer created " + e.what + " after it was read; it is read again"
}

// CreateRecords adds records in one update that applies only if none of
// their record sets exists (RFC 2136 prerequisites, "RRset does not
// exist"): a create decided on a read never overwrites what another
// writer made in between.
func (p *rfc2136Provider) CreateRecords(ctx context.Context, zone string, records []libdns.Record) (err error) {
	defer measure(ctx, time.Now(), &err)
	zone = dns.Fqdn(zone)
	m := &dns.Msg{}
	m.SetUpdate(zone)
	seen := map[string]bool{}
	var absent, add []dns.RR
	for _, r := range records {
		rr, err := toRR(r.RR(), zone)
		if err != nil {
			return err
		}
		h := rr.Header()
		if k := h.Name + "/" + dns.TypeToString[h.Rrtype]; !seen[k] {
			seen[k] = true
			absent = append(absent, &dns.ANY{Hdr: dns.RR_Header{Name: h.Name, Rrtype: h.Rrtype, Class: dns.ClassINET}})
		}
		add = append(add, rr)
	}
	m.RRsetNotUsed(absent)
	m.Insert(add)
	key := dns.Fqdn(p.KeyName)
	m.SetTsig(key, dns.Fqdn(p.KeyAlg), 300, time.Now().Unix())
	server, err := p.server(ctx)
	if err != nil {
		return err
	}
	c := &dns.Client{Net: "tcp", TsigSecret: map[string]string{key: p.Key}}
	if p.tenant {
		c.Dialer = p.guard.Dialer(0)
	}
	in, _, err := c.ExchangeContext(ctx, m, server)
	if err != nil {
		return err
	}
	switch in.Rcode {
	case dns.RcodeSuccess:
		return nil
	case dns.RcodeYXRrset:
		names := make([]string, 0, len(seen))
		for k := range seen {
			names = append(names, k)
		}
		return errRaced{what: strings.Join(names, ", ")}
	default:
		return fmt.Errorf("update failed: %s", dns.RcodeToString[in.Rcode])
	}
}

// toRR is r as a record of zone in miekg/dns's form.
func toRR(r libdns.RR, zone string) (dns.RR, error) {
	name := libdns.AbsoluteName(r.Name, zone)
	// A TTL is at most 2^31-1 seconds (RFC 2181); a DNSRecord's is far less.
	ttl := min(max(int64(r.TTL/time.Second), 0), math.MaxInt32)
	hdr := dns.RR_Header{Name: name, Class: dns.ClassINET, Ttl: uint32(ttl)}
	if strings.EqualFold(r.Type, typeTXT) {
		hdr.Rrtype = dns.TypeTXT
		var parts []string
		for s := r.Data; ; s = s[255:] {
			if len(s) <= 255 {
				parts = append(parts, s)
				break
			}
			parts = append(parts, s[:255])
		}
		return &dns.TXT{Hdr: hdr, Txt: parts}, nil
	}
	rr, err := dns.NewRR(fmt.Sprintf("%s %d IN %s %s", name, hdr.Ttl, r.Type, r.Data))
	if err != nil {
		return nil, fmt.Errorf("cannot encode record %s %s: %w", r.Name, r.Type, err)
	}
	return rr, nil
}

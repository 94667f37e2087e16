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
	"net"
	"time"

	"github.com/libdns/libdns"
	"github.com/libdns/rfc2136"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

// server is the address to send this call to: the configured one, or
// for a namespaced config its name resolved now and every address checked
// (package netguard), the call then pinned to the first. libdns/rfc2136
// dials by itself: pinning is how its connections are checked too, and a
// name that resolves differently at the dial cannot slip past.
func (p *rfc2136Provider) server(ctx context.Context) (string, error) {
	if !p.tenant {
		return p.Server, nil
	}
	host, port, err := net.SplitHostPort(p.Server)
	if err != nil {
		return "", refused(fmt.Errorf("spec.dns.rfc2136.server %q is not host:port", p.Server))
	}
	if err := p.guard.CheckHost(host); err != nil {
		return "", refused(err)
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return "", fmt.Errorf("resolve %s: no address", host)
	}
	for _, a := range addrs {
		if err := p.guard.CheckAddr(a); err != nil {
			return "", refused(fmt.Errorf("spec.dns.rfc2136.server %s: %w", host, err))
		}
	}
	return net.JoinHostPort(addrs[0].Unmap().String(), port), nil
}

// refused is a server the provider will not talk to for a namespaced
// config: a configuration to fix, never retried soon (classify).
func refused(err error) error {
	return &Error{msg: "refused to reach the DNS server: " + err.Error(), terminal: true, cause: err}
}

// measure counts one RFC 2136 exchange with the backend metrics (dns),
// classified as the reconciler will see it.
func measure(ctx context.Context, start time.Time, err *error) {
	var c error
	if *err != nil {
		c = classify(*err, "")
	}
	httpapi.Record(ctx, "dns", time.Since(start), c)
}

// pinned is libdns/rfc2136's provider sending to server(ctx).
func (p *rfc2136Provider) pinned(ctx context.Context) (*rfc2136.Provider, error) {
	s, err := p.server(ctx)
	if err != nil {
		return nil, err
	}
	c := *p.Provider
	c.Server = s
	return &c, nil
}

// SetRecords replaces the record sets, through the checked address.
func (p *rfc2136Provider) SetRecords(ctx context.Context, zone string, records []libdns.Record) (_ []libdns.Record, err error) {
	defer measure(ctx, time.Now(), &err)
	c, err := p.pinned(ctx)
	if err != nil {
		return nil, err
	}
	return c.SetRecords(ctx, zone, records)
}

// DeleteRecords deletes the records, through the checked address.
func (p *rfc2136Provider) DeleteRecords(ctx context.Context, zone string, records []libdns.Record) (_ []libdns.Record, err error) {
	defer measure(ctx, time.Now(), &err)
	c, err := p.pinned(ctx)
	if err != nil {
		return nil, err
	}
	return c.DeleteRecords(ctx, zone, records)
}

// AppendRecords adds the records, through the checked address.
func (p *rfc2136Provider) AppendRecords(ctx context.Context, zone string, records []libdns.Record) (_ []libdns.Record, err error) {
	defer measure(ctx, time.Now(), &err)
	c, err := p.pinned(ctx)
	if err != nil {
		return nil, err
	}
	return c.AppendRecords(ctx, zone, records)
}

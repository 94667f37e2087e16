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
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	mdns "github.com/miekg/dns"

	"github.com/freeleaps/provider-devops/internal/clients/dns"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

// hostileAXFR is a tenant's DNS server on loopback that answers a zone
// transfer with the SOA and then records as send says, until the client
// goes away.
func hostileAXFR(t *testing.T, send func(i int) ([]mdns.RR, time.Duration)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	mux := mdns.NewServeMux()
	mux.HandleFunc("example.test.", func(w mdns.ResponseWriter, r *mdns.Msg) {
		ch := make(chan *mdns.Envelope)
		tr := &mdns.Transfer{}
		go func() { _ = tr.Out(w, r, ch) }()
		soa, _ := mdns.NewRR("example.test. 300 IN SOA ns.example.test. admin.example.test. 1 60 60 600 60")
		ch <- &mdns.Envelope{RR: []mdns.RR{soa}}
		for i := 0; ; i++ {
			rrs, wait := send(i)
			select {
			case <-done:
				close(ch)
				return
			case <-time.After(wait):
			}
			select {
			case ch <- &mdns.Envelope{RR: rrs}:
			case <-done:
				close(ch)
				return
			}
		}
	})
	// It signs its answers with the tenant's key, as BIND does.
	srv := &mdns.Server{Listener: l, Handler: mux, TsigSecret: map[string]string{"tenant.": tenantSecret}}
	go func() { _ = srv.ActivateAndServe() }()
	t.Cleanup(func() {
		close(done)
		_ = srv.Shutdown()
	})
	return l.Addr().String()
}

const tenantSecret = "c2VjcmV0c2VjcmV0c2VjcmV0"

func hostileClient(t *testing.T, addr string) *dns.Client {
	t.Helper()
	c, err := dns.New(dns.Config{Provider: "rfc2136", Server: addr, KeyName: "tenant", Secret: tenantSecret})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A zone transfer from a tenant's server ends with the reconcile's
// context, however slowly the server drips records (libdns/rfc2136 reset a
// 2 s deadline per message and ignored the context: one record every 1.9 s
// held a DNSRecord worker for ever).
func TestZoneTransferEndsWithContext(t *testing.T) {
	addr := hostileAXFR(t, func(i int) ([]mdns.RR, time.Duration) {
		rr, _ := mdns.NewRR(fmt.Sprintf("h%d.example.test. 300 IN A 192.0.2.1", i))
		return []mdns.RR{rr}, 1900 * time.Millisecond
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	start := time.Now()
	_, err := hostileClient(t, addr).Get(ctx, "example.test", "www", "A")
	if err == nil {
		t.Fatal("a transfer that never ends returned no error")
	}
	// The limit is generous for a loaded machine; without the bound the
	// call never returns.
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the transfer took %s after its 3s context", took)
	}
	if !httpapi.IsTransient(err) {
		t.Errorf("a timed-out transfer should be retried: %v", err)
	}
}

// A transfer that never ends is stopped after dns.MaxZoneRecords records
// with a terminal error on that resource, instead of filling the
// provider's memory.
func TestZoneTransferBoundedInSize(t *testing.T) {
	const batch = 1000 // one message is at most 64 KiB
	addr := hostileAXFR(t, func(i int) ([]mdns.RR, time.Duration) {
		rrs := make([]mdns.RR, batch)
		for k := range rrs {
			rrs[k] = &mdns.A{Hdr: mdns.RR_Header{Name: fmt.Sprintf("h%d-%d.example.test.", i, k), Rrtype: mdns.TypeA, Class: mdns.ClassINET, Ttl: 300}, A: net.IPv4(192, 0, 2, 1)}
		}
		return rrs, 0
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := hostileClient(t, addr).Get(ctx, "example.test", "www", "A")
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d records", dns.MaxZoneRecords)) {
		t.Fatalf("got %v, want the transfer refused past %d records", err, dns.MaxZoneRecords)
	}
	if !httpapi.IsTerminal(err) {
		t.Errorf("an over-size zone should be a terminal error: %v", err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("stopped by the deadline, not by the bound: %v", err)
	}
}

// Few records but huge ones (a 60 KiB TXT record per message) are bounded
// by their size: 200,000 of them would be 12 GiB.
func TestZoneTransferBoundedInBytes(t *testing.T) {
	chunk := strings.Repeat("x", 250)
	addr := hostileAXFR(t, func(i int) ([]mdns.RR, time.Duration) {
		txt := make([]string, 240) // 240 strings of 250 bytes: 60,000 bytes
		for k := range txt {
			txt[k] = chunk
		}
		return []mdns.RR{&mdns.TXT{Hdr: mdns.RR_Header{Name: fmt.Sprintf("t%d.example.test.", i), Rrtype: mdns.TypeTXT, Class: mdns.ClassINET, Ttl: 300}, Txt: txt}}, 0
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := hostileClient(t, addr).Get(ctx, "example.test", "www", "A")
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d MiB", dns.MaxZoneBytes>>20)) || !httpapi.IsTerminal(err) {
		t.Fatalf("got %v, want a terminal error past %d MiB", err, dns.MaxZoneBytes>>20)
	}
}

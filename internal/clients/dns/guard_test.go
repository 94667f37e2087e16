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
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freeleaps/provider-devops/internal/clients/dns"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/netguard"
)

// TestTenantNameServerOnInternalAddress: a namespaced config's RFC 2136
// server at an internal address (loopback here; a cluster service or
// the metadata address in the attack) is never connected to, for reads
// and for updates alike, and the error is terminal; the platform's own
// configs, or a network the platform allows, are.
func TestTenantNameServerOnInternalAddress(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			_ = c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	for _, server := range []string{l.Addr().String(), "localhost:" + port} {
		c, err := dns.New(dns.Config{Provider: "rfc2136", Server: server, KeyName: "tenant", Secret: tenantSecret, TLS: httpapi.TLS{Tenant: true}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, gerr := c.Get(ctx, "example.test", "www", "A")
		serr := c.Set(ctx, "example.test", dns.RRset{Name: "www", Type: "A", TTL: time.Minute, Values: []string{"192.0.2.1"}}, dns.Owner{ID: "default", Resource: "team-a/www"})
		cerr := c.Create(ctx, "example.test", dns.RRset{Name: "www", Type: "A", TTL: time.Minute, Values: []string{"192.0.2.1"}}, dns.Owner{ID: "default", Resource: "team-a/www"})
		cancel()
		for what, err := range map[string]error{"read": gerr, "update": serr, "create": cerr} {
			if err == nil || !httpapi.IsTerminal(err) || !strings.Contains(err.Error(), "internal") {
				t.Errorf("%s %s: want a terminal refusal naming the internal address, got %v", server, what, err)
			}
		}
	}
	if n := accepted.Load(); n != 0 {
		t.Fatalf("the internal server was connected to %d times", n)
	}
	// A cluster config's client does connect (and fails on this server,
	// which closes at once).
	c, err := dns.New(dns.Config{Provider: "rfc2136", Server: l.Addr().String(), KeyName: "tenant", Secret: tenantSecret})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.Get(ctx, "example.test", "www", "A"); err == nil || httpapi.IsTerminal(err) {
		t.Fatalf("a cluster config reading a closing server: want a transient failure, got %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for accepted.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if accepted.Load() == 0 {
		t.Fatal("the cluster config's client never connected")
	}

	// With host patterns and the network allowed, a tenant's read is not
	// refused (the pinned address is not a host name to match against the
	// patterns again); it fails as the closing server makes it fail.
	allowed, err := netguard.New([]string{"localhost"}, []string{"127.0.0.0/8", "::1/128"})
	if err != nil {
		t.Fatal(err)
	}
	c, err = dns.New(dns.Config{Provider: "rfc2136", Server: "localhost:" + port, KeyName: "tenant", Secret: tenantSecret, TLS: httpapi.TLS{Tenant: true, Guard: allowed}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, "example.test", "www", "A"); err == nil || httpapi.IsTerminal(err) {
		t.Fatalf("an allowed tenant server that closes: want a transient failure, got %v", err)
	}
}

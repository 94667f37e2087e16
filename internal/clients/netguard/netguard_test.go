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

package netguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"
)

// TestCheckAddr: by default a namespaced config reaches public addresses
// only; the platform opens internal networks one by one.
func TestCheckAddr(t *testing.T) {
	var strict *Guard
	refused := []string{
		"127.0.0.1", "127.10.0.1", "::1", "169.254.169.254", "fd00:ec2::254", "fe80::1",
		"10.96.0.1", "172.16.5.4", "172.31.255.255", "192.168.1.1", "100.100.100.200",
		"0.0.0.0", "::", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "224.0.0.1", "255.255.255.255",
		"::127.0.0.1", "::ffff:0:7f00:1", "2002:a9fe:a9fe::1", "2002:7f00:1::", "2001:0:4136:e378::1",
		"fec0::1", "100::1", "2001:db8::1", "64:ff9b::a9fe:a9fe", "168.63.129.16",
	}
	// NAT64, 6to4 and Teredo by the IPv4 they lead to: an IPv6-only
	// cluster reaches public IPv4 backends through 64:ff9b::/96.
	refused = append(refused, "64:ff9b::a00:1", "2002:a00:1::1", "2001:0:a00:1::1", "64:ff9b:1::808:808")
	public := []string{"93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111",
		"64:ff9b::808:808", "2002:808:808::1", "2001:0:4136:e378:8000:63bf:f7f7:f7f7"}
	for _, s := range refused {
		var ae *AddressError
		if err := strict.CheckAddr(netip.MustParseAddr(s)); !errors.As(err, &ae) {
			t.Errorf("%s: want refused, got %v", s, err)
		}
	}
	for _, s := range public {
		if err := strict.CheckAddr(netip.MustParseAddr(s)); err != nil {
			t.Errorf("%s: want allowed, got %v", s, err)
		}
	}
	g, err := New(nil, []string{"10.96.0.0/12", "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"10.96.0.1", "127.0.0.1", "::ffff:127.0.0.1"} {
		if err := g.CheckAddr(netip.MustParseAddr(s)); err != nil {
			t.Errorf("%s: allowed by the platform, got %v", s, err)
		}
		// Another guard in the same process keeps its own rule.
		if err := strict.CheckAddr(netip.MustParseAddr(s)); err == nil {
			t.Errorf("%s: the strict guard saw another guard's networks", s)
		}
	}
	for _, s := range []string{"10.0.0.1", "127.0.0.2", "169.254.169.254"} {
		if err := g.CheckAddr(netip.MustParseAddr(s)); err == nil {
			t.Errorf("%s: outside the allowed networks, want refused", s)
		}
	}
	if _, err := New(nil, []string{"not-a-network"}); err == nil {
		t.Error("an invalid network must be refused at start")
	}
}

// TestDialRefusesBeforeConnecting: the check runs on the address actually
// dialled, a name resolving to loopback included, and no connection is
// ever made (the listener accepts nothing).
func TestDialRefusesBeforeConnecting(t *testing.T) {
	strict, err := New(nil, []string{"10.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	accepted := make(chan struct{}, 4)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			_ = c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	for _, addr := range []string{"127.0.0.1:" + port, "localhost:" + port} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c, err := strict.DialContext(ctx, "tcp", addr)
		cancel()
		var ae *AddressError
		if !errors.As(err, &ae) {
			if c != nil {
				_ = c.Close()
			}
			t.Fatalf("%s: want the dial refused, got %v", addr, err)
		}
	}
	// A guard that allows loopback dials it.
	loopback, err := New(nil, []string{"127.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := loopback.DialContext(context.Background(), "tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatalf("a dial the guard allows: %v", err)
	}
	_ = c.Close()
	select {
	case <-accepted:
	case <-time.After(10 * time.Second):
		t.Fatal("the unguarded dial never arrived")
	}
	select {
	case <-accepted:
		t.Fatal("a refused dial reached the server")
	default:
	}
}

// TestCheckHost: the patterns match whole host names, case-insensitively.
func TestCheckHost(t *testing.T) {
	var none *Guard
	if err := none.CheckHost("anything.example"); err != nil {
		t.Fatalf("no patterns: %v", err)
	}
	g, err := New([]string{"*.corp.example"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.CheckHost("Argo.Corp.Example"); err != nil {
		t.Errorf("matching host: %v", err)
	}
	for _, h := range []string{"corp.example.attacker.example", "metadata.google.internal", "127.0.0.1"} {
		var he *HostError
		if err := g.CheckHost(h); !errors.As(err, &he) {
			t.Errorf("%s: want refused, got %v", h, err)
		}
	}
}

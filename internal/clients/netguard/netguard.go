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

// Package netguard decides where the provider may connect on a tenant's
// behalf. A namespaced ProviderConfig names its backends' addresses, and
// the provider connects from inside the cluster with its own network
// position: without a check, a tenant points it at the cluster's internal
// services or the cloud's metadata address and reads parts of their
// answers in a condition. Every connection made for a namespaced config is
// checked when it is dialled, on the address actually dialled (so a name
// that resolves to an internal address, or changes what it resolves to
// between a check and the dial, is caught), against two platform settings:
// the host names such configs may use (--tenant-backend-hosts) and the
// networks they may reach besides the public ones
// (--tenant-backend-networks). ClusterProviderConfigs are the platform's
// and are not limited.
package netguard

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"path"
	"strings"
	"syscall"
	"time"
)

// A Guard is the platform's rule for connections made on a tenant's
// behalf: the host names namespaced configs may use and the internal
// networks they may reach. It never changes once built, so every
// controller holding one sees the same rule and two providers in one
// process (tests) keep theirs apart. A nil Guard is the strictest rule:
// any host name, public addresses only.
type Guard struct {
	hosts    []string
	networks []netip.Prefix
}

// New returns the guard for the host patterns (shell globs matched
// against the host name, e.g. "*.corp.example.com"; none allows any) and
// the networks (CIDRs or addresses, e.g. "10.20.0.0/16" for the
// platform's own Argo CD; none allows public addresses only).
func New(hostPatterns, networks []string) (*Guard, error) {
	h, err := cleanHosts(hostPatterns)
	if err != nil {
		return nil, err
	}
	n, err := cleanNetworks(networks)
	if err != nil {
		return nil, err
	}
	return &Guard{hosts: h, networks: n}, nil
}

// internal are the networks a namespaced config may not reach unless the
// platform allows them: this host, link-local (cloud metadata services
// live at 169.254.169.254 and fd00:ec2::254), the private ranges a
// cluster's pods, services and nodes use, carrier-grade NAT (some
// clouds' metadata and VPC services), and addresses that are no host.
var internal = func() []netip.Prefix { //nolint:gochecknoglobals // read-only table of networks
	list := []string{
		"0.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16",
		"100.64.0.0/10", "192.0.0.0/24", "198.18.0.0/15", "224.0.0.0/4", "240.0.0.0/4",
		// Azure's WireServer, a public address that serves the host.
		"168.63.129.16/32",
		"::/128", "::1/128", "fe80::/10", "fec0::/10", "fc00::/7", "ff00::/8",
		// Deprecated forms that carry an IPv4 address (IPv4-compatible,
		// SIIT-mapped), local-use NAT64 (its IPv4 may sit anywhere), and
		// the discard and documentation prefixes, which are no backend.
		// NAT64, 6to4 and Teredo addresses are checked by the IPv4
		// address they carry (embedded).
		"::/96", "::ffff:0:0:0/96", "64:ff9b:1::/48",
		"100::/64", "2001:db8::/32",
	}
	ps := make([]netip.Prefix, 0, len(list))
	for _, s := range list {
		ps = append(ps, netip.MustParsePrefix(s))
	}
	return ps
}()

func cleanHosts(patterns []string) ([]string, error) {
	clean := make([]string, 0, len(patterns))
	for _, p := range patterns {
		p = strings.ToLower(strings.TrimSpace(p))
		if p == "" {
			continue
		}
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("%q is not a valid host pattern", p)
		}
		clean = append(clean, p)
	}
	return clean, nil
}

func cleanNetworks(cidrs []string) ([]netip.Prefix, error) {
	clean := make([]netip.Prefix, 0, len(cidrs))
	for _, c := range cidrs {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		p, err := netip.ParsePrefix(c)
		if err != nil {
			a, aerr := netip.ParseAddr(c)
			if aerr != nil {
				return nil, fmt.Errorf("%q is not a CIDR or an address", c)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		clean = append(clean, p.Masked())
	}
	return clean, nil
}

// HostsAllowed are the host patterns, for messages.
func (g *Guard) HostsAllowed() []string {
	if g == nil {
		return nil
	}
	return append([]string(nil), g.hosts...)
}

// HostError is a host name the platform does not let tenants use.
type HostError struct {
	Host    string
	Allowed []string
}

func (e *HostError) Error() string {
	return fmt.Sprintf("host %q is not among the backend hosts a namespaced ProviderConfig may name (--tenant-backend-hosts %s): use one of them, or a ClusterProviderConfig", e.Host, strings.Join(e.Allowed, ","))
}

// Terminal is true: the same host is refused until the config changes.
func (e *HostError) Terminal() bool { return true }

// CheckHost refuses a host name (no port) that matches none of the
// guard's host patterns; with none every name passes.
func (g *Guard) CheckHost(host string) error {
	allowed := g.HostsAllowed()
	host = strings.ToLower(strings.Trim(host, "[]"))
	if len(allowed) == 0 {
		return nil
	}
	for _, p := range allowed {
		if ok, _ := path.Match(p, host); ok {
			return nil
		}
	}
	return &HostError{Host: host, Allowed: allowed}
}

// AddressError is an address a namespaced config may not reach.
type AddressError struct{ Addr netip.Addr }

func (e *AddressError) Error() string {
	return fmt.Sprintf("address %s is internal (loopback, link-local, private or reserved): a namespaced ProviderConfig may not reach it unless the platform lists its network in --tenant-backend-networks", e.Addr)
}

// Terminal is true: the address stays refused until the config changes.
func (e *AddressError) Terminal() bool { return true }

// CheckAddr refuses an internal address, unless one of the guard's
// networks holds it.
func (g *Guard) CheckAddr(a netip.Addr) error {
	a = a.Unmap()
	var allowed []netip.Prefix
	if g != nil {
		allowed = g.networks
	}
	for _, p := range allowed {
		if p.Contains(a) {
			return nil
		}
	}
	if a.Zone() != "" {
		return &AddressError{Addr: a}
	}
	if v4s := embedded(a); v4s != nil {
		// Reached through a translator or relay: what counts is the
		// IPv4 address it reaches.
		for _, v4 := range v4s {
			if g.CheckAddr(v4) != nil {
				return &AddressError{Addr: a}
			}
		}
		return nil
	}
	for _, p := range internal {
		if p.Contains(a) {
			return &AddressError{Addr: a}
		}
	}
	return nil
}

//nolint:gochecknoglobals // read-only prefixes
var (
	nat64  = netip.MustParsePrefix("64:ff9b::/96")
	sixTo4 = netip.MustParsePrefix("2002::/16")
	teredo = netip.MustParsePrefix("2001::/32")
)

// embedded returns the IPv4 addresses an IPv6 address of the well-known
// NAT64 prefix (RFC 6052), 6to4 (RFC 3056) or Teredo (RFC 4380: its
// server, and its client, stored inverted) leads to; nil for any other.
func embedded(a netip.Addr) []netip.Addr {
	b := a.As16()
	v4 := func(p []byte) netip.Addr { return netip.AddrFrom4([4]byte(p)) }
	switch {
	case !a.Is6():
		return nil
	case nat64.Contains(a):
		return []netip.Addr{v4(b[12:16])}
	case sixTo4.Contains(a):
		return []netip.Addr{v4(b[2:6])}
	case teredo.Contains(a):
		client := [4]byte{^b[12], ^b[13], ^b[14], ^b[15]}
		return []netip.Addr{v4(b[4:8]), netip.AddrFrom4(client)}
	}
	return nil
}

// control checks the address a socket is about to connect to.
func (g *Guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("refusing to dial %q: not an IP address", address)
	}
	return g.CheckAddr(ap.Addr())
}

// Dialer returns a dialer for connections made for a namespaced config:
// every address it connects to, after name resolution, is checked.
func (g *Guard) Dialer(timeout time.Duration) *net.Dialer {
	return &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Control: g.control}
}

// DialContext dials address for a namespaced config, checking the host
// name and every address tried.
func (g *Guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	if err := g.CheckHost(host); err != nil {
		return nil, err
	}
	return g.Dialer(0).DialContext(ctx, network, address)
}

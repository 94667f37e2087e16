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

package backendconfig

import (
	"net"
	"net/url"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/netguard"
)

// NewGuard returns the platform's rule for namespaced ProviderConfigs,
// from the provider's flags: the backend hosts they may name (shell globs
// matched against the host name, e.g. "*.corp.example.com"; none allows
// any host whose addresses are public) and the internal networks
// (loopback, link-local, private, reserved) they may reach (none: public
// addresses only). Every connection made for them is checked when it is
// dialled. ClusterProviderConfigs are never limited: only the platform
// team writes them.
func NewGuard(hosts, networks []string) (*netguard.Guard, error) {
	if _, err := netguard.New(hosts, nil); err != nil {
		return nil, errors.Wrap(err, "--tenant-backend-hosts")
	}
	g, err := netguard.New(hosts, networks)
	return g, errors.Wrap(err, "--tenant-backend-networks")
}

// checkTenantHost refuses an endpoint (a URL or host:port) of a namespaced
// config whose host matches none of the allowed patterns: early, with the
// field to fix. Connections are checked again when dialled.
func checkTenantHost(g *netguard.Guard, where, endpoint string) error {
	if endpoint == "" {
		return nil
	}
	return errors.Wrap(g.CheckHost(hostOf(endpoint)), where)
}

// hostOf is the lower-case host name of a URL or host:port.
func hostOf(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil && u.Host != "" {
		return strings.ToLower(u.Hostname())
	}
	if h, _, err := net.SplitHostPort(endpoint); err == nil {
		return strings.ToLower(strings.Trim(h, "[]"))
	}
	return strings.ToLower(endpoint)
}

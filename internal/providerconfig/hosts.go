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

package providerconfig

import (
	"net"
	"net/url"
	"path"
	"strings"
	"sync"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

const errFmtHostNotAllowed = "%s: host %q is not among the backend hosts a namespaced ProviderConfig may name (--tenant-backend-hosts %s): use one of them, or a ClusterProviderConfig"

var (
	tenantHostsMu sync.RWMutex
	tenantHosts   []string
)

// SetTenantHosts limits the backend hosts a namespaced ProviderConfig may
// point the provider at to those matching one of patterns (shell globs
// matched against the host name, e.g. "*.corp.example.com"). With none, the
// default, any host is allowed. ClusterProviderConfigs are never limited:
// only the platform team writes them.
func SetTenantHosts(patterns []string) error {
	clean := make([]string, 0, len(patterns))
	for _, p := range patterns {
		p = strings.ToLower(strings.TrimSpace(p))
		if p == "" {
			continue
		}
		if _, err := path.Match(p, ""); err != nil {
			return errors.Errorf("--tenant-backend-hosts: %q is not a valid host pattern", p)
		}
		clean = append(clean, p)
	}
	tenantHostsMu.Lock()
	defer tenantHostsMu.Unlock()
	tenantHosts = clean
	return nil
}

// checkTenantHost refuses an endpoint (a URL or host:port) of a namespaced
// config whose host matches none of the allowed patterns.
func checkTenantHost(where, endpoint string) error {
	tenantHostsMu.RLock()
	allowed := tenantHosts
	tenantHostsMu.RUnlock()
	if len(allowed) == 0 || endpoint == "" {
		return nil
	}
	host := hostOf(endpoint)
	for _, p := range allowed {
		if ok, _ := path.Match(p, host); ok {
			return nil
		}
	}
	return errors.Errorf(errFmtHostNotAllowed, where, host, strings.Join(allowed, ","))
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

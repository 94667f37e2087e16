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
	"encoding/base64"
	"strings"
	"time"

	"github.com/libdns/libdns"
	"github.com/libdns/rfc2136"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/dns/godaddy"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

// The DNS backends: libdns providers (GoDaddy, RFC 2136), chosen by
// Config. What the client does with records is in client.go; who owns a
// record set, in registry.go.

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
	// TLS is how a REST provider's certificate is verified, and whether
	// a namespaced config names the server (TLS.Tenant): then every
	// provider's connections are checked, RFC 2136's too.
	TLS httpapi.TLS
	// Share is who the zone cache counts this client's reads against:
	// the namespace of the resource that reads ("" counts them against
	// the credentials), so that one tenant's configs together take at
	// most one share.
	Share string
	// Transports is the controller's pool of HTTP transports for REST
	// providers (connections reused across reconciles); nil: one of their
	// own.
	Transports *httpapi.Transports
	// Cache holds the zone reads GetCached shares with the other clients
	// made with it; nil: GetCached reads every time.
	Cache *ZoneCache
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
var backends = map[string]backend{ //nolint:gochecknoglobals // read-only table of providers
	"rfc2136": {new: func(c Config) (Provider, error) {
		if _, err := base64.StdEncoding.DecodeString(c.Secret); err != nil || c.Secret == "" {
			return nil, errors.New("the RFC 2136 TSIG secret must be base64, as tsig-keygen prints it")
		}
		alg := c.KeyAlgorithm
		if alg == "" {
			alg = "hmac-sha256"
		}
		return &rfc2136Provider{Provider: &rfc2136.Provider{Server: c.Server, KeyName: c.KeyName, KeyAlg: alg, Key: c.Secret}, maxRecords: MaxZoneRecords, maxBytes: MaxZoneBytes, tenant: c.TLS.Tenant, guard: c.TLS.Guard}, nil
	}, atomic: true},
	"godaddy": {new: func(c Config) (Provider, error) {
		k, s, ok := strings.Cut(strings.TrimSpace(c.Secret), ":")
		if !ok || k == "" || s == "" {
			return nil, errors.New(`the GoDaddy credentials must be "key:secret"`)
		}
		hc, err := httpapi.NewClient(httpapi.Options{Backend: "GoDaddy", Section: "dns", TLS: c.TLS, Transports: c.Transports})
		if err != nil {
			return nil, err
		}
		return &godaddy.Provider{URL: c.URL, Key: k, Secret: s, HTTP: hc}, nil
	}, minTTL: 600 * time.Second},
}

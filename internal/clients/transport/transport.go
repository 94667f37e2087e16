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

// Package transport hands out HTTP transports shared by every client with
// the same TLS settings. Clients are built per reconcile; a transport per
// client would open new connections on every poll and leave idle ones
// behind, so they share pooled connections instead.
package transport

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"sync"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// ErrBadCA is returned for a CA bundle without a PEM certificate.
var ErrBadCA = errors.New("the CA bundle holds no PEM certificate")

type key struct {
	insecure bool
	ca       [sha256.Size]byte
}

var shared sync.Map // key -> *http.Transport

// Shared returns the transport for TLS verification off (insecure) or
// against caPEM (nil: the system roots).
func Shared(insecure bool, caPEM []byte) (http.RoundTripper, error) {
	k := key{insecure: insecure}
	if len(caPEM) > 0 {
		k.ca = sha256.Sum256(caPEM)
	}
	if rt, ok := shared.Load(k); ok {
		return rt.(http.RoundTripper), nil
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: insecure} //nolint:gosec // explicit user choice
	if len(caPEM) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caPEM) {
			return nil, ErrBadCA
		}
		tr.TLSClientConfig.RootCAs = pool
	}
	rt, _ := shared.LoadOrStore(k, tr)
	return rt.(http.RoundTripper), nil
}

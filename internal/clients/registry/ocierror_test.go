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

package registry

import (
	"crypto/x509"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

// TestOCIError: go-containerregistry's errors become the same
// *httpapi.Error every client returns, classified the same way. (A real
// registry behind a private CA cannot be shown on loopback: the library
// falls back to plain HTTP for loopback registries.)
func TestOCIError(t *testing.T) {
	cases := map[string]struct {
		reason               string
		err                  error
		transient, terminal  bool
		status               int
		contains, notContain string
	}{
		"UnknownAuthority": {
			reason:   "A certificate a private CA signs is terminal and names caBundle.",
			err:      &url.Error{Op: "Get", URL: "https://u:secret@registry.example.com/v2/", Err: x509.UnknownAuthorityError{}},
			terminal: true, contains: "set caBundle in the ProviderConfig's registry section", notContain: "secret",
		},
		"Refused": {
			reason:    "A registry that does not answer is transient.",
			err:       &url.Error{Op: "Get", URL: "https://registry.example.com/v2/", Err: &httpapi.Error{Backend: ociBackend, Message: "connection refused"}},
			transient: true,
		},
		"BodyTooLarge": {
			reason:   "A tag list page past httpapi.MaxResponseBody is the provider's own bound: terminal, not a registry that went unreached.",
			err:      &httpapi.BodyTooLargeError{Backend: ociBackend, Max: httpapi.MaxResponseBody},
			terminal: true, contains: "more than 32 MiB",
		},
		"Answered": {
			reason:   "The registry's own answer keeps its status.",
			err:      &transport.Error{StatusCode: http.StatusUnauthorized},
			terminal: true, status: http.StatusUnauthorized,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := ociError(tc.err)
			if httpapi.IsTransient(err) != tc.transient || httpapi.IsTerminal(err) != tc.terminal || httpapi.StatusOf(err) != tc.status {
				t.Errorf("%s: got %v (transient %v, terminal %v, status %d)", tc.reason, err, httpapi.IsTransient(err), httpapi.IsTerminal(err), httpapi.StatusOf(err))
			}
			if tc.contains != "" && !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("%s: the message should say %q: %v", tc.reason, tc.contains, err)
			}
			if tc.notContain != "" && strings.Contains(err.Error(), tc.notContain) {
				t.Errorf("%s: the message leaks %q: %v", tc.reason, tc.notContain, err)
			}
		})
	}
}

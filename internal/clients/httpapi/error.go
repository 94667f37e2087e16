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

package httpapi

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/netguard"
	"github.com/freeleaps/provider-devops/internal/clients/retryafter"
)

// maxErrorBody is how much of an error answer is read.
const maxErrorBody = 16 << 10

// Error is a request a backend refused (Status is its HTTP status) or did
// not answer (Status 0). Its message says what to fix without logs, and
// never holds a credential.
type Error struct {
	// Backend names the server: "Argo CD", "Jenkins", "Docker Hub".
	Backend string
	// Section is the ProviderConfig section that configures it.
	Section string
	Status  int
	// Code is the backend's own error code when it sent one (Argo CD's
	// gRPC code, GoDaddy's code).
	Code    string
	Message string
	// RetryAfter is the wait a 429 or 503 asked for.
	RetryAfter time.Duration
	// Unavailable marks a 4xx answer that reports an outage behind the
	// backend (Argo CD refuses a spec while its repo server is down):
	// transient, not the spec's fault.
	Unavailable bool
	// Denied says what access a 403 lacks, for this backend.
	Denied string
	// Untrusted marks a server whose certificate did not verify: a
	// configuration to fix (caBundle), not an outage to wait out.
	Untrusted bool
	// Refused marks a request the provider would not make: a redirect to
	// another server, or an address or host a namespaced ProviderConfig
	// may not reach. A configuration to fix.
	Refused bool
}

func (e *Error) Error() string {
	switch {
	case e.Refused:
		return fmt.Sprintf("refused to call %s: %s", e.Backend, e.Message)
	case e.Untrusted:
		return fmt.Sprintf("cannot verify %s's certificate: %s", e.Backend, e.Message)
	case e.Status == 0:
		return "cannot reach " + e.Backend + ": " + e.Message
	}
	switch e.Status {
	case http.StatusUnauthorized:
		return fmt.Sprintf("%s rejected the credentials (401 Unauthorized): check the ProviderConfig's %s credentials: %s", e.Backend, e.Section, e.Message)
	case http.StatusForbidden:
		denied := e.Denied
		if denied == "" {
			denied = "the credentials may not do this"
		}
		return fmt.Sprintf("%s denied the request (403 Forbidden): %s: %s", e.Backend, denied, e.Message)
	case http.StatusTooManyRequests:
		msg := e.Backend + " is rate limiting (429)"
		if e.RetryAfter > 0 {
			msg += fmt.Sprintf("; retry after %s", e.RetryAfter)
		}
		return msg + ": " + e.Message
	default:
		return fmt.Sprintf("%s answered %d: %s", e.Backend, e.Status, e.Message)
	}
}

// Transient is true for failures worth retrying soon: no answer, 429, 5xx,
// or an outage behind the backend.
func (e *Error) Transient() bool {
	return (e.Status == 0 && !e.Untrusted && !e.Refused) || e.Status == http.StatusTooManyRequests || e.Status >= 500 || e.Unavailable
}

// Terminal is true for answers the same request will get again until
// someone changes the credentials, the backend's permissions, the
// configuration or the spec.
func (e *Error) Terminal() bool {
	if e.Untrusted || e.Refused {
		return true
	}
	if e.Unavailable {
		return false
	}
	switch e.Status {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity:
		return true
	}
	return false
}

// FromResponse reads a failed answer into an Error. message extracts the
// backend's message from the body ("" when it has none: the status text
// is used); nil keeps no body, for backends that answer HTML.
func FromResponse(resp *http.Response, o Options, message func(body []byte) string) *Error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := &Error{Backend: o.Backend, Section: o.Section, Status: resp.StatusCode}
	if message != nil {
		e.Message = message(b)
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		e.RetryAfter = min(retryafter.Parse(resp.Header.Get("Retry-After"), time.Now()), retryafter.MaxWait)
	}
	return e
}

// Unreached turns a transport failure into an Error with Status 0, keeping
// an Error the transport returned (a gate holding the request) and a
// cancellation as they are. Userinfo in a URL is never kept.
func Unreached(err error, o Options) error {
	var e *Error
	if errors.As(err, &e) {
		// Held by the gate: the Error itself, not the *url.Error around it
		// (whose URL may carry userinfo).
		return e
	}
	if canceled(err) {
		return err
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var (
		badAddr *netguard.AddressError
		badHost *netguard.HostError
	)
	// Both say what the platform allows; neither carries an answer.
	switch {
	case errors.As(err, &badAddr):
		return &Error{Backend: o.Backend, Section: o.Section, Refused: true, Message: "spec." + o.Section + ": " + badAddr.Error()}
	case errors.As(err, &badHost):
		return &Error{Backend: o.Backend, Section: o.Section, Refused: true, Message: "spec." + o.Section + ": " + badHost.Error()}
	}
	var (
		verify *tls.CertificateVerificationError
		ua     x509.UnknownAuthorityError
		host   x509.HostnameError
		inval  x509.CertificateInvalidError
	)
	e = &Error{Backend: o.Backend, Section: o.Section, Message: Redact(err.Error())}
	switch {
	case errors.As(err, &host):
		e.Untrusted, e.Message = true, "the certificate is not for this host: check the url in the ProviderConfig's "+o.Section+" section: "+e.Message
	case errors.As(err, &inval):
		e.Untrusted, e.Message = true, "the certificate is not valid (expired, not yet valid or not for serving): renew it on the server: "+e.Message
	case errors.As(err, &ua), errors.As(err, &verify):
		e.Untrusted, e.Message = true, "set caBundle in the ProviderConfig's "+o.Section+" section to the CA that signs it: "+e.Message
	}
	return e
}

// userinfo matches the user:password@ of a URL.
// It runs to the last "@" before the path, as url.Parse splits, so a
// password holding "@" is hidden whole.
var userinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/\s"']*@`)

// Redact hides the userinfo part of any URL in s.
func Redact(s string) string { return userinfo.ReplaceAllString(s, "${1}***@") }

// StatusOf is the HTTP status of err, 0 when it carries none.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// IsNotFound is true for a 404.
func IsNotFound(err error) bool { return StatusOf(err) == http.StatusNotFound }

// RetryAfter is the wait err asked for, or 0.
func RetryAfter(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}

// transient and terminal are what IsTransient and IsTerminal read: an
// *Error, or another client's classified error (DNS over RFC 2136).
type (
	transient interface{ Transient() bool }
	terminal  interface{ Terminal() bool }
)

// IsTransient is true for a failure worth retrying soon.
func IsTransient(err error) bool {
	var t transient
	return errors.As(err, &t) && t.Transient()
}

// IsTerminal is true for a failure retrying cannot fix until something
// changes: the reconciler backs off long and says so.
func IsTerminal(err error) bool {
	var t terminal
	return errors.As(err, &t) && t.Terminal()
}

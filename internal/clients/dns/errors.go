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
	"context"
	"net"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/netguard"
)

// Error is a failed DNS provider call, classified for the reconciler
// (httpapi.IsTransient, httpapi.IsTerminal).
type Error struct {
	msg                 string
	transient, terminal bool
	cause               error
}

func (e *Error) Error() string { return e.msg }

// Unwrap is the provider's error: a GoDaddy answer's status and
// Retry-After stay readable (httpapi.StatusOf, httpapi.RetryAfter).
func (e *Error) Unwrap() error { return e.cause }

// Transient is true for failures worth retrying soon: timeouts, refused
// connections, SERVFAIL, HTTP 5xx/429.
func (e *Error) Transient() bool { return e.transient }

// Terminal is true when the server refused the key or the update: only a
// change of the ProviderConfig, the key's rights or the spec helps.
func (e *Error) Terminal() bool { return e.terminal }

// classify turns a provider error into a message a user can act on. The
// GoDaddy provider returns *httpapi.Error; libdns/rfc2136 returns plain
// errors, so for it this reads their text: TSIG and rcode answers.
func classify(err error, what string) error {
	text := err.Error()
	e := &Error{msg: what + ": " + text, cause: err}
	var ne net.Error
	var he *httpapi.Error
	var big errZoneTooLarge
	var raced errRaced
	var mine *Error
	var addr *netguard.AddressError
	switch {
	case errors.As(err, &raced):
		// Read again at once: the next observation says whose it is.
		e.transient = true
	case errors.As(err, &big):
		e.terminal = true
	case errors.As(err, &he):
		e.transient, e.terminal = he.Transient(), he.Terminal()
	case errors.As(err, &mine) && mine.terminal:
		// Refused before any I/O (guard.go): kept as said.
		e.terminal = true
	case errors.As(err, &addr):
		// A namespaced config's name server dialled at an internal address.
		e.terminal = true
		e.msg = what + ": refused to reach the DNS server: " + addr.Error()
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne), strings.Contains(text, "connection refused"), strings.Contains(text, "i/o timeout"):
		e.transient = true
		e.msg = what + ": cannot reach the DNS server: " + text
	case strings.Contains(text, "bad authentication"), strings.Contains(text, "NOTAUTH"), strings.Contains(text, "BADSIG"), strings.Contains(text, "BADKEY"), strings.Contains(text, "signature"), strings.Contains(text, "bad xfr rcode: 9"):
		e.terminal = true
		e.msg = what + ": the DNS server rejected the TSIG key: check keyName, keyAlgorithm and the secret in the ProviderConfig's dns section (" + text + ")"
	case strings.Contains(text, "REFUSED"), strings.Contains(text, "bad xfr rcode: 5"):
		e.terminal = true
		e.msg = what + ": the DNS server refused: the key may not update or transfer this zone, or the zone is not served there (" + text + ")"
	case strings.Contains(text, "SERVFAIL"):
		e.transient = true
	}
	return e
}

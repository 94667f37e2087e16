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

package jenkins

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/retryafter"
)

const maxErrorBody = 4096

// APIError is a failed Jenkins request: an HTTP error status, or a transport
// failure (StatusCode 0).
type APIError struct {
	StatusCode int
	// Message is Jenkins' X-Error header when it sent one (createItem does),
	// otherwise the status text. Jenkins' HTML error pages are not kept.
	Message string
	// RetryAfter is set from a 429 or 503 Retry-After header.
	RetryAfter time.Duration
	// Transient marks failures worth retrying: refused connections,
	// timeouts, 5xx, 429.
	Transient bool
}

func (e *APIError) Error() string {
	switch e.StatusCode {
	case 0:
		return "cannot reach Jenkins: " + e.Message
	case http.StatusUnauthorized:
		return "Jenkins rejected the credentials (401 Unauthorized): check the username and API token in the ProviderConfig's jenkins credentials"
	case http.StatusForbidden:
		return "Jenkins denied the request (403 Forbidden): the user needs Overall/Read and Job/Create, Configure, Read, Build and Delete: " + e.Message
	default:
		return fmt.Sprintf("Jenkins answered %d: %s", e.StatusCode, e.Message)
	}
}

// IsNotFound is true when the job (or its folder) does not exist.
func IsNotFound(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.StatusCode == http.StatusNotFound
}

// IsAlreadyExists is true when createItem found an item of that name.
func IsAlreadyExists(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.StatusCode == http.StatusBadRequest && strings.Contains(e.Message, "already exists")
}

// IsTransient is true for failures worth retrying with back-off.
func IsTransient(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.Transient
}

// RetryAfter is how long Jenkins asked the client to wait, or 0.
func RetryAfter(err error) time.Duration {
	var e *APIError
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}

// transport turns every HTTP error status into an *APIError before gojenkins
// sees the response. gojenkins reads bodies of failed requests as if they
// were answers (a 404 config.xml comes back as an HTML "config"), so the
// status has to be checked here, once, for every call.
//
// It also answers the crumb request itself: with API-token authentication
// Jenkins needs no crumb (2.96+), and gojenkins fetches one before every POST
// and dereferences a nil response when that fetch fails.
//
// And with a gate it keeps away from a server that answered 429/503 with
// Retry-After until the time it asked for.
type transport struct {
	next http.RoundTripper
	gate *retryafter.Gate
}

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	// gojenkins asks for /crumbIssuer/api/json/api/json (it appends the
	// suffix twice); match the issuer, not the exact path.
	if strings.Contains(req.URL.Path, "/crumbIssuer/") {
		return &http.Response{StatusCode: http.StatusNotFound, Status: "404 Not Found", Header: http.Header{}, Body: io.NopCloser(strings.NewReader("{}")), Request: req}, nil
	}
	if err := t.gate.Check("Jenkins", req.URL.Host); err != nil {
		return nil, err
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, err
		}
		return nil, &APIError{Message: err.Error(), Transient: true}
	}
	if resp.StatusCode < 400 {
		return resp, nil
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	e := &APIError{StatusCode: resp.StatusCode, Message: resp.Header.Get("X-Error")}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		e.Transient = true
		e.RetryAfter = retryafter.Parse(resp.Header.Get("Retry-After"), time.Now())
	}
	t.gate.Note(req.URL.Host, e, RetryAfter)
	return nil, e
}

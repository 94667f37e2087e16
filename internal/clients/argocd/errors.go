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

package argocd

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/freeleaps/provider-devops/internal/clients/retryafter"
)

// gRPC status codes Argo CD's grpc-gateway puts in error bodies.
const (
	codeInvalidArgument  = 3
	codeNotFound         = 5
	codeAlreadyExists    = 6
	codePermissionDenied = 7
	codeUnauthenticated  = 16
)

// APIError is an error answered by Argo CD (grpc-gateway body
// {"error", "code", "message"}) or a transport failure.
type APIError struct {
	StatusCode int
	Code       int
	Message    string
	// RetryAfter is set from a 429 or 503 Retry-After header.
	RetryAfter time.Duration
	// Transient marks failures worth retrying: timeouts, refused
	// connections, 5xx, 429.
	Transient bool
}

func (e *APIError) Error() string {
	switch {
	case e.StatusCode == 0:
		return "cannot reach Argo CD: " + e.Message
	case e.StatusCode == http.StatusUnauthorized:
		return "Argo CD rejected the token (401 Unauthorized): check the ProviderConfig's argocd credentials: " + e.Message
	case e.StatusCode == http.StatusForbidden:
		return "Argo CD denied the request (403 PermissionDenied): grant the token's account access in Argo CD RBAC: " + e.Message
	default:
		return fmt.Sprintf("Argo CD answered %d: %s", e.StatusCode, e.Message)
	}
}

// IsNotFound is true for an application that does not exist.
func IsNotFound(err error) bool {
	var e *APIError
	return errors.As(err, &e) && (e.StatusCode == http.StatusNotFound || e.Code == codeNotFound)
}

// IsAlreadyExists is true when a create found an object of that name.
func IsAlreadyExists(err error) bool {
	var e *APIError
	return errors.As(err, &e) && (e.StatusCode == http.StatusConflict || e.Code == codeAlreadyExists ||
		(e.Code == codeInvalidArgument && containsExisting(e.Message)))
}

// IsTransient is true for failures worth retrying with back-off.
func IsTransient(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.Transient
}

// Argo CD reports a create of an existing app, project or repository with a
// different spec as InvalidArgument "existing <kind> spec is different, use
// upsert flag".
func containsExisting(msg string) bool {
	return (strings.Contains(msg, "existing ") && strings.Contains(msg, " spec is different")) || strings.Contains(msg, "already exists")
}

func decodeError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := &APIError{StatusCode: resp.StatusCode}
	var body struct {
		Error   string `json:"error"`
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(b, &body) == nil && (body.Message != "" || body.Error != "") {
		e.Code, e.Message = body.Code, body.Message
		if e.Message == "" {
			e.Message = body.Error
		}
	} else {
		e.Message = http.StatusText(resp.StatusCode)
	}
	// Argo CD validates a spec against its repo server and reports the repo
	// server being down as an InvalidSpecError (400) that quotes the gRPC
	// status: that is an outage to wait out, not a bad spec.
	if strings.Contains(e.Message, "code = Unavailable") || strings.Contains(e.Message, "code = DeadlineExceeded") {
		e.Transient = true
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		e.Transient = true
		e.RetryAfter = retryafter.Parse(resp.Header.Get("Retry-After"), time.Now())
	}
	return e
}

// RetryAfter is how long Argo CD asked the client to wait, or 0.
func RetryAfter(err error) time.Duration {
	var e *APIError
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}

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
	"net/http"
	"strconv"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

// gRPC status codes Argo CD's grpc-gateway puts in error bodies.
const (
	codeInvalidArgument = "3"
	codeNotFound        = "5"
	codeAlreadyExists   = "6"
)

// api names Argo CD in errors, and what a 403 lacks.
var api = httpapi.Options{Backend: "Argo CD", Section: "argocd"} //nolint:gochecknoglobals // read-only names for errors, copied before use

const denied = "grant the token's account access in Argo CD RBAC"

// IsNotFound is true for an object that does not exist.
func IsNotFound(err error) bool {
	var e *httpapi.Error
	return errors.As(err, &e) && (e.Status == http.StatusNotFound || e.Code == codeNotFound)
}

// IsAlreadyExists is true when a create found an object of that name.
func IsAlreadyExists(err error) bool {
	var e *httpapi.Error
	return errors.As(err, &e) && (e.Status == http.StatusConflict || e.Code == codeAlreadyExists ||
		(e.Code == codeInvalidArgument && containsExisting(e.Message)))
}

// Argo CD reports a create of an existing app, project or repository with a
// different spec as InvalidArgument "existing <kind> spec is different, use
// upsert flag".
func containsExisting(msg string) bool {
	return (strings.Contains(msg, "existing ") && strings.Contains(msg, " spec is different")) || strings.Contains(msg, "already exists")
}

// notFound is the error of an object a list did not hold.
func notFound(msg string) error {
	return &httpapi.Error{Backend: api.Backend, Section: api.Section, Status: http.StatusNotFound, Code: codeNotFound, Message: msg}
}

// decodeError reads grpc-gateway's body {"error", "code", "message"}.
func decodeError(resp *http.Response) error {
	var code string
	e := httpapi.FromResponse(resp, api, func(b []byte) string {
		var body struct {
			Error   string `json:"error"`
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if json.Unmarshal(b, &body) != nil {
			return ""
		}
		if body.Code != 0 {
			code = strconv.Itoa(body.Code)
		}
		if body.Message != "" {
			return body.Message
		}
		return body.Error
	})
	e.Code, e.Denied = code, denied
	// Argo CD validates a spec against its repo server and reports the repo
	// server being down as an InvalidSpecError (400) that quotes the gRPC
	// status: that is an outage to wait out, not a bad spec.
	e.Unavailable = strings.Contains(e.Message, "code = Unavailable") || strings.Contains(e.Message, "code = DeadlineExceeded") ||
		// A project delete answered while its applications are still
		// being deleted: it passes by itself.
		strings.Contains(e.Message, "is referenced by")
	return e
}

// IsNoOperation is true for a terminate asked while no operation runs.
func IsNoOperation(err error) bool {
	var e *httpapi.Error
	return errors.As(err, &e) && strings.Contains(e.Message, "No operation is in progress")
}

// IsOperationInProgress is true for a sync refused because another
// operation runs: it can be asked again once that one ends.
func IsOperationInProgress(err error) bool {
	var e *httpapi.Error
	return errors.As(err, &e) && strings.Contains(e.Message, "another operation is already in progress")
}

// IsAutoSyncRevision is true for a sync to a revision refused because the
// application syncs itself automatically to another (its target revision).
func IsAutoSyncRevision(err error) bool {
	var e *httpapi.Error
	return errors.As(err, &e) && strings.Contains(e.Message, "auto-sync currently set to")
}

// IsInvalidArgument is true for a request Argo CD refused as invalid: a
// revision it cannot resolve, a spec it cannot render.
func IsInvalidArgument(err error) bool {
	var e *httpapi.Error
	return errors.As(err, &e) && (e.Code == codeInvalidArgument || e.Status == http.StatusBadRequest) && !e.Unavailable
}

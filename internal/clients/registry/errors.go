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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/retryafter"
)

// APIError is a failed registry call.
type APIError struct {
	// Registry names the API: "Docker Hub", "Harbor", "the registry".
	Registry string
	// Status is the HTTP status; 0 when the server was not reached.
	Status  int
	Message string
	// RetryAfter is the wait a 429 or 503 asked for.
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	switch e.Status {
	case 0:
		return "cannot reach " + e.Registry + ": " + e.Message
	case http.StatusUnauthorized:
		return e.Registry + " rejected the credentials (401): check the ProviderConfig's registry credentials: " + e.Message
	case http.StatusForbidden:
		return e.Registry + " denied the request (403): the account may not manage this namespace: " + e.Message
	case http.StatusTooManyRequests:
		msg := e.Registry + " is rate limiting (429)"
		if e.RetryAfter > 0 {
			msg += fmt.Sprintf("; retry after %s", e.RetryAfter)
		}
		return msg + ": " + e.Message
	default:
		return fmt.Sprintf("%s answered %d: %s", e.Registry, e.Status, e.Message)
	}
}

// IsNotFound is true for a 404.
func IsNotFound(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.Status == http.StatusNotFound
}

// IsConflict is true for a 409 (or Docker Hub's 400 "already exists").
func IsConflict(err error) bool {
	var e *APIError
	return errors.As(err, &e) && (e.Status == http.StatusConflict ||
		(e.Status == http.StatusBadRequest && strings.Contains(strings.ToLower(e.Message), "already exists")))
}

// IsTransient is true for failures worth retrying: no answer, 429, 5xx.
func IsTransient(err error) bool {
	var e *APIError
	return errors.As(err, &e) && (e.Status == 0 || e.Status == http.StatusTooManyRequests || e.Status >= 500)
}

func retryAfterOf(err error) time.Duration {
	var e *APIError
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}

// rest is a JSON API at base.
type rest struct {
	name string // for messages: "Docker Hub", "Harbor"
	base string
	http *http.Client
	gate *retryafter.Gate
	// message reads the API's error body.
	message func([]byte) string
}

// do sends one request with the headers of auth and decodes a JSON answer
// into out. It never puts credentials in an error.
func (r *rest) do(ctx context.Context, method, path string, auth func(*http.Request), in, out any) error {
	if err := r.gate.Check(r.name, r.base); err != nil {
		return &APIError{Registry: r.name, Status: http.StatusTooManyRequests, Message: err.Error()}
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth != nil {
		auth(req)
	}
	resp, err := r.http.Do(req)
	if err != nil {
		return &APIError{Registry: r.name, Message: redactURL(err.Error())}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return &APIError{Registry: r.name, Message: err.Error()}
	}
	if resp.StatusCode >= 300 {
		e := &APIError{Registry: r.name, Status: resp.StatusCode, Message: r.message(data)}
		if e.Message == "" {
			e.Message = http.StatusText(resp.StatusCode)
		}
		e.RetryAfter = retryafter.Parse(resp.Header.Get("Retry-After"), time.Now())
		r.gate.Note(r.base, e, retryAfterOf)
		return e
	}
	if out != nil && len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return errors.Wrapf(err, "cannot decode %s's answer to %s %s", r.name, method, path)
		}
	}
	return nil
}

// redactURL keeps a transport error's text but never a userinfo part.
func redactURL(s string) string {
	if i := strings.Index(s, "@"); i >= 0 {
		if j := strings.Index(s, "://"); j >= 0 && j < i {
			return s[:j+3] + "***" + s[i:]
		}
	}
	return s
}

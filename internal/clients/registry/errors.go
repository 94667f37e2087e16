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
	"io"
	"net/http"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

const denied = "the account may not manage this namespace"

// IsNotFound is true for a 404.
func IsNotFound(err error) bool { return httpapi.IsNotFound(err) }

// IsConflict is true for a 409 (or Docker Hub's 400 "already exists").
func IsConflict(err error) bool {
	var e *httpapi.Error
	return errors.As(err, &e) && (e.Status == http.StatusConflict ||
		(e.Status == http.StatusBadRequest && strings.Contains(strings.ToLower(e.Message), "already exists")))
}

// section is the ProviderConfig section that configures registries.
const section = "registry"

// rest is a JSON API at base.
type rest struct {
	api  httpapi.Options // names the API in errors: "Docker Hub", "Harbor"
	base string
	http *http.Client
	// message reads the API's error body.
	message func([]byte) string
}

// newREST returns the API at base, named backend, configured by c.
func newREST(backend, base string, c Config, message func([]byte) string) (rest, error) {
	names := httpapi.Options{Backend: backend, Section: section}
	o := names
	o.TLS, o.Gate, o.Transports, o.Identity = c.TLS, c.RetryAfter, c.Transports, c.Username+"\x00"+c.Password
	hc, err := httpapi.NewClient(o)
	return rest{api: names, base: base, http: hc, message: message}, err
}

// do sends one request with the headers of auth and decodes a JSON answer
// into out. It never puts credentials in an error.
func (r *rest) do(ctx context.Context, method, path string, auth func(*http.Request), in, out any) error {
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
		return httpapi.Unreached(err, r.api)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		e := httpapi.FromResponse(resp, r.api, r.message)
		e.Denied = denied
		return e
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return httpapi.Unreached(err, r.api)
	}
	if out != nil && len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return errors.Wrapf(err, "cannot decode %s's answer to %s %s", r.api.Backend, method, path)
		}
	}
	return nil
}

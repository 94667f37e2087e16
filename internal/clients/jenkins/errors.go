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
	"net/http"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

const maxErrorBody = 4096

// api names Jenkins in errors.
var api = httpapi.Options{Backend: "Jenkins", Section: "jenkins"} //nolint:gochecknoglobals // read-only names for errors, copied before use

const denied = "the user needs Overall/Read and Job/Create, Configure, Read, Build and Delete"

// IsNotFound is true when the job (or its folder) does not exist.
func IsNotFound(err error) bool { return httpapi.IsNotFound(err) }

// IsAlreadyExists is true when createItem found an item of that name.
func IsAlreadyExists(err error) bool {
	var e *httpapi.Error
	return errors.As(err, &e) && e.Status == http.StatusBadRequest && strings.Contains(e.Message, "already exists")
}

// transport turns every HTTP error status into an *httpapi.Error, once,
// for every call: Jenkins answers failures with HTML pages, which are
// never read as answers.
type transport struct {
	next http.RoundTripper
}

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, err
		}
		return nil, httpapi.Unreached(err, api)
	}
	if resp.StatusCode < 400 {
		return resp, nil
	}
	defer func() { _ = resp.Body.Close() }()
	// Jenkins' HTML error pages are not kept; createItem says what went
	// wrong in its X-Error header.
	e := httpapi.FromResponse(resp, api, func([]byte) string { return resp.Header.Get("X-Error") })
	e.Denied = denied
	return nil, e
}

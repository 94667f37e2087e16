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

package argocd_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	fake "github.com/freeleaps/provider-devops/internal/testing/fakeargocd"
)

const token = "argocd-token-never-printed"

// The fake stands in only for what a real Argo CD cannot be made to do on
// demand (429 with Retry-After, 503, a refused connection); everything else
// is tested against the real server (real_test.go).
func TestClientFaults(t *testing.T) {
	srv := fake.New(token)
	defer srv.Close()
	ctx := context.Background()

	c, _ := argocd.New(argocd.Config{URL: srv.URL, Token: token})
	srv.FailNext(1, http.StatusTooManyRequests, 7)
	_, err := c.Get(ctx, "x")
	if !httpapi.IsTransient(err) || httpapi.RetryAfter(err) != 7*time.Second {
		t.Errorf("429: want transient with Retry-After 7s, got %#v", err)
	}
	srv.FailNext(1, http.StatusServiceUnavailable, 0)
	if _, err := c.Get(ctx, "x"); !httpapi.IsTransient(err) {
		t.Errorf("503: want transient, got %v", err)
	}

	srv.Close()
	_, err = c.Get(ctx, "x")
	if !httpapi.IsTransient(err) || !strings.Contains(err.Error(), "cannot reach Argo CD") {
		t.Errorf("connection refused: want transient 'cannot reach', got %v", err)
	}
	for _, e := range []error{err} {
		if strings.Contains(e.Error(), token) {
			t.Errorf("error leaks the token: %v", e)
		}
	}

	if _, err := argocd.New(argocd.Config{URL: "argocd.example.com", Token: token}); err == nil {
		t.Error("a URL without scheme must be refused")
	}
	if _, err := argocd.New(argocd.Config{URL: "https://argocd.example.com", Token: " "}); err == nil {
		t.Error("an empty token must be refused")
	}
	if _, err := argocd.New(argocd.Config{URL: "https://argocd.example.com", Token: token, TLS: httpapi.TLS{CABundle: []byte("not pem")}}); err == nil {
		t.Error("a CA bundle without certificates must be refused")
	}
}

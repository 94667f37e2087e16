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

package fakeargocd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/freeleaps/provider-devops/internal/testing/argocdserver"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	fake "github.com/freeleaps/provider-devops/internal/testing/fakeargocd"
)

func TestMain(m *testing.M) { controlplane.Main(m) }

// answer is what the contract compares: the HTTP status and, for errors, the
// gRPC code in Argo CD's error body.
type answer struct {
	Status int
	Code   int
}

// TestContract sends one table of requests, in order, to a real Argo CD and
// to the fake and requires the same status and error code from both, so the
// fake cannot drift from the server it stands in for.
func TestContract(t *testing.T) {
	real := argocdserver.Shared(t, controlplane.Shared(t))
	f := fake.New(real.Token)
	defer f.Close()
	f.SetLimitedToken(real.LimitedToken)

	app := func(path string) map[string]any {
		return map[string]any{
			"metadata": map[string]any{"name": "contract", "namespace": argocdserver.Namespace},
			"spec": map[string]any{
				"project":     "default",
				"source":      map[string]any{"repoURL": real.Apps.URL, "path": path, "targetRevision": "main"},
				"destination": map[string]any{"server": argocdserver.InClusterServer, "namespace": "contract"},
			},
		}
	}
	patch := func(p string) map[string]any {
		return map[string]any{"name": "contract", "appNamespace": argocdserver.Namespace, "patch": p, "patchType": "merge"}
	}
	const apps = "/api/v1/applications"
	const ctJSON = "application/json"
	steps := []struct {
		name        string
		method      string
		path        string
		contentType string
		token       string
		body        any
	}{
		{name: "list-missing", method: http.MethodGet, path: apps + "?name=contract&appNamespace=argocd"},
		{name: "list-bad-token", method: http.MethodGet, path: apps, token: "not-a-token"},
		{name: "create", method: http.MethodPost, path: apps + "?upsert=false", contentType: ctJSON, body: app("guestbook")},
		{name: "create-same-again", method: http.MethodPost, path: apps + "?upsert=false", contentType: ctJSON, body: app("guestbook")},
		{name: "create-different", method: http.MethodPost, path: apps + "?upsert=false", contentType: ctJSON, body: app("other")},
		{name: "create-without-content-type", method: http.MethodPost, path: apps + "?upsert=false", body: app("guestbook")},
		{name: "get", method: http.MethodGet, path: apps + "/contract?appNamespace=argocd"},
		{name: "patch-merge", method: http.MethodPatch, path: apps + "/contract", contentType: ctJSON, body: patch(`{"metadata":{"labels":{"team":"x"}}}`)},
		{name: "update", method: http.MethodPut, path: apps + "/contract?appNamespace=argocd", contentType: ctJSON, body: app("other")},
		{name: "delete-without-content-type", method: http.MethodDelete, path: apps + "/contract?cascade=false&appNamespace=argocd"},
		{name: "delete", method: http.MethodDelete, path: apps + "/contract?cascade=false&appNamespace=argocd&project=default", contentType: ctJSON},
		{name: "delete-gone-without-project", method: http.MethodDelete, path: apps + "/contract?cascade=false&appNamespace=argocd", contentType: ctJSON},
		{name: "delete-gone-with-project", method: http.MethodDelete, path: apps + "/contract?cascade=false&appNamespace=argocd&project=default", contentType: ctJSON},
		{name: "get-missing", method: http.MethodGet, path: apps + "/contract?appNamespace=argocd"},
		{name: "create-limited-token", method: http.MethodPost, path: apps + "?upsert=false", contentType: ctJSON, token: real.LimitedToken, body: app("guestbook")},
	}
	for _, s := range steps {
		token := real.Token
		if s.token != "" {
			token = s.token
		}
		got := map[string]answer{}
		for name, base := range map[string]string{"real": real.URL, "fake": f.URL} {
			got[name] = send(t, base, s.method, s.path, s.contentType, token, s.body)
		}
		if diff := cmp.Diff(got["real"], got["fake"]); diff != "" {
			t.Errorf("%s: the fake answers differently from Argo CD -real +fake:\n%s", s.name, diff)
		}
	}
}

func send(t *testing.T, base, method, path, contentType, token string, body any) answer {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, base+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	a := answer{Status: resp.StatusCode}
	if resp.StatusCode >= 300 {
		var e struct {
			Code int `json:"code"`
		}
		b, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(b, &e)
		a.Code = e.Code
	}
	return a
}

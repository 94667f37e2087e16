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
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/freeleaps/provider-devops/internal/clients/netguard"
)

// TestTenantClientRefusesInternalAddresses: a namespaced config's client
// never connects to an internal address (here the test server's loopback)
// unless the platform allows its network, and says so as a terminal error;
// the platform's own configs are not limited.
func TestTenantClientRefusesInternalAddresses(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		_, _ = w.Write([]byte(`{"secret":"internal answer"}`))
	}))
	defer srv.Close()
	pool := NewTransports()
	get := func(tenant bool, guard *netguard.Guard) error {
		c, err := NewClient(Options{Backend: "Argo CD", Section: "argocd", TLS: TLS{Tenant: tenant, Guard: guard}, Transports: pool})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Get(srv.URL + "/api/version")
		if err != nil {
			return Unreached(err, Options{Backend: "Argo CD", Section: "argocd"})
		}
		_ = resp.Body.Close()
		return nil
	}
	err := get(true, nil)
	if err == nil || !IsTerminal(err) || IsTransient(err) {
		t.Fatalf("tenant client to loopback: want a terminal refusal, got %v", err)
	}
	for _, want := range []string{"refused to call Argo CD", "spec.argocd", "127.0.0.1", "--tenant-backend-networks"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("a refused client reached the server %d times", n)
	}
	if err := get(false, nil); err != nil {
		t.Fatalf("a ClusterProviderConfig's client: %v", err)
	}
	loopback, err := netguard.New(nil, []string{"127.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	if err := get(true, loopback); err != nil {
		t.Fatalf("loopback allowed by the platform: %v", err)
	}
	// The pool keeps the strict guard's transport apart from it.
	if err := get(true, nil); err == nil {
		t.Fatal("a strict tenant client reused the loopback guard's transport")
	}
}

// TestRedirectsStayOnTheServer: a backend that redirects the provider to
// another server (an internal one, here) is refused; a redirect on the
// same server is followed.
func TestRedirectsStayOnTheServer(t *testing.T) {
	var internal atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		internal.Add(1)
		_, _ = w.Write([]byte(`metadata`))
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/latest/meta-data/", http.StatusFound)
		case "/here":
			http.Redirect(w, r, "/there", http.StatusFound)
		default:
			_, _ = w.Write([]byte(`ok`))
		}
	}))
	defer srv.Close()
	c, err := NewClient(Options{Backend: "Jenkins", Section: "jenkins"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Get(srv.URL + "/here")
	if err != nil {
		t.Fatalf("same-server redirect: %v", err)
	}
	_ = resp.Body.Close()
	resp, err = c.Get(srv.URL + "/away")
	if err == nil {
		_ = resp.Body.Close()
		t.Fatal("a redirect to another server was followed")
	}
	err = Unreached(err, opts)
	if !IsTerminal(err) || !strings.Contains(err.Error(), "another server") {
		t.Fatalf("want a terminal refusal naming the redirect, got %v", err)
	}
	if n := internal.Load(); n != 0 {
		t.Fatalf("the other server was called %d times", n)
	}
}

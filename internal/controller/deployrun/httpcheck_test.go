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

package deployrun

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/freeleaps/provider-devops/internal/clients/netguard"
)

func TestCheckURL(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/down":
			http.Error(w, "secret backend detail", http.StatusServiceUnavailable)
		case "/moved":
			http.Redirect(w, r, "http://169.254.169.254/", http.StatusFound)
		default:
			_, _ = w.Write([]byte("hello"))
		}
	}))
	defer srv.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://" + closed.Addr().String() + "/"
	_ = closed.Close()
	// The test servers are on loopback, which this guard allows.
	loopback, err := netguard.New(nil, []string{"127.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	c := NewHTTPCheckClient(loopback)
	for name, tc := range map[string]struct {
		url           string
		reachable, ok bool
		msg           string
	}{
		"OK":         {srv.URL + "/", true, true, "answered 200"},
		"Down":       {srv.URL + "/down", true, false, "answered 503"},
		"Redirect":   {srv.URL + "/moved", true, true, "answered 302"}, // not followed
		"NotHere":    {gone, false, false, "does not answer on this network"},
		"NoSuchName": {"http://no-such-name.invalid/", false, false, "does not answer on this network"},
		// The provider's client never connects to an internal address
		// the platform does not allow (here loopback only), wherever a
		// tenant's name points: a private one here. It
		// is then not checked, as a name that answers nowhere here: a
		// deployment to a private ingress is not failed for it.
		"Guarded":         {"http://10.255.255.1:1/", false, false, "not sent (not checked): its name points at an internal address"},
		"GuardedMetadata": {"http://169.254.169.254/", false, false, "not sent (not checked): its name points at an internal address"},
	} {
		t.Run(name, func(t *testing.T) {
			a := checkURL(context.Background(), c, tc.url)
			if a.reachable != tc.reachable || a.ok != tc.ok || !strings.Contains(a.msg, tc.msg) {
				t.Errorf("%+v, want reachable %v ok %v message with %q", a, tc.reachable, tc.ok, tc.msg)
			}
			if strings.Contains(a.msg, "secret") {
				t.Errorf("what the server sent reached the message: %s", a.msg)
			}
		})
	}
}

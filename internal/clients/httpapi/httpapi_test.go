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
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/retryafter"
)

var opts = Options{Backend: "Jenkins", Section: "jenkins"}

func TestClassify(t *testing.T) {
	type want struct {
		transient, terminal bool
		msg                 string
	}
	cases := map[string]struct {
		reason string
		err    error
		want   want
	}{
		"NoAnswer": {
			reason: "A server that does not answer is worth retrying soon.",
			err:    &Error{Backend: "Jenkins", Section: "jenkins", Message: "connection refused"},
			want:   want{transient: true, msg: "cannot reach Jenkins: connection refused"},
		},
		"Unauthorized": {
			reason: "A rejected credential is terminal and names the section to fix.",
			err:    &Error{Backend: "Argo CD", Section: "argocd", Status: 401, Message: "invalid session"},
			want:   want{terminal: true, msg: "Argo CD rejected the credentials (401 Unauthorized): check the ProviderConfig's argocd credentials: invalid session"},
		},
		"Forbidden": {
			reason: "A 403 is terminal and says what access is missing.",
			err:    &Error{Backend: "Jenkins", Section: "jenkins", Status: 403, Message: "Forbidden", Denied: "the user needs Job/Create"},
			want:   want{terminal: true, msg: "Jenkins denied the request (403 Forbidden): the user needs Job/Create: Forbidden"},
		},
		"Invalid": {
			reason: "A validation error is terminal: only a spec change helps.",
			err:    errors.Wrap(&Error{Backend: "Harbor", Status: 400, Message: "bad name"}, "cannot create"),
			want:   want{terminal: true, msg: "cannot create: Harbor answered 400: bad name"},
		},
		"UnavailableBehind": {
			reason: "A 400 that reports an outage behind the backend is transient, not terminal.",
			err:    &Error{Backend: "Argo CD", Status: 400, Message: "code = Unavailable", Unavailable: true},
			want:   want{transient: true, msg: "Argo CD answered 400: code = Unavailable"},
		},
		"RateLimited": {
			reason: "A 429 is transient and says how long to wait.",
			err:    &Error{Backend: "Docker Hub", Status: 429, Message: "slow down", RetryAfter: time.Minute},
			want:   want{transient: true, msg: "Docker Hub is rate limiting (429); retry after 1m0s: slow down"},
		},
		"ServerError": {
			reason: "A 5xx is transient.",
			err:    &Error{Backend: "GoDaddy", Status: 502, Message: "Bad Gateway"},
			want:   want{transient: true, msg: "GoDaddy answered 502: Bad Gateway"},
		},
		"NotFound": {
			reason: "A 404 is neither: callers read it as absence.",
			err:    &Error{Backend: "Harbor", Status: 404, Message: "Not Found"},
			want:   want{msg: "Harbor answered 404: Not Found"},
		},
		"Plain": {
			reason: "An error nobody classified is neither.",
			err:    errors.New("boom"),
			want:   want{msg: "boom"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := want{transient: IsTransient(tc.err), terminal: IsTerminal(tc.err), msg: tc.err.Error()}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestFromResponse(t *testing.T) {
	now := time.Now()
	cases := map[string]struct {
		reason  string
		status  int
		header  http.Header
		body    string
		message func([]byte) string
		want    *Error
	}{
		"BodyMessage": {
			reason:  "The backend's message is kept.",
			status:  400,
			body:    `{"message":"name taken"}`,
			message: func(b []byte) string { return strings.TrimSuffix(strings.TrimPrefix(string(b), `{"message":"`), `"}`) },
			want:    &Error{Backend: "Jenkins", Section: "jenkins", Status: 400, Message: "name taken"},
		},
		"StatusText": {
			reason: "Without a message the status text stands in.",
			status: 502,
			body:   "<html>proxy error</html>",
			want:   &Error{Backend: "Jenkins", Section: "jenkins", Status: 502, Message: "Bad Gateway"},
		},
		"RetryAfterSeconds": {
			reason: "A 429's Retry-After in seconds is read.",
			status: 429,
			header: http.Header{"Retry-After": {"120"}},
			want:   &Error{Backend: "Jenkins", Section: "jenkins", Status: 429, Message: "Too Many Requests", RetryAfter: 2 * time.Minute},
		},
		"RetryAfterDate": {
			reason: "A 503's Retry-After as an HTTP-date is read too.",
			status: 503,
			header: http.Header{"Retry-After": {now.Add(5 * time.Minute).UTC().Format(http.TimeFormat)}},
			want:   &Error{Backend: "Jenkins", Section: "jenkins", Status: 503, Message: "Service Unavailable", RetryAfter: 5 * time.Minute},
		},
		"RetryAfterCapped": {
			reason: "A server asking for ten years is taken for ten minutes: a resource being deleted must come back.",
			status: 429,
			header: http.Header{"Retry-After": {"315360000"}},
			want:   &Error{Backend: "Jenkins", Section: "jenkins", Status: 429, Message: "Too Many Requests", RetryAfter: 10 * time.Minute},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			resp := &http.Response{StatusCode: tc.status, Header: tc.header, Body: io.NopCloser(strings.NewReader(tc.body))}
			if resp.Header == nil {
				resp.Header = http.Header{}
			}
			got := FromResponse(resp, opts, tc.message)
			// An HTTP-date has a resolution of a second.
			approx := cmp.Comparer(func(a, b time.Duration) bool { return (a - b).Abs() <= 2*time.Second })
			if diff := cmp.Diff(tc.want, got, approx); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestUnreachedRedacts(t *testing.T) {
	err := Unreached(fmt.Errorf(`Get "https://bob:s3cret@jenkins.example.com/api/json": dial tcp: connection refused`), opts)
	if strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "bob") {
		t.Errorf("Unreached kept the userinfo: %v", err)
	}
	if !IsTransient(err) {
		t.Errorf("Unreached(...) is not transient: %v", err)
	}
	for in, want := range map[string]string{
		"amqps://u:p@broker:5671/v and http://x@y/z": "amqps://***@broker:5671/v and http://***@y/z",
		"https://bob:p@ssw0rd@host/path@x":           "https://***@host/path@x",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q): got %q, want %q", in, got, want)
		}
	}
	// A request the gate holds comes back inside a *url.Error whose URL may
	// carry userinfo: Unreached returns the gate's Error alone.
	held := &url.Error{Op: "Get", URL: "https://bob:s3cret@jenkins.example.com/", Err: &Error{Backend: "Jenkins", Status: 429, Message: "held"}}
	if got := Unreached(held, opts).Error(); strings.Contains(got, "s3cret") || strings.Contains(got, "bob") {
		t.Errorf("Unreached kept the URL of a held request: %s", got)
	}
}

func TestGateHoldsAfterRetryAfter(t *testing.T) {
	calls := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls[r.Header.Get("Authorization")]++
		if r.Header.Get("Authorization") == "Bearer limited" {
			w.Header().Set("Retry-After", "60")
			w.WriteHeader(http.StatusTooManyRequests)
		}
	}))
	defer srv.Close()
	o := opts
	o.Gate = retryafter.New(nil)
	hc, err := NewClient(o)
	if err != nil {
		t.Fatal(err)
	}
	get := func(token string) error {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := hc.Do(req)
		if err != nil {
			return Unreached(err, o)
		}
		return resp.Body.Close()
	}
	for range 3 {
		if err := get("limited"); err != nil && (!IsTransient(err) || StatusOf(err) != http.StatusTooManyRequests) {
			t.Fatalf("a held request: got %v, want a transient 429 Error", err)
		}
	}
	if calls["Bearer limited"] != 1 {
		t.Errorf("the server asked for 60s and was called %d times with the limited account, want 1", calls["Bearer limited"])
	}
	// Another namespace's account on the same server is not held: backends
	// rate-limit per account.
	if err := get("other"); err != nil || calls["Bearer other"] != 1 {
		t.Errorf("another account was held by the limited one's wait: %v (%d calls)", err, calls["Bearer other"])
	}
	// Nor is another identity whose requests carry no Authorization
	// header (a login sends its credentials in the body).
	o2 := o
	o2.Identity = "tenant-b"
	hc2, _ := NewClient(o2)
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("Authorization", "Bearer limited")
	resp, err := hc2.Do(req)
	if err != nil {
		t.Errorf("another identity was held by the limited one's wait: %v", err)
	} else {
		_ = resp.Body.Close()
	}
}

func TestTransportPoolBounded(t *testing.T) {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	pool := NewTransports()
	for i := range 3 * maxTransports {
		// A tenant editing a comment in its caBundle makes a new key each time.
		if _, err := NewClient(Options{TLS: TLS{CABundle: append([]byte(fmt.Sprintf("# edit %d\n", i)), ca...)}, Transports: pool}); err != nil {
			t.Fatal(err)
		}
	}
	pool.mu.Lock()
	n := len(pool.m)
	pool.mu.Unlock()
	if n > maxTransports {
		t.Errorf("%d transports pooled after %d distinct CA bundles, want at most %d", n, 3*maxTransports, maxTransports)
	}
}

func TestCABundle(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "{}") }))
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	cases := map[string]struct {
		reason    string
		tls       TLS
		wantError bool
	}{
		"SystemRoots": {reason: "A private CA is not trusted by default, and that is terminal: only a caBundle fixes it.", wantError: true},
		"CABundle":    {reason: "The server is trusted through its CA in caBundle.", tls: TLS{CABundle: ca}},
		"Insecure":    {reason: "Verification off trusts anything.", tls: TLS{InsecureSkipVerify: true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			hc, err := NewClient(Options{Backend: "Harbor", Section: "registry", TLS: tc.tls})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := hc.Get(srv.URL)
			if err == nil {
				_ = resp.Body.Close()
			}
			if (err != nil) != tc.wantError {
				t.Fatalf("%s: got error %v", tc.reason, err)
			}
			if err == nil {
				return
			}
			err = Unreached(err, Options{Backend: "Harbor", Section: "registry"})
			if !IsTerminal(err) || IsTransient(err) || !strings.Contains(err.Error(), "set caBundle in the ProviderConfig's registry section") {
				t.Errorf("%s: got %v (terminal %v, transient %v)", tc.reason, err, IsTerminal(err), IsTransient(err))
			}
		})
	}
}

func TestBadCA(t *testing.T) {
	if _, err := NewClient(Options{TLS: TLS{CABundle: []byte("not PEM")}}); !errors.Is(err, ErrBadCA) {
		t.Errorf("NewClient with a bad CA bundle: got %v, want ErrBadCA", err)
	}
	// What the CRD lets through (it checks the markers) names the field.
	garbled := "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n"
	if _, err := NewClient(Options{Section: "jenkins", TLS: TLS{CABundle: []byte(garbled)}}); err == nil || !strings.Contains(err.Error(), "spec.jenkins.caBundle") {
		t.Errorf("a garbled caBundle must name spec.jenkins.caBundle, got %v", err)
	}
	pool := NewTransports()
	a, _ := NewClient(Options{TLS: TLS{InsecureSkipVerify: true}, Transports: pool})
	b, _ := NewClient(Options{TLS: TLS{InsecureSkipVerify: true}, Timeout: time.Second, Transports: pool})
	if a.Transport != b.Transport {
		t.Error("two clients with the same TLS settings do not share a transport")
	}
	// Another pool (another controller, another provider in the same
	// process) keeps its own.
	c, _ := NewClient(Options{TLS: TLS{InsecureSkipVerify: true}, Transports: NewTransports()})
	if c.Transport == a.Transport {
		t.Error("two pools share a transport")
	}
}

// An answer is read up to MaxResponseBody and no further: a backend (often
// a tenant's choice) that sends more gets a terminal error, not the
// provider's memory. An answer of exactly the bound is read whole.
func TestResponseBodyBounded(t *testing.T) {
	chunk := make([]byte, 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := MaxResponseBody >> 20
		if r.URL.Path == "/endless" {
			n = 1 << 30 // a terabyte, were it read
		}
		for i := 0; i < n; i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c, err := NewClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	read := func(path string) (int, error) {
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return len(b), err
	}
	if n, err := read("/exact"); err != nil || n != MaxResponseBody {
		t.Errorf("an answer of exactly the bound: read %d bytes, %v", n, err)
	}
	n, err := read("/endless")
	if !IsTerminal(err) || !strings.Contains(err.Error(), "Jenkins answered with more than 32 MiB") {
		t.Errorf("an endless answer: %v, want a terminal error naming the backend", err)
	}
	if n > MaxResponseBody {
		t.Errorf("read %d bytes, more than the bound", n)
	}
}

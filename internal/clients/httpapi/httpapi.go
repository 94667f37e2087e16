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

// Package httpapi is the HTTP layer the REST clients (Argo CD, Jenkins,
// Docker Hub, Harbor, GoDaddy) share: one constructor for transport, TLS
// and timeout; one error type for what a backend answered, or that it did
// not; and one classification of failures into transient (worth retrying
// soon: no answer, 429, 5xx) and terminal (the same request cannot succeed
// until someone changes credentials, configuration or spec: 400, 401, 403,
// 422). The managed reconciler retries transient failures with its usual
// back-off and terminal ones much later, saying so: a rejected token
// retried every few seconds gets an account locked.
package httpapi

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/netguard"
	"github.com/freeleaps/provider-devops/internal/clients/retryafter"
	"github.com/freeleaps/provider-devops/internal/tracing"
)

// DefaultTimeout bounds one request when Options.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// ErrBadCA is returned for a CA bundle without a PEM certificate.
var ErrBadCA = errors.New("caBundle holds no PEM certificate")

// TLS is how a client verifies the server: the ProviderConfig section's
// insecureSkipTLSVerify and caBundle.
type TLS struct {
	// InsecureSkipVerify turns verification off.
	InsecureSkipVerify bool
	// CABundle is PEM; nil means the system roots.
	CABundle []byte
	// Tenant is true when a namespaced ProviderConfig names the server:
	// every connection is then checked where it is dialled (package
	// netguard: the platform's host patterns, no internal address unless
	// allowed), and no proxy of the environment is used (the check can
	// only hold on the addresses this process dials itself).
	Tenant bool
	// Guard is the platform's rule for a tenant's connections; nil is
	// the strictest (public addresses only).
	Guard *netguard.Guard
}

// Config returns the crypto/tls configuration for t.
func (t TLS) Config() (*tls.Config, error) {
	c := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: t.InsecureSkipVerify} //nolint:gosec // the user's explicit choice, refused with caBundle by the CRD
	if len(t.CABundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(t.CABundle) {
			return nil, ErrBadCA
		}
		c.RootCAs = pool
	}
	return c, nil
}

// Options configure a client.
type Options struct {
	// Backend names the server in messages: "Argo CD", "Jenkins".
	Backend string
	// Section is the ProviderConfig section configuring it: "argocd".
	Section string
	TLS     TLS
	// Timeout of one request; DefaultTimeout when zero.
	Timeout time.Duration
	// Gate, when set, holds requests to a server that asked for a wait
	// (429 or 503 with Retry-After) until then. Share one per controller.
	Gate *retryafter.Gate
	// Transports, when set, is the pool the client's transport comes
	// from: share one per controller, so a poll reuses the connections of
	// the last one. Without it the client has a transport of its own.
	Transports *Transports
	// Transport replaces the pooled transport (tests).
	Transport http.RoundTripper
	// Identity is what the backend knows the caller by: the credentials,
	// as any string that differs when they do (it is hashed at once and
	// never kept). A Retry-After wait holds only the calls of the same
	// identity: backends rate-limit per account, and one namespace's
	// limited account must not hold another's calls.
	Identity string
}

// NewClient returns an HTTP client for o. Clients are built per reconcile;
// they share o.Transports' transports per TLS setting, so a poll reuses
// the connections of the last one instead of opening new ones.
func NewClient(o Options) (*http.Client, error) {
	rt := o.Transport
	if rt == nil {
		var err error
		if rt, err = o.Transports.get(o.TLS); err != nil {
			// The CRD checks the PEM markers only: name the field to fix.
			return nil, errors.Wrapf(err, "spec.%s.caBundle", o.Section)
		}
	}
	if o.Gate != nil {
		sum := sha256.Sum256([]byte(o.Identity))
		rt = gated{next: rt, gate: o.Gate, backend: o.Backend, section: o.Section, metric: metricBackend(o), id: hex.EncodeToString(sum[:8])}
	}
	rt = bounded{next: rt, backend: o.Backend, max: MaxResponseBody}
	rt = measured{next: rt, backend: metricBackend(o)}
	// A request made for a traced deployment is a span of its trace.
	rt = tracing.Transport(metricBackend(o), rt)
	timeout := o.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	return &http.Client{Transport: rt, Timeout: timeout, CheckRedirect: sameOrigin(o)}, nil
}

// maxRedirects is how many redirects one request follows.
const maxRedirects = 5

// sameOrigin follows a redirect only to the scheme and host the request
// was sent to. A backend that sends the provider elsewhere (another host,
// or https to http) gets a clear error instead: the provider must never
// carry a request, or read an answer, from a server nobody configured.
func sameOrigin(o Options) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		first := via[0].URL
		if req.URL.Scheme != first.Scheme || !strings.EqualFold(req.URL.Host, first.Host) {
			return &Error{Backend: o.Backend, Section: o.Section, Refused: true,
				Message: fmt.Sprintf("it redirected %s://%s to %s://%s, another server: set the ProviderConfig's %s url to the server that answers", first.Scheme, first.Host, req.URL.Scheme, req.URL.Host, o.Section)}
		}
		if len(via) >= maxRedirects {
			return &Error{Backend: o.Backend, Section: o.Section, Message: fmt.Sprintf("stopped after %d redirects", maxRedirects)}
		}
		return nil
	}
}

type key struct {
	insecure bool
	tenant   bool
	guard    *netguard.Guard
	ca       [sha256.Size]byte
}

// maxTransports bounds a pool: a caBundle is a tenant's to edit, and
// every distinct one would otherwise keep a transport and its CA pool for
// good.
const maxTransports = 64

// Transports is a pool of HTTP transports, one per TLS setting, at most
// maxTransports (the oldest goes first). The zero value is ready to use.
type Transports struct {
	mu    sync.Mutex
	m     map[key]*http.Transport
	order []key // oldest first
}

// NewTransports returns an empty pool.
func NewTransports() *Transports { return &Transports{} }

// get returns the pool's transport for t, building it on first use; a nil
// pool builds a new one each time.
func (p *Transports) get(t TLS) (http.RoundTripper, error) {
	if p == nil {
		return newTransport(t)
	}
	k := key{insecure: t.InsecureSkipVerify, tenant: t.Tenant}
	if t.Tenant {
		k.guard = t.Guard
	}
	if len(t.CABundle) > 0 {
		k.ca = sha256.Sum256(t.CABundle)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if tr, ok := p.m[k]; ok {
		return tr, nil
	}
	tr, err := newTransport(t)
	if err != nil {
		return nil, err
	}
	if p.m == nil {
		p.m = map[key]*http.Transport{}
	}
	if len(p.order) >= maxTransports {
		old := p.order[0]
		p.order = p.order[1:]
		// Clients still holding it keep working; its idle connections go.
		p.m[old].CloseIdleConnections()
		delete(p.m, old)
	}
	p.m[k] = tr
	p.order = append(p.order, k)
	return tr, nil
}

// newTransport is a transport for t: for a tenant, every connection is
// checked by its guard where it is dialled, and no proxy is used.
func newTransport(t TLS) (*http.Transport, error) {
	c, err := t.Config()
	if err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = c
	if t.Tenant {
		tr.Proxy = nil
		tr.DialContext = t.Guard.DialContext
	}
	return tr, nil
}

// gated keeps away from a server that asked for a wait: requests before
// then fail at once with a transient Error, and a 429 or 503 answer with
// Retry-After is noted for every client sharing the gate that calls that
// server with the same credentials. Backends rate-limit per account
// (Docker Hub, GitHub-backed Argo CD SSO, Jenkins behind a proxy): one
// namespace's account being limited must not hold every namespace's calls
// to that host.
type gated struct {
	next             http.RoundTripper
	gate             *retryafter.Gate
	backend, section string
	metric           string // the backend label of its metrics
	id               string // digest of Options.Identity
}

func (g gated) RoundTrip(req *http.Request) (*http.Response, error) {
	k := g.key(req)
	ns := LabelsOf(req.Context()).Namespace
	if err := g.gate.Check(g.backend, k); err != nil {
		held.WithLabelValues(g.metric, ns).Inc()
		return nil, &Error{Backend: g.backend, Section: g.section, Status: http.StatusTooManyRequests, Message: err.Error()}
	}
	resp, err := g.next.RoundTrip(req)
	if err == nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		wait := retryafter.Parse(resp.Header.Get("Retry-After"), time.Now())
		asked.WithLabelValues(g.metric, ns).Add(min(wait, retryafter.MaxWait).Seconds())
		g.gate.Note(k, wait)
	}
	return resp, err
}

// key is the server and a digest of who calls it: the client's identity
// and the credentials the request carries (a login sends them in its body,
// so the identity alone must already tell accounts apart).
func (g gated) key(req *http.Request) string {
	id := g.id + "\x00" + req.Header.Get("Authorization")
	if u := req.URL.User; u != nil {
		id += "\x00" + u.String()
	}
	sum := sha256.Sum256([]byte(id))
	return req.URL.Host + "#" + hex.EncodeToString(sum[:8])
}

// canceled is true for an error the caller caused by giving up: it is
// neither the backend's fault nor worth reporting as one.
func canceled(err error) bool { return errors.Is(err, context.Canceled) }

// MaxResponseBody bounds what one answer of a backend may carry. Backends
// are often a tenant's choice: a body past it is a terminal error on the
// resource that asked, instead of the provider's memory.
const MaxResponseBody = 32 << 20

// BodyTooLargeError is an answer that carried more than MaxResponseBody.
type BodyTooLargeError struct {
	Backend string
	Max     int64
}

func (e *BodyTooLargeError) Error() string {
	return fmt.Sprintf("%s answered with more than %d MiB: refused (this provider never reads more from one answer)", e.Backend, e.Max>>20)
}

// Terminal is true: the same request gets the same answer.
func (e *BodyTooLargeError) Terminal() bool { return true }

// bounded stops every response body at max bytes.
type bounded struct {
	next    http.RoundTripper
	backend string
	max     int64
}

func (b bounded) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(r)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	resp.Body = &boundedBody{ReadCloser: resp.Body, left: b.max, err: &BodyTooLargeError{Backend: b.backend, Max: b.max}}
	return resp, nil
}

// LimitBody stops body at max bytes: a read past them fails with err.
// For a client that bounds some answers tighter than MaxResponseBody.
func LimitBody(body io.ReadCloser, max int64, err error) io.ReadCloser {
	return &boundedBody{ReadCloser: body, left: max, err: err}
}

type boundedBody struct {
	io.ReadCloser
	left int64
	err  error
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// At the bound: the body must end here.
		var one [1]byte
		n, err := b.ReadCloser.Read(one[:])
		if n > 0 || err == nil {
			return 0, b.err
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

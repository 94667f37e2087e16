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

// Package argocd is a small client for the documented Argo CD REST API
// (/api/v1/applications) with typed structs for the fields the provider
// manages. The argo-cd Go module is not imported: no version of it builds
// against the k8s.io libraries crossplane-runtime v2 needs.
package argocd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/retryafter"
)

const (
	errBadURL     = "invalid Argo CD URL"
	errEmptyToken = "the Argo CD token is empty" //nolint:gosec // a message, not a credential
)

// Config of a Client.
type Config struct {
	URL   string
	Token string
	// TLS is how Argo CD's certificate is verified.
	TLS httpapi.TLS
	// Namespace is Argo CD's control-plane namespace, where Applications are
	// created and looked up; default DefaultNamespace.
	Namespace string
	Timeout   time.Duration
	// Transport overrides the HTTP transport (tests).
	Transport http.RoundTripper
	// RetryAfter, when set, holds calls to a server that asked for a wait;
	// share one Gate between the clients of one controller.
	RetryAfter *retryafter.Gate
	// Transports, when set, is the controller's pool of HTTP transports
	// (connections reused across reconciles); nil: one of its own.
	Transports *httpapi.Transports
}

// DefaultNamespace is where a standard Argo CD install keeps Applications.
const DefaultNamespace = "argocd"

// Client talks to one Argo CD API server with a bearer token.
type Client struct {
	base  *url.URL
	token string
	ns    string
	http  *http.Client
}

// Query and body fields of Argo CD's API.
const (
	qName         = "name"
	qAppNamespace = "appNamespace"
	qUpsert       = "upsert"
)

// noUpsert asks a create to fail on an object of that name instead of
// replacing it.
func noUpsert() url.Values { return url.Values{qUpsert: {"false"}} }

// New returns a client. It does no I/O.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimSuffix(cfg.URL, "/"))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, errors.New(errBadURL)
	}
	if strings.TrimSpace(cfg.Token) == "" {
		return nil, errors.New(errEmptyToken)
	}
	o := api
	o.TLS, o.Timeout, o.Gate, o.Transport, o.Transports = cfg.TLS, cfg.Timeout, cfg.RetryAfter, cfg.Transport, cfg.Transports
	o.Identity = cfg.Token
	hc, err := httpapi.NewClient(o)
	if err != nil {
		return nil, err
	}
	ns := cfg.Namespace
	if ns == "" {
		ns = DefaultNamespace
	}
	return &Client{base: u, token: strings.TrimSpace(cfg.Token), ns: ns, http: hc}, nil
}

// Get returns the application called name in the client's namespace, or an
// error for which IsNotFound is true. It lists by name rather than GETting
// the app: Argo CD answers PermissionDenied, not NotFound, for an app that
// does not exist when the token's RBAC is scoped, so a GET cannot tell
// "absent" from "forbidden". The list is limited to the client's namespace:
// with apps in any namespace, another namespace may hold an app of the same
// name, which is not ours.
func (c *Client) Get(ctx context.Context, name string) (*Application, error) {
	l := &ApplicationList{}
	if err := c.do(ctx, http.MethodGet, "/api/v1/applications", url.Values{qName: {name}, qAppNamespace: {c.ns}}, nil, l); err != nil {
		return nil, err
	}
	for i := range l.Items {
		if m := l.Items[i].Metadata; m.Name == name && (m.Namespace == "" || m.Namespace == c.ns) {
			return &l.Items[i], nil
		}
	}
	return nil, notFound(fmt.Sprintf("application %q not found", name))
}

// Refresh asks Argo CD to compare the application with its target again
// now (a normal refresh: the repository read anew, manifests from cache
// when the commit is known), instead of at its next periodic comparison.
func (c *Client) Refresh(ctx context.Context, name string) error {
	return c.do(ctx, http.MethodGet, "/api/v1/applications/"+url.PathEscape(name), url.Values{"refresh": {"normal"}, qAppNamespace: {c.ns}}, nil, &Application{})
}

// Create creates app; it fails if an application of that name exists
// (upsert=false), so another team's app is never overwritten.
func (c *Client) Create(ctx context.Context, app *Application) (*Application, error) {
	in := *app
	in.Metadata.Namespace = c.ns
	out := &Application{}
	return out, c.do(ctx, http.MethodPost, "/api/v1/applications", noUpsert(), &in, out)
}

// Patch applies a JSON merge patch (RFC 7386) to the application: fields the
// patch does not name, such as others' annotations, labels and spec fields,
// stay as they are. Argo CD validates the result as it does an update.
func (c *Client) Patch(ctx context.Context, name string, mergePatch []byte) (*Application, error) {
	body := map[string]string{qName: name, qAppNamespace: c.ns, "patch": string(mergePatch), "patchType": "merge"}
	out := &Application{}
	return out, c.do(ctx, http.MethodPatch, "/api/v1/applications/"+url.PathEscape(name), nil, body, out)
}

// Delete deletes the application of project. With cascade its Kubernetes
// resources are deleted too (foreground propagation); without, they are
// left running. Naming the project makes Argo CD answer NotFound for an app
// that is gone (without it, PermissionDenied: it will not tell a token
// whether an app it cannot see exists), so a retried delete completes.
func (c *Client) Delete(ctx context.Context, name, project string, cascade bool) error {
	q := url.Values{"cascade": {strconv.FormatBool(cascade)}, qAppNamespace: {c.ns}}
	if project != "" {
		q.Set("project", project)
	}
	if cascade {
		q.Set("propagationPolicy", "foreground")
	}
	return c.do(ctx, http.MethodDelete, "/api/v1/applications/"+url.PathEscape(name), q, nil, nil)
}

// Sync starts a sync of the application of project to revision ("" for
// its target revision).
func (c *Client) Sync(ctx context.Context, name, project, revision string) error {
	return c.SyncWith(ctx, name, project, revision, nil)
}

// SyncWith starts a sync like Sync, recording infos in the operation
// (status.operationState.operation.info), so that whoever asked can tell
// its own operation from another's.
func (c *Client) SyncWith(ctx context.Context, name, project, revision string, infos []Info) error {
	body := map[string]any{qName: name, qAppNamespace: c.ns}
	if project != "" {
		body["project"] = project
	}
	if revision != "" {
		body["revision"] = revision
	}
	if len(infos) > 0 {
		body["infos"] = infos
	}
	return c.do(ctx, http.MethodPost, "/api/v1/applications/"+url.PathEscape(name)+"/sync", nil, body, nil)
}

// TerminateOperation stops the application's running operation; none
// running is not an error.
func (c *Client) TerminateOperation(ctx context.Context, name, project string) error {
	q := url.Values{qAppNamespace: {c.ns}}
	if project != "" {
		q.Set("project", project)
	}
	err := c.do(ctx, http.MethodDelete, "/api/v1/applications/"+url.PathEscape(name)+"/operation", q, nil, nil)
	if IsNoOperation(err) {
		return nil
	}
	return err
}

func (c *Client) do(ctx context.Context, method, path string, q url.Values, in, out any) error {
	// path is escaped (a repository URL is one path segment, its slashes
	// %2F): keep it so, or the slashes would split it or %2F become %252F.
	u := *c.base
	u.RawPath = strings.TrimSuffix(c.base.EscapedPath(), "/") + path
	unescaped, err := url.PathUnescape(u.RawPath)
	if err != nil {
		return errors.Wrap(err, "cannot build request")
	}
	u.Path = unescaped
	u.RawQuery = q.Encode()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return errors.Wrap(err, "cannot encode request")
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return errors.Wrap(err, "cannot build request")
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	// Argo CD refuses any non-GET request without this header (415), also a
	// DELETE without a body: its CSRF protection.
	if method != http.MethodGet {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		// The URL holds no secret; the token is only in a header.
		return errors.Wrapf(httpapi.Unreached(err, api), "%s %s", method, path)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return decodeError(resp)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	return errors.Wrap(json.NewDecoder(resp.Body).Decode(out), "cannot decode Argo CD response")
}

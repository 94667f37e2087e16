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

// Package gitea is a small client for the parts of Gitea's REST API
// (/api/v1) that preview environments use: a repository's open pull
// requests, commit statuses, and one comment per pull request kept up to
// date. Forgejo serves the same API. The gitea module is not imported:
// the API is plain JSON over HTTP, and the client shares the provider's
// HTTP layer (httpapi: tenancy checks, bounded bodies, Retry-After, error
// classes, metrics and traces).
package gitea

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

//nolint:gochecknoglobals // read-only names for errors, copied before use
var api = httpapi.Options{Backend: "Gitea", Section: "forge"}

// MaxPullRequests bounds how many open pull requests are read from one
// repository: previews are bounded far lower (a project's max).
const MaxPullRequests = 500

const pageSize = 50

// Query parameters of Gitea's list endpoints.
const (
	qPage  = "page"
	qLimit = "limit"
)

// Config of a Client.
type Config struct {
	// URL is the server's base URL, e.g. https://gitea.example.com.
	URL   string
	Token string
	TLS   httpapi.TLS
	// Timeout of one request; httpapi.DefaultTimeout when zero.
	Timeout time.Duration
	// Transport overrides the HTTP transport (tests).
	Transport http.RoundTripper
	// RetryAfter, when set, holds calls to a server that asked for a wait.
	RetryAfter *retryafter.Gate
	// Transports, when set, is the controller's pool of transports.
	Transports *httpapi.Transports
}

// Client talks to one Gitea server with an access token.
type Client struct {
	base  *url.URL
	token string
	http  *http.Client
}

// New returns a client. It does no I/O.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimSuffix(cfg.URL, "/"))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.RawQuery != "" {
		return nil, errors.New("invalid Gitea URL: want http(s)://host[:port][/path], without credentials or query")
	}
	if strings.TrimSpace(cfg.Token) == "" {
		return nil, errors.New("the Gitea token is empty")
	}
	o := api
	o.TLS, o.Timeout, o.Gate, o.Transport, o.Transports = cfg.TLS, cfg.Timeout, cfg.RetryAfter, cfg.Transport, cfg.Transports
	o.Identity = cfg.Token
	hc, err := httpapi.NewClient(o)
	if err != nil {
		return nil, err
	}
	hc.CheckRedirect = samePath(hc.CheckRedirect)
	return &Client{base: u, token: strings.TrimSpace(cfg.Token), http: hc}, nil
}

// samePath follows a redirect (as next allows) only to the path asked for.
// Gitea answers a repository or owner renamed or transferred with a
// redirect to its new name: followed, a namespace bound to team-a/*
// would read and write team-b/shop through the redirect team-a/shop left
// behind, with the platform's token. The tenancy checks the name asked
// for, so the name asked for is the only one answered.
func samePath(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if !strings.EqualFold(strings.TrimSuffix(req.URL.Path, "/"), strings.TrimSuffix(via[0].URL.Path, "/")) {
			return &httpapi.Error{Backend: api.Backend, Section: api.Section, Refused: true,
				Message: fmt.Sprintf("it redirected %s to %s: the repository or its owner was renamed or transferred; name it as it is now", via[0].URL.Path, req.URL.Path)}
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
}

// PullRequest is an open pull request, as a preview needs it.
type PullRequest struct {
	Number int64
	Title  string
	// Author is the login of who opened it.
	Author string
	URL    string
	Labels []string
	// HeadRef and HeadSHA are the branch and commit it proposes.
	HeadRef, HeadSHA string
	// BaseRef is the branch it would merge into.
	BaseRef string
	// Fork is true when its head is in another repository.
	Fork bool
	// HeadOwner is the owner of the repository its head is in: who, with
	// those they let write there, pushes its code. For a fork it need not
	// be Author (Gitea lets anyone who may read a fork open a pull
	// request from it).
	HeadOwner string
}

type apiPull struct {
	Number  int64  `json:"number"`
	Title   string `json:"title"`
	State   string `json:"state"`
	HTMLURL string `json:"html_url"`
	User    struct {
		Login string `json:"login"`
	} `json:"user"`
	Labels []struct {
		Name string `json:"name"`
	} `json:"labels"`
	Head apiBranch `json:"head"`
	Base apiBranch `json:"base"`
}

type apiBranch struct {
	Label string `json:"label"`
	Ref   string `json:"ref"`
	SHA   string `json:"sha"`
	Repo  *struct {
		FullName string `json:"full_name"`
	} `json:"repo"`
}

// OpenPullRequests lists the repository's open pull requests (repo is
// OWNER/NAME), oldest first, at most MaxPullRequests.
func (c *Client) OpenPullRequests(ctx context.Context, repo string) ([]PullRequest, error) {
	path, err := repoPath(repo)
	if err != nil {
		return nil, err
	}
	var out []PullRequest
	for page := 1; len(out) < MaxPullRequests; page++ {
		var l []apiPull
		q := url.Values{"state": {"open"}, "sort": {"oldest"}, qPage: {strconv.Itoa(page)}, qLimit: {strconv.Itoa(pageSize)}}
		if err := c.do(ctx, http.MethodGet, path+"/pulls", q, nil, &l); err != nil {
			return nil, err
		}
		for _, p := range l {
			if p.State != "open" || len(out) == MaxPullRequests {
				continue
			}
			pr := PullRequest{Number: p.Number, Title: p.Title, Author: p.User.Login, URL: p.HTMLURL,
				HeadRef: p.Head.Ref, HeadSHA: p.Head.SHA, BaseRef: p.Base.Ref}
			for _, l := range p.Labels {
				pr.Labels = append(pr.Labels, l.Name)
			}
			pr.Fork = isFork(p)
			if p.Head.Repo != nil {
				pr.HeadOwner, _, _ = strings.Cut(p.Head.Repo.FullName, "/")
			}
			out = append(out, pr)
		}
		if len(l) < pageSize {
			break
		}
	}
	return out, nil
}

// isFork is true unless p's head is a branch of its base repository. A
// pull request opened by AGit flow (git push HEAD:refs/for/<base>/<topic>),
// which anyone who may read the repository can open, has the base
// repository as its head's and no branch: its head is refs/pull/<n>/head
// and its label is empty. Its code is its author's, as a fork's is.
func isFork(p apiPull) bool {
	if p.Head.Repo == nil || p.Base.Repo == nil || !strings.EqualFold(p.Head.Repo.FullName, p.Base.Repo.FullName) {
		return true
	}
	return p.Head.Label == "" || strings.HasPrefix(p.Head.Ref, "refs/")
}

// State of a commit status.
type State string

// Commit status states Gitea accepts.
const (
	StatePending State = "pending"
	StateSuccess State = "success"
	StateFailure State = "failure"
	StateError   State = "error"
)

// Status is a commit status: Context names it (one per context is shown).
type Status struct {
	State       State
	Context     string
	Description string
	TargetURL   string
}

// SetStatus sets the status s of commit sha.
func (c *Client) SetStatus(ctx context.Context, repo, sha string, s Status) error {
	path, err := repoPath(repo)
	if err != nil {
		return err
	}
	if !isSHA(sha) {
		return errors.Errorf("not a commit id: %q", sha)
	}
	in := map[string]string{"state": string(s.State), "context": s.Context, "description": clip(s.Description, 140), "target_url": s.TargetURL}
	return c.do(ctx, http.MethodPost, path+"/statuses/"+sha, nil, in, nil)
}

// Statuses are the statuses of commit sha, newest first.
func (c *Client) Statuses(ctx context.Context, repo, sha string) ([]Status, error) {
	path, err := repoPath(repo)
	if err != nil {
		return nil, err
	}
	var l []struct {
		Status      string `json:"status"`
		Context     string `json:"context"`
		Description string `json:"description"`
		TargetURL   string `json:"target_url"`
	}
	if err := c.do(ctx, http.MethodGet, path+"/commits/"+url.PathEscape(sha)+"/statuses", url.Values{qLimit: {strconv.Itoa(pageSize)}}, nil, &l); err != nil {
		return nil, err
	}
	out := make([]Status, 0, len(l))
	for _, s := range l {
		out = append(out, Status{State: State(s.Status), Context: s.Context, Description: s.Description, TargetURL: s.TargetURL})
	}
	return out, nil
}

// Comment is a pull request's comment.
type Comment struct {
	ID     int64
	Author string
	Body   string
}

// Comments are the comments of pull request number, oldest first, at
// most 500. Gitea's endpoint answers them all at once, taking no page nor
// limit: an answer longer than a page, or one that brings nothing new,
// ends the listing, so a forge that pages is read page by page and one
// that does not is read once.
func (c *Client) Comments(ctx context.Context, repo string, number int64) ([]Comment, error) {
	path, err := repoPath(repo)
	if err != nil {
		return nil, err
	}
	var out []Comment
	seen := map[int64]bool{}
	for page := 1; len(out) < 500; page++ {
		var l []struct {
			ID   int64  `json:"id"`
			Body string `json:"body"`
			User struct {
				Login string `json:"login"`
			} `json:"user"`
		}
		q := url.Values{qPage: {strconv.Itoa(page)}, qLimit: {strconv.Itoa(pageSize)}}
		if err := c.do(ctx, http.MethodGet, fmt.Sprintf("%s/issues/%d/comments", path, number), q, nil, &l); err != nil {
			return nil, err
		}
		added := false
		for _, x := range l {
			if seen[x.ID] || len(out) == 500 {
				continue
			}
			seen[x.ID], added = true, true
			out = append(out, Comment{ID: x.ID, Author: x.User.Login, Body: x.Body})
		}
		if len(l) != pageSize || !added {
			// Fewer than a page: the last. More: the forge took no
			// limit and answered them all.
			break
		}
	}
	return out, nil
}

// UpsertComment keeps one comment holding marker on pull request number:
// the comment with id, when given and still there with the marker, or
// the first by author holding it, is updated to body (marker appended);
// without one a comment is created. It returns the comment's id. So a
// retry, a restart or a lost id never adds a second comment.
func (c *Client) UpsertComment(ctx context.Context, repo string, number, id int64, author, marker, body string) (int64, error) {
	path, err := repoPath(repo)
	if err != nil {
		return 0, err
	}
	full := body + "\n\n" + marker
	ours := func(x Comment) bool { return strings.Contains(x.Body, marker) && (author == "" || x.Author == author) }
	if id != 0 {
		// The comment with id, read alone: one request, however many
		// comments the pull request has.
		x, err := c.comment(ctx, path, number, id)
		switch {
		case err != nil:
			return 0, err
		case x != nil && ours(*x):
			return id, c.edit(ctx, path, *x, full)
		}
	}
	existing, err := c.Comments(ctx, repo, number)
	if err != nil {
		return 0, err
	}
	for _, x := range existing {
		if ours(x) {
			return x.ID, c.edit(ctx, path, x, full)
		}
	}
	var out struct {
		ID int64 `json:"id"`
	}
	if err := c.do(ctx, http.MethodPost, fmt.Sprintf("%s/issues/%d/comments", path, number), nil, map[string]string{jsonBody: full}, &out); err != nil {
		return 0, err
	}
	return out.ID, nil
}

// jsonBody is the field of a comment's text.
const jsonBody = "body"

// edit sets comment x's body to full, unless it reads so already.
func (c *Client) edit(ctx context.Context, path string, x Comment, full string) error {
	if x.Body == full {
		return nil
	}
	return c.do(ctx, http.MethodPatch, fmt.Sprintf("%s/issues/comments/%d", path, x.ID), nil, map[string]string{jsonBody: full}, nil)
}

// comment is the comment id of pull request number in the repository at
// path; nil when it is gone or is another issue's.
func (c *Client) comment(ctx context.Context, path string, number, id int64) (*Comment, error) {
	var x struct {
		ID       int64  `json:"id"`
		Body     string `json:"body"`
		IssueURL string `json:"issue_url"`
		PRURL    string `json:"pull_request_url"`
		User     struct {
			Login string `json:"login"`
		} `json:"user"`
	}
	err := c.do(ctx, http.MethodGet, fmt.Sprintf("%s/issues/comments/%d", path, id), nil, nil, &x)
	if httpapi.StatusOf(err) == http.StatusNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	n := "/" + strconv.FormatInt(number, 10)
	if !strings.HasSuffix(x.PRURL, "/pulls"+n) && !strings.HasSuffix(x.IssueURL, "/issues"+n) {
		return nil, nil
	}
	return &Comment{ID: x.ID, Author: x.User.Login, Body: x.Body}, nil
}

// User is the login the token authenticates.
func (c *Client) User(ctx context.Context) (string, error) {
	var u struct {
		Login string `json:"login"`
	}
	if err := c.do(ctx, http.MethodGet, "/user", nil, nil, &u); err != nil {
		return "", err
	}
	return u.Login, nil
}

// repoPath is /repos/OWNER/NAME for repo OWNER/NAME, each part escaped.
func repoPath(repo string) (string, error) {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") || owner == ".." || name == ".." || owner == "." || name == "." {
		return "", errors.Errorf("repository %q: want OWNER/NAME", repo)
	}
	return "/repos/" + url.PathEscape(owner) + "/" + url.PathEscape(name), nil
}

func isSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

func (c *Client) do(ctx context.Context, method, path string, q url.Values, in, out any) error {
	u := *c.base
	u.RawPath = strings.TrimSuffix(c.base.EscapedPath(), "/") + "/api/v1" + path
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
	req.Header.Set("Authorization", "token "+c.token)
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return errors.Wrapf(httpapi.Unreached(err, api), "%s %s", method, path)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode >= 300 {
		return httpapi.FromResponse(resp, api, message)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	return errors.Wrap(json.NewDecoder(resp.Body).Decode(out), "cannot decode Gitea's answer")
}

// message is the message of a Gitea error body ({"message": ...}).
func message(body []byte) string {
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	return e.Message
}

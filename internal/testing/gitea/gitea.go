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

// Package gitea runs a real Gitea forge for tests (the binary hack/gitea.sh
// builds from the Go module proxy): on a free loopback port, its SQLite
// database and repositories in a temporary directory, with an admin user
// and an API token. Tests drive it over its REST API and with the git CLI,
// as the forge whose pull requests become preview environments.
package gitea

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freeleaps/provider-devops/internal/testing/integration"
	"github.com/freeleaps/provider-devops/internal/testing/loopback"
	"github.com/freeleaps/provider-devops/internal/testing/process"
)

// Bin returns the Gitea binary named by the environment variable GITEA
// (make test sets it from hack/gitea.sh), or "".
func Bin() string { return integration.Binary("GITEA") }

// Require returns the Gitea binary, failing the test in CI without it
// and skipping it elsewhere (integration.RequireBinary).
func Require(t testing.TB) string {
	t.Helper()
	return integration.RequireBinary(t, "GITEA", "hack/gitea.sh", "a Gitea server")
}

// Server is a running Gitea with an admin user who owns the repositories
// its methods name.
type Server struct {
	// URL is its base, http://127.0.0.1:PORT, also its ROOT_URL.
	URL string
	// User and Password are the admin's.
	User, Password string
	// Token is an API token of User's with every scope.
	Token string

	bin, config, work string
	proc              *process.Process
	http              *http.Client
}

// Start runs Gitea, creates its admin user and a token, and stops it when
// the test ends, printing its log's end if the test failed. Gitea runs git,
// so git must be installed.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Require(t)
	integration.Tool(t, "git", "git")
	dir := t.TempDir()
	s := integration.OnFreePorts(t, func(attempt int) (*Server, error) { return start(bin, dir, attempt) })
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("gitea log (end):\n%s", s.proc.Tail(60))
		}
		s.proc.Stop(10 * time.Second)
	})
	if err := s.setUp(); err != nil {
		t.Fatal(err)
	}
	return s
}

// Run starts Gitea outside a test (the demo), in dir, with its admin user
// and token made; Close stops it. A port taken meanwhile is tried again
// on another, as Start does.
func Run(bin, dir string) (*Server, error) {
	for attempt := 1; ; attempt++ {
		s, err := start(bin, dir, attempt)
		if err != nil {
			if attempt < 3 && strings.Contains(err.Error(), "address already in use") {
				continue
			}
			return nil, err
		}
		if err := s.setUp(); err != nil {
			s.Close()
			return nil, err
		}
		return s, nil
	}
}

// Close stops a Gitea that Run started.
func (s *Server) Close() { s.proc.Stop(10 * time.Second) }

func start(bin, dir string, attempt int) (*Server, error) {
	port, err := loopback.FreePort()
	if err != nil {
		return nil, err
	}
	run := filepath.Join(dir, strconv.Itoa(attempt))
	if err := os.MkdirAll(run, 0o750); err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cfg := filepath.Join(run, "app.ini")
	// hack/gitea.sh puts options/ and templates/ beside the binary, which
	// is built without bindata.
	ini, err := Config(run, filepath.Dir(bin), port)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(cfg, []byte(ini), 0o600); err != nil {
		return nil, err
	}
	p, err := process.Start(run, "gitea", nil, bin, "web", "--config", cfg, "--work-path", run)
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + addr, bin: bin, config: cfg, work: run, proc: p, http: &http.Client{Timeout: 30 * time.Second}}
	if err := s.waitReady(120 * time.Second); err != nil {
		p.Stop(5 * time.Second)
		return nil, fmt.Errorf("gitea did not become ready: %w\n%s", err, p.Tail(30))
	}
	return s, nil
}

// Config is Gitea's app.ini for a server on 127.0.0.1:port keeping
// everything under work, with a fresh SECRET_KEY and INTERNAL_TOKEN:
// SQLite, installed already, offline (no mailer, no SSH, no update check,
// no Actions), logging to its standard output, and webhooks allowed to
// loopback addresses (where the tests' receivers listen). static is where
// options/ and templates/ are.
func Config(work, static string, port int) (string, error) {
	secret, err := random()
	if err != nil {
		return "", err
	}
	internal, err := random()
	if err != nil {
		return "", err
	}
	root := ""
	if os.Getuid() == 0 {
		// CI runs as root; Gitea refuses to unless told so.
		root = "I_AM_BEING_UNSAFE_RUNNING_AS_ROOT = true\n"
	}
	return fmt.Sprintf(`APP_NAME = provider-devops test forge
RUN_MODE = prod
WORK_PATH = %[1]s
%[5]s
[server]
PROTOCOL = http
HTTP_ADDR = 127.0.0.1
HTTP_PORT = %[3]d
DOMAIN = 127.0.0.1
ROOT_URL = http://127.0.0.1:%[3]d/
APP_DATA_PATH = %[1]s/data
STATIC_ROOT_PATH = %[2]s
DISABLE_SSH = true
START_SSH_SERVER = false
OFFLINE_MODE = true
LFS_START_SERVER = false

[database]
DB_TYPE = sqlite3
PATH = %[1]s/data/gitea.db
SQLITE_JOURNAL_MODE = WAL

[repository]
ROOT = %[1]s/repositories
DEFAULT_BRANCH = main

[security]
INSTALL_LOCK = true
SECRET_KEY = %[4]s
INTERNAL_TOKEN = %[6]s
ALLOWED_HOST_LIST = loopback

[oauth2]
ENABLED = false

[service]
DISABLE_REGISTRATION = true

[mailer]
ENABLED = false

[indexer]
ISSUE_INDEXER_TYPE = db

[actions]
ENABLED = false

[cron.update_checker]
ENABLED = false

[log]
MODE = console
LEVEL = Info
ROOT_PATH = %[1]s/log
`, work, static, port, secret, root, internal), nil
}

func random() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// waitReady polls /api/v1/version until it answers 200, the process ends
// or timeout passes.
func (s *Server) waitReady(timeout time.Duration) error {
	c := &http.Client{Timeout: 2 * time.Second}
	var last error
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if done, err := s.proc.Exited(); done {
			if strings.Contains(s.proc.Tail(30), "address already in use") {
				return errors.New("address already in use")
			}
			return fmt.Errorf("gitea exited: %v", err)
		}
		resp, err := c.Get(s.URL + "/api/v1/version")
		if err != nil {
			last = err
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return nil
		}
		last = fmt.Errorf("/api/v1/version: %s", resp.Status)
	}
	return last
}

// setUp creates the admin user with Gitea's CLI, as an operator would,
// then its token through the API with basic auth.
func (s *Server) setUp() error {
	pw, err := random()
	if err != nil {
		return err
	}
	s.User, s.Password = "forge-admin", pw[:24]
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.bin, "admin", "user", "create",
		"--config", s.config, "--work-path", s.work,
		"--username", s.User, "--password", s.Password, "--email", s.User+"@example.com",
		"--admin", "--must-change-password=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("gitea admin user create: %w\n%s", err, out)
	}
	var tok struct {
		SHA1 string `json:"sha1"`
	}
	body := map[string]any{"name": "provider-devops-test", "scopes": []string{"all"}}
	if err := s.call(ctx, http.MethodPost, "/users/"+s.User+"/tokens", body, &tok, true); err != nil {
		return fmt.Errorf("cannot create a token: %w", err)
	}
	if tok.SHA1 == "" {
		return errors.New("cannot create a token: the answer has none")
	}
	s.Token = tok.SHA1
	return nil
}

// StatusError is the answer of a call Gitea refused.
type StatusError struct {
	Method, Path string
	Code         int
	Body         string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Code, strings.TrimSpace(e.Body))
}

// Do calls the REST API (path under /api/v1) with the token, body as JSON
// (nil: none), and decodes the answer into out (nil: discarded). An answer
// outside 2xx is a *StatusError.
func (s *Server) Do(ctx context.Context, method, path string, body, out any) error {
	return s.call(ctx, method, path, body, out, false)
}

func (s *Server) call(ctx context.Context, method, path string, body, out any, basic bool) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.URL+"/api/v1"+path, r)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if basic {
		req.SetBasicAuth(s.User, s.Password)
	} else {
		req.Header.Set("Authorization", "token "+s.Token)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &StatusError{Method: method, Path: path, Code: resp.StatusCode, Body: string(b)}
	}
	if out == nil || len(b) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: cannot read %q: %w", method, path, b, err)
	}
	return nil
}

// repo is the API path of repository name: the admin's, or owner/name.
func (s *Server) repo(name string) string {
	owner, n, ok := strings.Cut(name, "/")
	if !ok {
		owner, n = s.User, name
	}
	return "/repos/" + url.PathEscape(owner) + "/" + url.PathEscape(n)
}

// GitURL is the repository's clone URL over HTTP with the user and token
// in it, for the git CLI.
func (s *Server) GitURL(repo string) string {
	u, _ := url.Parse(s.URL)
	u.User = url.UserPassword(s.User, s.Token)
	if !strings.Contains(repo, "/") {
		repo = s.User + "/" + repo
	}
	u.Path = "/" + repo + ".git"
	return u.String()
}

// Repo is a repository.
type Repo struct {
	Name          string `json:"name"`
	FullName      string `json:"full_name"`
	DefaultBranch string `json:"default_branch"`
	CloneURL      string `json:"clone_url"`
}

// CreateRepo creates the user's repository name, its branch main holding a
// README.
func (s *Server) CreateRepo(ctx context.Context, name string) (Repo, error) {
	var r Repo
	err := s.Do(ctx, http.MethodPost, "/user/repos", map[string]any{
		"name": name, "auto_init": true, "readme": "Default", "default_branch": "main",
	}, &r)
	return r, err
}

// CreateOrgRepo creates repository org/name, and the organisation (owned
// by the admin) when it does not exist, its branch main holding a README.
// The admin's token then reads and writes it as a member's would.
func (s *Server) CreateOrgRepo(ctx context.Context, org, name string) (Repo, error) {
	err := s.Do(ctx, http.MethodPost, "/orgs", map[string]any{"username": org, "visibility": "public"}, nil)
	var se *StatusError
	if err != nil && (!errors.As(err, &se) || se.Code != http.StatusUnprocessableEntity) {
		return Repo{}, err
	}
	var r Repo
	err = s.Do(ctx, http.MethodPost, "/orgs/"+url.PathEscape(org)+"/repos", map[string]any{
		"name": name, "auto_init": true, "readme": "Default", "default_branch": "main",
	}, &r)
	return r, err
}

// CommitFile writes content to path on branch (created from main when it
// does not exist) as one commit, and returns the commit's SHA.
func (s *Server) CommitFile(ctx context.Context, repo, branch, path, content, message string) (string, error) {
	opts := map[string]any{
		"message": message,
		"branch":  branch,
		"files": []map[string]string{{
			"operation": "upload", // create or update
			"path":      path,
			"content":   base64.StdEncoding.EncodeToString([]byte(content)),
		}},
	}
	err := s.Do(ctx, http.MethodGet, s.repo(repo)+"/branches/"+url.PathEscape(branch), nil, nil)
	var se *StatusError
	switch {
	case errors.As(err, &se) && se.Code == http.StatusNotFound:
		opts["branch"], opts["new_branch"] = "main", branch
	case err != nil:
		return "", err
	}
	var r struct {
		Commit struct {
			SHA string `json:"sha"`
		} `json:"commit"`
	}
	if err := s.Do(ctx, http.MethodPost, s.repo(repo)+"/contents", opts, &r); err != nil {
		return "", err
	}
	return r.Commit.SHA, nil
}

// Branch is a pull request's end: its branch and commit.
type Branch struct {
	Ref string `json:"ref"`
	SHA string `json:"sha"`
}

// Label is an issue's or pull request's label.
type Label struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color"`
}

// PullRequest is a pull request as the API shows it.
type PullRequest struct {
	Number         int64   `json:"number"`
	Title          string  `json:"title"`
	State          string  `json:"state"` // open or closed
	Merged         bool    `json:"merged"`
	MergeCommitSHA string  `json:"merge_commit_sha"`
	Head           Branch  `json:"head"`
	Base           Branch  `json:"base"`
	Labels         []Label `json:"labels"`
}

// OpenPullRequest opens a pull request from head into base and returns its
// number.
func (s *Server) OpenPullRequest(ctx context.Context, repo, head, base, title string) (int64, error) {
	var pr PullRequest
	err := s.Do(ctx, http.MethodPost, s.repo(repo)+"/pulls", map[string]string{"head": head, "base": base, "title": title}, &pr)
	return pr.Number, err
}

// PullRequest reads pull request n.
func (s *Server) PullRequest(ctx context.Context, repo string, n int64) (PullRequest, error) {
	var pr PullRequest
	err := s.Do(ctx, http.MethodGet, fmt.Sprintf("%s/pulls/%d", s.repo(repo), n), nil, &pr)
	return pr, err
}

// label returns the repository's label name, creating it if needed.
func (s *Server) label(ctx context.Context, repo, name string) (Label, error) {
	var all []Label
	if err := s.Do(ctx, http.MethodGet, s.repo(repo)+"/labels?limit=50", nil, &all); err != nil {
		return Label{}, err
	}
	for _, l := range all {
		if l.Name == name {
			return l, nil
		}
	}
	var l Label
	err := s.Do(ctx, http.MethodPost, s.repo(repo)+"/labels", map[string]string{"name": name, "color": "#0e8a16"}, &l)
	return l, err
}

// AddLabel puts label (created in the repository if needed) on pull
// request n.
func (s *Server) AddLabel(ctx context.Context, repo string, n int64, label string) error {
	l, err := s.label(ctx, repo, label)
	if err != nil {
		return err
	}
	return s.Do(ctx, http.MethodPost, fmt.Sprintf("%s/issues/%d/labels", s.repo(repo), n), map[string]any{"labels": []int64{l.ID}}, nil)
}

// RemoveLabel takes label off pull request n.
func (s *Server) RemoveLabel(ctx context.Context, repo string, n int64, label string) error {
	l, err := s.label(ctx, repo, label)
	if err != nil {
		return err
	}
	return s.Do(ctx, http.MethodDelete, fmt.Sprintf("%s/issues/%d/labels/%d", s.repo(repo), n, l.ID), nil, nil)
}

// MergePullRequest merges pull request n with a merge commit. Gitea checks
// a pull request's mergeability in the background after each push and
// refuses to merge until it has ("Please try again later"); this tries
// again until ctx ends.
func (s *Server) MergePullRequest(ctx context.Context, repo string, n int64) error {
	for {
		err := s.Do(ctx, http.MethodPost, fmt.Sprintf("%s/pulls/%d/merge", s.repo(repo), n), map[string]string{"Do": "merge"}, nil)
		var se *StatusError
		if err == nil || !errors.As(err, &se) || se.Code != http.StatusMethodNotAllowed || !strings.Contains(se.Body, "try again later") {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// ClosePullRequest closes pull request n without merging it.
func (s *Server) ClosePullRequest(ctx context.Context, repo string, n int64) error {
	return s.Do(ctx, http.MethodPatch, fmt.Sprintf("%s/pulls/%d", s.repo(repo), n), map[string]string{"state": "closed"}, nil)
}

// CommitStatus is one status posted on a commit.
type CommitStatus struct {
	State       string `json:"status"` // pending, success, error, failure or warning
	Context     string `json:"context"`
	Description string `json:"description"`
	TargetURL   string `json:"target_url"`
}

// CommitStatuses lists the statuses posted on commit sha, newest first.
func (s *Server) CommitStatuses(ctx context.Context, repo, sha string) ([]CommitStatus, error) {
	var st []CommitStatus
	err := s.Do(ctx, http.MethodGet, s.repo(repo)+"/statuses/"+url.PathEscape(sha), nil, &st)
	return st, err
}

// Comment is a comment on an issue or pull request.
type Comment struct {
	ID   int64  `json:"id"`
	Body string `json:"body"`
	User struct {
		Login string `json:"login"`
	} `json:"user"`
}

// Comments lists the comments on pull request (or issue) n, oldest first.
func (s *Server) Comments(ctx context.Context, repo string, n int64) ([]Comment, error) {
	var c []Comment
	err := s.Do(ctx, http.MethodGet, fmt.Sprintf("%s/issues/%d/comments", s.repo(repo), n), nil, &c)
	return c, err
}

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

// Package gitserver serves git repositories over smart HTTPS on loopback with
// Debian git's own git-http-backend (as CGI), so Argo CD's repo server clones
// and fetches from them exactly as it would from a hosted repository. The
// certificate is httptest's, for 127.0.0.1; clients trust CertPEM.
package gitserver

import (
	"crypto/subtle"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// Backend is Debian git's smart-HTTP CGI program.
const Backend = "/usr/lib/git-core/git-http-backend"

// Server serves every bare repository under its root at /<name>.git.
type Server struct {
	// URL is https://127.0.0.1:PORT, without a trailing slash.
	URL string
	// CertPEM is the certificate the server presents.
	CertPEM []byte
	root    string
	srv     *httptest.Server
	mu      sync.Mutex
	// private maps a repository path (/<name>.git) to the user and password
	// it needs; the others are public.
	private sync.Map
}

// Installed is true when git and its HTTP backend are installed.
func Installed() bool {
	if _, err := exec.LookPath("git"); err != nil {
		return false
	}
	_, err := os.Stat(Backend)
	return err == nil
}

// New serves the repositories kept under dir on a free loopback port, over
// TLS with net/http/httptest's certificate for 127.0.0.1.
func New(dir string) (*Server, error) {
	root := filepath.Join(dir, "srv")
	if err := os.MkdirAll(root, 0o750); err != nil {
		return nil, err
	}
	h := &cgi.Handler{Path: Backend, Root: "/", Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}
	s := &Server{root: root}
	s.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.allowed(r) {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	s.URL = s.srv.URL
	s.CertPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw})
	return s, nil
}

// Protect makes repository name answer only to user and password (HTTP
// basic authentication), as a private hosted repository does.
func (s *Server) Protect(name, user, password string) {
	s.private.Store("/"+name+".git", [2]string{user, password})
}

func (s *Server) allowed(r *http.Request) bool {
	for p := r.URL.Path; p != "/" && p != "." && p != ""; p = path.Dir(p) {
		if v, ok := s.private.Load(p); ok {
			want := v.([2]string)
			u, pw, ok := r.BasicAuth()
			return ok && subtle.ConstantTimeCompare([]byte(u), []byte(want[0])) == 1 && subtle.ConstantTimeCompare([]byte(pw), []byte(want[1])) == 1
		}
	}
	return true
}

// Close stops serving.
func (s *Server) Close() { s.srv.Close() }

// Repo is one repository: a bare copy that is served and a work tree that
// commits are made in and pushed from.
type Repo struct {
	// URL to clone, https://127.0.0.1:PORT/<name>.git.
	URL string
	// Bare is the served repository's directory: a process on this machine
	// (the sandbox's build executor) may push to it directly, without the
	// server's authentication. Commit pushes from its own work tree, which
	// it does not update from there: it fails once another process pushed.
	Bare string
	work string
	mu   *sync.Mutex
}

// Create makes repository name with files (path -> content) as its first
// commit on branch main.
func (s *Server) Create(name string, files map[string]string) (*Repo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	bare := filepath.Join(s.root, name+".git")
	work := filepath.Join(filepath.Dir(s.root), "work", name)
	if err := git("", "init", "-q", "--bare", "-b", "main", bare); err != nil {
		return nil, err
	}
	if err := git("", "init", "-q", "-b", "main", work); err != nil {
		return nil, err
	}
	if err := git(work, "remote", "add", "origin", bare); err != nil {
		return nil, err
	}
	r := &Repo{URL: s.URL + "/" + name + ".git", Bare: bare, work: work, mu: &s.mu}
	if _, err := r.commit(files, "initial commit"); err != nil {
		return nil, err
	}
	return r, nil
}

// Commit writes files (path -> content; an empty content deletes the file),
// commits them on main and pushes; it returns the commit id.
func (r *Repo) Commit(files map[string]string, message string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.commit(files, message)
}

func (r *Repo) commit(files map[string]string, message string) (string, error) {
	for p, content := range files {
		full := filepath.Join(r.work, filepath.FromSlash(p))
		if content == "" {
			if err := os.Remove(full); err != nil && !os.IsNotExist(err) {
				return "", err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o750); err != nil {
			return "", err
		}
		if err := os.WriteFile(full, []byte(content), 0o600); err != nil {
			return "", err
		}
	}
	if err := git(r.work, "add", "-A"); err != nil {
		return "", err
	}
	if err := git(r.work, "commit", "-q", "--allow-empty", "-m", message); err != nil {
		return "", err
	}
	if err := git(r.work, "push", "-q", "origin", "main"); err != nil {
		return "", err
	}
	out, err := exec.Command("git", "-C", r.work, "rev-parse", "HEAD").Output()
	return strings.TrimSpace(string(out)), err
}

func git(dir string, args ...string) error {
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	cmd := exec.Command("git", args...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=provider-devops tests", "GIT_AUTHOR_EMAIL=tests@example.test",
		"GIT_COMMITTER_NAME=provider-devops tests", "GIT_COMMITTER_EMAIL=tests@example.test", "GIT_CONFIG_NOSYSTEM=1", "HOME="+os.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

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
// Debian git's own git-http-backend (as CGI), and over SSH with git's own
// git-upload-pack, so Argo CD's repo server clones and fetches from them
// exactly as it would from a hosted repository. The certificate is the
// server's own, for 127.0.0.1 and the host names it is given; clients
// trust CertPEM.
package gitserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Backend is Debian git's smart-HTTP CGI program.
const Backend = "/usr/lib/git-core/git-http-backend"

// Server serves every bare repository under its root at /<name>.git.
type Server struct {
	// URL is https://127.0.0.1:PORT, without a trailing slash.
	URL string
	// CertPEM is the certificate the server presents (self-signed).
	CertPEM []byte
	// ProxyURL, when the server was given host names, is an HTTP proxy
	// (http://127.0.0.1:PORT) that tunnels CONNECT <host>:443 to the
	// server and refuses every other target: for a client that cannot be
	// told the names resolve here, it stands in for DNS.
	ProxyURL string
	root     string
	srv      *httptest.Server
	proxy    *httptest.Server
	ssh      *sshServer
	mu       sync.Mutex
	// private maps a repository path (/<name>.git) to the user and password
	// it needs; the others are public.
	private sync.Map
	// routes maps a host name to the server its requests are passed to
	// (Route).
	routes sync.Map
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
// TLS with a certificate for 127.0.0.1 and hosts. With hosts, ProxyURL
// reaches the server by those names.
func New(dir string, hosts ...string) (*Server, error) {
	root := filepath.Join(dir, "srv")
	if err := os.MkdirAll(root, 0o750); err != nil {
		return nil, err
	}
	h := &cgi.Handler{Path: Backend, Root: "/", Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}
	s := &Server{root: root}
	cert, err := selfSigned(hosts)
	if err != nil {
		return nil, err
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if up, ok := s.routes.Load(hostOnly(r.Host)); ok {
			up.(http.Handler).ServeHTTP(w, r)
			return
		}
		if !s.allowed(r) {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	s.srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	s.srv.StartTLS()
	s.URL = s.srv.URL
	s.CertPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw})
	if len(hosts) > 0 {
		s.proxy = httptest.NewServer(connectProxy(hosts, s.srv.Listener.Addr().String()))
		s.ProxyURL = s.proxy.URL
	}
	return s, nil
}

// selfSigned is a certificate for 127.0.0.1 and hosts, its own issuer.
func selfSigned(hosts []string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "provider-devops test git server"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(1, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              hosts,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// connectProxy tunnels CONNECT <host>:443, for each of hosts, to addr, and
// refuses everything else: nothing it is asked for leaves the machine.
func connectProxy(hosts []string, addr string) http.Handler {
	targets := map[string]bool{}
	for _, h := range hosts {
		targets[net.JoinHostPort(h, "443")] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect || !targets[r.Host] {
			http.Error(w, fmt.Sprintf("this proxy tunnels only to %v", hosts), http.StatusForbidden)
			return
		}
		hj, ok := w.(http.Hijacker)
		if !ok {
			http.Error(w, "no hijacking", http.StatusInternalServerError)
			return
		}
		up, err := net.Dial("tcp", addr)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		down, buf, err := hj.Hijack()
		if err != nil {
			_ = up.Close()
			return
		}
		if _, err := down.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
			_ = up.Close()
			_ = down.Close()
			return
		}
		go func() {
			defer func() { _ = up.Close() }()
			// From buf: what the client sent after its request is
			// buffered there, the rest follows from the connection.
			_, _ = io.Copy(up, buf.Reader)
		}()
		go func() {
			defer func() { _ = down.Close() }()
			_, _ = io.Copy(down, up)
		}()
	})
}

// Route passes every request for host, one of the names the server was
// given, to upstream (http://127.0.0.1:PORT): the server then stands in
// front of another git host, as a TLS-terminating proxy stands in front
// of a forge, so clients reach it by that name and trust CertPEM.
func (s *Server) Route(host, upstream string) error {
	u, err := url.Parse(upstream)
	if err != nil || u.Host == "" {
		return fmt.Errorf("route %s: %q is not a URL", host, upstream)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	director := rp.Director
	rp.Director = func(r *http.Request) {
		director(r)
		r.Host = u.Host
	}
	s.routes.Store(host, http.Handler(rp))
	return nil
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
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
func (s *Server) Close() {
	if s.ssh != nil {
		s.ssh.close()
	}
	if s.proxy != nil {
		s.proxy.CloseClientConnections()
		s.proxy.Close()
	}
	s.srv.Close()
}

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

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

// Package distribution runs a real CNCF distribution registry (Debian's
// docker-registry) for tests: on 127.0.0.1 and a free high port, storage in
// a temporary directory, deletes enabled, htpasswd (bcrypt) basic auth for
// one user. It can push small random images with go-containerregistry.
package distribution

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"golang.org/x/crypto/bcrypt"

	"github.com/freeleaps/provider-devops/internal/testing/integration"
	"github.com/freeleaps/provider-devops/internal/testing/loopback"
)

// User and Password are the registry's only credentials.
const (
	User     = "pusher"
	Password = "registry-test-password"
)

// Server is a running registry.
type Server struct {
	// Host is 127.0.0.1:port; URL is http://Host.
	Host, URL string
	dir       string
	cmd       *exec.Cmd
	mu        sync.Mutex
	log       bytes.Buffer
}

// Binary returns the path of docker-registry, or "".
func Binary() string {
	if p, err := exec.LookPath("docker-registry"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/bin/docker-registry"); err == nil {
		return "/usr/bin/docker-registry"
	}
	return ""
}

// Start runs the registry for the test and stops it when the test ends.
// Without it the test fails in CI (CI=true) and is skipped elsewhere.
func Start(t testing.TB) *Server {
	t.Helper()
	integration.Test(t, "a distribution registry")
	if Binary() == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("docker-registry (Debian package docker-registry) is not installed; .ci/run installs it")
		}
		t.Skip("docker-registry is not installed (apt-get install docker-registry); skipped outside CI")
	}
	s, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// New runs the registry with its storage and configuration in dir, and
// returns once it answers. Close stops it.
func New(dir string) (*Server, error) {
	bin := Binary()
	if bin == "" {
		return nil, fmt.Errorf("docker-registry (Debian package docker-registry) is not installed")
	}
	s := &Server{dir: dir}
	port, err := loopback.FreePort()
	if err != nil {
		return nil, err
	}
	s.Host = fmt.Sprintf("127.0.0.1:%d", port)
	s.URL = "http://" + s.Host
	hash, err := bcrypt.GenerateFromPassword([]byte(Password), bcrypt.MinCost)
	if err != nil {
		return nil, err
	}
	conf := fmt.Sprintf(`version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: %[1]s/data
  delete:
    enabled: true
http:
  addr: %[2]s
auth:
  htpasswd:
    realm: test
    path: %[1]s/htpasswd
`, s.dir, s.Host)
	if err := os.WriteFile(filepath.Join(s.dir, "config.yml"), []byte(conf), 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(s.dir, "htpasswd"), []byte(User+":"+string(hash)+"\n"), 0o600); err != nil {
		return nil, err
	}
	s.cmd = exec.Command(bin, "serve", filepath.Join(s.dir, "config.yml"))
	s.cmd.Stdout, s.cmd.Stderr = s, s
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.URL + "/v2/")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusUnauthorized {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			s.Close()
			return nil, fmt.Errorf("docker-registry did not answer on %s within 30s; its log:\n%s", s.URL, s.Log())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Close stops the registry.
func (s *Server) Close() {
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

// Write collects the registry's log.
func (s *Server) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.Write(p)
}

// Log returns what the registry logged.
func (s *Server) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// Auth is the registry's credential for go-containerregistry.
func Auth() remote.Option {
	return remote.WithAuth(&authn.Basic{Username: User, Password: Password})
}

// Push pushes a small random image as repo:tag and returns its digest.
func (s *Server) Push(t testing.TB, repo, tag string) string {
	t.Helper()
	ref, err := name.NewTag(s.Host+"/"+repo+":"+tag, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	img, err := random.Image(256, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, img, Auth()); err != nil {
		t.Fatalf("push %s: %v", ref, err)
	}
	d, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d.String()
}

// Tags lists the tags of repo; a repository the registry does not know has
// none.
func (s *Server) Tags(t testing.TB, repo string) []string {
	t.Helper()
	r, err := name.NewRepository(s.Host+"/"+repo, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	tags, err := remote.List(r, Auth())
	var te *transport.Error
	if errors.As(err, &te) && te.StatusCode == http.StatusNotFound {
		return nil
	}
	if err != nil {
		t.Fatalf("list tags of %s: %v", repo, err)
	}
	return tags
}

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

package gitserver

import (
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestClone clones with Debian's git, a client we did not write: over
// HTTPS by a host name through the server's proxy, and over SSH with the
// key and known host the server gives.
func TestClone(t *testing.T) {
	if !Installed() {
		if os.Getenv("CI") != "" {
			t.Fatal("git and git-http-backend are not installed")
		}
		t.Skip("skipped outside CI: git or git-http-backend is not installed")
	}
	dir := t.TempDir()
	s, err := New(filepath.Join(dir, "srv"), "git.example.com")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Create("team/shop", map[string]string{"deploy/prod/cm.yaml": "kind: ConfigMap\n"}); err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, s.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	clone := func(t *testing.T, into, url string, env ...string) {
		t.Helper()
		cmd := exec.Command("git", "clone", "-q", url, into)
		cmd.Env = append(os.Environ(), append([]string{"HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1"}, env...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git clone %s: %v: %s", url, err, out)
		}
		if _, err := os.Stat(filepath.Join(into, "deploy", "prod", "cm.yaml")); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("HTTPSByName", func(t *testing.T) {
		clone(t, filepath.Join(dir, "https"), "https://git.example.com/team/shop.git",
			"https_proxy="+s.ProxyURL, "GIT_SSL_CAINFO="+ca)
	})

	// A routed name reaches another git server (here plain HTTP on
	// loopback, as a forge behind its TLS proxy) through this one.
	t.Run("RoutedHost", func(t *testing.T) {
		up := httptest.NewServer(&cgi.Handler{Path: Backend, Root: "/", Env: []string{"GIT_PROJECT_ROOT=" + s.root, "GIT_HTTP_EXPORT_ALL=1"}})
		defer up.Close()
		front, err := New(filepath.Join(dir, "front"), "forge.example.com")
		if err != nil {
			t.Fatal(err)
		}
		defer front.Close()
		if err := front.Route("forge.example.com", up.URL); err != nil {
			t.Fatal(err)
		}
		fca := filepath.Join(dir, "front-ca.pem")
		if err := os.WriteFile(fca, front.CertPEM, 0o600); err != nil {
			t.Fatal(err)
		}
		clone(t, filepath.Join(dir, "routed"), "https://forge.example.com/team/shop.git",
			"https_proxy="+front.ProxyURL, "GIT_SSL_CAINFO="+fca)
	})

	t.Run("ProxyRefusesOtherHosts", func(t *testing.T) {
		proxy, err := url.Parse(s.ProxyURL)
		if err != nil {
			t.Fatal(err)
		}
		c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}
		for _, target := range []string{"https://example.org/", "https://git.example.com:8443/", "http://git.example.com/"} {
			resp, err := c.Get(target)
			if err == nil {
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusForbidden {
					t.Errorf("GET %s through the proxy: %s, want 403", target, resp.Status)
				}
				continue
			}
			if !strings.Contains(err.Error(), "Forbidden") {
				t.Errorf("GET %s through the proxy: %v, want 403 Forbidden", target, err)
			}
		}
	})

	t.Run("SSH", func(t *testing.T) {
		c, err := s.ServeSSH()
		if err != nil {
			t.Fatal(err)
		}
		key := filepath.Join(dir, "id")
		known := filepath.Join(dir, "known_hosts")
		if err := os.WriteFile(key, c.PrivateKeyPEM, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(known, []byte(c.KnownHosts+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		ssh := "ssh -i " + key + " -o IdentitiesOnly=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile=" + known
		clone(t, filepath.Join(dir, "ssh"), c.URL("team/shop"), "GIT_SSH_COMMAND="+ssh)

		// Another key is refused; so is a push.
		other := filepath.Join(dir, "other")
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
		cmd := exec.Command("git", "ls-remote", c.URL("team/shop"))
		cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_SSH_COMMAND=ssh -i "+other+" -o IdentitiesOnly=yes -o BatchMode=yes -o UserKnownHostsFile="+known)
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Errorf("ls-remote with an unknown key succeeded: %s", out)
		}
		cmd = exec.Command("git", "-C", filepath.Join(dir, "ssh"), "push", "-q", "origin", "HEAD:refs/heads/other")
		cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_SSH_COMMAND="+ssh)
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Errorf("a push over SSH succeeded: %s", out)
		}
	})
}

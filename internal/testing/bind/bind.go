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

// Package bind runs a real BIND 9 name server (Debian's named) for tests: in
// the foreground, on 127.0.0.1 and a free high port, with one dynamic zone
// that an hmac-sha256 TSIG key may update (update-policy zonesub ANY) and
// transfer (allow-transfer), its journal in a temporary directory.
package bind

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/freeleaps/provider-devops/internal/testing/integration"
	"github.com/freeleaps/provider-devops/internal/testing/loopback"
)

// Zone is the zone Start serves.
const Zone = "example.test."

// KeyName is the TSIG key allowed to update and transfer the zone.
const KeyName = "crossplane-key."

// Server is a running named.
type Server struct {
	// Addr is host:port, for RFC 2136 updates and queries over TCP.
	Addr string
	// Secret is the base64 TSIG secret of KeyName.
	Secret string
	// Zone is the zone served, fully qualified.
	Zone   string
	dir    string
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	mu     sync.Mutex
}

// Named returns the path of named, or "" when it is not installed.
func Named() string {
	if p, err := exec.LookPath("named"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/named", "/usr/local/sbin/named"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Start runs named serving Zone for the test and stops it when the test
// ends. Without named the test fails in CI (CI=true) and is skipped
// elsewhere, saying why.
func Start(t *testing.T) *Server {
	t.Helper()
	return StartZone(t, Zone)
}

// StartZone is Start serving zone (fully qualified).
func StartZone(t *testing.T, zone string) *Server {
	t.Helper()
	integration.Test(t, "BIND (named)")
	if Named() == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("named (Debian package bind9) is not installed; .ci/run installs it")
		}
		t.Skip("named is not installed (apt-get install bind9); skipped outside CI")
	}
	s, err := New(t.TempDir(), zone)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// New runs named serving zone (fully qualified) with its files in dir, and
// returns once it answers. Close stops it.
func New(dir, zone string) (*Server, error) {
	named := Named()
	if named == "" {
		return nil, fmt.Errorf("named (Debian package bind9) is not installed")
	}
	s := &Server{dir: dir, stderr: &bytes.Buffer{}, Zone: zone}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	s.Secret = base64.StdEncoding.EncodeToString(key)
	port, err := loopback.FreePort()
	if err != nil {
		return nil, err
	}
	s.Addr = fmt.Sprintf("127.0.0.1:%d", port)
	if err := s.writeConfig(port); err != nil {
		return nil, err
	}
	s.cmd = exec.Command(named, "-g", "-4", "-c", filepath.Join(s.dir, "named.conf"))
	s.cmd.Stderr = &lockedWriter{mu: &s.mu, w: s.stderr}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := s.Query(s.Zone, dns.TypeSOA); err == nil {
			return s, nil
		}
		if time.Now().After(deadline) {
			s.Close()
			s.mu.Lock()
			defer s.mu.Unlock()
			return nil, fmt.Errorf("named did not answer on %s within 30s; its log:\n%s", s.Addr, s.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Close stops named.
func (s *Server) Close() {
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

func (s *Server) writeConfig(port int) error {
	conf := fmt.Sprintf(`options {
	directory "%[1]s";
	pid-file "%[1]s/named.pid";
	session-keyfile "%[1]s/session.key";
	managed-keys-directory "%[1]s";
	listen-on port %[2]d { 127.0.0.1; };
	listen-on-v6 { none; };
	recursion no;
	dnssec-validation no;
	allow-query { any; };
};
controls { };
key "%[3]s" {
	algorithm hmac-sha256;
	secret "%[4]s";
};
zone "%[5]s" {
	type primary;
	file "%[1]s/zone.db";
	journal "%[1]s/zone.db.jnl";
	update-policy { grant %[3]s zonesub ANY; };
	allow-transfer { key %[3]s; };
};
`, s.dir, port, KeyName, s.Secret, s.Zone)
	zone := fmt.Sprintf(`$TTL 300
@	IN SOA ns.%[1]s hostmaster.%[1]s 1 3600 600 86400 300
@	IN NS ns.%[1]s
ns	IN A 127.0.0.1
`, s.Zone)
	if err := os.WriteFile(filepath.Join(s.dir, "named.conf"), []byte(conf), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(s.dir, "zone.db"), []byte(zone), 0o600)
}

// Query asks the server for name and type over TCP, unsigned.
func (s *Server) Query(name string, typ uint16) ([]dns.RR, error) {
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), typ)
	c := &dns.Client{Net: "tcp", Timeout: 2 * time.Second}
	r, _, err := c.Exchange(m, s.Addr)
	if err != nil {
		return nil, err
	}
	if r.Rcode != dns.RcodeSuccess && r.Rcode != dns.RcodeNameError {
		return nil, fmt.Errorf("rcode %s", dns.RcodeToString[r.Rcode])
	}
	return r.Answer, nil
}

// Values returns the data of the RRset name/typ, as dig +short would.
func (s *Server) Values(name string, typ uint16) []string {
	rrs, err := s.Query(name, typ)
	if err != nil {
		return nil
	}
	var out []string
	for _, rr := range rrs {
		if rr.Header().Rrtype == typ {
			out = append(out, strings.TrimPrefix(rr.String(), rr.Header().String()))
		}
	}
	return out
}

// NSUpdate runs Debian's nsupdate with the zone's key, as an administrator
// changing the zone behind the provider's back would. script holds nsupdate
// commands without the server line and without "send".
func (s *Server) NSUpdate(t *testing.T, script string) {
	t.Helper()
	host, port, _ := net.SplitHostPort(s.Addr)
	in := fmt.Sprintf("server %s %s\nzone %s\n%s\nsend\n", host, port, s.Zone, script)
	cmd := exec.Command("nsupdate", "-v", "-y", "hmac-sha256:"+strings.TrimSuffix(KeyName, ".")+":"+s.Secret)
	cmd.Stdin = strings.NewReader(in)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nsupdate: %v\n%s", err, out)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

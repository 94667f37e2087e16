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
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"
)

// SSH is how a client reaches the server over SSH.
type SSH struct {
	// Addr is 127.0.0.1:PORT; a repository's URL is
	// ssh://git@Addr/<name>.git.
	Addr string
	// KnownHosts is the server's line of an ssh_known_hosts file.
	KnownHosts string
	// PrivateKeyPEM is the one key the server accepts (OpenSSH format).
	PrivateKeyPEM []byte
}

// URL is the SSH URL of repository name.
func (c SSH) URL(name string) string { return "ssh://git@" + c.Addr + "/" + name + ".git" }

// ServeSSH serves the repositories read-only over SSH (git-upload-pack, as
// git clone and fetch ask for) on a free loopback port, to the holder of a
// key it makes. Any other command is refused.
func (s *Server) ServeSSH() (SSH, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ssh != nil {
		return s.ssh.info, nil
	}
	_, hostKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return SSH{}, err
	}
	host, err := ssh.NewSignerFromKey(hostKey)
	if err != nil {
		return SSH{}, err
	}
	clientPub, clientKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return SSH{}, err
	}
	authorized, err := ssh.NewPublicKey(clientPub)
	if err != nil {
		return SSH{}, err
	}
	block, err := ssh.MarshalPrivateKey(clientKey, "provider-devops tests")
	if err != nil {
		return SSH{}, err
	}
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
		if bytes.Equal(k.Marshal(), authorized.Marshal()) {
			return &ssh.Permissions{}, nil
		}
		return nil, errors.New("unknown key")
	}}
	cfg.AddHostKey(host)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return SSH{}, err
	}
	addr := l.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	srv := &sshServer{l: l, cfg: cfg, root: s.root, conns: map[net.Conn]struct{}{}, info: SSH{
		Addr:          addr,
		KnownHosts:    fmt.Sprintf("[127.0.0.1]:%s %s", port, strings.TrimSpace(string(ssh.MarshalAuthorizedKey(host.PublicKey())))),
		PrivateKeyPEM: pem.EncodeToMemory(block),
	}}
	s.ssh = srv
	go srv.serve()
	return srv.info, nil
}

type sshServer struct {
	l     net.Listener
	cfg   *ssh.ServerConfig
	root  string
	info  SSH
	mu    sync.Mutex
	conns map[net.Conn]struct{}
	// wg counts the connections' goroutines (and their git-upload-pack).
	wg sync.WaitGroup
}

func (s *sshServer) serve() {
	for {
		c, err := s.l.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() {
				_ = c.Close()
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
			}()
			s.handle(c)
		}()
	}
}

// close stops serving and waits for the sessions to end.
func (s *sshServer) close() {
	_ = s.l.Close()
	s.mu.Lock()
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *sshServer) handle(c net.Conn) {
	conn, chans, reqs, err := ssh.NewServerConn(c, s.cfg)
	if err != nil {
		return
	}
	defer func() { _ = conn.Close() }()
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(ssh.UnknownChannelType, "sessions only")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.session(ch, creqs)
		}()
	}
}

// session runs the one git-upload-pack a session asks for; an environment
// variable (GIT_PROTOCOL) is accepted and passed on.
func (s *sshServer) session(ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer func() { _ = ch.Close() }()
	var env []string
	for req := range reqs {
		switch req.Type {
		case "env":
			var kv struct{ Name, Value string }
			if ssh.Unmarshal(req.Payload, &kv) == nil && kv.Name == "GIT_PROTOCOL" {
				env = append(env, kv.Name+"="+kv.Value)
			}
			_ = req.Reply(true, nil)
		case "exec":
			var cmd struct{ Command string }
			if err := ssh.Unmarshal(req.Payload, &cmd); err != nil {
				_ = req.Reply(false, nil)
				return
			}
			dir, err := s.repository(cmd.Command)
			if err != nil {
				_ = req.Reply(false, nil)
				_, _ = fmt.Fprintln(ch.Stderr(), err)
				exit(ch, 128)
				return
			}
			_ = req.Reply(true, nil)
			run := exec.Command("git-upload-pack", "--strict", dir)
			run.Env = append(os.Environ(), env...)
			run.Stdin, run.Stdout, run.Stderr = ch, ch, ch.Stderr()
			status := 0
			if err := run.Run(); err != nil {
				status = 1
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					status = ee.ExitCode()
				}
			}
			exit(ch, status)
			return
		default:
			_ = req.Reply(false, nil)
		}
	}
}

// repository is the bare repository command ("git-upload-pack '<path>'")
// names, under the server's root.
func (s *sshServer) repository(command string) (string, error) {
	prog, arg, ok := strings.Cut(command, " ")
	if !ok || prog != "git-upload-pack" {
		return "", fmt.Errorf("only git-upload-pack is served, not %q", command)
	}
	p := path.Clean("/" + strings.Trim(arg, "'\""))
	dir := filepath.Join(s.root, filepath.FromSlash(p))
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		return "", fmt.Errorf("no repository %s", p)
	}
	return dir, nil
}

func exit(ch ssh.Channel, status int) {
	_, _ = ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{uint32(status)}))
}

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

// Package rabbitmq runs a real RabbitMQ node (Debian's rabbitmq-server) for
// tests, without the Debian service wrapper: its own epmd on a free loopback
// port, the node listening on 127.0.0.1 only, no plugins, and its database
// and logs in a temporary directory. A node can be stopped and started again
// on the same ports and database, which is how tests restart the broker
// under a publisher.
package rabbitmq

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/freeleaps/provider-devops/internal/testing/integration"
	"github.com/freeleaps/provider-devops/internal/testing/loopback"
)

// Bin is where Debian's rabbitmq-server package keeps the unwrapped scripts.
const Bin = "/usr/lib/rabbitmq/bin"

// Broker is a RabbitMQ node.
type Broker struct {
	// URL is the AMQP URL of the node's default vhost, as guest.
	URL string
	// Port is the AMQP port.
	Port int

	dir  string
	env  []string
	epmd *exec.Cmd
	node *exec.Cmd
	mu   sync.Mutex
	done chan struct{}
	// started is true once the node has run: a restart keeps its port.
	started bool
}

// Installed is true when rabbitmq-server and epmd are installed.
func Installed() bool {
	if _, err := os.Stat(filepath.Join(Bin, "rabbitmq-server")); err != nil {
		return false
	}
	_, err := exec.LookPath("epmd")
	return err == nil
}

// Start runs a node for the test and removes it when the test ends. Without
// RabbitMQ the test fails in CI (CI set) and is skipped elsewhere, saying why.
func Start(t testing.TB) *Broker {
	t.Helper()
	integration.Test(t, "a RabbitMQ node")
	if !Installed() {
		if os.Getenv("CI") != "" {
			t.Fatal("rabbitmq-server (Debian package rabbitmq-server) is not installed; .ci/run installs it")
		}
		t.Skip("rabbitmq-server is not installed (apt-get install rabbitmq-server); skipped outside CI")
	}
	b, err := Run(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// Run prepares a node under dir and starts it. The free ports are free
// when chosen, not when the node binds them: another process (a parallel
// test run, or any connection's local end) may take one in between. Then
// the node is started again on new ones, up to three times.
func Run(dir string) (*Broker, error) {
	for attempt := 1; ; attempt++ {
		sub := filepath.Join(dir, fmt.Sprint(attempt))
		if err := os.MkdirAll(sub, 0o700); err != nil {
			return nil, err
		}
		b, err := New(sub)
		if err != nil {
			return nil, err
		}
		err = b.Start()
		if err == nil {
			return b, nil
		}
		b.Close()
		if attempt == 3 || !strings.Contains(err.Error(), "eaddrinuse") {
			return nil, err
		}
	}
}

// New prepares a node in dir with free ports; Start runs it.
func New(dir string) (*Broker, error) {
	var ports [3]int
	for i := range ports {
		p, err := loopback.FreePort()
		if err != nil {
			return nil, err
		}
		ports[i] = p
	}
	if err := os.WriteFile(filepath.Join(dir, "enabled_plugins"), []byte("[].\n"), 0o600); err != nil {
		return nil, err
	}
	loopbackOnly := "-kernel inet_dist_use_interface {127,0,0,1}"
	b := &Broker{
		URL:  fmt.Sprintf("amqp://guest:guest@127.0.0.1:%d/", ports[0]),
		Port: ports[0],
		dir:  dir,
		env: append(os.Environ(),
			"HOME="+dir,
			fmt.Sprintf("RABBITMQ_NODENAME=test-%d@localhost", ports[0]),
			"RABBITMQ_NODE_IP_ADDRESS=127.0.0.1",
			fmt.Sprintf("RABBITMQ_NODE_PORT=%d", ports[0]),
			fmt.Sprintf("RABBITMQ_DIST_PORT=%d", ports[1]),
			fmt.Sprintf("ERL_EPMD_PORT=%d", ports[2]),
			"ERL_EPMD_ADDRESS=127.0.0.1",
			"RABBITMQ_MNESIA_BASE="+filepath.Join(dir, "mnesia"),
			"RABBITMQ_LOG_BASE="+filepath.Join(dir, "log"),
			"RABBITMQ_ENABLED_PLUGINS_FILE="+filepath.Join(dir, "enabled_plugins"),
			"RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="+loopbackOnly,
			"RABBITMQ_CTL_ERL_ARGS="+loopbackOnly,
		),
	}
	b.epmd = exec.Command("epmd", "-port", fmt.Sprint(ports[2]), "-address", "127.0.0.1")
	b.epmd.Env = b.env
	b.epmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := b.epmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start epmd: %w", err)
	}
	return b, nil
}

// Start runs the node in the foreground (as a child that dies with the test
// process) and waits until it has fully booted. Started again (after
// Stop), it keeps its port, which the stopped node freed but any process
// on the machine may have taken meanwhile, as the local end of a
// connection it opened: then it waits, up to restartWait, for the port to
// be free again.
func (b *Broker) Start() error {
	deadline := time.Now().Add(restartWait)
	for {
		err := b.start()
		if err == nil {
			b.mu.Lock()
			b.started = true
			b.mu.Unlock()
			return nil
		}
		b.mu.Lock()
		restart := b.started
		b.mu.Unlock()
		if !restart || !strings.Contains(err.Error(), "eaddrinuse") || time.Now().After(deadline) {
			return err
		}
		for time.Now().Before(deadline) {
			if l, lerr := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", b.Port)); lerr == nil {
				_ = l.Close()
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// restartWait bounds how long a restart waits for its port.
const restartWait = time.Minute

func (b *Broker) start() error {
	b.mu.Lock()
	b.node = exec.Command(filepath.Join(Bin, "rabbitmq-server"))
	b.node.Env = b.env
	// The script runs erl as its child: a process group lets Close kill
	// both, and a file (not a pipe) for output keeps Wait from waiting on
	// the grandchild.
	logf, err := os.Create(filepath.Join(b.dir, "node.log"))
	if err != nil {
		b.mu.Unlock()
		return err
	}
	defer func() { _ = logf.Close() }()
	b.node.Stdout, b.node.Stderr = logf, logf
	b.node.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := b.node.Start(); err != nil {
		b.mu.Unlock()
		return fmt.Errorf("cannot start rabbitmq-server: %w", err)
	}
	done := make(chan struct{})
	b.done = done
	node := b.node
	b.mu.Unlock()
	go func() { _ = node.Wait(); close(done) }()

	deadline := time.Now().Add(90 * time.Second)
	for {
		out, err := b.ctl("await_startup", "--timeout", "10")
		if err == nil {
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("rabbitmq-server exited while starting; its output:\n%s", b.Log())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("rabbitmq-server did not start within 90s: %s; its output:\n%s", out, b.Log())
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// Stop shuts the node down cleanly (rabbitmqctl shutdown) and waits for it.
// Its database stays, so Start brings back durable exchanges, queues and
// persistent messages.
func (b *Broker) Stop() error {
	if out, err := b.ctl("shutdown"); err != nil {
		return fmt.Errorf("rabbitmqctl shutdown: %w: %s", err, out)
	}
	select {
	case <-b.done:
		return nil
	case <-time.After(60 * time.Second):
		return fmt.Errorf("rabbitmq-server did not exit within 60s of shutdown")
	}
}

// Close kills the node and the epmd this broker started.
func (b *Broker) Close() {
	b.mu.Lock()
	node, done := b.node, b.done
	b.mu.Unlock()
	if node != nil && node.Process != nil {
		_ = syscall.Kill(-node.Process.Pid, syscall.SIGKILL)
		<-done
	}
	_ = b.epmd.Process.Kill()
	_ = b.epmd.Wait()
}

func (b *Broker) ctl(args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(Bin, "rabbitmqctl"), args...)
	cmd.Env = b.env
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// Log returns what the node printed since it last started.
func (b *Broker) Log() string {
	out, _ := os.ReadFile(filepath.Join(b.dir, "node.log"))
	return string(out)
}

// AddUser creates a user with a password and permissions on the default
// vhost (configure, write and read regular expressions, as rabbitmqctl
// set_permissions takes them) and returns its AMQP URL.
func (b *Broker) AddUser(name, password, configure, write, read string) (string, error) {
	if out, err := b.ctl("add_user", name, password); err != nil {
		return "", fmt.Errorf("rabbitmqctl add_user %s: %w: %s", name, err, out)
	}
	if out, err := b.ctl("set_permissions", "-p", "/", name, configure, write, read); err != nil {
		return "", fmt.Errorf("rabbitmqctl set_permissions %s: %w: %s", name, err, out)
	}
	return fmt.Sprintf("amqp://%s:%s@127.0.0.1:%d/", name, password, b.Port), nil
}

// Permissions are a user's rights on a vhost, as regular expressions over
// exchange and queue names.
type Permissions struct{ Configure, Write, Read string }

// The permissions docs/events.md gives for the default names: the provider
// declares its exchanges and queues, publishes events and dead letters and
// consumes requests; a deployer (a CI system) may only publish requests.
// Tests create users with them, so the documented recipe is what they run.
var (
	ProviderPermissions = Permissions{
		Configure: `^devops\.(events|deploy(\.unrouted)?|deploy-requests(\.dead-letter|\.user\..+)?)$`,
		Write:     `^devops\.(events|deploy\.unrouted|deploy-requests(\.dead-letter|\.user\..+)?)$`,
		Read:      `^devops\.(deploy(\.unrouted)?|deploy-requests(\.dead-letter|\.user\..+)?)$`,
	}
	DeployerPermissions = Permissions{Configure: `^$`, Write: `^devops\.deploy$`, Read: `^$`}
	// ProviderLegacyPermissions are ProviderPermissions with the legacy
	// queue docs/events.md names (--events-legacy-queue=devops.reconciler)
	// and its dead letters.
	ProviderLegacyPermissions = Permissions{
		Configure: `^devops\.(events|deploy(\.unrouted)?|deploy-requests(\.dead-letter|\.user\..+)?|reconciler(\.dead-letter)?)$`,
		Write:     `^devops\.(events|deploy\.unrouted|deploy-requests(\.dead-letter|\.user\..+)?|reconciler(\.dead-letter)?)$`,
		Read:      `^devops\.(deploy(\.unrouted)?|deploy-requests(\.dead-letter|\.user\..+)?|reconciler(\.dead-letter)?)$`,
	}
)

// OperatorUITopicPermissions keep the operator's UI, publishing to the
// legacy queue through the request exchange (--events-legacy-binding
// operator.#), to routing keys under operator.
var OperatorUITopicPermissions = TopicPermissions{Exchange: "devops.deploy", Write: `^operator\.`, Read: `^$`}

// DeployerTopicPermissions are the topic permissions docs/events.md gives a
// deployer on the request exchange: it may publish only under its own
// name, so its requests reach its own queue (events.Lanes) and no other
// user's.
var DeployerTopicPermissions = TopicPermissions{Exchange: "devops.deploy", Write: `^user\.{username}\.`, Read: `^$`}

// TopicPermissions are a user's rights on the routing keys of one topic
// exchange, as regular expressions ({username} stands for the user).
type TopicPermissions struct{ Exchange, Write, Read string }

// SetTopicPermissions gives user p on the default vhost.
func (b *Broker) SetTopicPermissions(user string, p TopicPermissions) error {
	if out, err := b.ctl("set_topic_permissions", "-p", "/", user, p.Exchange, p.Write, p.Read); err != nil {
		return fmt.Errorf("rabbitmqctl set_topic_permissions %s: %w: %s", user, err, out)
	}
	return nil
}

// AddUserWith is AddUser with Permissions.
func (b *Broker) AddUserWith(name, password string, p Permissions) (string, error) {
	return b.AddUser(name, password, p.Configure, p.Write, p.Read)
}

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

// Package node runs a real Kubernetes node for tests: containerd (Debian's,
// with runc) and a kubelet built from the Go module proxy, registered with
// a test control plane, its Pods on a bridge of Debian's CNI plugins. It
// touches no system configuration: containerd has its own root, state and
// socket, the kubelet its own root directory and cgroup root, the bridge a
// name and subnet of its own; everything is removed when the test ends.
// Images come from a local registry (internal/testing/distribution), the
// sandbox (pause) image included: no public registry is reachable.
package node

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/freeleaps/provider-devops/internal/ociimage"
	"github.com/freeleaps/provider-devops/internal/testing/distribution"
	"github.com/freeleaps/provider-devops/internal/testing/envtest"
	"github.com/freeleaps/provider-devops/internal/testing/process"
)

// cniBin is where Debian's containernetworking-plugins installs the
// plugins.
const cniBin = "/usr/lib/cni"

// CA is the CA bundle the images carry.
const CA = "/etc/ssl/certs/ca-certificates.crt"

// Node is a running node.
type Node struct {
	// Name of the Node object.
	Name string
	// PodCIDR is the subnet of its Pods, on its own bridge.
	PodCIDR *net.IPNet
	// Registry serves its images.
	Registry *distribution.Server

	dir, bridge, cgroup string
	kube                client.Client
	containerd, kubelet *process.Process
}

// missing says what the node needs and the machine lacks: root, containerd,
// runc, the CNI plugins and a kubelet among KUBEBUILDER_ASSETS
// (hack/envtest-assets.sh kubelet).
func missing() string {
	if os.Geteuid() != 0 {
		return "root (containerd and the kubelet manage mounts, cgroups and network namespaces)"
	}
	for _, b := range []string{"containerd", "runc", "ip"} {
		if _, err := exec.LookPath(b); err != nil {
			return b + " (Debian packages containerd, runc, iproute2; .ci/run installs them)"
		}
	}
	if _, err := os.Stat(filepath.Join(cniBin, "bridge")); err != nil {
		return "the CNI plugins in " + cniBin + " (Debian package containernetworking-plugins)"
	}
	if _, err := os.Stat(Kubelet()); err != nil {
		return "a kubelet in KUBEBUILDER_ASSETS (hack/envtest-assets.sh kubelet builds it)"
	}
	return ""
}

// Kubelet is the kubelet's path.
func Kubelet() string { return filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kubelet") }

// Start runs a node registered with env, pulling from reg, until the test
// ends. Without what it needs it fails in CI (CI=true) and skips elsewhere.
func Start(t *testing.T, env *envtest.Env, reg *distribution.Server) *Node {
	t.Helper()
	if m := missing(); m != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("a node needs %s", m)
		}
		t.Skipf("a node needs %s; skipped outside CI", m)
	}
	// Not t.TempDir: unix socket paths are short, and the kubelet's
	// mounts must go before the directory does.
	dir, err := os.MkdirTemp("", "pdnode")
	if err != nil {
		t.Fatal(err)
	}
	id := randomHex(3)
	n := &Node{Name: "node-" + id, Registry: reg, dir: dir, bridge: "pd" + id, cgroup: "/pdnode-" + id, kube: env.Client}
	t.Cleanup(func() { n.stop(t) })
	if err := n.start(t, env); err != nil {
		t.Fatalf("node %s: %v", n.Name, err)
	}
	return n
}

func (n *Node) start(t *testing.T, env *envtest.Env) error {
	sub, err := randomSubnet()
	if err != nil {
		return err
	}
	n.PodCIDR = sub
	pause, err := n.pushPause(t)
	if err != nil {
		return err
	}
	if err := n.writeConfigs(pause); err != nil {
		return err
	}
	if err := n.makeCgroups(); err != nil {
		return err
	}
	logs := filepath.Join(n.dir, "logs")
	if n.containerd, err = process.Start(logs, "containerd", nil, "containerd", "--config", filepath.Join(n.dir, "containerd.toml")); err != nil {
		return err
	}
	if err := waitFor(30*time.Second, func() bool {
		_, err := os.Stat(n.socket())
		return err == nil
	}); err != nil {
		return fmt.Errorf("containerd did not listen on %s: %s", n.socket(), n.containerd.Tail(20))
	}
	kc, err := env.KubeConfigFor("system:node:"+n.Name, "system:nodes", "system:masters")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(n.dir, "kubeconfig"), kc, 0o600); err != nil {
		return err
	}
	if n.kubelet, err = process.Start(logs, "kubelet", nil, Kubelet(),
		"--config", filepath.Join(n.dir, "kubelet.yaml"),
		"--kubeconfig", filepath.Join(n.dir, "kubeconfig"),
		"--root-dir", filepath.Join(n.dir, "kubelet"),
		"--cert-dir", filepath.Join(n.dir, "kubelet", "pki"),
		"--hostname-override", n.Name,
	); err != nil {
		return err
	}
	ctx := context.Background()
	if err := waitFor(3*time.Minute, func() bool {
		node := &corev1.Node{}
		if n.kube.Get(ctx, client.ObjectKey{Name: n.Name}, node) != nil {
			return false
		}
		return slices.ContainsFunc(node.Status.Conditions, func(c corev1.NodeCondition) bool {
			return c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue
		})
	}); err != nil {
		return fmt.Errorf("not Ready: kubelet:\n%s\ncontainerd:\n%s", n.kubelet.Tail(30), n.containerd.Tail(10))
	}
	t.Logf("node %s Ready: Pods on %s (bridge %s), images from %s", n.Name, n.PodCIDR, n.bridge, n.Registry.Host)
	return nil
}

func (n *Node) socket() string { return filepath.Join(n.dir, "containerd.sock") }

// PushImage builds the runtime image of the static binary (ociimage) and
// pushes it as repo:tag; it returns the reference a Pod names.
func (n *Node) PushImage(binary, repo, tag string) (string, error) {
	img, err := ociimage.Build(binary, CA, runtime.GOARCH, nil)
	if err != nil {
		return "", err
	}
	ref, err := name.NewTag(n.Registry.Host+"/"+repo+":"+tag, name.Insecure)
	if err != nil {
		return "", err
	}
	if err := remote.Write(ref, img, distribution.Auth()); err != nil {
		return "", fmt.Errorf("push %s: %w", ref, err)
	}
	return ref.String(), nil
}

// pushPause builds the sandbox image and pushes it.
func (n *Node) pushPause(t *testing.T) (string, error) {
	bin := filepath.Join(n.dir, "pause")
	cmd := exec.Command("go", "build", "-o", bin, "./internal/testing/node/pause")
	cmd.Dir = envtest.RepoRoot()
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build pause: %w: %s", err, out)
	}
	return n.PushImage(bin, "pause", "3.10")
}

func (n *Node) writeConfigs(pause string) error {
	host := n.Registry.Host
	files := map[string]string{
		"containerd.toml": fmt.Sprintf(`version = 2
root = %[1]q
state = %[2]q
[grpc]
  address = %[3]q
[ttrpc]
  address = %[4]q
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = %[5]q
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %[6]q
  # Not root enough to lower an OOM score (no CAP_SYS_RESOURCE here).
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = %[7]q
    conf_dir = %[8]q
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = %[9]q
    [plugins."io.containerd.grpc.v1.cri".registry.configs.%[10]q.auth]
      username = %[11]q
      password = %[12]q
`, filepath.Join(n.dir, "containerd", "root"), filepath.Join(n.dir, "containerd", "state"), n.socket(), filepath.Join(n.dir, "containerd.ttrpc.sock"),
			filepath.Join(n.dir, "containerd", "opt"), pause, cniBin, filepath.Join(n.dir, "cni"), filepath.Join(n.dir, "certs.d"), host, distribution.User, distribution.Password),
		filepath.Join("certs.d", host, "hosts.toml"): fmt.Sprintf("server = %[1]q\n[host.%[1]q]\n  capabilities = [\"pull\", \"resolve\"]\n", "http://"+host),
		filepath.Join("cni", "10-node.conflist"): fmt.Sprintf(`{"cniVersion": "1.0.0", "name": %[1]q, "plugins": [
 {"type": "bridge", "bridge": %[1]q, "isGateway": true, "ipMasq": false, "hairpinMode": true,
  "ipam": {"type": "host-local", "dataDir": %[2]q, "ranges": [[{"subnet": %[3]q}]]}},
 {"type": "loopback"}
]}`, n.bridge, filepath.Join(n.dir, "ipam"), n.PodCIDR.String()),
		"kubelet.yaml": fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# These machines mount cgroup v1.
cgroupDriver: cgroupfs
failCgroupV1: false
cgroupRoot: %[1]q
failSwapOn: false
containerRuntimeEndpoint: unix://%[2]s
# Nothing bound on a fixed port: no kubelet server, read-only port or
# healthz endpoint (nothing here calls them).
port: 0
readOnlyPort: 0
healthzPort: 0
address: 127.0.0.1
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
authorization: {mode: AlwaysAllow}
resolvConf: ""
enforceNodeAllocatable: []
localStorageCapacityIsolation: false
evictionHard: {}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
`, n.cgroup, n.socket()),
	}
	for name, body := range files {
		p := filepath.Join(n.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// hierarchies are the mounted cgroup v1 hierarchies.
func hierarchies() ([]string, error) {
	entries, err := os.ReadDir("/sys/fs/cgroup")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		p := filepath.Join("/sys/fs/cgroup", e.Name())
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
			out = append(out, p)
		}
	}
	return out, nil
}

// makeCgroups creates the kubelet's cgroup root in every hierarchy; a new
// cpuset starts with its parent's CPUs and memory nodes.
func (n *Node) makeCgroups() error {
	hs, err := hierarchies()
	if err != nil {
		return err
	}
	for _, h := range hs {
		p := filepath.Join(h, n.cgroup)
		if err := os.Mkdir(p, 0o755); err != nil && !os.IsExist(err) {
			return fmt.Errorf("cgroup %s: %w", p, err)
		}
		if filepath.Base(h) == "cpuset" {
			for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
				v, err := os.ReadFile(filepath.Join(h, f))
				if err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(p, f), v, 0o644); err != nil {
					return fmt.Errorf("cgroup %s: %w", filepath.Join(p, f), err)
				}
			}
		}
	}
	return nil
}

// stop removes the node: its Pods' containers, the kubelet, containerd
// and its shims, their mounts, cgroups and bridge, and the directory.
func (n *Node) stop(t *testing.T) {
	ctx := context.Background()
	if t.Failed() && n.kubelet != nil {
		t.Logf("node %s kubelet log:\n%s\ncontainerd log:\n%s", n.Name, n.kubelet.Tail(40), n.containerd.Tail(20))
	}
	// Pods go the way a node drains: the kubelet stops their containers
	// and sandboxes, and the CNI plugin releases their addresses and
	// network namespaces (containerd keeps those under /var/run/netns).
	if n.kubelet != nil {
		pods := &corev1.PodList{}
		if n.kube.List(ctx, pods, client.MatchingFields{"spec.nodeName": n.Name}) == nil {
			for i := range pods.Items {
				_ = n.kube.Delete(ctx, &pods.Items[i], client.GracePeriodSeconds(1))
			}
			_ = waitFor(time.Minute, func() bool {
				left := &corev1.PodList{}
				return n.kube.List(ctx, left, client.MatchingFields{"spec.nodeName": n.Name}) == nil && len(left.Items) == 0
			})
		}
		n.kubelet.Stop(10 * time.Second)
	}
	// What is left in the node's cgroups, and containerd's shims, is
	// killed.
	killCgroup(n.cgroup)
	killUnder(n.dir)
	if n.containerd != nil {
		n.containerd.Stop(10 * time.Second)
	}
	killUnder(n.dir)
	unmountUnder(n.dir)
	if hs, err := hierarchies(); err == nil {
		for _, h := range hs {
			removeTree(filepath.Join(h, n.cgroup))
		}
	}
	_ = exec.Command("ip", "link", "del", n.bridge).Run()
	_ = n.kube.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name}})
	if err := os.RemoveAll(n.dir); err != nil {
		t.Logf("cannot remove %s: %v", n.dir, err)
	}
}

// killUnder SIGKILLs every process whose command line or working
// directory names dir, and the processes in containers those started are
// gone with their shims.
func killUnder(dir string) {
	procs, _ := os.ReadDir("/proc")
	self := os.Getpid()
	for _, p := range procs {
		var pid int
		if _, err := fmt.Sscanf(p.Name(), "%d", &pid); err != nil || pid == self {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if bytes.Contains(cmdline, []byte(dir)) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	time.Sleep(200 * time.Millisecond)
}

// killCgroup SIGKILLs every process in cgroup (of any hierarchy) and its
// children.
func killCgroup(cgroup string) {
	hs, err := hierarchies()
	if err != nil {
		return
	}
	for _, h := range hs {
		_ = filepath.WalkDir(filepath.Join(h, cgroup), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() != "cgroup.procs" {
				return nil
			}
			data, _ := os.ReadFile(p)
			for _, f := range strings.Fields(string(data)) {
				var pid int
				if _, err := fmt.Sscanf(f, "%d", &pid); err == nil && pid > 1 {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			return nil
		})
	}
	time.Sleep(200 * time.Millisecond)
}

// unmountUnder detaches every mount below dir, deepest first.
func unmountUnder(dir string) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return
	}
	var points []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && (f[4] == dir || strings.HasPrefix(f[4], dir+"/")) {
			points = append(points, f[4])
		}
	}
	slices.SortFunc(points, func(a, b string) int { return len(b) - len(a) })
	for _, p := range points {
		_ = syscall.Unmount(p, syscall.MNT_DETACH)
	}
}

// removeTree removes a cgroup and its children, deepest first.
func removeTree(p string) {
	entries, err := os.ReadDir(p)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() {
			removeTree(filepath.Join(p, e.Name()))
		}
	}
	_ = syscall.Rmdir(p)
}

// randomSubnet is a /24 in 10.200.0.0/13 that no interface of the machine
// is on: two nodes of two test runs side by side do not meet.
func randomSubnet() (*net.IPNet, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, err
	}
	for range 50 {
		i, err := rand.Int(rand.Reader, big.NewInt(8*256))
		if err != nil {
			return nil, err
		}
		v := int(i.Int64())
		_, sub, _ := net.ParseCIDR(fmt.Sprintf("10.%d.%d.0/24", 200+v/256, v%256))
		if !slices.ContainsFunc(addrs, func(a net.Addr) bool {
			ip, _, err := net.ParseCIDR(a.String())
			return err == nil && sub.Contains(ip)
		}) {
			return sub, nil
		}
	}
	return nil, fmt.Errorf("no free /24 in 10.200.0.0/13")
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// waitFor polls cond until it holds or within passes.
func waitFor(within time.Duration, cond func() bool) error {
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s", within)
		}
		time.Sleep(250 * time.Millisecond)
	}
	return nil
}

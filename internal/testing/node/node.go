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
// a control plane of the test's own, its Pods on a bridge of Debian's CNI
// plugins, all in a network namespace of its own (StartCluster). It
// touches no system configuration: containerd has its own root, state and
// socket, the kubelet its own root directory and cgroup root, the network
// namespace its own bridge and iptables rules; everything is removed when
// the test ends.
// Images come from a local registry (internal/testing/distribution), the
// sandbox (pause) image included: no public registry is reachable.
package node

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/freeleaps/provider-devops/internal/ociimage"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	"github.com/freeleaps/provider-devops/internal/testing/distribution"
	"github.com/freeleaps/provider-devops/internal/testing/integration"
	"github.com/freeleaps/provider-devops/internal/testing/process"
)

// cniBin is where Debian's containernetworking-plugins installs the
// plugins.
const cniBin = "/usr/lib/cni"

// KeepLogsEnv is the environment variable naming a directory where Close
// copies the logs of the control plane's and the node's processes.
const KeepLogsEnv = "PDNODE_KEEP_LOGS"

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

	dir, bridge, cgroup, netns string
	// link is the subnet of the veth pair.
	link *net.IPNet
	// Env is the control plane.
	Env                 *controlplane.Env
	kube                client.Client
	containerd, kubelet *process.Process
	logf                func(string, ...any)
	logsTo              string
	// registry is the forwarder to the registry.
	registry string
	// closers stop the forwarders.
	mu      sync.Mutex
	closers []func()
	// veth is the machine's end of the pair.
	veth string
	// procs are the control plane's controllers and kube-proxy.
	procs []*process.Process
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
	if _, err := os.Stat("/proc/sys/net/bridge/bridge-nf-call-iptables"); err != nil {
		return "the br_netfilter kernel module (modprobe br_netfilter): a Pod reaches a Service on its own bridge through it"
	}
	if _, err := os.Stat(filepath.Join(cniBin, "bridge")); err != nil {
		return "the CNI plugins in " + cniBin + " (Debian package containernetworking-plugins)"
	}
	for _, b := range []string{"kubelet", "kube-proxy", "kube-scheduler", "kube-controller-manager", "coredns"} {
		if _, err := os.Stat(asset(b)); err != nil {
			return "a " + b + " in KUBEBUILDER_ASSETS (hack/envtest-assets.sh " + b + " builds it)"
		}
	}
	return ""
}

// StartCluster runs a control plane of the test's own and a node of it,
// pulling from reg, until the test ends (Start). Without what it needs it
// fails in CI (CI=true) and skips elsewhere.
func StartCluster(t *testing.T, reg *distribution.Server) (*controlplane.Env, *Node) {
	t.Helper()
	integration.Test(t, "a one-node cluster")
	if m := missing(); m != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("a node needs %s", m)
		}
		t.Skipf("a node needs %s; skipped outside CI", m)
	}
	n, err := Start(Options{Registry: reg, Logf: t.Logf})
	if n != nil {
		t.Cleanup(func() {
			if t.Failed() {
				t.Log(n.Diagnostics())
			}
			n.Close()
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	return n.Env, n
}

// Missing says what a node needs and this machine lacks, or "".
func Missing() string { return missing() }

// Options of a cluster.
type Options struct {
	// Registry serves the node's images.
	Registry *distribution.Server
	// Logf reports progress; nil for none.
	Logf func(format string, args ...any)
	// NoProviderCRDs leaves the provider's CRDs out of the control plane,
	// for Crossplane to install from the package.
	NoProviderCRDs bool
	// LogsTo is a directory Close copies every process's and Pod's log
	// to (to <LogsTo>/<node name>), as KeepLogsEnv does.
	LogsTo string
}

// Start runs a control plane and a node of it, pulling from o.Registry,
// and logs its progress with o.Logf; Close stops them. On error what was started is
// stopped again, but for a Node returned for its Diagnostics.
//
// The control plane is kube-apiserver and etcd (internal/testing/envtest,
// with certificates naming the kubernetes Service), kube-controller-manager
// and kube-scheduler. The node lives in a network namespace of its own,
// joined to the machine by a veth pair: its containerd, kubelet, kube-proxy
// and Pods, their bridge and the iptables rules the kubelet, kube-proxy and
// the CNI plugins write are all in there. The API server listens on the
// machine's end of the pair (APIServer), which the kubelet reaches
// directly and Pods through the kubernetes Service; the Pods' traffic
// leaves the namespace masqueraded as its end of the pair. CoreDNS, a
// Deployment in kube-system, is the cluster DNS.
func Start(o Options) (_ *Node, err error) {
	reg, logf := o.Registry, o.Logf
	// Not a test's TempDir: unix socket paths are short, and the kubelet's
	// mounts must go before the directory does.
	dir, err := os.MkdirTemp("", "pdnode")
	if err != nil {
		return nil, err
	}
	id := randomHex(3)
	n := &Node{Name: "node-" + id, Registry: reg, dir: dir, bridge: "pd" + id, cgroup: "/pdnode-" + id, netns: "pdnode-" + id, logf: logf, logsTo: o.LogsTo}
	defer func() {
		if err != nil {
			err = fmt.Errorf("%w\n%s", err, n.Diagnostics())
			n.Close()
		}
	}()
	if n.link, err = randomSubnet(nil); err != nil {
		return n, err
	}
	if n.PodCIDR, err = randomSubnet(n.link); err != nil {
		return n, err
	}
	host, inner := hostIP(n.link, 1), hostIP(n.link, 2)
	veth := "pdh" + id
	n.veth = veth
	in := func(args ...string) []string { return append([]string{"-n", n.netns}, args...) }
	for _, args := range [][]string{
		{"netns", "add", n.netns},
		{"link", "add", veth, "type", "veth", "peer", "name", "pdn" + id},
		{"link", "set", "pdn" + id, "netns", n.netns},
		{"addr", "add", host.String() + "/24", "dev", veth},
		{"link", "set", veth, "up"},
		in("addr", "add", inner.String()+"/24", "dev", "pdn"+id),
		in("link", "set", "pdn"+id, "up"),
		in("link", "set", "lo", "up"),
		in("route", "add", "default", "via", host.String()),
		// The machine reaches Pods (their metrics, say) through the pair;
		// the route goes with the machine's end of it.
		{"route", "add", n.PodCIDR.String(), "via", inner.String(), "dev", veth},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return n, fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, out)
		}
	}
	if n.Env, err = controlplane.StartWith(controlplane.Options{Address: host.String(), ServiceAccountTokens: true, ServingNames: servingNames, NoProviderCRDs: o.NoProviderCRDs}); err != nil {
		return n, fmt.Errorf("control plane on %s: %w", host, err)
	}
	n.kube = n.Env.Client
	t0 := time.Now()
	for _, step := range []struct {
		what string
		fn   func() error
	}{
		{"kube-controller-manager and kube-scheduler", n.startControllers},
		{"containerd and the kubelet", n.start},
		{"kube-proxy", n.startProxy},
		{"CoreDNS", func() error { return n.startDNS(context.Background()) }},
	} {
		t1 := time.Now()
		if err := step.fn(); err != nil {
			return n, fmt.Errorf("%s: %w", step.what, err)
		}
		n.log("%s up in %s", step.what, time.Since(t1).Round(100*time.Millisecond))
	}
	n.log("cluster up in %s: API server %s, node %s (Pods on %s), kubernetes Service %s, DNS %s",
		time.Since(t0).Round(100*time.Millisecond), n.Env.Config.Host, n.Name, n.PodCIDR, KubernetesServiceIP, DNSServiceIP)
	return n, nil
}

func (n *Node) log(format string, args ...any) {
	if n.logf != nil {
		n.logf(format, args...)
	}
}

// Diagnostics is the end of every node process's log.
func (n *Node) Diagnostics() string {
	var b strings.Builder
	for _, p := range slices.Concat([]*process.Process{n.kubelet, n.containerd}, n.procs) {
		if p != nil {
			fmt.Fprintf(&b, "%s log:\n%s\n", p.Name, p.Tail(30))
		}
	}
	return b.String()
}

// ContainerPID is the process ID, on this machine, of the main process of
// container name of Pod namespace/pod: the first process of the
// container's memory cgroup, below the node's cgroup root.
func (n *Node) ContainerPID(ctx context.Context, namespace, pod, name string) (int, error) {
	p := &corev1.Pod{}
	if err := n.kube.Get(ctx, client.ObjectKey{Namespace: namespace, Name: pod}, p); err != nil {
		return 0, err
	}
	var id string
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == name {
			_, id, _ = strings.Cut(cs.ContainerID, "://")
		}
	}
	if id == "" {
		return 0, fmt.Errorf("pod %s/%s has no running container %s", namespace, pod, name)
	}
	pid := 0
	err := filepath.WalkDir(filepath.Join("/sys/fs/cgroup/memory", n.cgroup), func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() || d.Name() != id {
			return err
		}
		data, err := os.ReadFile(filepath.Join(path, "cgroup.procs"))
		if err != nil {
			return err
		}
		if f := strings.Fields(string(data)); len(f) > 0 {
			pid, err = strconv.Atoi(f[0])
			if err != nil {
				return err
			}
		}
		return filepath.SkipAll
	})
	if err == nil && pid == 0 {
		err = fmt.Errorf("no process in the cgroup of container %s of %s/%s", id, namespace, pod)
	}
	return pid, err
}

// RegistryHost is the registry's address as Pods reach it (a Forward),
// which the node's containerd also pulls from.
func (n *Node) RegistryHost() string { return n.registry }

// APIServer is the address the API server listens on: the machine's end
// of the node's veth pair.
func (n *Node) APIServer() net.IP { return hostIP(n.link, 1) }

// hostIP is the address number i of sub.
func hostIP(sub *net.IPNet, i byte) net.IP {
	ip := slices.Clone(sub.IP.To4())
	ip[3] = i
	return ip
}

// inNetns runs bin in the node's network namespace (and no other: the
// kubelet's mounts must be seen by containerd, and the machine's by both).
func (n *Node) inNetns(logs, name string, bin string, args ...string) (*process.Process, error) {
	return process.Start(logs, name, nil, "nsenter", append([]string{"--net=/var/run/netns/" + n.netns, "--", bin}, args...)...)
}

func (n *Node) start() error {
	env := n.Env
	pause, err := n.BuildImage("./internal/testing/node/pause", "pause", "3.10")
	if err != nil {
		return err
	}
	// The registry listens on the machine's loopback, which the node's
	// namespace does not share: containerd reaches it through a
	// forwarder on the machine's end of the veth pair.
	if n.registry, err = n.Forward(n.Registry.Host); err != nil {
		return err
	}
	regFwd := n.registry
	if err := n.writeConfigs(pause, regFwd); err != nil {
		return err
	}
	if err := n.makeCgroups(); err != nil {
		return err
	}
	logs := filepath.Join(n.dir, "logs")
	if n.containerd, err = n.inNetns(logs, "containerd", "containerd", "--config", filepath.Join(n.dir, "containerd.toml")); err != nil {
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
	if err := saveKernelTunables(); err != nil {
		return err
	}
	// The Node is registered before the kubelet starts: the kubelet's CSI
	// plugin gives up on its CSINode after a few seconds' retries without
	// a Node, the kubelet registers one only about 20 s after it starts,
	// and a node whose CSINode failed is not Ready until the plugin's next
	// try, two minutes later. The kubelet takes the Node over as its own.
	if err := n.kube.Create(context.Background(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: map[string]string{
		corev1.LabelHostname: n.Name, corev1.LabelOSStable: "linux", corev1.LabelArchStable: runtime.GOARCH,
	}}}); err != nil {
		return err
	}
	if n.kubelet, err = n.inNetns(logs, "kubelet", asset("kubelet"),
		"--config", filepath.Join(n.dir, "kubelet.yaml"),
		"--kubeconfig", filepath.Join(n.dir, "kubeconfig"),
		"--root-dir", filepath.Join(n.dir, "kubelet"),
		"--cert-dir", filepath.Join(n.dir, "kubelet", "pki"),
		"--hostname-override", n.Name,
	); err != nil {
		return err
	}
	ctx := context.Background()
	// Why it is not Ready yet, as the kubelet says, when it changes.
	var why string
	t0 := time.Now()
	if err := waitFor(3*time.Minute, func() bool {
		node := &corev1.Node{}
		if n.kube.Get(ctx, client.ObjectKey{Name: n.Name}, node) != nil {
			return false
		}
		for _, c := range node.Status.Conditions {
			if c.Type != corev1.NodeReady {
				continue
			}
			if c.Status == corev1.ConditionTrue {
				return true
			}
			if c.Message != why {
				why = c.Message
				n.log("node %s not Ready after %s: %s", n.Name, time.Since(t0).Round(time.Second), why)
			}
		}
		return false
	}); err != nil {
		return fmt.Errorf("not Ready (%s): kubelet:\n%s\ncontainerd:\n%s", why, n.kubelet.Tail(30), n.containerd.Tail(10))
	}
	n.log("node %s Ready: Pods on %s (bridge %s), images from %s", n.Name, n.PodCIDR, n.bridge, n.Registry.Host)
	return nil
}

// Logs is what the containers of Pod namespace/name wrote, as the kubelet
// keeps it.
func (n *Node) Logs(namespace, name string) string {
	files, _ := filepath.Glob(filepath.Join(n.dir, "pods", namespace+"_"+name+"_*", "*", "*.log"))
	var b strings.Builder
	for _, f := range files {
		data, _ := os.ReadFile(f)
		fmt.Fprintf(&b, "%s:\n%s\n", f, data)
	}
	return b.String()
}

func (n *Node) socket() string { return filepath.Join(n.dir, "containerd.sock") }

// PushImage builds the runtime image of the static binary (ociimage) and
// pushes it as repo:tag; it returns the reference a Pod names.
func (n *Node) PushImage(binary, repo, tag string, trees ...ociimage.Tree) (string, error) {
	img, err := ociimage.Build(binary, CA, runtime.GOARCH, nil, trees...)
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

// BuildImage builds the repository's command pkg (./cmd/provider, for
// example), and pushes its runtime image as repo:tag (PushImage).
func (n *Node) BuildImage(pkg, repo, tag string) (string, error) {
	bin := filepath.Join(n.dir, "bin", filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = controlplane.RepoRoot()
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w: %s", pkg, err, out)
	}
	return n.PushImage(bin, repo, tag)
}

func (n *Node) writeConfigs(pause, registry string) error {
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
    [plugins."io.containerd.grpc.v1.cri".registry.configs.%[13]q.auth]
      username = %[11]q
      password = %[12]q
`, filepath.Join(n.dir, "containerd", "root"), filepath.Join(n.dir, "containerd", "state"), n.socket(), filepath.Join(n.dir, "containerd.ttrpc.sock"),
			filepath.Join(n.dir, "containerd", "opt"), pause, cniBin, filepath.Join(n.dir, "cni"), filepath.Join(n.dir, "certs.d"), host, distribution.User, distribution.Password, registry),
		filepath.Join("certs.d", host, "hosts.toml"): fmt.Sprintf("server = %q\n[host.%q]\n  capabilities = [\"pull\", \"resolve\"]\n", "http://"+host, "http://"+registry),
		// The name Pods know it by (Crossplane's packages name their
		// images so). containerd 1.6 refuses a hosts.toml without a
		// host table.
		filepath.Join("certs.d", registry, "hosts.toml"): fmt.Sprintf("server = %q\n[host.%q]\n  capabilities = [\"pull\", \"resolve\"]\n", "http://"+registry, "http://"+registry),
		filepath.Join("cni", "10-node.conflist"): fmt.Sprintf(`{"cniVersion": "1.0.0", "name": %[1]q, "plugins": [
 {"type": "bridge", "bridge": %[1]q, "isGateway": true, "ipMasq": true, "hairpinMode": true,
  "ipam": {"type": "host-local", "dataDir": %[2]q, "ranges": [[{"subnet": %[3]q}]], "routes": [{"dst": "0.0.0.0/0"}]}},
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
# In the node's own network namespace: its ports meet no one else's.
readOnlyPort: 0
address: 127.0.0.1
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
authorization: {mode: AlwaysAllow}
resolvConf: ""
clusterDNS: [%[4]q]
clusterDomain: %[5]q
enforceNodeAllocatable: []
localStorageCapacityIsolation: false
evictionHard: {}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
podLogsDir: %[3]q
`, n.cgroup, n.socket(), filepath.Join(n.dir, "pods"), DNSServiceIP, ClusterDomain),
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

// Forward makes target, an address on the machine (its loopback, say),
// reachable from the node and its Pods: it accepts TCP connections on the
// machine's end of the veth pair and relays each to target, until Close.
// It returns the address it listens on.
func (n *Node) Forward(target string) (string, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(n.APIServer().String(), "0"))
	if err != nil {
		return "", err
	}
	n.mu.Lock()
	n.closers = append(n.closers, func() { _ = l.Close() })
	n.mu.Unlock()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go relay(c.(*net.TCPConn), target)
		}
	}()
	return l.Addr().String(), nil
}

// relay copies between c and a new connection to target, each way until
// its sender closes, passing the close on: a server that closes a
// keep-alive connection closes the client's too.
func relay(c *net.TCPConn, target string) {
	defer func() { _ = c.Close() }()
	d, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	u := d.(*net.TCPConn)
	defer func() { _ = u.Close() }()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(u, c)
		_ = u.CloseWrite()
		close(done)
	}()
	_, _ = io.Copy(c, u)
	_ = c.CloseWrite()
	<-done
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

// Close removes the cluster: the node's Pods' containers, the kubelet,
// containerd and its shims, kube-proxy, their mounts, cgroups and bridge,
// the controllers, the control plane, the network namespace and the
// directory.
func (n *Node) Close() {
	// The Pods' logs go with their Pods: they are copied before the
	// drain, the processes' after it.
	n.copyLogs("pods")
	if n.kube != nil {
		n.drain()
	}
	n.mu.Lock()
	for _, c := range n.closers {
		c()
	}
	n.mu.Unlock()
	if n.Env != nil {
		_ = n.Env.Stop()
	}
	_ = exec.Command("ip", "netns", "del", n.netns).Run()
	// Gone with the namespace once its peer is in there; not if Start
	// failed before.
	_ = exec.Command("ip", "link", "del", n.veth).Run()
	n.copyLogs("logs")
	_ = os.RemoveAll(n.dir)
	restoreKernelTunables()
}

// copyLogs copies the node directory's sub to the directories
// KeepLogsEnv and Options.LogsTo name, if any.
func (n *Node) copyLogs(sub string) {
	for _, d := range []string{os.Getenv(KeepLogsEnv), n.logsTo} {
		if to := filepath.Join(d, n.Name); d != "" && os.MkdirAll(to, 0o750) == nil {
			_ = exec.Command("cp", "-r", filepath.Join(n.dir, sub), to).Run()
		}
	}
}

// drain stops the node: its Pods' containers, the kubelet, containerd
// and its shims, kube-proxy, their mounts and cgroups.
func (n *Node) drain() {
	ctx := context.Background()
	// The controllers and the scheduler go first: nothing replaces the
	// Pods the drain deletes.
	for _, p := range n.procs {
		if p.Name != "kube-proxy" {
			p.Stop(10 * time.Second)
		}
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
	for _, p := range n.procs {
		if p.Name == "kube-proxy" {
			p.Stop(10 * time.Second)
		}
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
	_ = n.kube.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name}})
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
// is on and no route of it leads to, nor but: two nodes of two test runs side by side do not meet.
func randomSubnet(but *net.IPNet) (*net.IPNet, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, err
	}
	routes := ipv4Routes()
	for range 50 {
		i, err := rand.Int(rand.Reader, big.NewInt(8*256))
		if err != nil {
			return nil, err
		}
		v := int(i.Int64())
		_, sub, _ := net.ParseCIDR(fmt.Sprintf("10.%d.%d.0/24", 200+v/256, v%256))
		if but != nil && but.String() == sub.String() {
			continue
		}
		if !slices.ContainsFunc(addrs, func(a net.Addr) bool {
			ip, _, err := net.ParseCIDR(a.String())
			return err == nil && sub.Contains(ip)
		}) && !slices.ContainsFunc(routes, func(r *net.IPNet) bool {
			return r.Contains(sub.IP) || sub.Contains(r.IP)
		}) {
			return sub, nil
		}
	}
	return nil, fmt.Errorf("no free /24 in 10.200.0.0/13")
}

// ipv4Routes are the destinations of the machine's IPv4 routes but the
// default one (/proc/net/route: hexadecimal, in the host's byte order,
// little-endian here).
func ipv4Routes() []*net.IPNet {
	data, err := os.ReadFile("/proc/net/route")
	if err != nil {
		return nil
	}
	var out []*net.IPNet
	for _, line := range strings.Split(string(data), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 8 {
			continue
		}
		dst, err1 := strconv.ParseUint(f[1], 16, 32)
		mask, err2 := strconv.ParseUint(f[7], 16, 32)
		if err1 != nil || err2 != nil || mask == 0 {
			continue
		}
		le := func(v uint64) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }
		out = append(out, &net.IPNet{IP: net.IP(le(dst)), Mask: net.IPMask(le(mask))})
	}
	return out
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

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

package framework

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/freeleaps/provider-devops/internal/ociimage"
	"github.com/freeleaps/provider-devops/internal/testing/distribution"
	"github.com/freeleaps/provider-devops/internal/testing/node"
	"github.com/freeleaps/provider-devops/internal/testing/process"
)

// Runtime says how Crossplane and the packages run.
type Runtime string

const (
	// RuntimePods installs everything the way a platform team does, on a
	// one-node cluster of the harness's own (internal/testing/node):
	// Crossplane with its Helm chart, the packages with `crossplane xpkg
	// install`, and Crossplane's package manager runs them as Pods.
	RuntimePods Runtime = "pods"
	// RuntimeProcesses runs Crossplane, the provider and the function as
	// processes on the machine, the harness playing the package runtime
	// (runtime.go): quicker to start, for a fast inner loop.
	RuntimeProcesses Runtime = "processes"
)

// Names in the cluster of the pods runtime.
const (
	// HelmRelease is Crossplane's release.
	HelmRelease = "crossplane"
)

// startNode brings up the one-node cluster, the registry its images come
// from first.
func (c *Cluster) startNode(ctx context.Context) error {
	if err := os.MkdirAll(filepath.Join(c.dir, "registry"), 0o750); err != nil {
		return err
	}
	var err error
	if c.Registry, err = distribution.New(filepath.Join(c.dir, "registry")); err != nil {
		return err
	}
	// Crossplane installs the provider's CRDs from its package.
	if c.node, err = node.Start(node.Options{Registry: c.Registry, Logf: func(f string, a ...any) { c.logf("  "+f, a...) }, NoProviderCRDs: true,
		// With the rest of the cluster's logs; the demo's --keep keeps them.
		LogsTo: filepath.Join(c.dir, "logs", "node")}); err != nil {
		return err
	}
	c.REST = c.node.Env.Config
	kc, err := c.node.Env.KubeConfigFor("cluster-admin", "system:masters")
	if err != nil {
		return err
	}
	c.KubeConfig = filepath.Join(c.dir, "kubeconfig")
	if err := os.WriteFile(c.KubeConfig, kc, 0o600); err != nil {
		return err
	}
	scheme := kruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if c.Kube, err = client.New(c.REST, client.Options{Scheme: scheme}); err != nil {
		return err
	}
	return c.Kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}})
}

// helm runs the helm binary hack/argocd.sh links (Argo CD's repo server
// renders with it too) against the cluster, its state under the
// cluster's directory.
func (c *Cluster) helm(ctx context.Context, args ...string) error {
	home := filepath.Join(c.dir, "helm")
	cmd := exec.CommandContext(ctx, filepath.Join(c.cfg.ArgoCD, "bin", "helm"), append(args, "--kubeconfig", c.KubeConfig)...)
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+filepath.Join(home, "cache"), "HELM_CONFIG_HOME="+filepath.Join(home, "config"), "HELM_DATA_HOME="+filepath.Join(home, "data"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("helm %s: %w\n%s", strings.Join(args[:1], " "), err, lastLines(string(out), 20))
	}
	return nil
}

// installCrossplane builds Crossplane's image from the core binary with the
// release's CRDs and webhook configurations where its Dockerfile puts them,
// pushes it to the registry, and installs Crossplane's own Helm chart of
// that release. Webhooks are off: the API server runs off the node and
// cannot reach a Service's address.
func (c *Cluster) installCrossplane(ctx context.Context) error {
	release := filepath.Dir(c.cfg.CrossplaneCRDs)
	image, err := c.node.PushImage(c.cfg.Crossplane, "crossplane/crossplane", c.cfg.CrossplaneVersion,
		ociimage.Tree{From: c.cfg.CrossplaneCRDs, To: "/crds"},
		ociimage.Tree{From: filepath.Join(release, "webhookconfigurations"), To: "/webhookconfigurations"})
	if err != nil {
		return err
	}
	repo, _, _ := strings.Cut(image, ":"+c.cfg.CrossplaneVersion)
	c.logf("  pushed %s", image)
	return c.helm(ctx, "install", HelmRelease, filepath.Join(release, "charts", "crossplane"),
		"--namespace", Namespace, "--wait", "--timeout", "5m",
		"--set", "image.repository="+repo, "--set", "image.tag="+c.cfg.CrossplaneVersion, "--set", "image.pullPolicy=IfNotPresent",
		"--set", "webhooks.enabled=false",
		// As the processes runtime: the scenario creates the project
		// again right after deleting it.
		"--set", "args[0]=--circuit-breaker-cooldown=1m")
}

// installPackagesWithCLI pushes the three packages and installs them with
// `crossplane xpkg install`, as the install guide does: the provider with
// its DeploymentRuntimeConfig, the function with its own, then the
// configuration, whose dependencies they satisfy. An ImageConfig rewrites xpkg.freeleaps.io/ to
// the registry as the node's Pods reach it, with its pull secret.
func (c *Cluster) installPackagesWithCLI(ctx context.Context) error {
	if err := c.pushPackages(ctx); err != nil {
		return err
	}
	host := c.node.RegistryHost()
	configs, err := c.runtimeConfigs()
	if err != nil {
		return err
	}
	for _, u := range configs {
		if err := c.Kube.Create(ctx, u); err != nil {
			return fmt.Errorf("DeploymentRuntimeConfig %s: %w", u.GetName(), err)
		}
	}
	// The lease's Role and the disruption budget.
	for _, f := range []string{"leader-election.yaml", "poddisruptionbudget.yaml"} {
		b, err := os.ReadFile(filepath.Join(c.cfg.Root, "examples", "install", f))
		if err != nil {
			return err
		}
		if err := c.Apply(ctx, string(b)); err != nil {
			return fmt.Errorf("examples/install/%s: %w", f, err)
		}
	}
	if err := c.Apply(ctx, fmt.Sprintf(`
apiVersion: v1
kind: Secret
metadata: {name: %s, namespace: %s}
stringData: {url: %q}
`, eventsSecret, Namespace, c.reachURL(c.ProviderAMQP))); err != nil {
		return err
	}
	if err := c.Apply(ctx, registryObjects(host, dockerConfigFor(host))); err != nil {
		return err
	}
	for _, p := range []struct{ kind, name string }{{"provider", ProviderName}, {"function", FunctionName}, {"configuration", ConfigurationName}} {
		args := []string{"xpkg", "install", p.kind, PackagePrefix + p.name + ":" + c.cfg.Version, p.name, "--wait=5m"}
		if p.kind != "configuration" {
			// examples/install/deploymentruntimeconfig.yaml names one
			// for each after its package.
			args = append(args, "--runtime-config="+p.name)
		}
		cmd := exec.CommandContext(ctx, c.cfg.CrossplaneCLI, args...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+c.KubeConfig)
		t0 := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("crossplane %s: %w\n%s\n%s", strings.Join(args, " "), err, lastLines(string(out), 10), c.node.Diagnostics())
		}
		c.logf("  crossplane %s (%s)", strings.Join(args, " "), time.Since(t0).Round(100*time.Millisecond))
	}
	for _, p := range []struct{ kind, name string }{{"Provider", ProviderName}, {"Function", FunctionName}, {"Configuration", ConfigurationName}} {
		if err := c.WaitPackage(ctx, p.kind, p.name); err != nil {
			return err
		}
	}
	return c.waitKinds(ctx)
}

// reach is the address the provider reaches hostport, a server on this
// machine's loopback, at: itself for the processes runtime, and a
// forwarder on the node's veth pair for Pods.
func (c *Cluster) reach(hostport string) string {
	if c.node == nil {
		return hostport
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.reached[hostport]; ok {
		return a
	}
	a, err := c.node.Forward(hostport)
	if err != nil {
		// The provider then reports the address it cannot reach.
		c.logf("  cannot forward %s to the node: %v", hostport, err)
		return hostport
	}
	if c.reached == nil {
		c.reached = map[string]string{}
	}
	c.reached[hostport] = a
	return a
}

// reachURL is raw with its host as reach gives it.
func (c *Cluster) reachURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	u.Host = c.reach(u.Host)
	return u.String()
}

// runtimeConfigs are the DeploymentRuntimeConfigs examples/install ships,
// the provider's with the scenario's flags added: the broker's Secret, the
// replaced operator's event format too, the node's veth pair among the
// networks a team's ProviderConfig may reach (the backends are on this
// machine), and Config.ProviderArgs.
func (c *Cluster) runtimeConfigs() ([]*unstructured.Unstructured, error) {
	b, err := os.ReadFile(filepath.Join(c.cfg.Root, "examples", "install", "deploymentruntimeconfig.yaml"))
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(string(b), "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			return nil, err
		}
		if u.GetName() == ProviderName {
			ctrs, _, _ := unstructured.NestedSlice(u.Object, "spec", "deploymentTemplate", "spec", "template", "spec", "containers")
			if len(ctrs) != 1 {
				return nil, fmt.Errorf("the provider's runtime config has %d containers, want 1", len(ctrs))
			}
			ctr, _ := ctrs[0].(map[string]any)
			args, _, _ := unstructured.NestedStringSlice(ctr, "args")
			args = append(args, "--events-secret="+Namespace+"/"+eventsSecret, "--events-format=both",
				"--tenant-backend-networks="+c.node.APIServer().String()+"/32")
			args = append(args, c.cfg.ProviderArgs...)
			if err := unstructured.SetNestedStringSlice(ctr, args, "args"); err != nil {
				return nil, err
			}
			var env []any
			for _, kv := range c.otlpEnv() {
				k, v, _ := strings.Cut(kv, "=")
				env = append(env, map[string]any{"name": k, "value": v})
			}
			if len(env) > 0 {
				ctr["env"] = env
			}
			if err := unstructured.SetNestedSlice(u.Object, []any{ctr}, "spec", "deploymentTemplate", "spec", "template", "spec", "containers"); err != nil {
				return nil, err
			}
		}
		out = append(out, u)
	}
	return out, nil
}

// replicas is how many Pods the shipped runtime configs ask for, by
// package.
func (c *Cluster) replicas() (map[string]int64, error) {
	configs, err := c.runtimeConfigs()
	if err != nil {
		return nil, err
	}
	want := map[string]int64{ProviderName: 1, FunctionName: 1}
	for _, u := range configs {
		// Numbers read from YAML are float64.
		switch n, _, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "deploymentTemplate", "spec", "replicas"); n := n.(type) {
		case float64:
			want[u.GetName()] = int64(n)
		case int64:
			want[u.GetName()] = n
		}
	}
	return want, nil
}

// leaderPod is the provider replica that holds its lease.
func (c *Cluster) leaderPod(ctx context.Context) (*corev1.Pod, error) {
	h, err := c.leaseHolder(ctx)
	if err != nil {
		return nil, err
	}
	name, _, _ := strings.Cut(h, "_")
	p := &corev1.Pod{}
	if err := c.Kube.Get(ctx, types.NamespacedName{Namespace: Namespace, Name: name}, p); err != nil {
		return nil, err
	}
	return p, nil
}

// runningPod is the first Running Pod in Crossplane's namespace that opts
// select and match accepts.
func (c *Cluster) runningPod(ctx context.Context, match func(*corev1.Pod) bool, opts ...client.ListOption) (*corev1.Pod, error) {
	pods := &corev1.PodList{}
	if err := c.Kube.List(ctx, pods, append(opts, client.InNamespace(Namespace))...); err != nil {
		return nil, err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if match(p) && p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			return p, nil
		}
	}
	return nil, fmt.Errorf("no running Pod of that kind in %s", Namespace)
}

// ProviderMemory is the provider's memory: the process's, or the leading
// replica's container's.
func (c *Cluster) ProviderMemory(ctx context.Context) (Memory, error) {
	if c.node == nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.provider.Memory()
	}
	p, err := c.leaderPod(ctx)
	if err != nil {
		return Memory{}, err
	}
	return c.containerMemory(ctx, p)
}

// FunctionMemory is the function's memory: the process's, or its Pod's
// container's.
func (c *Cluster) FunctionMemory(ctx context.Context) (Memory, error) {
	if c.node == nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.function == nil {
			return Memory{}, nil
		}
		return c.function.Memory()
	}
	p, err := c.runningPod(ctx, func(p *corev1.Pod) bool { return strings.HasPrefix(p.Name, FunctionName+"-") })
	if err != nil {
		return Memory{}, err
	}
	return c.containerMemory(ctx, p)
}

func (c *Cluster) containerMemory(ctx context.Context, p *corev1.Pod) (Memory, error) {
	pid, err := c.node.ContainerPID(ctx, p.Namespace, p.Name, p.Spec.Containers[0].Name)
	if err != nil {
		return Memory{}, err
	}
	return process.MemoryOf(pid)
}

// containerUID is the real user ID of the main process of p's first
// container, as the kernel has it.
func (c *Cluster) containerUID(ctx context.Context, p *corev1.Pod) (int, error) {
	pid, err := c.node.ContainerPID(ctx, p.Namespace, p.Name, p.Spec.Containers[0].Name)
	if err != nil {
		return 0, err
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" {
			return strconv.Atoi(f[1])
		}
	}
	return 0, fmt.Errorf("no Uid in /proc/%d/status", pid)
}

// providerMetricsURL is the (leading) provider's Prometheus endpoint.
func (c *Cluster) providerMetricsURL(ctx context.Context) (string, error) {
	if c.node == nil {
		return c.providerMetrics, nil
	}
	p, err := c.leaderPod(ctx)
	if err != nil {
		return "", err
	}
	return "http://" + net.JoinHostPort(p.Status.PodIP, "8080") + "/metrics", nil
}

// crossplaneMetricsURL is Crossplane's Prometheus endpoint.
func (c *Cluster) crossplaneMetricsURL(ctx context.Context) (string, error) {
	if c.node == nil {
		return c.crossplaneMetrics, nil
	}
	// Crossplane's chart labels its core Pods app=crossplane (the RBAC
	// manager's app=crossplane-rbac-manager).
	p, err := c.runningPod(ctx, func(*corev1.Pod) bool { return true }, client.MatchingLabels{"app": HelmRelease})
	if err != nil {
		return "", err
	}
	return "http://" + net.JoinHostPort(p.Status.PodIP, "8080") + "/metrics", nil
}

// CheckInstall checks what Crossplane's package manager made of the
// packages on the node: the provider's replicas (as many as its runtime
// config asks) and the function run as Pods from the packages' images, as
// the image's non-root user with a read-only root filesystem and no
// capability, Ready by the probes the kubelet calls, one provider replica
// holding the lease. It returns what it saw, a line per Pod.
func (c *Cluster) CheckInstall(ctx context.Context) (string, error) {
	if c.node == nil {
		return "", fmt.Errorf("the %s runtime runs no Pods", RuntimeProcesses)
	}
	want, err := c.replicas()
	if err != nil {
		return "", err
	}
	leader, err := c.leaderPod(ctx)
	if err != nil {
		return "", err
	}
	pods := &corev1.PodList{}
	if err := c.Kube.List(ctx, pods, client.InNamespace(Namespace)); err != nil {
		return "", err
	}
	var out []string
	var problems []string
	for pkg, n := range want {
		var got int64
		for _, p := range pods.Items {
			if !strings.HasPrefix(p.Name, pkg+"-") || p.DeletionTimestamp != nil {
				continue
			}
			got++
			ctr := p.Spec.Containers[0]
			sc := ctr.SecurityContext
			ready := podReady(&p)
			switch {
			case !ready:
				problems = append(problems, fmt.Sprintf("%s is not Ready: %+v", p.Name, p.Status.ContainerStatuses))
			case !strings.HasPrefix(ctr.Image, c.node.RegistryHost()+"/freeleaps/"+pkg):
				problems = append(problems, fmt.Sprintf("%s runs %s, not the package's image", p.Name, ctr.Image))
			case sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != ociimage.NonRoot || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
				sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}):
				problems = append(problems, fmt.Sprintf("%s security context %+v: want the image's user %d, a read-only root filesystem and no capability", p.Name, sc, ociimage.NonRoot))
			case pkg == ProviderName && (ctr.ReadinessProbe == nil || ctr.LivenessProbe == nil):
				problems = append(problems, fmt.Sprintf("%s has no readiness or liveness probe", p.Name))
			}
			if ready {
				// What runs, not only what the Pod asks for.
				if uid, err := c.containerUID(ctx, &p); err != nil {
					problems = append(problems, fmt.Sprintf("%s: %v", p.Name, err))
				} else if uid != ociimage.NonRoot {
					problems = append(problems, fmt.Sprintf("%s runs as user %d, want %d", p.Name, uid, ociimage.NonRoot))
				}
			}
			role := ""
			if pkg == ProviderName {
				role = " (standby)"
				if p.Name == leader.Name {
					role = " (leader)"
				}
			}
			out = append(out, fmt.Sprintf("%s%s: Ready, user %d, read-only root filesystem, image %s", p.Name, role, ociimage.NonRoot, ctr.Image))
		}
		if got != n {
			problems = append(problems, fmt.Sprintf("%d %s Pods, want %d", got, pkg, n))
		}
		if pkg == ProviderName && !slices.ContainsFunc(out, func(l string) bool { return strings.Contains(l, "(leader)") }) {
			problems = append(problems, fmt.Sprintf("the lease holder %s is not one of the provider's Pods", leader.Name))
		}
	}
	slices.Sort(out)
	if len(problems) > 0 {
		return strings.Join(out, "\n"), fmt.Errorf("the packages' Pods: %s", strings.Join(problems, "; "))
	}
	return strings.Join(out, "\n"), nil
}

// Trace is `crossplane beta trace` (the real CLI) of the team's
// DevOpsProject: its tree of composed resources with their Synced and
// Ready conditions. It fails unless every resource is Synced and Ready.
func (c *Cluster) Trace(ctx context.Context) (string, error) {
	return c.TraceOf(ctx, "devopsproject.platform.freeleaps.io", ProjectNamespace, Project)
}

// TraceOf is Trace for any composite resource or claim (resource is the
// CLI's kind.group; namespace empty for a cluster-scoped one).
func (c *Cluster) TraceOf(ctx context.Context, resource, namespace, name string) (string, error) {
	args := []string{"beta", "trace", resource, name}
	if namespace != "" {
		args = append(args, "-n", namespace)
	}
	cmd := exec.CommandContext(ctx, c.cfg.CrossplaneCLI, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.KubeConfig)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("crossplane beta trace: %w\n%s", err, out)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	var notReady []string
	rows := 0
	for _, line := range lines[1:] {
		// NAME (namespace) SYNCED READY STATUS, after the tree's marks.
		var f []string
		for _, w := range strings.Fields(strings.TrimLeft(line, "│├└─ ")) {
			if !strings.HasPrefix(w, "(") {
				f = append(f, w)
			}
		}
		if len(f) < 3 {
			continue
		}
		rows++
		if f[1] != "True" || f[2] != "True" {
			notReady = append(notReady, strings.TrimSpace(line))
		}
	}
	switch {
	case rows < 2:
		return string(out), fmt.Errorf("crossplane beta trace shows %d resources, want the project and what it composed:\n%s", rows, out)
	case len(notReady) > 0:
		return string(out), fmt.Errorf("crossplane beta trace shows resources not Synced and Ready: %s", strings.Join(notReady, "; "))
	}
	return string(out), nil
}

// failover evicts the leading provider replica, as a node drain does,
// while the scenario is in the middle of when, and waits for the other
// replica to take the lease over; it records how long that took. The
// disruption budget must then refuse to evict the other replica until the
// evicted one's replacement is Ready. The processes runtime runs one
// replica: there it does nothing.
func (c *Cluster) failover(ctx context.Context, r *Report, when string) error {
	if c.node == nil {
		return nil
	}
	old, err := c.leaderPod(ctx)
	if err != nil {
		return err
	}
	t0 := time.Now()
	if err := c.evict(ctx, old); err != nil {
		return fmt.Errorf("evicting the leader %s: %w", old.Name, err)
	}
	pods := &corev1.PodList{}
	if err := c.Kube.List(ctx, pods, client.InNamespace(Namespace), client.MatchingLabels{"pkg.crossplane.io/provider": ProviderName}); err != nil {
		return err
	}
	for i := range pods.Items {
		if p := &pods.Items[i]; p.Name != old.Name && p.DeletionTimestamp == nil && podReady(p) {
			if err := c.evict(ctx, p); !kerrors.IsTooManyRequests(err) {
				return fmt.Errorf("evicting %s too, right after %s: want it refused by the PodDisruptionBudget, got %v", p.Name, old.Name, err)
			}
		}
	}
	var leader string
	err = c.Wait(ctx, "another provider replica to take the lease over from "+old.Name, 2*time.Minute, func(ctx context.Context) (bool, string, error) {
		p, err := c.leaderPod(ctx)
		if err != nil {
			return false, err.Error(), nil
		}
		leader = p.Name
		return leader != old.Name, "held by " + leader, nil
	})
	if err != nil {
		return err
	}
	d := time.Since(t0)
	line := fmt.Sprintf("%s: leader %s evicted (the other replica's eviction refused by the budget), %s led after %s", when, old.Name, leader, d.Round(100*time.Millisecond))
	r.Failovers = append(r.Failovers, line)
	c.logf("  failover %s", line)
	return nil
}

// evict asks the Eviction API to evict p, as kubectl drain does.
func (c *Cluster) evict(ctx context.Context, p *corev1.Pod) error {
	return c.Kube.SubResource("eviction").Create(ctx, p, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace}})
}

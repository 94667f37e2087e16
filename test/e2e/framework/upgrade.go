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
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/freeleaps/provider-devops/internal/ociimage"
	"github.com/freeleaps/provider-devops/internal/testing/argocdserver"
)

// upgrade installs the packages' second build over the first, as a
// platform team does (a new spec.package on each package), with the
// project Ready; then a provider build whose image cannot start, and the
// rollback to the working one. Throughout, the project must stay Ready,
// and no backend object may be created or deleted. The pods runtime only,
// and only with Config.UpgradeVersion.
func (c *Cluster) upgrade(ctx context.Context, r *Report) error {
	if c.node == nil || c.cfg.UpgradeVersion == "" {
		return nil
	}
	from, to := c.cfg.Version, c.cfg.UpgradeVersion
	before, err := c.backendState(ctx)
	if err != nil {
		return err
	}
	stopWatch := c.watchProjectReady(ctx)
	notReady := func() error {
		if seen := stopWatch(); len(seen) > 0 {
			return fmt.Errorf("the DevOpsProject was not Ready during the upgrade: %s", strings.Join(seen, "; "))
		}
		return nil
	}

	c.logf("upgrading the packages from %s to %s, the project Ready", from, to)
	var took []string
	for _, p := range []struct{ kind, name string }{{"Provider", ProviderName}, {"Function", FunctionName}, {"Configuration", ConfigurationName}} {
		file := filepath.Join(c.cfg.Root, "_output", "xpkg", p.name+"-"+to+".xpkg")
		if err := c.pushPackage(ctx, p.name, to, file); err != nil {
			_ = notReady()
			return err
		}
		t0 := time.Now()
		if err := c.setPackage(ctx, p.kind, p.name, to); err != nil {
			_ = notReady()
			return err
		}
		if err := c.waitRevision(ctx, p.kind, p.name, to); err != nil {
			_ = notReady()
			return err
		}
		d := time.Since(t0).Round(100 * time.Millisecond)
		c.logf("  %s %s: revision %s Active and Healthy, its Pods running, after %s", p.kind, p.name, to, d)
		took = append(took, fmt.Sprintf("%s %s", strings.ToLower(p.kind), d))
	}
	if err := c.waitReobserved(ctx); err != nil {
		_ = notReady()
		return err
	}
	if err := notReady(); err != nil {
		return err
	}
	after, err := c.backendState(ctx)
	if err != nil {
		return err
	}
	if err := before.unchanged(after); err != nil {
		return fmt.Errorf("the upgrade to %s: %w", to, err)
	}
	c.logf("  %s to %s: the project Ready throughout, every resource observed again by the new provider, %s", from, to, before.summary(after))
	r.Upgrade = fmt.Sprintf("%s → %s: %s; project Ready throughout; backends unchanged", from, to, strings.Join(took, ", "))

	// A build whose provider cannot start: Crossplane deactivates the
	// working revision (deleting its Deployment) at once, so nothing
	// reconciles until the rollback; the backends and the project's last
	// status stay as they are.
	broken := to + "-broken"
	stopWatch = c.watchProjectReady(ctx)
	if err := c.pushBrokenProvider(ctx, broken); err != nil {
		_ = notReady()
		return err
	}
	t0 := time.Now()
	if err := c.setPackage(ctx, "Provider", ProviderName, broken); err != nil {
		_ = notReady()
		return err
	}
	seen, failing, err := c.waitBrokenRevision(ctx, broken)
	if err != nil {
		_ = notReady()
		return err
	}
	unhealthy := time.Since(t0).Round(100 * time.Millisecond)
	trace, _ := c.traceProvider(ctx)
	c.logf("  Provider %s at %s: %s (%s); crossplane beta trace provider %s:\n%s", ProviderName, broken, seen, unhealthy, ProviderName, trace)
	t0 = time.Now()
	if err := c.setPackage(ctx, "Provider", ProviderName, to); err != nil {
		_ = notReady()
		return err
	}
	if err := c.waitRevision(ctx, "Provider", ProviderName, to); err != nil {
		_ = notReady()
		return err
	}
	if err := c.waitReobserved(ctx); err != nil {
		_ = notReady()
		return err
	}
	if err := notReady(); err != nil {
		return err
	}
	if after, err = c.backendState(ctx); err != nil {
		return err
	}
	if err := before.unchanged(after); err != nil {
		return fmt.Errorf("the broken upgrade and its rollback: %w", err)
	}
	back := time.Since(t0).Round(100 * time.Millisecond)
	c.logf("  %s: %s; rolled back to %s in %s, the project Ready throughout, %s", broken, seen, to, back, before.summary(after))
	r.Rollback = fmt.Sprintf("%s: Healthy=False after %s, %d Pods failing; back to %s in %s; project Ready throughout; backends unchanged", broken, unhealthy, failing, to, back)
	return nil
}

// setPackage points a package at version of the same repository, as
// `kubectl patch provider ... spec.package` does.
func (c *Cluster) setPackage(ctx context.Context, kind, name, version string) error {
	p := &unstructured.Unstructured{}
	p.SetAPIVersion("pkg.crossplane.io/v1")
	p.SetKind(kind)
	p.SetName(name)
	patch := fmt.Sprintf(`{"spec":{"package":%q}}`, PackagePrefix+name+":"+version)
	if err := c.Kube.Patch(ctx, p, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		return fmt.Errorf("%s %s to %s: %w", kind, name, version, err)
	}
	return nil
}

// waitRevision waits for the package to run version: Installed and
// Healthy on it, and (a provider or function) as many Ready Pods as its
// runtime config asks, every one of version's image and none of another;
// for the provider, one of them leading.
func (c *Cluster) waitRevision(ctx context.Context, kind, name, version string) error {
	want, err := c.replicas()
	if err != nil {
		return err
	}
	t0, prev := time.Now(), ""
	// Each new state is logged: how the rollout went.
	seen := func(done bool, state string) (bool, string, error) {
		if state != prev {
			c.logf("    +%s %s", time.Since(t0).Round(100*time.Millisecond), state)
			prev = state
		}
		return done, state, nil
	}
	return c.Wait(ctx, fmt.Sprintf("%s %s to run %s", kind, name, version), 4*time.Minute, func(ctx context.Context) (bool, string, error) {
		p, err := c.Get(ctx, "pkg.crossplane.io/v1", kind, "", name)
		if err != nil {
			return false, err.Error(), nil
		}
		id, _, _ := unstructured.NestedString(p.Object, "status", "currentIdentifier")
		inst, _, imsg := Condition(p, "Installed")
		healthy, _, hmsg := Condition(p, "Healthy")
		state := fmt.Sprintf("identifier %s, Installed=%s, Healthy=%s", id, withMessage(inst, imsg), withMessage(healthy, hmsg))
		if !strings.HasSuffix(id, ":"+version) || inst != "True" || healthy != "True" {
			return seen(false, state)
		}
		if kind == "Configuration" {
			return seen(true, state)
		}
		pods := &corev1.PodList{}
		if err := c.Kube.List(ctx, pods, client.InNamespace(Namespace)); err != nil {
			return false, err.Error(), nil
		}
		var ready, other int64
		for _, pod := range pods.Items {
			if !strings.HasPrefix(pod.Name, name+"-") {
				continue
			}
			if !strings.HasSuffix(pod.Spec.Containers[0].Image, ":"+version) {
				other++
				continue
			}
			if pod.DeletionTimestamp == nil && podReady(&pod) {
				ready++
			}
		}
		state = fmt.Sprintf("%d of %d Pods of %s Ready, %d Pods of other versions", ready, want[name], version, other)
		if ready != want[name] || other > 0 {
			return seen(false, state)
		}
		if kind == "Provider" {
			leader, err := c.leaderPod(ctx)
			if err != nil || !strings.HasSuffix(leader.Spec.Containers[0].Image, ":"+version) {
				return seen(false, state+", no Pod of it leading")
			}
		}
		return seen(true, state)
	})
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// waitReobserved waits until the leading provider has reconciled, since
// it started, at least as many times per kind as there are managed
// resources of that kind: what it found on the backends has been acted on.
func (c *Cluster) waitReobserved(ctx context.Context) error {
	return c.Wait(ctx, "the new provider to observe every managed resource", 3*time.Minute, func(ctx context.Context) (bool, string, error) {
		u, err := c.providerMetricsURL(ctx)
		if err != nil {
			return false, err.Error(), nil
		}
		body, err := httpGet(ctx, u)
		if err != nil {
			return false, err.Error(), nil
		}
		// controller-runtime's reconcile counter, by controller.
		done, err := sumCounters(string(body), func(line string) string {
			if !strings.HasPrefix(line, "controller_runtime_reconcile_total{") {
				return ""
			}
			return metricLabel(line, "controller")
		})
		if err != nil {
			return false, err.Error(), nil
		}
		var short []string
		for _, k := range mrKinds {
			items, err := c.List(ctx, k[0], k[1])
			if err != nil {
				return false, err.Error(), nil
			}
			group, _, _ := strings.Cut(k[0], "/")
			controller := "managed/" + strings.ToLower(k[1]) + "." + group
			if n := done[controller]; n < len(items) {
				short = append(short, fmt.Sprintf("%s %d of %d", k[1], n, len(items)))
			}
		}
		return len(short) == 0, "reconciled " + strings.Join(short, ", "), nil
	})
}

// pushBrokenProvider builds and pushes a provider package at version whose
// runtime image runs the function's binary: it exits at once, refusing the
// provider's flags, as a build with a broken entry point would.
func (c *Cluster) pushBrokenProvider(ctx context.Context, version string) error {
	dir, err := os.MkdirTemp(c.dir, "broken-")
	if err != nil {
		return err
	}
	img, err := ociimage.Build(c.cfg.Function, "/etc/ssl/certs/ca-certificates.crt", goruntime.GOARCH, nil)
	if err != nil {
		return err
	}
	tag, err := name.NewTag("provider-devops:" + version)
	if err != nil {
		return err
	}
	tar := filepath.Join(dir, "image.tar")
	if err := tarball.WriteToFile(tar, tag, img); err != nil {
		return err
	}
	file := filepath.Join(dir, "provider.xpkg")
	cmd := exec.CommandContext(ctx, c.cfg.CrossplaneCLI, "xpkg", "build", "--package-root", filepath.Join(c.cfg.Root, "package", "provider"),
		"--embed-runtime-image-tarball", tar, "-o", file)
	// No examples: the CLI looks for ./examples.
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("crossplane xpkg build: %w\n%s", err, lastLines(string(out), 10))
	}
	return c.pushPackage(ctx, ProviderName, version, file)
}

// waitBrokenRevision waits until Crossplane says the provider's revision
// at version is not healthy and its Pods are failing, and returns what
// the user sees: the Provider's Healthy condition and the Pods' state,
// and how many Pods are failing.
func (c *Cluster) waitBrokenRevision(ctx context.Context, version string) (string, int, error) {
	var seen string
	var n int
	err := c.Wait(ctx, "the broken provider revision to report itself unhealthy", 3*time.Minute, func(ctx context.Context) (bool, string, error) {
		p, err := c.Get(ctx, "pkg.crossplane.io/v1", "Provider", "", ProviderName)
		if err != nil {
			return false, err.Error(), nil
		}
		id, _, _ := unstructured.NestedString(p.Object, "status", "currentIdentifier")
		healthy, reason, msg := Condition(p, "Healthy")
		pods := &corev1.PodList{}
		if err := c.Kube.List(ctx, pods, client.InNamespace(Namespace)); err != nil {
			return false, err.Error(), nil
		}
		var failing []string
		for _, pod := range pods.Items {
			if !strings.HasPrefix(pod.Name, ProviderName+"-") || !strings.HasSuffix(pod.Spec.Containers[0].Image, ":"+version) {
				continue
			}
			for _, cs := range pod.Status.ContainerStatuses {
				if cs.RestartCount > 0 {
					why := "restarted"
					if w := cs.State.Waiting; w != nil {
						why = w.Reason
					} else if t := cs.LastTerminationState.Terminated; t != nil {
						why = fmt.Sprintf("exited %d", t.ExitCode)
					}
					failing = append(failing, fmt.Sprintf("%s %s after %d restarts", pod.Name, why, cs.RestartCount))
				}
			}
		}
		slices.Sort(failing)
		n = len(failing)
		seen = fmt.Sprintf("Provider Healthy=%s (%s: %s); Pods: %s", healthy, reason, msg, strings.Join(failing, ", "))
		return strings.HasSuffix(id, ":"+version) && healthy == "False" && len(failing) > 0, seen, nil
	})
	return seen, n, err
}

// traceProvider is `crossplane beta trace` of the provider package: all
// its revisions and their health.
func (c *Cluster) traceProvider(ctx context.Context) (string, error) {
	cmd := exec.CommandContext(ctx, c.cfg.CrossplaneCLI, "beta", "trace", "provider.pkg.crossplane.io", ProviderName, "--show-package-revisions=all")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.KubeConfig)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// watchProjectReady polls the project's Ready condition every second
// until the returned function is called, which returns every time it was
// not True (or that it was never read).
func (c *Cluster) watchProjectReady(ctx context.Context) func() []string {
	ctx, cancel := context.WithCancel(ctx)
	var (
		mu    sync.Mutex
		seen  []string
		polls int
		wg    sync.WaitGroup
	)
	t0 := time.Now()
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			xr, err := c.Get(ctx, xrAPIVersion, "DevOpsProject", ProjectNamespace, Project)
			if err != nil {
				continue
			}
			mu.Lock()
			polls++
			if st, reason, msg := Condition(xr, "Ready"); st != "True" {
				seen = append(seen, fmt.Sprintf("at %s Ready=%s %s: %s", time.Since(t0).Round(time.Second), st, reason, msg))
			}
			mu.Unlock()
		}
	}()
	return func() []string {
		cancel()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		if polls == 0 {
			return []string{"its Ready condition was never read"}
		}
		return seen
	}
}

// backendState is what the backends hold that an upgrade must not change:
// the Jenkins items created and deleted so far, the fakes' write requests,
// Argo CD's applications (by uid and spec) and the DNS zone's serial.
// The OCI registry's repositories are implicit (made by the first push):
// there is nothing there to create or delete.
type backendState struct {
	created, deleted map[string]int
	writes           map[string]int
	apps             map[string]string
	serial           uint32
}

func (c *Cluster) backendState(ctx context.Context) (backendState, error) {
	s, err := c.sandboxState(ctx)
	if err != nil {
		return backendState{}, err
	}
	b := backendState{created: s.Created, deleted: s.Deleted, writes: map[string]int{}, apps: map[string]string{}}
	for k, n := range s.Requests {
		if !strings.HasSuffix(k, " GET") {
			b.writes[k] = n
		}
	}
	apps := &unstructured.UnstructuredList{}
	apps.SetGroupVersionKind(argocdserver.ApplicationGVR.GroupVersion().WithKind("ApplicationList"))
	if err := c.Argo.Kube.List(ctx, apps, client.InNamespace(argocdserver.Namespace)); err != nil {
		return backendState{}, err
	}
	for _, a := range apps.Items {
		// Argo CD's Application has no status subresource: its
		// controller's status writes move the generation, so the spec
		// itself is compared.
		spec, err := json.Marshal(a.Object["spec"])
		if err != nil {
			return backendState{}, err
		}
		b.apps[a.GetName()] = fmt.Sprintf("uid %s spec %x", a.GetUID(), sha256.Sum256(spec))
	}
	rrs, err := c.BIND.Query(c.BIND.Zone, dns.TypeSOA)
	if err != nil {
		return backendState{}, err
	}
	for _, rr := range rrs {
		if soa, ok := rr.(*dns.SOA); ok {
			b.serial = soa.Serial
		}
	}
	return b, nil
}

// unchanged fails if anything was created or deleted between b and after:
// a Jenkins item, an Argo CD application (or its spec rewritten), a DNS
// record (the zone's serial moves with every update).
func (b backendState) unchanged(after backendState) error {
	var changed []string
	for _, m := range []struct {
		what          string
		before, after map[string]int
	}{{"Jenkins items created", b.created, after.created}, {"Jenkins items deleted", b.deleted, after.deleted}} {
		for k, n := range m.after {
			if n != m.before[k] {
				changed = append(changed, fmt.Sprintf("%s: %s %d times, %d before", m.what, k, n, m.before[k]))
			}
		}
	}
	for k, v := range b.apps {
		if after.apps[k] != v {
			changed = append(changed, fmt.Sprintf("Argo CD application %s: %s, was %s", k, after.apps[k], v))
		}
	}
	for k := range after.apps {
		if _, ok := b.apps[k]; !ok {
			changed = append(changed, "Argo CD application "+k+" created")
		}
	}
	if b.serial != after.serial {
		changed = append(changed, fmt.Sprintf("the DNS zone changed (serial %d, was %d)", after.serial, b.serial))
	}
	if len(changed) > 0 {
		slices.Sort(changed)
		return fmt.Errorf("backend objects changed: %s", strings.Join(changed, "; "))
	}
	return nil
}

// summary says what was checked unchanged, and the backends' write
// requests between b and after.
func (b backendState) summary(after backendState) string {
	var writes []string
	for k, n := range after.writes {
		if d := n - b.writes[k]; d != 0 {
			writes = append(writes, fmt.Sprintf("%s %d", k, d))
		}
	}
	slices.Sort(writes)
	if len(writes) == 0 {
		writes = []string{"none"}
	}
	return fmt.Sprintf("0 Jenkins items created or deleted, %d Argo CD applications the same objects with the same spec, DNS zone serial %d unchanged; write requests to the fakes: %s",
		len(after.apps), after.serial, strings.Join(writes, ", "))
}

// withMessage is a condition's status and, when it has one, its message.
func withMessage(status, msg string) string {
	if msg == "" {
		return status
	}
	return status + " (" + msg + ")"
}

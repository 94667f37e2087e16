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

package controller_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/customresourcesgate"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	devops "github.com/freeleaps/provider-devops/internal/controller"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

// countingTransport counts the provider's requests to the API server, by
// verb and resource ("POST events", "PUT jenkinspipelines/status", ...).
type countingTransport struct {
	rt    http.RoundTripper
	reads atomic.Int64
	write atomic.Int64
	mu    sync.Mutex
	by    map[string]int64
	// ok counts the requests the API server accepted (2xx), by verb and
	// resource: not the conflicts a stale cache makes and retries.
	ok map[string]int64
	// creating counts the status writes that carry a Ready condition of
	// reason Creating.
	creating atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet {
		c.reads.Add(1)
	} else {
		c.write.Add(1)
	}
	c.mu.Lock()
	if c.by == nil {
		c.by = map[string]int64{}
	}
	key := r.Method + " " + resourceOf(r.URL.Path)
	c.by[key]++
	c.mu.Unlock()
	if r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/status") && r.Body != nil {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		if bytes.Contains(b, []byte(`"reason":"Creating"`)) {
			c.creating.Add(1)
		}
	}
	rsp, err := c.rt.RoundTrip(r)
	if err == nil && rsp.StatusCode < 300 {
		c.mu.Lock()
		if c.ok == nil {
			c.ok = map[string]int64{}
		}
		c.ok[key]++
		c.mu.Unlock()
	}
	return rsp, err
}

// accepted is a copy of the accepted requests' counts.
func (c *countingTransport) accepted() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.ok)
}

// snapshot is a copy of the counts by verb and resource.
func (c *countingTransport) snapshot() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.by)
}

// resourceOf is the resource (and subresource) an API path names:
// /apis/g/v/namespaces/ns/things/name/status is "things/status".
func resourceOf(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) > 0 && parts[0] == "api":
		parts = parts[min(2, len(parts)):]
	case len(parts) > 0 && parts[0] == "apis":
		parts = parts[min(3, len(parts)):]
	}
	if len(parts) >= 2 && parts[0] == "namespaces" && len(parts) > 2 {
		parts = parts[2:]
	}
	switch len(parts) {
	case 0:
		return path
	case 1, 2:
		return parts[0]
	default:
		return parts[0] + "/" + parts[2]
	}
}

// breakdown is the counts that grew between two snapshots, per MR, most
// first: where the writes go.
func breakdown(before, after map[string]int64, per float64) string {
	type kv struct {
		k string
		v int64
	}
	var l []kv
	for k, v := range after {
		if d := v - before[k]; d > 0 {
			l = append(l, kv{k, d})
		}
	}
	sort.Slice(l, func(i, j int) bool { return l[i].v > l[j].v })
	var b strings.Builder
	for _, x := range l {
		fmt.Fprintf(&b, "  %-48s %8d  %6.2f per MR\n", x.k, x.v, float64(x.v)/per)
	}
	return b.String()
}

// countingProxy forwards to a fake backend and counts the requests.
type countingProxy struct {
	*httptest.Server
	n atomic.Int64
}

func newCountingProxy(b testing.TB, target string) *countingProxy {
	u, err := url.Parse(target)
	if err != nil {
		b.Fatal(err)
	}
	p := &countingProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.n.Add(1)
		rp.ServeHTTP(w, r)
	}))
	b.Cleanup(p.Close)
	return p
}

// externalNameField is the forProvider field naming each kind's external
// object, but ArgoApplication's, which is its metadata name.
var externalNameField = map[string]string{"JenkinsPipeline": "name", "DNSRecord": "name", "RegistryRepo": "name"}

// reconciles is how many reconciles controller-runtime counted for the
// provider's managed-resource controllers so far.
func reconciles(b testing.TB) float64 {
	mfs, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		b.Fatal(err)
	}
	var n float64
	for _, mf := range mfs {
		if mf.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && strings.HasPrefix(l.GetValue(), "managed/") {
					n += m.GetCounter().GetValue()
				}
			}
		}
	}
	return n
}

// BenchmarkScale1000 creates 1,000 managed resources — 250 of each kind,
// against the fake Jenkins, Argo CD, GoDaddy and Docker Hub (behind
// counting proxies) — for the provider wired as cmd/provider wires it at
// its default flags (--max-reconcile-rate, --poll) and measures:
//
//   - until all are Ready: the time, the provider's API requests (GETs
//     incl. watches, and writes, by verb and resource) and the process's
//     peak RSS (provider, fakes and test client together, so an upper
//     bound of the provider's);
//   - then, in steady state, until each resource has been polled about
//     once (one --poll), the API requests and backend requests per poll
//     (SCALE_STEADY=0 skips this part, which waits about 5 minutes).
func BenchmarkScale1000(b *testing.B) {
	perKind := 250
	if v := os.Getenv("SCALE_MRS"); v != "" {
		// SCALE_MRS=10000 runs the same at ten times the size.
		m, err := strconv.Atoi(v)
		if err != nil || m < 4 {
			b.Fatalf("SCALE_MRS: %q is not a number of at least 4", v)
		}
		perKind = m / 4
	}
	n := 4 * perKind
	env := controlplane.Shared(b)
	f := startFakes(b)
	proxies := map[string]*countingProxy{
		f.jenkins.URL: newCountingProxy(b, f.jenkins.URL), f.argo.URL: newCountingProxy(b, f.argo.URL),
		f.godaddy.URL: newCountingProxy(b, f.godaddy.URL), f.hub.URL: newCountingProxy(b, f.hub.URL),
	}
	backend := func() int64 {
		var t int64
		for _, p := range proxies {
			t += p.n.Load()
		}
		return t
	}

	counter := &countingTransport{}
	cfg := devops.RESTConfig(env.Config, devops.DefaultMaxReconcileRate)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { counter.rt = rt; return counter })
	o := devops.Options(logging.NewNopLogger(), devops.DefaultMaxReconcileRate, devops.DefaultPollInterval, true)
	controlplane.StartManagerWith(b, cfg, env, o, func(mgr ctrl.Manager, o controller.Options) error {
		if err := customresourcesgate.Setup(mgr, o); err != nil {
			return err
		}
		return devops.SetupGated(mgr, o, devops.Config{Guard: controlplane.TenantGuard()})
	})
	fmt.Printf("provider at --max-reconcile-rate=%d --poll=%s\n", devops.DefaultMaxReconcileRate, devops.DefaultPollInterval)

	c := env.Client
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		ns := fmt.Sprintf("scale-%d", i)
		for _, o := range f.objects(ns) {
			if pc, ok := o.(*v1alpha1.ProviderConfig); ok {
				// The provider talks to the fakes through the proxies.
				pc.Spec.Jenkins.URL = proxies[pc.Spec.Jenkins.URL].URL
				pc.Spec.ArgoCD.URL = proxies[pc.Spec.ArgoCD.URL].URL
				pc.Spec.DNS.GoDaddy.URL = proxies[pc.Spec.DNS.GoDaddy.URL].URL
				pc.Spec.Registry.URL = proxies[pc.Spec.Registry.URL].URL
			}
			if err := c.Create(ctx, o); err != nil {
				b.Fatal(err)
			}
		}
		templates := map[string]*unstructured.Unstructured{}
		for _, f := range []string{"jenkins/jenkinspipeline.yaml", "argocd/argoapplication.yaml", "dns/dnsrecord.yaml", "registry/registryrepo.yaml"} {
			u := loadExample(b, f)[0]
			unstructured.RemoveNestedField(u.Object, "spec", "forProvider", "buildRequest")
			templates[u.GetKind()] = u
		}
		reads0, writes0, by0 := counter.reads.Load(), counter.write.Load(), counter.snapshot()
		start := time.Now()
		for k := 0; k < perKind; k++ {
			for kind, tmpl := range templates {
				u := tmpl.DeepCopy()
				u.SetNamespace(ns)
				u.SetName(fmt.Sprintf("%s-%d-%d", strings.ToLower(kind), i, k))
				// Each object its own external name (ArgoApplication's is
				// its metadata name).
				if field, ok := externalNameField[kind]; ok {
					controlplane.Must(b, unstructured.SetNestedField(u.Object, fmt.Sprintf("x%d-%d", i, k), "spec", "forProvider", field))
				}
				if err := c.Create(ctx, u); err != nil {
					b.Fatal(err)
				}
			}
		}
		ready := 0
		for deadline := time.Now().Add(10*time.Minute + time.Duration(n)*60*time.Millisecond); ready < n; time.Sleep(time.Second) {
			if time.Now().After(deadline) {
				b.Fatalf("only %d of %d managed resources Ready by %s", ready, n, deadline)
			}
			for _, name := range f.argo.Apps() {
				if app := f.argo.App(name); !strings.Contains(fmt.Sprint(app["status"]), "Synced") {
					f.argo.SetStatus(name, "Synced", "4f2a9c1", "Healthy", "", "Succeeded")
				}
			}
			ready = 0
			for kind, tmpl := range templates {
				l := &unstructured.UnstructuredList{}
				l.SetAPIVersion(tmpl.GetAPIVersion())
				l.SetKind(kind + "List")
				if err := c.List(ctx, l, client.InNamespace(ns)); err != nil {
					b.Fatal(err)
				}
				for i := range l.Items {
					if condition(&l.Items[i], "Ready") == "True" {
						ready++
					}
				}
			}
		}
		toReady := time.Since(start)
		writes := counter.write.Load() - writes0
		b.ReportMetric(toReady.Seconds(), "s-to-ready")
		b.ReportMetric(float64(counter.reads.Load()-reads0)/float64(n), "api-gets/MR")
		b.ReportMetric(float64(writes)/float64(n), "api-writes/MR")
		b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MiB")
		// Printed, not logged: a benchmark's log is cut to a few lines.
		fmt.Printf("%d managed resources Ready in %s; API requests by verb and resource until then:\n%s", n, toReady.Round(100*time.Millisecond), breakdown(by0, counter.snapshot(), float64(n)))

		if os.Getenv("SCALE_STEADY") == "0" {
			continue
		}
		// Steady state: from now on every resource is polled once per
		// --poll (± jitter). Wait for about one poll of each.
		r0, g0, w0, be0, by1, steady := reconciles(b), counter.reads.Load(), counter.write.Load(), backend(), counter.snapshot(), time.Now()
		deadline := time.Now().Add(devops.DefaultPollInterval + 2*time.Minute)
		for reconciles(b)-r0 < float64(n) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Second)
		}
		polls := reconciles(b) - r0
		if polls < float64(n)/2 {
			b.Fatalf("only %.0f reconciles in steady state by %s", polls, deadline)
		}
		b.ReportMetric(polls, "steady-polls")
		b.ReportMetric(float64(counter.reads.Load()-g0)/polls, "steady-api-gets/poll")
		b.ReportMetric(float64(counter.write.Load()-w0)/polls, "steady-api-writes/poll")
		b.ReportMetric(float64(backend()-be0)/polls, "steady-backend-requests/poll")
		fmt.Printf("steady state, %.0f polls in %s: API requests:\n%s", polls, time.Since(steady).Round(time.Second), breakdown(by1, counter.snapshot(), polls))
	}
}

// peakRSS is the process's VmHWM in bytes.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

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
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	devops "github.com/freeleaps/provider-devops/internal/controller"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

// BenchmarkScale runs the provider binary at its default flags (plus
// SCALE_FLAGS, space-separated, to try others) against a real API server
// and the fake Jenkins, Argo CD, GoDaddy and Docker Hub (behind counting
// proxies), and measures, for SCALE_MRS managed resources (1,000 by
// default, a quarter of each kind) spread over SCALE_NAMESPACES teams (10
// by default, each with its own ProviderConfig and credentials):
//
//   - created → all Ready: the time, the API writes per resource (the API
//     server's own count, less the benchmark's creates; the provider's by
//     kind and verb), and the provider's peak RSS;
//   - a restart (the provider stopped and a new one started, as in an
//     upgrade): the time until every resource was observed again, the API
//     writes meanwhile (none are needed), the new provider's peak RSS;
//   - steady state (SCALE_STEADY=0 skips it, about 5 minutes): one more
//     observation of every resource by the new provider at --poll, with
//     its API requests and the backend requests per observation.
//
// The provider is its own process, so its RSS is its own: not the fakes',
// nor the benchmark's. It runs without leader election (out of a cluster
// it has no namespace for its lease); a restart is the same for a new
// leader, which takes over a lease the old one releases on stopping.
func BenchmarkScale(b *testing.B) {
	n := envInt(b, "SCALE_MRS", 1000, 4)
	teams := envInt(b, "SCALE_NAMESPACES", 10, 1)
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
	bin := buildProvider(b)
	kc, err := env.KubeConfig()
	controlplane.Must(b, err)
	kcPath := filepath.Join(b.TempDir(), "kubeconfig")
	controlplane.Must(b, os.WriteFile(kcPath, kc, 0o600))
	api := apiMetrics(b, env.Config)

	c := env.Client
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		run := fmt.Sprintf("scale-%d", i)
		for t := range teams {
			for _, o := range f.objects(fmt.Sprintf("%s-%d", run, t)) {
				if pc, ok := o.(*v1alpha1.ProviderConfig); ok {
					// The provider talks to the fakes through the proxies.
					pc.Spec.Jenkins.URL = proxies[pc.Spec.Jenkins.URL].URL
					pc.Spec.ArgoCD.URL = proxies[pc.Spec.ArgoCD.URL].URL
					pc.Spec.DNS.GoDaddy.URL = proxies[pc.Spec.DNS.GoDaddy.URL].URL
					pc.Spec.Registry.URL = proxies[pc.Spec.Registry.URL].URL
				}
				controlplane.Must(b, c.Create(ctx, o))
			}
		}
		first := startProviderBinary(b, bin, kcPath)
		fmt.Printf("provider binary at its defaults (--max-reconcile-rate=%d --poll=%s) %s; %d managed resources in %d namespaces\n",
			devops.DefaultMaxReconcileRate, devops.DefaultPollInterval, os.Getenv("SCALE_FLAGS"), n, teams)

		writes0 := api.writes()
		start := time.Now()
		createScaled(b, c, run, n, teams)
		created := time.Since(start)
		toReady := waitAllReady(b, env, f, run, n, start)
		writes := api.writes() - writes0 - int64(n)
		fmt.Printf("the API server's refused writes so far:\n%s", api.refused())
		b.ReportMetric(toReady.Seconds(), "s-to-ready")
		b.ReportMetric(float64(writes)/float64(n), "api-writes/MR")
		b.ReportMetric(float64(first.peakRSS())/(1<<20), "peak-RSS-MiB")
		m := first.metrics()
		fmt.Printf("%d managed resources created in %s, Ready in %s; the provider's observations by kind and outcome:\n%sits writes by kind and verb:\n%s",
			n, created.Round(100*time.Millisecond), toReady.Round(100*time.Millisecond),
			m.breakdown("provider_devops_observations_total", float64(n), "kind", "outcome"),
			m.breakdown("provider_devops_kube_writes_total", float64(n), "kind", "verb"))

		// A restart: stop the provider in order and start a new one, which
		// lists every resource and observes each once.
		first.stop(b)
		writes1, be1 := api.writes(), backend()
		second := startProviderBinary(b, bin, kcPath)
		observedAll := second.waitObserved(b, float64(n), 10*time.Minute)
		restartWrites := api.writes() - writes1
		b.ReportMetric(observedAll.Seconds(), "s-to-reobserve")
		b.ReportMetric(float64(restartWrites), "restart-api-writes")
		b.ReportMetric(float64(second.peakRSS())/(1<<20), "restart-peak-RSS-MiB")
		fmt.Printf("after a restart, %d managed resources observed again in %s with %d API writes and %.2f backend requests each; the new provider's peak RSS %d MiB\n",
			n, observedAll.Round(100*time.Millisecond), restartWrites, float64(backend()-be1)/float64(n), second.peakRSS()>>20)

		if os.Getenv("SCALE_STEADY") != "0" {
			// Steady state: every resource is observed once more per
			// --poll (± jitter).
			m0, w0, be0, steady := second.metrics(), api.writes(), backend(), time.Now()
			second.waitObserved(b, float64(2*n), devops.DefaultPollInterval+2*time.Minute)
			m1 := second.metrics()
			polls := m1.sum("provider_devops_observations_total") - m0.sum("provider_devops_observations_total")
			gets := m1.sum("rest_client_requests_total", "method", "GET") - m0.sum("rest_client_requests_total", "method", "GET")
			b.ReportMetric(polls, "steady-polls")
			b.ReportMetric(gets/polls, "steady-api-gets/poll")
			b.ReportMetric(float64(api.writes()-w0)/polls, "steady-api-writes/poll")
			b.ReportMetric(float64(backend()-be0)/polls, "steady-backend-requests/poll")
			fmt.Printf("steady state: %.0f observations in %s, %.0f API GETs, %d API writes, %d backend requests\n",
				polls, time.Since(steady).Round(time.Second), gets, api.writes()-w0, backend()-be0)
		}
		second.stop(b)
	}
}

// envInt is the number in the environment variable name, or def; at least
// least.
func envInt(b *testing.B, name string, def, least int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	m, err := strconv.Atoi(v)
	if err != nil || m < least {
		b.Fatalf("%s: %q is not a number of at least %d", name, v, least)
	}
	return m
}

// createScaled creates n managed resources, a quarter of each kind from
// the examples, round-robin in the run's teams namespaces, with four
// clients at once as several teams' pipelines would.
func createScaled(b *testing.B, c client.Client, run string, n, teams int) {
	var templates []*unstructured.Unstructured
	for _, f := range []string{"jenkins/jenkinspipeline.yaml", "argocd/argoapplication.yaml", "dns/dnsrecord.yaml", "registry/registryrepo.yaml"} {
		u := loadExample(b, f)[0]
		unstructured.RemoveNestedField(u.Object, "spec", "forProvider", "buildRequest")
		templates = append(templates, u)
	}
	work := make(chan int)
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				tmpl := templates[k%len(templates)]
				u := tmpl.DeepCopy()
				u.SetNamespace(fmt.Sprintf("%s-%d", run, (k/len(templates))%teams))
				// Names, and so external names, unique across the fakes
				// every namespace shares (an application's external name
				// is its metadata name).
				u.SetName(fmt.Sprintf("%s-%s-%d", strings.ToLower(tmpl.GetKind()), run, k))
				u.SetLabels(map[string]string{"scale-run": run})
				if field, ok := externalNameField[tmpl.GetKind()]; ok {
					if err := unstructured.SetNestedField(u.Object, fmt.Sprintf("x%s-%d", run, k), "spec", "forProvider", field); err != nil {
						errs <- err
						return
					}
				}
				if err := c.Create(context.Background(), u); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for k := range n {
		select {
		case work <- k:
		case err := <-errs:
			close(work)
			wg.Wait()
			b.Fatal(err)
		}
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
}

// waitAllReady waits until the run's n managed resources are Ready, playing
// Argo CD's sync of every application, and returns the time since start.
// It counts from a cache of its own, as the provider does: listing 10,000
// resources from the API server every second would take a good part of
// what a 2-core machine's API server can do, and slow what it measures.
func waitAllReady(b *testing.B, env *controlplane.Env, f fakes, run string, n int, start time.Time) time.Duration {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	controlplane.Quiet()
	ca, err := cache.New(env.Config, cache.Options{Scheme: env.Client.Scheme()})
	controlplane.Must(b, err)
	go func() { _ = ca.Start(ctx) }()
	if !ca.WaitForCacheSync(ctx) {
		b.Fatal("the benchmark's cache did not start")
	}
	kinds := map[string]string{"JenkinsPipeline": "jenkins", "ArgoApplication": "argocd", "DNSRecord": "dns", "RegistryRepo": "registry"}
	for deadline := time.Now().Add(10*time.Minute + time.Duration(n)*60*time.Millisecond); ; time.Sleep(time.Second) {
		for _, name := range f.argo.Apps() {
			if app := f.argo.App(name); !strings.Contains(fmt.Sprint(app["status"]), "Synced") {
				f.argo.SetStatus(name, "Synced", "4f2a9c1", "Healthy", "", "Succeeded")
			}
		}
		ready := 0
		for kind, group := range kinds {
			l := &unstructured.UnstructuredList{}
			l.SetAPIVersion(group + ".devops.freeleaps.io/v1alpha1")
			l.SetKind(kind + "List")
			controlplane.Must(b, ca.List(ctx, l, client.MatchingLabels{"scale-run": run}, client.UnsafeDisableDeepCopy))
			for i := range l.Items {
				if condition(&l.Items[i], "Ready") == "True" {
					ready++
				}
			}
		}
		if ready >= n {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			b.Fatalf("only %d of %d managed resources Ready by %s", ready, n, deadline)
		}
	}
}

// buildProvider builds cmd/provider into a temporary directory, or returns
// SCALE_BIN, a provider binary built otherwise (with profiling, say).
func buildProvider(b *testing.B) string {
	if bin := os.Getenv("SCALE_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(b.TempDir(), "provider")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/provider")
	cmd.Dir = controlplane.RepoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// providerProc is the provider binary running.
type providerProc struct {
	cmd     *exec.Cmd
	metrics func() promText
	logs    *controlplane.Logs
	started time.Time
	done    chan struct{}
}

// startProviderBinary runs bin with the admin kubeconfig kc at its default flags,
// its endpoints on free loopback ports, loopback backends allowed.
func startProviderBinary(b *testing.B, bin, kc string) *providerProc {
	metricsAddr, healthAddr := loopbackAddr(b), loopbackAddr(b)
	args := []string{"--metrics-bind-address=" + metricsAddr, "--health-probe-bind-address=" + healthAddr, "--tenant-backend-networks=127.0.0.0/8"}
	args = append(args, strings.Fields(os.Getenv("SCALE_FLAGS"))...)
	p := &providerProc{cmd: exec.Command(bin, args...), logs: &controlplane.Logs{}, done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), "KUBECONFIG="+kc)
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	p.metrics = func() promText { return scrape(b, http.DefaultClient, "http://"+metricsAddr+"/metrics") }
	p.started = time.Now()
	controlplane.Must(b, p.cmd.Start())
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	b.Cleanup(func() { p.stop(b) })
	return p
}

// stop stops the provider in order (SIGTERM) and waits for it.
func (p *providerProc) stop(b *testing.B) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(time.Minute):
		_ = p.cmd.Process.Kill()
		<-p.done
		b.Errorf("the provider did not stop within a minute of SIGTERM; its last lines:\n%s", p.logs.Lines(20))
	}
}

// waitObserved waits until the provider has observed (found) external
// objects want times, and returns the time since it started.
func (p *providerProc) waitObserved(b *testing.B, want float64, limit time.Duration) time.Duration {
	deadline := time.Now().Add(limit)
	for {
		select {
		case <-p.done:
			b.Fatalf("the provider stopped; its last lines:\n%s", p.logs.Lines(20))
		default:
		}
		got := 0.0
		if m := p.metrics(); m != nil {
			got = m.sum("provider_devops_observations_total", "outcome", "exists")
			if got >= want {
				return time.Since(p.started)
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("the provider observed %.0f of %.0f external objects by %s; its last lines:\n%s", got, want, deadline, p.logs.Lines(20))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// peakRSS is the provider's VmHWM in bytes.
func (p *providerProc) peakRSS() int64 {
	return procStatusBytes(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid), "VmHWM:")
}

// loopbackAddr is a free loopback port's address.
func loopbackAddr(b *testing.B) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	controlplane.Must(b, err)
	defer l.Close()
	return l.Addr().String()
}

// apiCounter reads the API server's own request counts.
type apiCounter struct{ read func() promText }

func apiMetrics(b *testing.B, cfg *rest.Config) apiCounter {
	hc, err := rest.HTTPClientFor(cfg)
	controlplane.Must(b, err)
	return apiCounter{read: func() promText {
		m := scrape(b, hc, strings.TrimSuffix(cfg.Host, "/")+"/metrics")
		if m == nil {
			b.Fatal("the API server's metrics cannot be read")
		}
		return m
	}}
}

// writes is how many writes the API server has answered, leases aside.
func (a apiCounter) writes() int64 {
	var t float64
	for _, s := range a.read()["apiserver_request_total"] {
		switch s.labels["verb"] {
		case "POST", "PUT", "PATCH", "DELETE", "APPLY", "DELETECOLLECTION":
			if s.labels["resource"] != "leases" {
				t += s.value
			}
		}
	}
	return int64(t)
}

// refused is the API server's refused writes by verb, resource and code.
func (a apiCounter) refused() string {
	var m promText = map[string][]promSample{}
	for _, s := range a.read()["apiserver_request_total"] {
		if s.labels["verb"] != "GET" && s.labels["verb"] != "LIST" && s.labels["verb"] != "WATCH" && s.labels["code"] >= "400" {
			m["refused"] = append(m["refused"], s)
		}
	}
	return m.breakdown("refused", 1, "verb", "resource", "subresource", "code")
}

// promText is a scraped text exposition: samples by metric name.
type promText map[string][]promSample

type promSample struct {
	labels map[string]string
	value  float64
}

// scrape reads url's metrics; nil when it does not answer (yet).
func scrape(b *testing.B, hc *http.Client, url string) promText {
	rsp, err := hc.Get(url)
	if err != nil {
		return nil
	}
	defer rsp.Body.Close()
	if rsp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(rsp.Body, 512))
		b.Fatalf("GET %s: %s %s", url, rsp.Status, body)
	}
	out := promText{}
	sc := bufio.NewScanner(rsp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest, _ := strings.Cut(line, "{")
		labels := map[string]string{}
		var value string
		if strings.Contains(line, "{") {
			var ls string
			ls, value, _ = strings.Cut(rest, "} ")
			for _, kv := range strings.Split(ls, `",`) {
				k, v, _ := strings.Cut(kv, `="`)
				labels[k] = strings.TrimSuffix(v, `"`)
			}
		} else {
			name, value, _ = strings.Cut(line, " ")
		}
		v, err := strconv.ParseFloat(strings.Fields(value)[0], 64)
		if err != nil {
			continue
		}
		out[name] = append(out[name], promSample{labels: labels, value: v})
	}
	controlplane.Must(b, sc.Err())
	return out
}

// sum adds up name's samples whose labels match the label=value pairs.
func (m promText) sum(name string, match ...string) float64 {
	var t float64
next:
	for _, s := range m[name] {
		for i := 0; i+1 < len(match); i += 2 {
			if s.labels[match[i]] != match[i+1] {
				continue next
			}
		}
		t += s.value
	}
	return t
}

// breakdown prints name's samples by the given labels, per resource.
func (m promText) breakdown(name string, per float64, by ...string) string {
	type row struct {
		k string
		v float64
	}
	var rows []row
	for _, s := range m[name] {
		var k []string
		for _, l := range by {
			k = append(k, s.labels[l])
		}
		rows = append(rows, row{strings.Join(k, " "), s.value})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].v > rows[j].v })
	var sb strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&sb, "  %-48s %8.0f  %6.2f per MR\n", r.k, r.v, r.v/per)
	}
	return sb.String()
}

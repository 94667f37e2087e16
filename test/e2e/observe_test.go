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

package e2e

import (
	"context"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/freeleaps/provider-devops/internal/testing/jaeger"
	promserver "github.com/freeleaps/provider-devops/internal/testing/prometheus"
	"github.com/freeleaps/provider-devops/test/e2e/framework"
)

// observe starts a real Prometheus scraping the targets the cluster lists
// (every provider and function replica, wherever they move) and a real
// Jaeger the provider sends its traces to, and points cfg at them.
func observe(t *testing.T, cfg *framework.Config) (*promserver.Server, *jaeger.Server) {
	t.Helper()
	jg := jaeger.Start(t, "")
	u, err := url.Parse(jg.OTLP)
	if err != nil {
		t.Fatal(err)
	}
	cfg.OTLPEndpoint, cfg.JaegerQuery = u.Host, jg.Query
	cfg.MetricsTargets = filepath.Join(t.TempDir(), "targets.json")
	if err := os.WriteFile(cfg.MetricsTargets, []byte("[]"), 0o600); err != nil {
		t.Fatal(err)
	}
	prom := promserver.StartWith(t, nil, []string{cfg.MetricsTargets})
	promStarted = time.Now()
	return prom, jg
}

// promStarted is when the scenario's Prometheus began scraping.
var promStarted time.Time

// checkMetrics asks the scenario's Prometheus what a dashboard or an alert
// would: each series must exist with a plausible value. Counters of a
// replica that later stopped are read over the whole run (max_over_time).
func checkMetrics(ctx context.Context, t *testing.T, prom *promserver.Server) {
	ns := framework.ProjectNamespace
	atLeast := func(min float64) func([]promserver.Sample) bool {
		return func(s []promserver.Sample) bool { return len(s) == 1 && s[0].Value >= min }
	}
	between := func(lo, hi float64) func([]promserver.Sample) bool {
		return func(s []promserver.Sample) bool {
			return len(s) == 1 && !math.IsNaN(s[0].Value) && s[0].Value > lo && s[0].Value < hi
		}
	}
	for _, q := range []struct {
		what, promql string
		ok           func([]promserver.Sample) bool
	}{
		{"a provider replica and the function scraped", `count(up{job="` + framework.JobProvider + `"} == 1) * count(up{job="` + framework.JobFunction + `"} == 1)`, atLeast(1)},
		{"exactly one provider replica leads", `sum(leader_election_master_status{job="` + framework.JobProvider + `"})`, between(0.5, 1.5)},
		{"the team's Jenkins requests", `sum(max_over_time(provider_devops_backend_requests_total{namespace="` + ns + `",backend="jenkins",result="ok"}[1h]))`, atLeast(1)},
		{"the team's Argo CD requests", `sum(max_over_time(provider_devops_backend_requests_total{namespace="` + ns + `",backend="argocd",result="ok"}[1h]))`, atLeast(1)},
		{"Argo CD's p95 answer, seconds", `histogram_quantile(0.95, sum by (le) (increase(provider_devops_backend_request_duration_seconds_bucket{backend="argocd"}[1h])))`, between(0, 5)},
		{"the team's deployment succeeded", `sum(max_over_time(provider_devops_deployruns_finished_total{namespace="` + ns + `",outcome="Succeeded"}[1h]))`, atLeast(1)},
		{"its Building phase timed", `sum(max_over_time(provider_devops_deployrun_phase_duration_seconds_count{phase="Building",outcome="Succeeded"}[1h]))`, atLeast(1)},
		{"events published to the stream", `sum(max_over_time(provider_devops_events_published_total[1h]))`, atLeast(1)},
		{"the project's environments, by the function", `max(max_over_time(sum by (instance) (function_devopsproject_environments{namespace="` + ns + `"})[1h:5s]))`, atLeast(4)},
	} {
		qctx, cancel := context.WithTimeout(ctx, time.Minute)
		got, err := prom.WaitFor(qctx, q.promql, q.ok)
		cancel()
		if err != nil {
			t.Errorf("%s: %v\ntargets:\n%s", q.what, err, prom.Targets(ctx))
			continue
		}
		t.Logf("%s: %s => %v", q.what, q.promql, got[0].Value)
	}
	if out := os.Getenv("DASHBOARD_RENDER"); out != "" {
		renderDashboard(t, prom, out)
	}
}

// renderDashboard draws package/monitoring/dashboard.json from the
// scenario's Prometheus, over the whole run, into out (relative to the
// repository's root): docs/images/dashboard.svg is made so.
func renderDashboard(t *testing.T, prom *promserver.Server, out string) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(root, out)
	}
	end := time.Now().UTC().Truncate(time.Second)
	cmd := exec.Command("go", "run", "./hack/dashboard-render",
		"-prometheus", prom.URL, "-dashboard", "package/monitoring/dashboard.json",
		"-end", end.Format(time.RFC3339), "-range", end.Sub(promStarted).Truncate(time.Second).String(), "-step", "5s", "-scrape-interval", promserver.Interval.String(),
		"-var", "job="+framework.JobProvider+"|"+framework.JobFunction, "-var", "namespace="+framework.ProjectNamespace, "-out", out)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dashboard-render: %v\n%s", err, b)
	}
	t.Logf("drew the dashboard into %s", out)
}

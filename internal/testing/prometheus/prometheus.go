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

// Package prometheus runs a real Prometheus server for tests (the binary
// hack/prometheus.sh builds from the Go module proxy): on a free loopback
// port, its database in a temporary directory, scraping the given targets
// and itself every second. Tests then ask it PromQL over its HTTP API, as
// a dashboard or an alert rule would, so a metric is checked the way it is
// used: scraped, parsed and queried.
package prometheus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freeleaps/provider-devops/internal/testing/integration"
	"github.com/freeleaps/provider-devops/internal/testing/loopback"
	"github.com/freeleaps/provider-devops/internal/testing/process"
)

// Bin returns the Prometheus binary named by the environment variable PROMETHEUS
// (make test sets it from hack/prometheus.sh), or "".
func Bin() string { return integration.Binary("PROMETHEUS") }

// Require returns the Prometheus binary, failing the test in CI without it
// and skipping it elsewhere (integration.RequireBinary).
func Require(t testing.TB) string {
	t.Helper()
	return integration.RequireBinary(t, "PROMETHEUS", "hack/prometheus.sh", "a Prometheus server")
}

// Target is a scrape job: Prometheus reads http://Addr/metrics.
type Target struct {
	// Job is the job label of its series.
	Job string
	// Addr is host:port.
	Addr string
}

// Server is a running Prometheus.
type Server struct {
	// URL is its HTTP API's base, http://127.0.0.1:PORT.
	URL  string
	proc *process.Process
}

// Interval is how often every target is scraped.
const Interval = time.Second

// Start runs Prometheus scraping targets, and itself as job "prometheus",
// every Interval; it returns once Prometheus is ready and stops it when the
// test ends, printing its log's end if the test failed.
func Start(t testing.TB, targets ...Target) *Server {
	t.Helper()
	return StartWith(t, targets, nil)
}

// StartWith is Start that also scrapes the targets listed in the files of
// sdFiles (Prometheus's file_sd JSON: [{"targets": ["host:port"],
// "labels": {"job": "..."}}]), read again whenever they change: for
// targets whose addresses change, such as Pods.
func StartWith(t testing.TB, targets []Target, sdFiles []string) *Server {
	t.Helper()
	bin := Require(t)
	dir := t.TempDir()
	s := integration.OnFreePorts(t, func(attempt int) (*Server, error) { return start(bin, dir, attempt, targets, sdFiles) })
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("prometheus log (end):\n%s", s.proc.Tail(40))
		}
		s.proc.Stop(10 * time.Second)
	})
	return s
}

func start(bin, dir string, attempt int, targets []Target, sdFiles []string) (*Server, error) {
	port, err := loopback.FreePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	run := filepath.Join(dir, strconv.Itoa(attempt))
	cfg := filepath.Join(run, "prometheus.yml")
	if err := os.MkdirAll(run, 0o750); err != nil {
		return nil, err
	}
	if err := os.WriteFile(cfg, []byte(Config(append([]Target{{Job: "prometheus", Addr: addr}}, targets...), sdFiles...)), 0o600); err != nil {
		return nil, err
	}
	p, err := process.Start(run, "prometheus", nil, bin,
		"--config.file="+cfg,
		"--storage.tsdb.path="+filepath.Join(run, "data"),
		"--web.listen-address="+addr,
		"--log.level=info",
	)
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + addr, proc: p}
	if err := s.waitReady(60 * time.Second); err != nil {
		p.Stop(5 * time.Second)
		return nil, fmt.Errorf("prometheus did not become ready: %w\n%s", err, p.Tail(20))
	}
	return s, nil
}

// Config is the configuration scraping targets, and those the files of
// sdFiles list, every Interval. Each target's scrape times out after the
// interval, so a slow one shows as down (up == 0) rather than holding the
// next scrape.
func Config(targets []Target, sdFiles ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "global:\n  scrape_interval: %s\n  scrape_timeout: %s\n  evaluation_interval: %s\nscrape_configs:\n", Interval, Interval, Interval)
	for _, t := range targets {
		fmt.Fprintf(&b, "- job_name: %q\n  static_configs:\n  - targets: [%q]\n", t.Job, t.Addr)
	}
	if len(sdFiles) > 0 {
		// A target's job label comes from its file; "discovered" is the
		// default for those that give none.
		fmt.Fprintf(&b, "- job_name: discovered\n  file_sd_configs:\n  - refresh_interval: %s\n    files:\n", Interval)
		for _, f := range sdFiles {
			fmt.Fprintf(&b, "    - %q\n", f)
		}
	}
	return b.String()
}

// waitReady polls /-/ready until it answers 200, the process ends or
// timeout passes.
func (s *Server) waitReady(timeout time.Duration) error {
	c := &http.Client{Timeout: 2 * time.Second}
	var last error
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if done, err := s.proc.Exited(); done {
			if strings.Contains(s.proc.Tail(20), "address already in use") {
				return errors.New("address already in use")
			}
			return fmt.Errorf("prometheus exited: %v", err)
		}
		resp, err := c.Get(s.URL + "/-/ready")
		if err != nil {
			last = err
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return nil
		}
		last = fmt.Errorf("/-/ready: %s", resp.Status)
	}
	return last
}

// Sample is one element of a query's result: an instant vector's series
// (its labels, __name__ among them when kept) or a scalar (no labels).
type Sample struct {
	Metric map[string]string
	Value  float64
}

func (s Sample) String() string {
	return fmt.Sprintf("%v => %g", s.Metric, s.Value)
}

// Query evaluates promql now (/api/v1/query) and returns its samples: a
// vector's elements, or a scalar as one sample without labels.
func (s *Server) Query(ctx context.Context, promql string) ([]Sample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/api/v1/query?"+url.Values{"query": {promql}}.Encode(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return ParseQueryResponse(body)
}

// ParseQueryResponse reads the body of /api/v1/query: a vector's or a
// scalar's samples, or the error Prometheus gave.
func ParseQueryResponse(body []byte) ([]Sample, error) {
	var r struct {
		Status    string `json:"status"`
		ErrorType string `json:"errorType"`
		Error     string `json:"error"`
		Data      struct {
			ResultType string          `json:"resultType"`
			Result     json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("cannot read the query's answer %q: %w", body, err)
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("query failed: %s: %s", r.ErrorType, r.Error)
	}
	switch r.Data.ResultType {
	case "vector":
		var v []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		}
		if err := json.Unmarshal(r.Data.Result, &v); err != nil {
			return nil, err
		}
		out := make([]Sample, 0, len(v))
		for _, e := range v {
			f, err := value(e.Value)
			if err != nil {
				return nil, err
			}
			out = append(out, Sample{Metric: e.Metric, Value: f})
		}
		return out, nil
	case "scalar":
		var v [2]any
		if err := json.Unmarshal(r.Data.Result, &v); err != nil {
			return nil, err
		}
		f, err := value(v)
		if err != nil {
			return nil, err
		}
		return []Sample{{Value: f}}, nil
	}
	return nil, fmt.Errorf("result type %q: want a vector or a scalar", r.Data.ResultType)
}

// value reads [timestamp, "value"]; the value is a string, and may be NaN
// or ±Inf.
func value(v [2]any) (float64, error) {
	s, ok := v[1].(string)
	if !ok {
		return 0, fmt.Errorf("value %v is not a string", v[1])
	}
	return strconv.ParseFloat(s, 64)
}

// WaitFor queries promql until cond holds for its samples, and returns
// them; when ctx ends first, the error says what the query last returned.
func (s *Server) WaitFor(ctx context.Context, promql string, cond func([]Sample) bool) ([]Sample, error) {
	var seen []Sample
	var lastErr error
	for {
		got, err := s.Query(ctx, promql)
		if err == nil && cond(got) {
			return got, nil
		}
		if err == nil {
			seen = got
		} else if ctx.Err() == nil {
			lastErr = err
		}
		select {
		case <-ctx.Done():
			if lastErr != nil {
				return seen, fmt.Errorf("%s: %w; it last returned %v (last error: %v)", promql, ctx.Err(), seen, lastErr)
			}
			return seen, fmt.Errorf("%s: %w; it last returned %v", promql, ctx.Err(), seen)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// NonEmpty is a WaitFor condition: at least one sample.
func NonEmpty(s []Sample) bool { return len(s) > 0 }

// OneNumber is a WaitFor condition: exactly one sample whose value is a
// number (not NaN, not infinite), as a quantile over observations is.
func OneNumber(s []Sample) bool {
	return len(s) == 1 && !math.IsNaN(s[0].Value) && !math.IsInf(s[0].Value, 0)
}

// Targets summarises the scrape targets' health (/api/v1/targets), for
// failure messages: job, address, health and last error of each. It gives
// up after 5s.
func (s *Server) Targets(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/api/v1/targets", nil)
	if err != nil {
		return err.Error()
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err.Error()
	}
	defer func() { _ = resp.Body.Close() }()
	var r struct {
		Data struct {
			ActiveTargets []struct {
				ScrapePool string `json:"scrapePool"`
				ScrapeURL  string `json:"scrapeUrl"`
				Health     string `json:"health"`
				LastError  string `json:"lastError"`
			} `json:"activeTargets"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, t := range r.Data.ActiveTargets {
		fmt.Fprintf(&b, "%s %s %s %s\n", t.ScrapePool, t.ScrapeURL, t.Health, t.LastError)
	}
	return b.String()
}

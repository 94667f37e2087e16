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

// Package jaeger runs a real Jaeger (v2, the OpenTelemetry Collector with
// Jaeger's storage and query API; the binary hack/jaeger.sh builds from
// the Go module proxy) for tests: an OTLP/HTTP receiver and the query API
// on free loopback ports, traces kept in memory. Tests export spans to it
// as the provider does and read the trace back as a person would.
package jaeger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freeleaps/provider-devops/internal/testing/integration"
	"github.com/freeleaps/provider-devops/internal/testing/loopback"
	"github.com/freeleaps/provider-devops/internal/testing/process"
)

// Bin returns the Jaeger binary named by the environment variable JAEGER
// (make test sets it from hack/jaeger.sh), or "".
func Bin() string { return integration.Binary("JAEGER") }

// Require returns the Jaeger binary, failing the test in CI without it
// and skipping it elsewhere (integration.RequireBinary).
func Require(t testing.TB) string {
	t.Helper()
	return integration.RequireBinary(t, "JAEGER", "hack/jaeger.sh", "a Jaeger server")
}

// Server is a running Jaeger.
type Server struct {
	// OTLP is the base URL of its OTLP/HTTP receiver, http://127.0.0.1:PORT,
	// as OTEL_EXPORTER_OTLP_ENDPOINT takes it.
	OTLP string
	// Query is the base URL of its query API.
	Query string
	proc  *process.Process
}

// Start runs Jaeger listening on the given host (an address of this
// machine; "" is 127.0.0.1) and stops it when the test ends, printing its
// log's end if the test failed.
func Start(t testing.TB, host string) *Server {
	t.Helper()
	bin := Require(t)
	if host == "" {
		host = "127.0.0.1"
	}
	dir := t.TempDir()
	s := integration.OnFreePorts(t, func(attempt int) (*Server, error) { return start(bin, dir, host, attempt) })
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("jaeger log (end):\n%s", s.proc.Tail(40))
		}
		s.proc.Stop(10 * time.Second)
	})
	return s
}

func start(bin, dir, host string, attempt int) (*Server, error) {
	var ports [3]int
	for i := range ports {
		p, err := loopback.FreePort()
		if err != nil {
			return nil, err
		}
		ports[i] = p
	}
	run := filepath.Join(dir, strconv.Itoa(attempt))
	if err := os.MkdirAll(run, 0o750); err != nil {
		return nil, err
	}
	cfg := filepath.Join(run, "jaeger.yaml")
	if err := os.WriteFile(cfg, []byte(Config(host, ports[0], ports[1], ports[2])), 0o600); err != nil {
		return nil, err
	}
	// Jaeger would trace itself to localhost:4317; nothing listens there.
	p, err := process.Start(run, "jaeger", []string{"OTEL_TRACES_EXPORTER=none", "OTEL_SDK_DISABLED=true"}, bin, "--config=file:"+cfg)
	if err != nil {
		return nil, err
	}
	s := &Server{OTLP: fmt.Sprintf("http://%s:%d", host, ports[0]), Query: fmt.Sprintf("http://127.0.0.1:%d", ports[1]), proc: p}
	if err := s.waitReady(60 * time.Second); err != nil {
		p.Stop(5 * time.Second)
		return nil, fmt.Errorf("jaeger did not become ready: %w\n%s", err, p.Tail(20))
	}
	return s, nil
}

// Config is Jaeger's configuration: OTLP/HTTP on host:otlp, the query API
// on 127.0.0.1:query (HTTP) and :grpc, in-memory storage, and no other
// listener (its own metrics are off).
func Config(host string, otlp, query, grpc int) string {
	return fmt.Sprintf(`service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: info
extensions:
  jaeger_query:
    storage:
      traces: mem
    http:
      endpoint: 127.0.0.1:%d
    grpc:
      endpoint: 127.0.0.1:%d
  jaeger_storage:
    backends:
      mem:
        memory:
          max_traces: 10000
receivers:
  otlp:
    protocols:
      http:
        endpoint: %s:%d
exporters:
  jaeger_storage_exporter:
    trace_storage: mem
`, query, grpc, host, otlp)
}

func (s *Server) waitReady(timeout time.Duration) error {
	c := &http.Client{Timeout: 2 * time.Second}
	var last error
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if done, err := s.proc.Exited(); done {
			if strings.Contains(s.proc.Tail(20), "address already in use") {
				return errors.New("address already in use")
			}
			return fmt.Errorf("jaeger exited: %v", err)
		}
		// The receiver answers 405 to a GET once it listens; the query
		// API lists services once storage is up.
		resp, err := c.Get(s.OTLP + "/v1/traces")
		if err != nil {
			last = err
			continue
		}
		_ = resp.Body.Close()
		resp, err = c.Get(s.Query + "/api/services")
		if err != nil {
			last = err
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return nil
		}
		last = fmt.Errorf("/api/services: %s", resp.Status)
	}
	return last
}

// Span is a span as Jaeger's query API returns it.
type Span struct {
	SpanID   string
	ParentID string // "" for a root
	Name     string
	Service  string
	Start    time.Time
	Duration time.Duration
	Tags     map[string]any
	HasError bool
}

// Trace returns a trace's spans ordered by start time; none when Jaeger
// does not have it (yet).
func (s *Server) Trace(ctx context.Context, traceID string) ([]Span, error) {
	return Trace(ctx, s.Query, traceID)
}

// Trace asks the Jaeger query API at query for a trace's spans, ordered
// by start time; none when Jaeger does not have it (yet).
func Trace(ctx context.Context, query, traceID string) ([]Span, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, query+"/api/traces/"+traceID, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode == http.StatusNotFound {
		return nil, nil
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /api/traces/%s: %s: %s", traceID, resp.Status, body)
	}
	return parseTrace(body)
}

func parseTrace(body []byte) ([]Span, error) {
	var r struct {
		Data []struct {
			Spans []struct {
				SpanID        string `json:"spanID"`
				OperationName string `json:"operationName"`
				References    []struct {
					RefType string `json:"refType"`
					SpanID  string `json:"spanID"`
				} `json:"references"`
				StartTime int64 `json:"startTime"` // µs
				Duration  int64 `json:"duration"`  // µs
				Tags      []struct {
					Key   string `json:"key"`
					Value any    `json:"value"`
				} `json:"tags"`
				ProcessID string `json:"processID"`
			} `json:"spans"`
			Processes map[string]struct {
				ServiceName string `json:"serviceName"`
			} `json:"processes"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("cannot read the trace %q: %w", body, err)
	}
	var out []Span
	for _, t := range r.Data {
		for _, sp := range t.Spans {
			s := Span{SpanID: sp.SpanID, Name: sp.OperationName, Service: t.Processes[sp.ProcessID].ServiceName,
				Start: time.UnixMicro(sp.StartTime), Duration: time.Duration(sp.Duration) * time.Microsecond, Tags: map[string]any{}}
			for _, ref := range sp.References {
				if ref.RefType == "CHILD_OF" {
					s.ParentID = ref.SpanID
				}
			}
			for _, tag := range sp.Tags {
				s.Tags[tag.Key] = tag.Value
				if tag.Key == "error" && tag.Value == true {
					s.HasError = true
				}
			}
			out = append(out, s)
		}
	}
	// Jaeger keeps microseconds: of two spans starting in the same one,
	// the one ending first is first (a phase entered and left at once).
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Start.Equal(out[j].Start) {
			return out[i].Start.Before(out[j].Start)
		}
		return out[i].Duration < out[j].Duration
	})
	return out, nil
}

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

package tracing

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

func TestTransport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/missing") {
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	exp := tracetest.NewInMemoryExporter()
	stop := Export(exp)
	defer func() { _ = stop(context.Background()) }()
	c := &http.Client{Transport: Transport("jenkins", http.DefaultTransport)}
	get := func(ctx context.Context, path string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer never-recorded")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}

	get(context.Background(), "/outside?token=x")
	if n := len(exp.GetSpans()); n != 0 {
		t.Fatalf("a request outside any trace made %d spans, want none", n)
	}
	parent := trace.NewSpanContext(trace.SpanContextConfig{TraceID: TraceID("t"), SpanID: SpanID("phase"), TraceFlags: trace.FlagsSampled, Remote: true})
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), parent)
	get(ctx, "/job/x/api/json?token=secret")
	get(ctx, "/job/missing")
	spans := exp.GetSpans()
	if len(spans) != 2 {
		t.Fatalf("%d spans, want 2", len(spans))
	}
	for _, s := range spans {
		if s.Parent.SpanID() != parent.SpanID() || s.SpanContext.TraceID() != parent.TraceID() || s.Name != "GET jenkins" || s.SpanKind != trace.SpanKindClient {
			t.Errorf("span %s kind %v parent %v in %v: want GET jenkins, a client of the remote parent", s.Name, s.SpanKind, s.Parent.SpanID(), s.SpanContext.TraceID())
		}
		for _, a := range s.Attributes {
			if v := a.Value.String(); strings.Contains(v, "secret") || strings.Contains(v, "never-recorded") || strings.Contains(v, "?") {
				t.Errorf("span %s records %s=%s: the query and headers must never be", s.Name, a.Key, v)
			}
		}
	}
	if spans[0].Status.Code == codes.Error || spans[1].Status.Code != codes.Error {
		t.Errorf("statuses %v, %v: want the 404 alone an error", spans[0].Status, spans[1].Status)
	}
}

func TestFixedIDs(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	stop := Export(exp)
	defer func() { _ = stop(context.Background()) }()
	tid, root, child := TraceID("run", "uid"), SpanID("run", "uid"), SpanID("run", "uid", "Building")
	_, s := Tracer().Start(WithIDs(context.Background(), tid, root), "root")
	s.End()
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: root, TraceFlags: trace.FlagsSampled}))
	_, c := Tracer().Start(WithIDs(ctx, tid, child), "child")
	c.End()
	_, r := Tracer().Start(context.Background(), "random")
	r.End()
	spans := exp.GetSpans()
	if spans[0].SpanContext.TraceID() != tid || spans[0].SpanContext.SpanID() != root {
		t.Errorf("root %v/%v, want %v/%v", spans[0].SpanContext.TraceID(), spans[0].SpanContext.SpanID(), tid, root)
	}
	if spans[1].SpanContext.SpanID() != child || spans[1].Parent.SpanID() != root {
		t.Errorf("child %v under %v, want %v under %v", spans[1].SpanContext.SpanID(), spans[1].Parent.SpanID(), child, root)
	}
	if spans[2].SpanContext.TraceID() == tid || !spans[2].SpanContext.IsValid() {
		t.Errorf("a span without fixed ids got %v", spans[2].SpanContext.TraceID())
	}
	if TraceID("a", "bc") == TraceID("ab", "c") {
		t.Error("derived ids must not collide when parts are split differently")
	}
}

func TestTraceParent(t *testing.T) {
	const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	sc := ParseTraceParent(tp)
	if !sc.IsValid() || TraceParent(sc) != tp {
		t.Errorf("ParseTraceParent(%s) = %v, formatted %q", tp, sc, TraceParent(sc))
	}
	for _, bad := range []string{"", "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01", "zz", "00-xyz-abc-01"} {
		if ParseTraceParent(bad).IsValid() {
			t.Errorf("ParseTraceParent(%q) is valid", bad)
		}
	}
	if TraceParent(trace.SpanContext{}) != "" {
		t.Error("an invalid span context formats as a traceparent")
	}
}

func TestOffByDefault(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	stop, err := Setup(context.Background(), "provider-devops", "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stop(context.Background()) }()
	if Enabled() {
		t.Error("tracing is on without an OTLP endpoint")
	}
}

func TestConfigured(t *testing.T) {
	for name, tc := range map[string]struct {
		env  map[string]string
		want bool
	}{
		"Endpoint":       {env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, want: true},
		"TracesEndpoint": {env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, want: true},
		"SDKDisabled":    {env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}},
		"ExporterNone":   {env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}},
		"Nothing":        {},
	} {
		t.Run(name, func(t *testing.T) {
			for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER"} {
				t.Setenv(k, tc.env[k])
			}
			if got := Configured(); got != tc.want {
				t.Errorf("Configured() = %t, want %t", got, tc.want)
			}
		})
	}
}

// A gRPC endpoint is refused with what to do; errors sending spans are
// counted and logged once a minute, not printed on stderr for each batch.
func TestSetupErrors(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	if _, err := Setup(context.Background(), "provider-devops", "test", nil); err == nil || !strings.Contains(err.Error(), "http/protobuf") {
		t.Errorf("a gRPC protocol: %v, want refused saying http/protobuf", err)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "")
	var logged []int
	stop, err := Setup(context.Background(), "provider-devops", "test", func(_ error, suppressed int) { logged = append(logged, suppressed) })
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stop(context.Background()) }()
	before := testutil.ToFloat64(ExportErrors)
	for range 5 {
		otel.Handle(errors.New("connection refused"))
	}
	if got := testutil.ToFloat64(ExportErrors) - before; got != 5 || len(logged) != 1 {
		t.Errorf("%v errors counted, %d logged; want 5 counted, 1 logged", got, len(logged))
	}
}

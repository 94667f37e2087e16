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

// Package tracing exports the provider's traces over OTLP when an endpoint
// is configured (the standard OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT variables); without one nothing is
// recorded and every call here costs next to nothing.
//
// Spans of a deployment outlive any one reconcile and may be ended by
// another replica than the one that started them, so their ids are derived
// from what the DeployRun records (SpanID) rather than held in memory:
// a call made during a phase names the phase's span as its parent before
// that span is exported, when the phase ends.
package tracing

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// Scope names the provider's tracer.
const Scope = "github.com/freeleaps/provider-devops"

// Tracer is the provider's tracer: a no-op until Setup installs an
// exporting provider.
func Tracer() trace.Tracer { return otel.Tracer(Scope) }

// Configured is true when the environment names an OTLP endpoint for
// traces, and neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none
// turns them off (as an OpenTelemetry Operator's injection may set).
func Configured() bool {
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") || strings.EqualFold(os.Getenv("OTEL_TRACES_EXPORTER"), "none") {
		return false
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
}

// protocol is the OTLP protocol asked for traces; only http/protobuf is
// supported.
func protocol() string {
	if p := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"); p != "" {
		return p
	}
	if p := os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL"); p != "" {
		return p
	}
	return "http/protobuf"
}

// ErrorLog receives the exporter's errors, at most one a minute with how
// many were held back; nil drops them.
type ErrorLog func(err error, suppressed int)

//nolint:gochecknoglobals // one per process, like otel's global provider
var (
	// ExportErrors counts the errors of the trace exporter.
	ExportErrors = prometheus.NewCounter(prometheus.CounterOpts{Name: "provider_devops_trace_export_errors_total",
		Help: "Errors sending traces to the OTLP endpoint (wrong endpoint, collector down): the spans are dropped."})
	errMu      sync.Mutex
	errLast    time.Time
	errHeld    int
	errLogFunc ErrorLog
)

func init() { metrics.Registry.MustRegister(ExportErrors) }

// handled counts an exporter error and logs one a minute.
func handled(err error) {
	ExportErrors.Inc()
	errMu.Lock()
	defer errMu.Unlock()
	if errLogFunc == nil {
		return
	}
	if now := time.Now(); now.Sub(errLast) >= time.Minute {
		errLogFunc(err, errHeld)
		errLast, errHeld = now, 0
		return
	}
	errHeld++
}

//nolint:gochecknoglobals // one per process, like otel's global provider
var enabled atomic.Bool

// Enabled is true once Setup installed an exporting provider.
func Enabled() bool { return enabled.Load() }

// Setup installs a tracer provider exporting over OTLP/HTTP (protobuf) when
// Configured, with service as its service.name. The exporter reads the
// standard OTEL_EXPORTER_OTLP_* variables (endpoint, headers, TLS,
// timeout). The returned function flushes and stops it; without an
// endpoint it does nothing.
func Setup(ctx context.Context, service, version string, log ErrorLog) (func(context.Context) error, error) {
	otel.SetTextMapPropagator(propagation.TraceContext{})
	errMu.Lock()
	errLogFunc = log
	errMu.Unlock()
	// The exporter's errors go to the provider's log, not stderr.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(handled))
	if !Configured() {
		return func(context.Context) error { return nil }, nil
	}
	if p := protocol(); p != "http/protobuf" {
		return nil, errors.Errorf("OTLP protocol %q: the provider sends traces over http/protobuf only (the collector's port 4318, not gRPC's 4317); unset OTEL_EXPORTER_OTLP_PROTOCOL or set it to http/protobuf", p)
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, errors.Wrap(err, "cannot set up the OTLP trace exporter")
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(
		semconv.ServiceName(service), semconv.ServiceVersion(version)))
	if err != nil {
		return nil, errors.Wrap(err, "cannot describe the traces' resource")
	}
	return install(res, sdktrace.WithBatcher(exp)), nil
}

// Export installs a provider sending each span to exp as it ends, for
// tests; the returned function stops it as Setup's does.
func Export(exp sdktrace.SpanExporter) func(context.Context) error {
	return install(resource.Default(), sdktrace.WithSyncer(exp))
}

func install(res *resource.Resource, export sdktrace.TracerProviderOption) func(context.Context) error {
	// Every deployment is traced (they are few), unless the request it
	// continues was not sampled: OTEL_TRACES_SAMPLER is not read, so a
	// deployment's spans are all kept or all dropped together.
	tp := sdktrace.NewTracerProvider(export, sdktrace.WithResource(res), sdktrace.WithIDGenerator(ids{}),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample())))
	otel.SetTracerProvider(tp)
	enabled.Store(true)
	return func(ctx context.Context) error {
		enabled.Store(false)
		otel.SetTracerProvider(noop.NewTracerProvider())
		return tp.Shutdown(ctx)
	}
}

// ids generates random ids, or the ones WithIDs put in the context.
type ids struct{}

type idsKey struct{}

type fixedIDs struct {
	trace trace.TraceID
	span  trace.SpanID
}

// WithIDs makes the next span started with ctx take these ids: the trace
// id only for a span without a parent (a child is in its parent's trace).
func WithIDs(ctx context.Context, tid trace.TraceID, sid trace.SpanID) context.Context {
	return context.WithValue(ctx, idsKey{}, fixedIDs{trace: tid, span: sid})
}

func (ids) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	if f, ok := ctx.Value(idsKey{}).(fixedIDs); ok && f.trace.IsValid() && f.span.IsValid() {
		return f.trace, f.span
	}
	var tid trace.TraceID
	var sid trace.SpanID
	_, _ = rand.Read(tid[:])
	_, _ = rand.Read(sid[:])
	return tid, sid
}

func (ids) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	if f, ok := ctx.Value(idsKey{}).(fixedIDs); ok && f.span.IsValid() {
		return f.span
	}
	var sid trace.SpanID
	_, _ = rand.Read(sid[:])
	return sid
}

// TraceID derives a trace id from parts (never the zero id).
func TraceID(parts ...string) trace.TraceID {
	var tid trace.TraceID
	copy(tid[:], digest(parts))
	if !tid.IsValid() {
		tid[0] = 1
	}
	return tid
}

// SpanID derives a span id from parts (never the zero id).
func SpanID(parts ...string) trace.SpanID {
	var sid trace.SpanID
	copy(sid[:], digest(parts))
	if !sid.IsValid() {
		sid[0] = 1
	}
	return sid
}

func digest(parts []string) []byte {
	h := sha256.New()
	for _, p := range parts {
		_ = binary.Write(h, binary.BigEndian, uint64(len(p)))
		h.Write([]byte(p))
	}
	return h.Sum(nil)
}

// ParseTraceParent reads a W3C traceparent; the zero SpanContext when it is
// not one.
func ParseTraceParent(tp string) trace.SpanContext {
	ctx := propagation.TraceContext{}.Extract(context.Background(), propagation.MapCarrier{"traceparent": tp})
	return trace.SpanContextFromContext(ctx)
}

// TraceParent formats sc as a W3C traceparent; "" when it is not valid.
func TraceParent(sc trace.SpanContext) string {
	if !sc.IsValid() {
		return ""
	}
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(trace.ContextWithSpanContext(context.Background(), sc), c)
	return c["traceparent"]
}

// Transport records a client span for each request whose context is in a
// trace, named after system (kubernetes, jenkins, argocd, ...), with the
// method, host, path and status: never the query, headers or body, which
// may hold credentials. Requests outside a trace pass untouched, so
// wrapping every client costs nothing where nothing is traced.
func Transport(system string, next http.RoundTripper) http.RoundTripper {
	return traced{next: next, system: system}
}

type traced struct {
	next   http.RoundTripper
	system string
}

func (t traced) RoundTrip(req *http.Request) (*http.Response, error) {
	if !trace.SpanContextFromContext(req.Context()).IsValid() || !enabled.Load() {
		return t.next.RoundTrip(req)
	}
	ctx, span := Tracer().Start(req.Context(), req.Method+" "+t.system, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			attribute.String("rpc.system", t.system),
			semconv.HTTPRequestMethodKey.String(req.Method),
			semconv.ServerAddress(req.URL.Hostname()),
			semconv.URLPath(req.URL.Path),
		))
	defer span.End()
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
		return resp, err
	}
	span.SetAttributes(semconv.HTTPResponseStatusCode(resp.StatusCode))
	if resp.StatusCode >= 400 {
		span.SetStatus(codes.Error, http.StatusText(resp.StatusCode))
	}
	return resp, nil
}

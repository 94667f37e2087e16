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

package httpapi

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// What a backend request ended in: the result label.
const (
	ResultOK          = "ok"
	ResultNotFound    = "not_found"
	ResultRateLimited = "rate_limited"
	ResultTransient   = "transient"
	ResultTerminal    = "terminal"
	ResultCanceled    = "canceled"
)

// The labels every backend metric has.
const (
	labelBackend   = "backend"
	labelNamespace = "namespace"
)

// The metrics of every backend request. Their labels are bounded: the
// backend is the ProviderConfig section (argocd, jenkins, dns, registry,
// git), the namespace is the tenant's, the config is "ProviderConfig" for
// a namespace's own (its name is the tenant's to choose, so not kept) or
// "ClusterProviderConfig/NAME" for the platform's, and the result one of
// six. No URL, path or resource name is kept. One per process, like
// controller-runtime's own metrics, registered with its registry.
//
//nolint:gochecknoglobals // one per process, as controller-runtime's
var (
	requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "provider_devops_backend_requests_total",
		Help: "Requests to the backends (argocd, jenkins, dns, registry, git), by namespace, ProviderConfig and result (ok, not_found, rate_limited, transient, terminal, canceled).",
	}, []string{labelBackend, labelNamespace, "config", "result"})
	durations = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "provider_devops_backend_request_duration_seconds",
		Help:    "How long the backends took to answer, by backend and namespace: the requests sent and not canceled by the provider.",
		Buckets: []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
	}, []string{labelBackend, labelNamespace})
	held = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "provider_devops_backend_retry_after_held_total",
		Help: "Requests not sent because the backend had asked the same credentials to wait (429 or 503 with Retry-After).",
	}, []string{labelBackend, labelNamespace})
	asked = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "provider_devops_backend_retry_after_seconds_total",
		Help: "The waits the backends asked for with Retry-After, in seconds.",
	}, []string{labelBackend, labelNamespace})
)

func init() { metrics.Registry.MustRegister(requests, durations, held, asked) }

// Labels say whom a backend request is made for: the managed resource's
// namespace and the ProviderConfig it uses.
type Labels struct {
	Namespace string
	// Config is "ProviderConfig" or "ClusterProviderConfig/NAME"
	// (ConfigLabel).
	Config string
}

type labelsKey struct{}

// WithLabels returns ctx carrying l: the requests made with it are
// counted under l.
func WithLabels(ctx context.Context, l Labels) context.Context {
	return context.WithValue(ctx, labelsKey{}, l)
}

// LabelsOf are the labels ctx carries (WithLabels).
func LabelsOf(ctx context.Context) Labels {
	l, _ := ctx.Value(labelsKey{}).(Labels)
	return l
}

// ConfigLabel is the config label of a ProviderConfig reference: a
// ClusterProviderConfig is the platform's and named; a namespace's
// ProviderConfig is named by its tenant, who may make any number of them,
// so only its kind is kept.
func ConfigLabel(kind, name string) string {
	if kind == "ClusterProviderConfig" {
		return kind + "/" + name
	}
	if kind == "" && name == "" {
		return ""
	}
	return "ProviderConfig"
}

// Record counts one request of a backend that is not HTTP (DNS updates
// and zone transfers over RFC 2136) with the same metrics: err nil is ok,
// else classified as transient or terminal (IsTransient, IsTerminal), a
// caller's cancellation as canceled.
func Record(ctx context.Context, backend string, took time.Duration, err error) {
	l := LabelsOf(ctx)
	result := ResultOK
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled):
		result = ResultCanceled
	case IsTerminal(err):
		result = ResultTerminal
	default:
		result = ResultTransient
	}
	if result != ResultCanceled {
		durations.WithLabelValues(backend, l.Namespace).Observe(took.Seconds())
	}
	requests.WithLabelValues(backend, l.Namespace, l.Config, result).Inc()
}

// metricBackend is the backend label of o: its ProviderConfig section.
func metricBackend(o Options) string {
	if o.Section == "buildFile" {
		return "git"
	}
	return o.Section
}

// measured counts every request of one client by result, and times those
// that were sent.
type measured struct {
	next    http.RoundTripper
	backend string
}

func (m measured) RoundTrip(req *http.Request) (*http.Response, error) {
	l := LabelsOf(req.Context())
	start := time.Now()
	resp, err := m.next.RoundTrip(req)
	result := resultOf(resp, err)
	if result != ResultCanceled && !heldBack(resp, err) {
		durations.WithLabelValues(m.backend, l.Namespace).Observe(time.Since(start).Seconds())
	}
	requests.WithLabelValues(m.backend, l.Namespace, l.Config, result).Inc()
	return resp, err
}

// heldBack is true for a request the Retry-After gate did not send.
func heldBack(resp *http.Response, err error) bool {
	var e *Error
	return resp == nil && errors.As(err, &e) && e.Status == http.StatusTooManyRequests
}

// resultOf classifies a request by what came back.
func resultOf(resp *http.Response, err error) string {
	if err != nil {
		switch {
		case errors.Is(err, context.Canceled):
			return ResultCanceled
		case heldBack(resp, err):
			return ResultRateLimited
		case IsTerminal(Unreached(err, Options{})):
			// The platform's address rules refused it, or the server's
			// certificate is not trusted.
			return ResultTerminal
		}
		return ResultTransient
	}
	switch s := resp.StatusCode; {
	case s < 400:
		return ResultOK
	case s == http.StatusNotFound:
		return ResultNotFound
	case s == http.StatusTooManyRequests, s == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "":
		return ResultRateLimited
	case s >= 500:
		return ResultTransient
	}
	return ResultTerminal
}

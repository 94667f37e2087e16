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
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/freeleaps/provider-devops/internal/clients/retryafter"
)

// TestMetrics sends requests answered in every way through one client and
// reads the counters: each request counted once, by result, under the
// namespace and ProviderConfig its context carries; the Retry-After wait
// asked for and the request it held back; the time of those sent.
func TestMetrics(t *testing.T) {
	answer := map[string]func(http.ResponseWriter){
		"/ok":        func(w http.ResponseWriter) { w.WriteHeader(http.StatusOK) },
		"/missing":   func(w http.ResponseWriter) { w.WriteHeader(http.StatusNotFound) },
		"/forbidden": func(w http.ResponseWriter) { w.WriteHeader(http.StatusForbidden) },
		"/broken":    func(w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) },
		"/busy": func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
		},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { answer[r.URL.Path](w) }))
	defer srv.Close()
	c, err := NewClient(Options{Backend: "Argo CD", Section: "argocd", Gate: retryafter.New(nil), Transport: http.DefaultTransport})
	if err != nil {
		t.Fatal(err)
	}
	ns := "metrics-" + t.Name()
	ctx := WithLabels(context.Background(), Labels{Namespace: ns, Config: ConfigLabel("ClusterProviderConfig", "platform")})
	send := func(ctx context.Context, path string) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp, err := c.Do(req); err == nil {
			_ = resp.Body.Close()
		}
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	send(canceled, "/ok")
	for _, p := range []string{"/ok", "/ok", "/missing", "/forbidden", "/broken", "/busy", "/ok"} {
		send(ctx, p)
	}

	count := func(result string) float64 {
		return testutil.ToFloat64(requests.WithLabelValues("argocd", ns, "ClusterProviderConfig/platform", result))
	}
	// The last /ok was held back: the server had asked for 120s.
	for result, want := range map[string]float64{ResultOK: 2, ResultNotFound: 1, ResultTerminal: 1, ResultTransient: 1, ResultRateLimited: 2, ResultCanceled: 1} {
		if got := count(result); got != want {
			t.Errorf("requests with result %s: got %v, want %v", result, got, want)
		}
	}
	if got := testutil.ToFloat64(held.WithLabelValues("argocd", ns)); got != 1 {
		t.Errorf("requests held back: got %v, want 1", got)
	}
	if got := testutil.ToFloat64(asked.WithLabelValues("argocd", ns)); got != 120 {
		t.Errorf("Retry-After seconds asked: got %v, want 120", got)
	}
	// Timed: the six answered, not the held or the canceled one.
	if got := testutil.CollectAndCount(durations, "provider_devops_backend_request_duration_seconds"); got < 1 {
		t.Fatalf("no duration series")
	}
	h, err := durations.GetMetricWithLabelValues("argocd", ns)
	if err != nil {
		t.Fatal(err)
	}
	m := dtoOf(t, h)
	if n := m.GetHistogram().GetSampleCount(); n != 6 {
		t.Errorf("timed requests: got %d, want 6", n)
	}
}

func TestConfigLabel(t *testing.T) {
	for _, c := range []struct{ kind, name, want string }{
		{"ClusterProviderConfig", "platform", "ClusterProviderConfig/platform"},
		{"ProviderConfig", "anything-a-tenant-names", "ProviderConfig"},
		{"", "", ""},
	} {
		if got := ConfigLabel(c.kind, c.name); got != c.want {
			t.Errorf("ConfigLabel(%q, %q) = %q, want %q", c.kind, c.name, got, c.want)
		}
	}
}

// dtoOf reads one series of a histogram.
func dtoOf(t *testing.T, o prometheus.Observer) *dto.Metric {
	t.Helper()
	m, ok := o.(prometheus.Metric)
	if !ok {
		t.Fatalf("%T is not a metric", o)
	}
	out := &dto.Metric{}
	if err := m.Write(out); err != nil {
		t.Fatal(err)
	}
	return out
}

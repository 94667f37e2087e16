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

package main

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRender draws the shipped dashboard from a stand-in Prometheus that
// answers one series for the backend requests and none for the rest: the
// picture is well-formed SVG with every panel's title, the line, "No
// data" for the others, and Prometheus got every query with Grafana's
// variables replaced.
func TestRender(t *testing.T) {
	b, err := os.ReadFile("../../package/monitoring/dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	end := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var (
		mu      sync.Mutex
		queries []string
	)
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("query")
		mu.Lock()
		queries = append(queries, q)
		mu.Unlock()
		if r.URL.Path != "/api/v1/query_range" || r.URL.Query().Get("end") != fmt.Sprint(end.Unix()) || r.URL.Query().Get("step") != "30s" {
			http.Error(w, "unexpected "+r.URL.String(), http.StatusBadRequest)
			return
		}
		result := "[]"
		if strings.Contains(q, "provider_devops_backend_requests_total") {
			start := end.Add(-time.Hour).Unix()
			result = fmt.Sprintf(`[{"metric":{"backend":"jenkins","result":"ok"},"values":[[%d,"0.5"],[%d,"1"],[%d,"NaN"],[%d,"2"]]}]`, start, start+30, start+60, start+90)
		}
		_, _ = fmt.Fprintf(w, `{"status":"success","data":{"resultType":"matrix","result":%s}}`, result)
	}))
	defer prom.Close()

	var out strings.Builder
	o := options{prometheus: prom.URL, start: end.Add(-time.Hour), end: end, step: 30 * time.Second, scrapeInterval: 15 * time.Second, vars: map[string]string{"job": "provider"}}
	if err := render(t.Context(), &out, d, o); err != nil {
		t.Fatal(err)
	}
	svg := out.String()
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		if _, err := dec.Token(); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("not well-formed SVG: %v", err)
			}
			break
		}
	}
	for _, p := range d.Panels {
		if !strings.Contains(svg, ">"+esc(p.Title)+"<") {
			t.Errorf("no title %q", p.Title)
		}
	}
	for _, want := range []string{"jenkins ok", "<path d=\"M", "No data", "2 req/s"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the picture has no %q", want)
		}
	}
	if len(queries) == 0 {
		t.Fatal("no query was sent")
	}
	for _, q := range queries {
		if strings.Contains(q, "$") {
			t.Errorf("a variable was not replaced: %s", q)
		}
	}
	// $__rate_interval for a 30s step and 15s scrapes is 60s, Grafana's.
	if !strings.Contains(strings.Join(queries, "\n"), "[60s]") {
		t.Errorf("no query with a 60s rate interval:\n%s", strings.Join(queries, "\n"))
	}
}

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

package monitoring

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

const dashboardFile = "dashboard.json"

// dashboard is the part of Grafana's dashboard JSON the tests read.
type dashboard struct {
	Title         string `json:"title"`
	UID           string `json:"uid"`
	SchemaVersion int    `json:"schemaVersion"`
	Templating    struct {
		List []struct {
			Name    string `json:"name"`
			Type    string `json:"type"`
			Query   any    `json:"query"`
			Current struct {
				Value any `json:"value"`
			} `json:"current"`
			AllValue   string          `json:"allValue"`
			Datasource *datasourceJSON `json:"datasource"`
		} `json:"list"`
	} `json:"templating"`
	Panels []panel `json:"panels"`
}

type datasourceJSON struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

type panel struct {
	ID         int             `json:"id"`
	Type       string          `json:"type"`
	Title      string          `json:"title"`
	Datasource *datasourceJSON `json:"datasource"`
	GridPos    struct {
		H, W, X, Y int
	} `json:"gridPos"`
	Targets []struct {
		RefID      string          `json:"refId"`
		Expr       string          `json:"expr"`
		Datasource *datasourceJSON `json:"datasource"`
	} `json:"targets"`
	Panels []panel `json:"panels"` // a collapsed row's
}

// builtins are the values Grafana gives its own variables; any value
// works for parsing.
var builtins = map[string]string{
	"__rate_interval": "5m",
	"__interval":      "1m",
	"__range":         "6h",
}

var variable = regexp.MustCompile(`\$\{(\w+)(?::\w+)?\}|\$(\w+)`)

// expand replaces Grafana's variables in expr with vars' values, and
// reports those it does not know.
func expand(expr string, vars map[string]string) (string, []string) {
	var unknown []string
	out := variable.ReplaceAllStringFunc(expr, func(m string) string {
		sub := variable.FindStringSubmatch(m)
		name := sub[1] + sub[2]
		if v, ok := builtins[name]; ok {
			return v
		}
		if v, ok := vars[name]; ok {
			return v
		}
		unknown = append(unknown, name)
		return m
	})
	return out, unknown
}

func readDashboard(t *testing.T) dashboard {
	t.Helper()
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	return d
}

// allPanels is the dashboard's panels with those of collapsed rows.
func allPanels(d dashboard) []panel {
	var ps []panel
	for _, p := range d.Panels {
		ps = append(ps, p)
		ps = append(ps, p.Panels...)
	}
	return ps
}

// TestDashboard: the dashboard is Grafana JSON whose every query is PromQL
// the real parser reads, once its variables are replaced, over the
// Prometheus the ${datasource} variable chooses, filterable by namespace.
func TestDashboard(t *testing.T) {
	d := readDashboard(t)
	if d.Title == "" || d.UID == "" || d.SchemaVersion < 36 {
		t.Errorf("%s: title %q, uid %q, schemaVersion %d: want a title, a uid and schemaVersion 36 or later", dashboardFile, d.Title, d.UID, d.SchemaVersion)
	}
	vars := map[string]string{}
	for _, v := range d.Templating.List {
		switch v.Type {
		case "datasource":
			if q, _ := v.Query.(string); q != "prometheus" {
				t.Errorf("variable %s: a datasource variable of type %v, want prometheus", v.Name, v.Query)
			}
			vars[v.Name] = "prometheus"
		case "query":
			if v.AllValue == "" {
				t.Errorf("variable %s: wants an allValue (.*) for All", v.Name)
			}
			vars[v.Name] = v.AllValue
		case "textbox":
			vars[v.Name], _ = v.Current.Value.(string)
		default:
			t.Errorf("variable %s: type %s is not one the test knows", v.Name, v.Type)
		}
	}
	for _, want := range []string{"datasource", "namespace"} {
		if _, ok := vars[want]; !ok {
			t.Errorf("%s: no %s variable", dashboardFile, want)
		}
	}

	ids := map[int]bool{}
	cells := map[[2]int]string{} // taken grid cells
	queries := 0
	for _, p := range allPanels(d) {
		if ids[p.ID] {
			t.Errorf("panel %q: id %d is used twice", p.Title, p.ID)
		}
		ids[p.ID] = true
		g := p.GridPos
		if p.Title == "" || g.W <= 0 || g.H <= 0 || g.X < 0 || g.X+g.W > 24 {
			t.Errorf("panel %d %q: wants a title and a gridPos within 24 columns, has %+v", p.ID, p.Title, g)
		}
		for x := g.X; x < g.X+g.W; x++ {
			for y := g.Y; y < g.Y+g.H; y++ {
				if other, ok := cells[[2]int{x, y}]; ok {
					t.Errorf("panel %q overlaps %q at %d,%d", p.Title, other, x, y)
				}
				cells[[2]int{x, y}] = p.Title
			}
		}
		if p.Type == "row" {
			continue
		}
		if p.Datasource == nil || p.Datasource.UID != "${datasource}" {
			t.Errorf("panel %q: datasource %+v, want uid ${datasource}", p.Title, p.Datasource)
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			queries++
			if tg.Datasource != nil && tg.Datasource.UID != "${datasource}" {
				t.Errorf("panel %q, query %s: datasource %+v, want uid ${datasource}", p.Title, tg.RefID, tg.Datasource)
			}
			expr, unknown := expand(tg.Expr, vars)
			if len(unknown) > 0 {
				t.Errorf("panel %q, query %s: unknown variables %v", p.Title, tg.RefID, unknown)
			}
			if _, err := parser.ParseExpr(expr); err != nil {
				t.Errorf("panel %q, query %s: %v\n%s", p.Title, tg.RefID, err, expr)
			}
		}
	}
	if queries == 0 {
		t.Errorf("%s has no queries", dashboardFile)
	}
}

// ownMetric is the prefix of the series the provider and the function
// register themselves.
var ownMetric = regexp.MustCompile(`"((?:provider_devops|function_devopsproject)_[a-z0-9_]+)"`)

// registered is every name of ownMetric quoted in the Go sources of the
// provider and the function, tests aside.
func registered(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	for _, dir := range []string{"../../internal", "../../functions", "../../cmd"} {
		err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range ownMetric.FindAllStringSubmatch(string(b), -1) {
				names[m[1]] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(names) == 0 {
		t.Fatal("found no provider_devops_ or function_devopsproject_ metric in the Go sources")
	}
	return names
}

// libraryMetric says where a library the provider uses registers a series
// the dashboard reads: the module, a file in it and what the file must
// hold. The test reads the module's source as go.mod pins it, so a
// library upgrade that renames the series fails it.
type libraryMetric struct {
	module, file string
	holds        []string // regular expressions
}

var libraryMetrics = map[string]libraryMetric{
	"leader_election_master_status": {"sigs.k8s.io/controller-runtime", "pkg/metrics/leaderelection.go",
		[]string{`Name:\s*"leader_election_master_status"`}},
	"controller_runtime_reconcile_errors_total": {"sigs.k8s.io/controller-runtime", "pkg/internal/controller/metrics/metrics.go",
		[]string{`Name:\s*"controller_runtime_reconcile_errors_total"`}},
	"workqueue_depth": {"sigs.k8s.io/controller-runtime", "pkg/metrics/workqueue.go",
		[]string{`WorkQueueSubsystem\s*=\s*"workqueue"`, `DepthKey\s*=\s*"depth"`}},
}

// prometheusMetrics are the series Prometheus itself makes.
var prometheusMetrics = map[string]bool{"up": true}

// TestDashboardMetrics: every series the dashboard reads is one the
// provider or the function registers (its name quoted in their Go
// sources), one a library registers where libraryMetrics says, or
// Prometheus's own. A metric renamed in the code and not in the dashboard
// fails it.
func TestDashboardMetrics(t *testing.T) {
	d := readDashboard(t)
	own := registered(t)
	used := map[string][]string{} // metric -> panels
	for _, p := range allPanels(d) {
		for _, tg := range p.Targets {
			expr, _ := expand(tg.Expr, map[string]string{"namespace": ".*", "job": ".*", "datasource": "prometheus"})
			e, err := parser.ParseExpr(expr)
			if err != nil {
				continue // TestDashboard reports it
			}
			parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
				vs, ok := n.(*parser.VectorSelector)
				if !ok {
					return nil
				}
				name := vs.Name
				for _, m := range vs.LabelMatchers {
					if m.Name == labels.MetricName && m.Type == labels.MatchEqual {
						name = m.Value
					}
				}
				if name == "" {
					t.Errorf("panel %q, query %s: a selector without a metric name", p.Title, tg.RefID)
					return nil
				}
				used[name] = append(used[name], p.Title)
				return nil
			})
		}
	}

	modules := map[string]string{}
	names := make([]string, 0, len(used))
	for n := range used {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		base := name
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if b, ok := strings.CutSuffix(name, suffix); ok && own[b] {
				base = b
			}
		}
		lib, isLib := libraryMetrics[name]
		switch {
		case own[base], prometheusMetrics[name]:
		case isLib:
			dir, ok := modules[lib.module]
			if !ok {
				out, err := exec.CommandContext(t.Context(), "go", "list", "-m", "-f", "{{.Dir}}", lib.module).Output()
				if err != nil {
					t.Fatalf("go list -m %s: %v", lib.module, err)
				}
				dir = strings.TrimSpace(string(out))
				modules[lib.module] = dir
			}
			b, err := os.ReadFile(filepath.Join(dir, lib.file))
			if err != nil {
				t.Errorf("%s (panels %q): %v", name, used[name], err)
				continue
			}
			for _, h := range lib.holds {
				if !regexp.MustCompile(h).Match(b) {
					t.Errorf("%s (panels %q): %s %s no longer holds %s", name, used[name], lib.module, lib.file, h)
				}
			}
		default:
			t.Errorf("%s (panels %q): no Go source of the provider or the function registers it, and it is not a library's the test knows", name, used[name])
		}
	}
	t.Logf("the dashboard reads %d series: %v", len(names), names)
}

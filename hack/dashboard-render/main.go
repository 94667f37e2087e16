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

// Command dashboard-render draws a Grafana dashboard's time-series panels
// as an SVG picture, from what a real Prometheus answers to their queries:
// Grafana cannot be built here (its frontend needs Node.js), and the
// picture in docs/operations.md must show real data. It reads the
// dashboard JSON, replaces Grafana's variables, asks Prometheus's
// /api/v1/query_range for each query and lays the panels out on the
// dashboard's 24-column grid, each a line chart with its title, axis
// bounds and legend.
//
//	go run ./hack/dashboard-render -prometheus http://127.0.0.1:9090 \
//	  -dashboard package/monitoring/dashboard.json -out dashboard.svg
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// dashboard is the part of Grafana's dashboard JSON drawn.
type dashboard struct {
	Title      string `json:"title"`
	Templating struct {
		List []struct {
			Name     string `json:"name"`
			Type     string `json:"type"`
			AllValue string `json:"allValue"`
			Current  struct {
				Value any `json:"value"`
			} `json:"current"`
		} `json:"list"`
	} `json:"templating"`
	Panels []panel `json:"panels"`
}

type panel struct {
	Type    string `json:"type"`
	Title   string `json:"title"`
	GridPos struct {
		H, W, X, Y int
	} `json:"gridPos"`
	FieldConfig struct {
		Defaults struct {
			Unit string `json:"unit"`
		} `json:"defaults"`
	} `json:"fieldConfig"`
	Targets []struct {
		Expr         string `json:"expr"`
		LegendFormat string `json:"legendFormat"`
	} `json:"targets"`
	Panels []panel `json:"panels"`
}

// series is one line of a panel.
type series struct {
	legend string
	points []point
}

type point struct {
	t time.Time
	v float64
}

// options say what to draw and from where.
type options struct {
	prometheus     string
	start, end     time.Time
	step           time.Duration
	scrapeInterval time.Duration
	vars           map[string]string
}

func main() {
	var (
		dashPath = flag.String("dashboard", "package/monitoring/dashboard.json", "the Grafana dashboard JSON")
		out      = flag.String("out", "", "the SVG file to write (default: standard output)")
		o        options
		span     time.Duration
		end      string
		vars     varFlags = map[string]string{}
	)
	flag.StringVar(&o.prometheus, "prometheus", "http://127.0.0.1:9090", "the Prometheus HTTP API's base URL")
	flag.DurationVar(&span, "range", time.Hour, "the time range drawn, ending at -end")
	flag.StringVar(&end, "end", "", "the range's end, RFC 3339 (default: now)")
	flag.DurationVar(&o.step, "step", 0, "the query resolution (default: the range / 120, at least 1s)")
	flag.DurationVar(&o.scrapeInterval, "scrape-interval", 15*time.Second, "Prometheus's scrape interval, for $__rate_interval")
	flag.Var(vars, "var", "NAME=VALUE: a dashboard variable's value (repeatable); by default its All value or its current one")
	flag.Parse()

	o.end = time.Now()
	if end != "" {
		t, err := time.Parse(time.RFC3339, end)
		if err != nil {
			fail(err)
		}
		o.end = t
	}
	o.start = o.end.Add(-span)
	if o.step == 0 {
		o.step = max(time.Second, (span / 120).Truncate(time.Second))
	}
	o.vars = vars
	b, err := os.ReadFile(*dashPath)
	if err != nil {
		fail(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		fail(fmt.Errorf("%s: %w", *dashPath, err))
	}
	w := io.Writer(os.Stdout)
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fail(err)
		}
		defer func() {
			if err := f.Close(); err != nil {
				fail(err)
			}
		}()
		w = f
	}
	if err := render(context.Background(), w, d, o); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "dashboard-render:", err)
	os.Exit(1)
}

type varFlags map[string]string

func (v varFlags) String() string { return fmt.Sprint(map[string]string(v)) }

func (v varFlags) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok {
		return errors.New("want NAME=VALUE")
	}
	v[name] = value
	return nil
}

var variable = regexp.MustCompile(`\$\{(\w+)(?::\w+)?\}|\$(\w+)`)

// expand replaces Grafana's variables in expr as Grafana would for
// o's range and step.
func expand(expr string, d dashboard, o options) string {
	vals := map[string]string{
		"__interval":      promDuration(o.step),
		"__rate_interval": promDuration(max(o.step+o.scrapeInterval, 4*o.scrapeInterval)),
		"__range":         promDuration(o.end.Sub(o.start)),
	}
	for _, v := range d.Templating.List {
		switch {
		case v.AllValue != "":
			vals[v.Name] = v.AllValue
		case v.Type == "textbox":
			vals[v.Name], _ = v.Current.Value.(string)
		}
	}
	for k, v := range o.vars {
		vals[k] = v
	}
	return variable.ReplaceAllStringFunc(expr, func(m string) string {
		sub := variable.FindStringSubmatch(m)
		if v, ok := vals[sub[1]+sub[2]]; ok {
			return v
		}
		return m
	})
}

func promDuration(d time.Duration) string { return strconv.FormatInt(int64(d/time.Second), 10) + "s" }

// queryRange asks Prometheus for expr over o's range.
func queryRange(ctx context.Context, o options, expr string) ([]struct {
	Metric map[string]string `json:"metric"`
	Values [][2]any          `json:"values"`
}, error,
) {
	q := url.Values{}
	q.Set("query", expr)
	q.Set("start", strconv.FormatInt(o.start.Unix(), 10))
	q.Set("end", strconv.FormatInt(o.end.Unix(), 10))
	q.Set("step", promDuration(o.step))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(o.prometheus, "/")+"/api/v1/query_range?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	rsp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rsp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(rsp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string `json:"resultType"`
			Result     []struct {
				Metric map[string]string `json:"metric"`
				Values [][2]any          `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", rsp.Status, err)
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("%s: %s", rsp.Status, r.Error)
	}
	if r.Data.ResultType != "matrix" {
		return nil, fmt.Errorf("result type %q, want matrix", r.Data.ResultType)
	}
	return r.Data.Result, nil
}

var legendLabel = regexp.MustCompile(`\{\{\s*(\w+)\s*\}\}`)

// panelSeries runs p's queries.
func panelSeries(ctx context.Context, d dashboard, p panel, o options) ([]series, error) {
	var all []series
	for _, tg := range p.Targets {
		res, err := queryRange(ctx, o, expand(tg.Expr, d, o))
		if err != nil {
			return nil, fmt.Errorf("panel %q: %s: %w", p.Title, tg.Expr, err)
		}
		for _, r := range res {
			s := series{legend: legendLabel.ReplaceAllStringFunc(tg.LegendFormat, func(m string) string {
				return r.Metric[legendLabel.FindStringSubmatch(m)[1]]
			})}
			if strings.TrimSpace(s.legend) == "" {
				s.legend = fmt.Sprint(r.Metric)
			}
			for _, v := range r.Values {
				ts, _ := v[0].(float64)
				str, _ := v[1].(string)
				f, err := strconv.ParseFloat(str, 64)
				if err != nil {
					return nil, fmt.Errorf("panel %q: value %v: %w", p.Title, v[1], err)
				}
				s.points = append(s.points, point{time.Unix(0, int64(ts*1e9)).UTC(), f})
			}
			all = append(all, s)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].legend < all[j].legend })
	return all, nil
}

// The picture's geometry: Grafana's grid is 24 columns wide and its rows
// 30 pixels high.
const (
	colW    = 60
	rowH    = 30
	pad     = 6
	legendH = 14
	maxLeg  = 6
)

var palette = []string{"#7eb26d", "#eab839", "#6ed0e0", "#ef843c", "#e24d42", "#1f78c1", "#ba43a9", "#705da0", "#508642", "#cca300"} //nolint:gochecknoglobals // read-only

// render writes d's panels, queried per o, as one SVG picture.
func render(ctx context.Context, w io.Writer, d dashboard, o options) error {
	var panels []panel
	for _, p := range d.Panels {
		panels = append(panels, p)
		panels = append(panels, p.Panels...)
	}
	bottom := 0
	for _, p := range panels {
		bottom = max(bottom, p.GridPos.Y+p.GridPos.H)
	}
	const head = 40
	width, height := 24*colW, head+bottom*rowH
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#111217"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="24" fill="#ccccdc" font-size="16">%s</text>`+"\n", pad, esc(d.Title))
	fmt.Fprintf(&b, `<text x="%d" y="24" fill="#8e8e8e" text-anchor="end">%s – %s UTC, step %s</text>`+"\n",
		width-pad, o.start.UTC().Format("2006-01-02 15:04:05"), o.end.UTC().Format("15:04:05"), o.step)
	for _, p := range panels {
		x, y := p.GridPos.X*colW, head+p.GridPos.Y*rowH
		pw, ph := p.GridPos.W*colW, p.GridPos.H*rowH
		if p.Type == "row" {
			fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#ccccdc" font-size="13" font-weight="bold">%s</text>`+"\n", x+pad, y+rowH-10, esc(p.Title))
			continue
		}
		ss, err := panelSeries(ctx, d, p, o)
		if err != nil {
			return err
		}
		drawPanel(&b, p, ss, o, x+pad/2, y+pad/2, pw-pad, ph-pad)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// drawPanel draws one panel's box, title, axes, lines and legend.
func drawPanel(b *strings.Builder, p panel, ss []series, o options, x, y, w, h int) {
	fmt.Fprintf(b, `<g><rect x="%d" y="%d" width="%d" height="%d" fill="#181b1f" stroke="#2c3235"/>`+"\n", x, y, w, h)
	fmt.Fprintf(b, `<text x="%d" y="%d" fill="#ccccdc" font-size="12">%s</text>`+"\n", x+pad, y+16, esc(p.Title))
	legends := min(len(ss), maxLeg)
	// Legend entries in two columns on wide panels.
	cols := 1
	if w >= 8*colW {
		cols = 2
	}
	legendRows := (legends + cols - 1) / cols
	if len(ss) > maxLeg {
		legendRows++
	}
	left, top := x+66, y+26
	right, bot := x+w-pad, y+h-18-legendRows*legendH
	lo, hi, ok := bounds(ss)
	if !ok {
		fmt.Fprintf(b, `<text x="%d" y="%d" fill="#8e8e8e" text-anchor="middle">No data</text></g>`+"\n", x+w/2, y+h/2)
		return
	}
	// Axes: the bottom, the top value and the range's ends.
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#2c3235"/>`+"\n", left, top, right, top)
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#464c54"/>`+"\n", left, bot, right, bot)
	fmt.Fprintf(b, `<text x="%d" y="%d" fill="#8e8e8e" text-anchor="end">%s</text>`+"\n", left-4, top+4, esc(format(hi, p.FieldConfig.Defaults.Unit)))
	fmt.Fprintf(b, `<text x="%d" y="%d" fill="#8e8e8e" text-anchor="end">%s</text>`+"\n", left-4, bot+4, esc(format(lo, p.FieldConfig.Defaults.Unit)))
	fmt.Fprintf(b, `<text x="%d" y="%d" fill="#8e8e8e">%s</text>`+"\n", left, bot+13, o.start.UTC().Format("15:04:05"))
	fmt.Fprintf(b, `<text x="%d" y="%d" fill="#8e8e8e" text-anchor="end">%s</text>`+"\n", right, bot+13, o.end.UTC().Format("15:04:05"))
	span := o.end.Sub(o.start).Seconds()
	px := func(t time.Time) float64 { return float64(left) + t.Sub(o.start).Seconds()/span*float64(right-left) }
	py := func(v float64) float64 { return float64(bot) - (v-lo)/(hi-lo)*float64(bot-top) }
	for i, s := range ss {
		color := palette[i%len(palette)]
		drawLine(b, s.points, o.step, color, px, py)
		if i < maxLeg {
			lx := x + pad + (i%cols)*(w/cols)
			ly := bot + 18 + (i/cols+1)*legendH - 2
			fmt.Fprintf(b, `<rect x="%d" y="%d" width="10" height="3" fill="%s"/>`+"\n", lx, ly-4, color)
			fmt.Fprintf(b, `<text x="%d" y="%d" fill="#ccccdc">%s</text>`+"\n", lx+14, ly, esc(clip(s.legend, w/cols/6-4)))
		}
	}
	if len(ss) > maxLeg {
		fmt.Fprintf(b, `<text x="%d" y="%d" fill="#8e8e8e">and %d more</text>`+"\n", x+pad, bot+18+legendRows*legendH-2, len(ss)-maxLeg)
	}
	b.WriteString("</g>\n")
}

// bounds is the lowest (at most 0) and highest number in ss, if any.
func bounds(ss []series) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, pt := range s.points {
			if !math.IsNaN(pt.v) && !math.IsInf(pt.v, 0) {
				lo, hi = math.Min(lo, pt.v), math.Max(hi, pt.v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return 0, 0, false
	}
	lo = math.Min(lo, 0)
	if hi <= lo {
		hi = lo + 1
	}
	return lo, hi, true
}

// drawLine draws one series: a gap of more than two steps, or no number,
// lifts the pen, and a lone point shows as a dot.
func drawLine(b *strings.Builder, points []point, step time.Duration, color string, px func(time.Time) float64, py func(float64) float64) {
	var path strings.Builder
	pen, dots := false, 0
	var prev time.Time
	for i, pt := range points {
		if math.IsNaN(pt.v) || math.IsInf(pt.v, 0) {
			pen = false
			continue
		}
		if pen && pt.t.Sub(prev) > 2*step {
			pen = false
		}
		cmd := "L"
		if !pen {
			cmd = "M"
			next := i+1 < len(points) && !math.IsNaN(points[i+1].v) && points[i+1].t.Sub(pt.t) <= 2*step
			if !next {
				fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="2" fill="%s"/>`+"\n", px(pt.t), py(pt.v), color)
				dots++
			}
		}
		fmt.Fprintf(&path, "%s%.1f %.1f ", cmd, px(pt.t), py(pt.v))
		pen, prev = true, pt.t
	}
	if path.Len() > 0 && dots < len(points) {
		fmt.Fprintf(b, `<path d="%s" fill="none" stroke="%s" stroke-width="1.5"/>`+"\n", strings.TrimSpace(path.String()), color)
	}
}

// format writes v in the panel's unit.
func format(v float64, unit string) string {
	n := strconv.FormatFloat(v, 'g', 3, 64)
	switch unit {
	case "s":
		switch {
		case v == 0:
			return "0"
		case v < 1:
			return strconv.FormatFloat(v*1000, 'g', 3, 64) + " ms"
		case v < 120:
			return n + " s"
		default:
			return strconv.FormatFloat(v/60, 'g', 3, 64) + " min"
		}
	case "reqps":
		return n + " req/s"
	default:
		return n
	}
}

func clip(s string, n int) string {
	if n > 3 && len(s) > n {
		return s[:n-1] + "…"
	}
	return s
}

func esc(s string) string { return html.EscapeString(s) }

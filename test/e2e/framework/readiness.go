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

package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/internal/testing/argocdserver"
)

// mrKinds are the managed kinds the project composes, with their API
// versions.
var mrKinds = [][2]string{
	{"jenkins.devops.freeleaps.io/v1alpha1", "JenkinsPipeline"},
	{"argocd.devops.freeleaps.io/v1alpha1", "ArgoApplication"},
	{"dns.devops.freeleaps.io/v1alpha1", "DNSRecord"},
	{"registry.devops.freeleaps.io/v1alpha1", "RegistryRepo"},
	{"argocd.devops.freeleaps.io/v1alpha1", "ArgoProject"},
	{"argocd.devops.freeleaps.io/v1alpha1", "ArgoRepository"},
}

// readiness is when each backend object became ready, each managed
// resource reported Ready, each environment was reported Ready on the
// DevOpsProject and the DevOpsProject itself, in seconds since the
// DevOpsProject was created (Kubernetes and Argo CD keep whole seconds).
// Gaps are the environments' "reported Ready" less their last backend
// object's "ready"; XRGap the project's Ready less its last backend
// object's.
type readiness struct {
	Table string
	Gaps  []time.Duration
	XRGap time.Duration
	// Breaker is Crossplane's XR circuit breaker so far: how often it
	// opened, and its watch events by outcome (dropped ones do not wake
	// the XR; the function's requeue then does).
	Breaker string
}

// P50 is the median gap over the environments.
func (r readiness) P50() time.Duration {
	if len(r.Gaps) == 0 {
		return 0
	}
	s := slices.Clone(r.Gaps)
	slices.Sort(s)
	return s[len(s)/2].Round(100 * time.Millisecond)
}

// GapList is the environments' gaps as printed: to a tenth of a second,
// as the backend's whole-second times allow no better.
func (r readiness) GapList() string {
	out := make([]string, 0, len(r.Gaps))
	for _, g := range r.Gaps {
		out = append(out, fmt.Sprintf("%.1fs", g.Seconds()))
	}
	return "[" + strings.Join(out, " ") + "]"
}

// readinessTimeline reads the times: a backend object is ready when Argo
// CD's application turned Healthy after its sync finished (its own
// status.health.lastTransitionTime and operationState.finishedAt), and the
// others when their create answered (crossplane.io/external-create-
// succeeded: Jenkins, BIND and the registry keep no creation time we could
// read); a managed resource by its Ready condition's lastTransitionTime, an
// environment by the DevOpsProject's "environment ... is Ready" event, the
// DevOpsProject by its Ready condition.
func (c *Cluster) readinessTimeline(ctx context.Context, envReady map[string]time.Time) (readiness, error) {
	var r readiness
	xr, err := c.Get(ctx, xrAPIVersion, "DevOpsProject", ProjectNamespace, Project)
	if err != nil {
		return r, err
	}
	t0 := xr.GetCreationTimestamp().Time
	rel := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return fmt.Sprintf("+%.0fs", t.Sub(t0).Seconds())
	}
	xrReady := conditionTime(xr, "Ready")
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(w, "ENVIRONMENT\tKIND\tBACKEND READY\tMR READY\tENVIRONMENT READY\tGAP")
	var lastBackend time.Time
	for _, env := range append(slices.Clone(envOrder), "") {
		var envBackend time.Time
		for _, k := range mrKinds {
			items, err := c.List(ctx, k[0], k[1], client.InNamespace(ProjectNamespace), client.MatchingLabels{contract.LabelProject: Project})
			if err != nil {
				return r, err
			}
			for i := range items {
				mr := &items[i]
				if mr.GetLabels()[contract.LabelEnvironment] != env {
					continue
				}
				backend := c.backendReady(ctx, mr)
				if backend.After(envBackend) {
					envBackend = backend
				}
				_, _ = fmt.Fprintf(w, "%s\t%s\t%s\t%s\t\t\n", orDash(env), k[1], rel(backend), rel(conditionTime(mr, "Ready")))
			}
		}
		if envBackend.After(lastBackend) {
			lastBackend = envBackend
		}
		if env == "" {
			continue
		}
		gap := "-"
		if at, ok := envReady[env]; ok && !envBackend.IsZero() {
			d := at.Sub(envBackend)
			r.Gaps = append(r.Gaps, d)
			gap = fmt.Sprintf("%.1fs", d.Seconds())
		}
		_, _ = fmt.Fprintf(w, "%s\t(environment)\t%s\t\t%s\t%s\n", env, rel(envBackend), rel(envReady[env]), gap)
	}
	r.XRGap = xrReady.Sub(lastBackend)
	_, _ = fmt.Fprintf(w, "(project)\tDevOpsProject\t%s\t\t%s\t%.0fs\n", rel(lastBackend), rel(xrReady), r.XRGap.Seconds())
	_ = w.Flush()
	r.Table = b.String()
	r.Breaker = c.breakerMetrics(ctx)
	return r, nil
}

// breakerMetrics sums up Crossplane's circuit_breaker_* counters.
func (c *Cluster) breakerMetrics(ctx context.Context) string {
	u, err := c.crossplaneMetricsURL(ctx)
	if err != nil {
		return err.Error()
	}
	body, err := httpGet(ctx, u)
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "circuit_breaker_") {
			out = append(out, line)
		}
	}
	return breakerSummary(out)
}

// breakerSummary is Crossplane's circuit breaker counters as read, saying
// what is absent: Crossplane exports a series only once it counted one.
func breakerSummary(lines []string) string {
	if len(lines) == 0 {
		return "no event counted yet"
	}
	all := strings.Join(lines, "; ")
	if !strings.Contains(all, `result="Dropped"`) {
		all += "; none dropped"
	}
	if !strings.Contains(all, "circuit_breaker_opens_total") {
		all += "; never opened"
	}
	return all
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// backendReady is when mr's backend object became ready (zero: unknown).
func (c *Cluster) backendReady(ctx context.Context, mr *unstructured.Unstructured) time.Time {
	if mr.GetKind() == "ArgoApplication" {
		name := mr.GetAnnotations()["crossplane.io/external-name"]
		app, err := c.Argo.Application(ctx, argocdserver.Namespace, name)
		if err != nil || app == nil {
			return time.Time{}
		}
		var at time.Time
		for _, path := range [][]string{{"status", "health", "lastTransitionTime"}, {"status", "operationState", "finishedAt"}} {
			s, _, _ := unstructured.NestedString(app.Object, path...)
			if t, err := time.Parse(time.RFC3339, s); err == nil && t.After(at) {
				at = t
			}
		}
		return at
	}
	return conditionTime(mr, contract.ConditionCreated)
}

// conditionTime is when u's condition of type typ last changed, if True.
func conditionTime(u *unstructured.Unstructured, typ string) time.Time {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, x := range conds {
		m, _ := x.(map[string]any)
		if m["type"] == typ && m["status"] == "True" {
			t, _ := time.Parse(time.RFC3339, fmt.Sprint(m["lastTransitionTime"]))
			return t
		}
	}
	return time.Time{}
}

// watchEnvironments polls the DevOpsProject every 250ms until stop is
// called and records when each environment was first reported Ready in its
// status.environments (Crossplane's events would say it, but the event
// recorder's spam filter drops them once Crossplane has sent its "not yet
// ready" events).
func (c *Cluster) watchEnvironments(ctx context.Context) (stop func() map[string]time.Time) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan map[string]time.Time)
	go func() {
		seen := map[string]time.Time{}
		defer func() { done <- seen }()
		for {
			stopped := ctx.Err() != nil
			// The last read, after stop, catches what turned Ready with the
			// project since the one before.
			rctx := ctx
			if stopped {
				rctx = context.WithoutCancel(ctx)
			}
			if xr, err := c.Get(rctx, xrAPIVersion, "DevOpsProject", ProjectNamespace, Project); err == nil {
				envs, _, _ := unstructured.NestedSlice(xr.Object, "status", "environments")
				for _, e := range envs {
					m, _ := e.(map[string]any)
					name, _ := m["name"].(string)
					// ExpiringSoon is Ready with a warning: a preview
					// whose ttl is shorter than the expiry warning is
					// never reported plain Ready.
					if _, ok := seen[name]; !ok && (m["phase"] == "Ready" || m["phase"] == "ExpiringSoon") {
						seen[name] = time.Now()
					}
				}
			}
			if stopped {
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(250 * time.Millisecond):
			}
		}
	}()
	return func() map[string]time.Time { cancel(); return <-done }
}

// managedVersions is the resourceVersion of every managed resource of the
// project, by kind/name.
func (c *Cluster) managedVersions(ctx context.Context) map[string]string {
	out := map[string]string{}
	for _, k := range mrKinds {
		items, _ := c.List(ctx, k[0], k[1], client.InNamespace(ProjectNamespace), client.MatchingLabels{contract.LabelProject: Project})
		for i := range items {
			out[k[1]+"/"+items[i].GetName()] = versionAndStatus(&items[i])
		}
	}
	return out
}

// versionAndStatus is u's resourceVersion, then its status as JSON.
func versionAndStatus(u *unstructured.Unstructured) string {
	st, _ := json.Marshal(u.Object["status"])
	return u.GetResourceVersion() + " " + string(st)
}

// changedSince names the managed resources whose resourceVersion is not
// the one in before, with their Ready and Synced conditions now: what a
// steady-state write went to.
func (c *Cluster) changedSince(ctx context.Context, before map[string]string) string {
	var out []string
	for _, k := range mrKinds {
		items, _ := c.List(ctx, k[0], k[1], client.InNamespace(ProjectNamespace), client.MatchingLabels{contract.LabelProject: Project})
		for i := range items {
			u := &items[i]
			was := before[k[1]+"/"+u.GetName()]
			now := versionAndStatus(u)
			if was == now {
				continue
			}
			rs, rr, rm := Condition(u, "Ready")
			ss, sr, sm := Condition(u, "Synced")
			_, wasStatus, _ := strings.Cut(was, " ")
			_, nowStatus, _ := strings.Cut(now, " ")
			out = append(out, fmt.Sprintf("%s/%s (generation %d; Ready %s %s %q; Synced %s %s %q; status was %s, is %s)", k[1], u.GetName(), u.GetGeneration(), rs, rr, rm, ss, sr, sm, wasStatus, nowStatus))
		}
	}
	if len(out) == 0 {
		return "none (a ProviderConfig or other write)"
	}
	return strings.Join(out, "; ")
}

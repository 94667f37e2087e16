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

package jenkins

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The beans below carry the @Exported properties of the Jenkins classes the
// fake stands for (core 2.479, workflow-job, cloudbees-folder) with the
// visibility their annotations give, since that decides what api/json
// shows at each depth. Callers hold s.mu.

const (
	workflowRunClass  = "org.jenkinsci.plugins.workflow.job.WorkflowRun"
	freestyleRunClass = "hudson.model.FreeStyleBuild"
)

func (s *Server) rootURL() string { return s.URL + "/" }

func (s *Server) jobURL(path string) string {
	return s.URL + "/job/" + strings.ReplaceAll(path, "/", "/job/") + "/"
}

func (s *Server) userURL() string {
	// IdStrategy.CaseInsensitive keys users by their lower-cased id.
	return s.rootURL() + "user/" + url.PathEscape(strings.ToLower(s.user))
}

func (s *Server) rootBean() *bean {
	return newBean("hudson.model.Hudson").
		set("mode", "NORMAL").
		set("nodeDescription", "the Jenkins controller's built-in node").
		set("nodeName", "").
		set("numExecutors", 2).
		set("description", nil).
		set("jobs", s.children("")).
		set("overallLoad", newBean("")).
		set("primaryView", allView("all", s.rootURL())).
		set("quietDownReason", nil).
		set("quietingDown", false).
		set("slaveAgentPort", -1).
		set("unlabeledLoad", newBean("jenkins.model.UnlabeledLoadStatistics")).
		set("url", s.rootURL()).
		set("useCrumbs", true).
		set("useSecurity", true).
		set("views", []any{allView("all", s.rootURL())})
}

func allView(name, url string) *bean {
	return newBean("hudson.model.AllView").
		set("description", nil).
		with("name", 2, name).
		with("url", 2, url)
}

func (s *Server) userBean() *bean {
	return newBean("hudson.model.User").
		with("absoluteUrl", 999, s.userURL()).
		set("description", nil).
		with("fullName", 999, s.user).
		set("id", s.user).
		inline("property", []any{newBean("jenkins.security.ApiTokenProperty"), newBean("jenkins.security.seed.UserSeedProperty")})
}

func crumbBean(crumb string) *bean {
	return newBean("hudson.security.csrf.DefaultCrumbIssuer").
		set("crumb", crumb).
		set("crumbRequestField", "Jenkins-Crumb")
}

// children lists the items of a folder ("" for the root) as Jenkins does,
// by name ignoring case.
func (s *Server) children(parent string) []any {
	var names []string
	for p := range s.items {
		dir, name := split(p)
		if dir == parent {
			names = append(names, name)
		}
	}
	sort.Slice(names, func(i, j int) bool { return strings.ToLower(names[i]) < strings.ToLower(names[j]) })
	out := []any{}
	for _, n := range names {
		full := n
		if parent != "" {
			full = parent + "/" + n
		}
		it := s.items[full]
		out = append(out, func() any { return s.itemBean(full, it) })
	}
	return out
}

func (s *Server) itemBean(path string, it *item) *bean {
	if it.folder() {
		return s.abstractItem(path, it, []any{}).
			set("healthReport", []any{}).
			set("jobs", s.children(path)).
			set("primaryView", allView("All", s.jobURL(path))).
			set("views", []any{allView("All", s.jobURL(path))})
	}
	return s.jobBean(path, it)
}

// displayName is the item's <displayName>, else its name.
func displayName(path string, it *item) string {
	if dn, ok := topText(it.config, "displayName"); ok && dn != "" {
		return dn
	}
	_, name := split(path)
	return name
}

// fullDisplayName joins the display names of the item and its folders with
// " » ", as Item.getFullDisplayName does.
func (s *Server) fullDisplayName(path string) string {
	parts := strings.Split(path, "/")
	names := make([]string, len(parts))
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		if it, ok := s.items[p]; ok {
			names[i] = displayName(p, it)
		} else {
			names[i] = parts[i]
		}
	}
	return strings.Join(names, " » ")
}

// abstractItem has the properties of hudson.model.AbstractItem.
func (s *Server) abstractItem(path string, it *item, actions []any) *bean {
	_, name := split(path)
	var desc, dnon any
	if d, ok := topText(it.config, "description"); ok {
		desc = d
	}
	if dn, ok := topText(it.config, "displayName"); ok && dn != "" {
		dnon = dn
	}
	return newBean(it.class).
		set("actions", actions).
		set("description", desc).
		set("displayName", displayName(path, it)).
		set("displayNameOrNull", dnon).
		set("fullDisplayName", s.fullDisplayName(path)).
		set("fullName", path).
		with("name", 999, name).
		with("url", 999, s.jobURL(path))
}

// jobBean is a WorkflowJob or FreeStyleProject: AbstractItem, Job and the
// class's own properties.
func (s *Server) jobBean(path string, it *item) *bean {
	var props, actions []any
	concurrent, resumeBlocked := true, false
	for _, p := range properties(it.config) {
		pb := newBean(p.class)
		switch simpleName(p.class) {
		case "ParametersDefinitionProperty":
			var defs []any
			for _, d := range p.params {
				defs = append(defs, paramDefBean(d))
			}
			// A parameters property is also the job's action.
			pb.with("parameterDefinitions", 2, defs)
			actions = append(actions, pb)
		case "DisableConcurrentBuildsJobProperty":
			concurrent = false
		case "DisableResumeJobProperty":
			resumeBlocked = true
		}
		props = append(props, pb)
	}
	if actions == nil {
		actions = []any{}
	}
	if props == nil {
		props = []any{}
	}
	run := func(b *Build) any {
		if b == nil {
			return nil
		}
		return func() any { return s.runBean(path, it, b) }
	}
	newestFirst := func(limit int) []any {
		out := []any{}
		for i := len(it.builds) - 1; i >= 0 && len(out) < limit; i-- {
			out = append(out, run(it.builds[i]))
		}
		return out
	}
	var first *Build
	if len(it.builds) > 0 {
		first = it.builds[0]
	}
	var queued any
	if w := s.waitingFor(path); len(w) > 0 {
		q := w[0]
		queued = func() any { return s.queueItemBean(q) }
	}
	keep, _ := topText(it.config, "keepDependencies")
	b := s.abstractItem(path, it, actions).
		set("buildable", !it.disabled()).
		set("builds", newestFirst(100)).
		with("color", 2, color(it)).
		set("firstBuild", run(first)).
		set("healthReport", healthReport(it)).
		set("inQueue", queued != nil).
		set("keepDependencies", strings.TrimSpace(keep) == "true").
		set("lastBuild", run(it.last(permalinks["lastBuild"]))).
		set("lastCompletedBuild", run(it.last(permalinks["lastCompletedBuild"]))).
		set("lastFailedBuild", run(it.last(permalinks["lastFailedBuild"]))).
		set("lastStableBuild", run(it.last(permalinks["lastStableBuild"]))).
		set("lastSuccessfulBuild", run(it.last(permalinks["lastSuccessfulBuild"]))).
		set("lastUnstableBuild", run(it.last(permalinks["lastUnstableBuild"]))).
		set("lastUnsuccessfulBuild", run(it.last(permalinks["lastUnsuccessfulBuild"]))).
		set("nextBuildNumber", it.nextBuild).
		inline("property", props).
		set("queueItem", queued).
		with("allBuilds", -2, newestFirst(len(it.builds)))
	if it.class == freestyleClass {
		cb, _ := topText(it.config, "concurrentBuild")
		var label any
		if l, ok := topText(it.config, "assignedNode"); ok {
			label = l
		}
		return b.set("concurrentBuild", strings.TrimSpace(cb) == "true").
			set("disabled", it.disabled()).
			set("downstreamProjects", []any{}).
			set("labelExpression", label).
			set("scm", newBean("hudson.scm.NullSCM")).
			set("upstreamProjects", []any{})
	}
	return b.set("concurrentBuild", concurrent).
		set("disabled", it.disabled()).
		set("resumeBlocked", resumeBlocked)
}

// paramDefBean is a ParameterDefinition (defaultVisibility 3).
func paramDefBean(d paramDef) *bean {
	var desc any
	if d.description != nil {
		desc = *d.description
	}
	b := newBean(d.class).
		with("defaultParameterValue", 3, paramValueBean(d, d.defaultValue())).
		with("description", 3, desc).
		with("name", 3, d.name).
		with("type", 3, simpleName(d.class))
	if simpleName(d.class) == "ChoiceParameterDefinition" {
		choices := []any{}
		for _, c := range d.choices {
			choices = append(choices, c)
		}
		b.with("choices", 3, choices)
	}
	return b
}

// paramValueBean is a ParameterValue: name has visibility 3, value 4.
func paramValueBean(d paramDef, v any) *bean {
	return newBean(d.valueClass()).with("name", 3, d.name).with("value", 4, v)
}

// causeAndParameters are the actions a build request leaves on its queue
// item and build: the ParametersAction of a parameterized job, and who
// asked (buildWithParameters with an API token: Cause$UserIdCause).
func (s *Server) causeAndParameters(values []paramValue) []any {
	var out []any
	if values != nil {
		params := []any{}
		for _, v := range values {
			params = append(params, paramValueBean(v.def, v.value))
		}
		out = append(out, newBean("hudson.model.ParametersAction").with("parameters", 2, params))
	}
	cause := newBean("hudson.model.Cause$UserIdCause").
		with("shortDescription", 3, "Started by user "+s.user).
		with("userId", 3, s.user).
		with("userName", 3, s.user)
	return append(out, newBean("hudson.model.CauseAction").with("causes", 2, []any{cause}))
}

// paramsString is Queue.Item.getParams: "\nNAME=value" per parameter.
func paramsString(values []paramValue) string {
	var b strings.Builder
	for _, v := range values {
		fmt.Fprintf(&b, "\n%s=%v", v.def.name, v.value)
	}
	return b.String()
}

// runBean is a WorkflowRun or FreeStyleBuild.
func (s *Server) runBean(path string, it *item, b *Build) *bean {
	idx := it.index(b)
	link := func(i int) any {
		if i < 0 || i >= len(it.builds) {
			return nil
		}
		r := it.builds[i]
		return func() any { return s.runBean(path, it, r) }
	}
	class, executorClass := workflowRunClass, "hudson.model.OneOffExecutor"
	if it.class == freestyleClass {
		class, executorClass = freestyleRunClass, "hudson.model.Executor"
	}
	var result, executor, description any
	duration := int64(0)
	if b.Description != nil {
		description = *b.Description
	}
	if b.Building {
		executor = newBean(executorClass).
			set("currentExecutable", link(idx)).
			set("idle", false).
			set("likelyStuck", false).
			set("number", 0).
			set("progress", -1)
	} else {
		result = b.Result
		duration = b.finished.Sub(b.Timestamp).Milliseconds()
	}
	r := newBean(class).
		set("actions", s.causeAndParameters(b.values)).
		set("artifacts", []any{}).
		set("building", b.Building).
		set("description", description).
		set("displayName", fmt.Sprintf("#%d", b.Number)).
		set("duration", duration).
		set("estimatedDuration", estimatedDuration(it)).
		set("executor", executor).
		set("fullDisplayName", fmt.Sprintf("%s #%d", s.fullDisplayName(path), b.Number)).
		set("id", strconv.Itoa(b.Number)).
		set("keepLog", false).
		with("number", 2, b.Number).
		set("queueId", b.queueID).
		set("result", result).
		set("timestamp", b.Timestamp.UnixMilli()).
		with("url", 2, fmt.Sprintf("%s%d/", s.jobURL(path), b.Number))
	if class == freestyleRunClass {
		return r.set("builtOn", "").
			set("changeSet", newBean("hudson.scm.EmptyChangeLogSet").set("items", []any{}).set("kind", nil)).
			set("culprits", []any{}).
			set("inProgress", b.Building)
	}
	return r.set("changeSets", []any{}).
		set("culprits", []any{}).
		set("inProgress", b.Building).
		set("nextBuild", link(idx+1)).
		set("previousBuild", link(idx-1))
}

// queueItemBean is a Queue$WaitingItem (in the quiet period), a
// Queue$BuildableItem (waiting for an executor) or a Queue$LeftItem (started
// or cancelled). Queue.Item has defaultVisibility 999: nested, it shows
// whole.
func (s *Server) queueItemBean(q *queueItem) *bean {
	ready := q.due
	now := time.Now()
	class, why := "hudson.model.Queue$LeftItem", any(nil)
	switch {
	case !q.waiting():
	case now.Before(ready):
		class, why = "hudson.model.Queue$WaitingItem", "In the quiet period. Expires in "+timeSpan(ready.Sub(now).Milliseconds())
	default:
		class, why = "hudson.model.Queue$BuildableItem", "Waiting for next available executor"
	}
	var task any
	if it, ok := s.items[q.job]; ok {
		task = func() any { return s.itemBean(q.job, it) }
	}
	b := newBean(class).
		set("actions", s.causeAndParameters(q.values)).
		with("blocked", 999, false).
		with("buildable", 999, class == "hudson.model.Queue$BuildableItem").
		with("id", 999, q.id).
		with("inQueueSince", 999, q.since.UnixMilli()).
		with("params", 999, paramsString(q.values)).
		with("stuck", 999, false).
		with("task", 999, task).
		with("url", 999, fmt.Sprintf("queue/item/%d/", q.id)).
		with("why", 999, why)
	switch class {
	case "hudson.model.Queue$WaitingItem":
		return b.with("timestamp", 999, ready.UnixMilli())
	case "hudson.model.Queue$BuildableItem":
		return b.with("buildableStartMilliseconds", 999, ready.UnixMilli()).with("pending", 999, false)
	}
	var executable any
	if it, ok := s.items[q.job]; ok && q.build != nil {
		b := q.build
		executable = func() any { return s.runBean(q.job, it, b) }
	}
	return b.with("cancelled", 999, q.cancelled).with("executable", 999, executable)
}

// queueBean is the Queue: its items inline, the most recent first.
func (s *Server) queueBean() *bean {
	var waiting []*queueItem
	for _, q := range s.queue {
		if q.waiting() {
			waiting = append(waiting, q)
		}
	}
	sort.Slice(waiting, func(i, j int) bool { return waiting[i].id > waiting[j].id })
	items := []any{}
	for _, q := range waiting {
		items = append(items, s.queueItemBean(q))
	}
	return newBean("hudson.model.Queue").inline("discoverableItems", []any{}).inline("items", items)
}

// last returns the newest build that matches, or nil.
func (it *item) last(match func(*Build) bool) *Build {
	for i := len(it.builds) - 1; i >= 0; i-- {
		if match(it.builds[i]) {
			return it.builds[i]
		}
	}
	return nil
}

func (it *item) index(b *Build) int {
	for i, c := range it.builds {
		if c == b {
			return i
		}
	}
	return -1
}

func atLeastUnstable(result string) bool { return result == "SUCCESS" || result == "UNSTABLE" }

// color is Job.getIconColor: "disabled", else the last build's color,
// animated while it runs; "notbuilt" before the first build.
func color(it *item) string {
	building := len(it.builds) > 0 && it.builds[len(it.builds)-1].Building
	switch {
	case it.disabled() && building:
		return "disabled_anime"
	case it.disabled():
		return "disabled"
	case len(it.builds) == 0:
		return "notbuilt"
	}
	return runColor(it, len(it.builds)-1)
}

// runColor is Run.getIconColor: the result's color, or while building the
// previous build's, animated.
func runColor(it *item, i int) string {
	b := it.builds[i]
	if !b.Building {
		switch b.Result {
		case "SUCCESS":
			return "blue"
		case "UNSTABLE":
			return "yellow"
		case "ABORTED":
			return "aborted"
		case "NOT_BUILT":
			return "notbuilt"
		default:
			return "red"
		}
	}
	base := "notbuilt"
	if i > 0 {
		base = runColor(it, i-1)
	}
	if strings.HasSuffix(base, "_anime") {
		return base
	}
	return base + "_anime"
}

// healthReport is Job.getBuildHealthReports with core's only report, build
// stability over the last five builds; none until a build has completed.
func healthReport(it *item) []any {
	n := len(it.builds)
	if n == 0 || (n == 1 && it.builds[0].Building) {
		return []any{}
	}
	i := n - 1
	lastFailed := -1
	for j := n - 1; j >= 0; j-- {
		if b := it.builds[j]; !b.Building && b.Result == "FAILURE" {
			lastFailed = j
			break
		}
	}
	if lastFailed < 0 {
		return []any{healthBean(100, "No recent builds failed.")}
	}
	total, failed := 0, 0
	for j := i; j > lastFailed && total < 5; j-- {
		total++
	}
	if total < 5 {
		i = lastFailed
	}
	for ; total < 5 && i >= 0; i-- {
		switch runColor(it, i) {
		case "blue", "yellow":
			total++
		case "red":
			failed++
			total++
		}
	}
	if total == 0 {
		return []any{}
	}
	desc := fmt.Sprintf("%d out of the last %d builds failed.", failed, total)
	switch failed {
	case 0:
		desc = "No recent builds failed."
	case total:
		desc = "All recent builds failed."
	}
	return []any{healthBean(100*(total-failed)/total, desc)}
}

// healthBean is a HealthReport (defaultVisibility 2, no _class: the
// declared type names it).
func healthBean(score int, desc string) *bean {
	icon := "00to19"
	switch {
	case score > 80:
		icon = "80plus"
	case score > 60:
		icon = "60to79"
	case score > 40:
		icon = "40to59"
	case score > 20:
		icon = "20to39"
	}
	return newBean("").
		with("description", 2, "Build stability: "+desc).
		with("iconClassName", 2, "icon-health-"+icon).
		with("iconUrl", 2, "health-"+icon+".png").
		with("score", 2, score)
}

// estimatedDuration is Job.getEstimatedDuration: the mean duration of the
// last successful build and up to two more recent completed ones, or -1.
func estimatedDuration(it *item) int64 {
	var candidates, fallback []*Build
	last := it.last(permalinks["lastSuccessfulBuild"])
	if last != nil {
		candidates = append(candidates, last)
	}
	for i, seen := len(it.builds)-1, 0; i >= 0 && len(candidates) < 3 && seen < 6; i, seen = i-1, seen+1 {
		b := it.builds[i]
		if b.Building || b == last {
			continue
		}
		switch {
		case atLeastUnstable(b.Result):
			candidates = append(candidates, b)
		case b.Result == "FAILURE":
			fallback = append(fallback, b)
		}
	}
	for len(candidates) < 3 && len(fallback) > 0 {
		candidates, fallback = append(candidates, fallback[0]), fallback[1:]
	}
	var total int64
	for _, b := range candidates {
		total += b.finished.Sub(b.Timestamp).Milliseconds()
	}
	if total == 0 {
		return -1
	}
	n := int64(len(candidates))
	return (total + n/2) / n // Math.round
}

func split(path string) (dir, name string) {
	if i := strings.LastIndex(path, "/"); i >= 0 {
		return path[:i], path[i+1:]
	}
	return "", path
}

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

package jaeger

import (
	"fmt"
	"strings"
	"time"
)

// DeploymentRoot is a deployment's root span: the child of parent, the
// span of the request that asked for it (nil while Jaeger has none).
func DeploymentRoot(spans []Span, parent string) *Span {
	for i, s := range spans {
		if s.ParentID == parent && strings.HasPrefix(s.Name, "deploy ") && s.Name != "deploy request" {
			return &spans[i]
		}
	}
	return nil
}

// CheckDeployment holds the trace of a deployment that succeeded, whose
// root span is parent's child, to its shape. It returns the trace drawn as
// text, a line per span, and what is wrong with it:
//   - the root from provider-devops, with the outcome Succeeded;
//   - Pending, Building, Deploying and Verifying under it, in order, within
//     it;
//   - each call under the phase that made it, starting after the phase
//     began: Jenkins under Building (its POST queueing the build among
//     them), Argo CD under Deploying, Kubernetes under Building;
//   - no span recording a query string, a header or an authorization.
func CheckDeployment(spans []Span, parent string) (drawn string, problems []string) {
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	byID := map[string]Span{}
	for _, s := range spans {
		byID[s.SpanID] = s
	}
	var b strings.Builder
	for _, s := range spans {
		path, _ := s.Tags["url.path"].(string)
		fmt.Fprintf(&b, "  +%-8v %-8v %-22s under %-22s %s\n", s.Start.Sub(spans[0].Start).Round(time.Millisecond), s.Duration.Round(time.Millisecond), s.Name, byID[s.ParentID].Name, path)
	}
	drawn = b.String()
	root := DeploymentRoot(spans, parent)
	if root == nil {
		bad("no deployment span under %s", parent)
		return drawn, problems
	}
	if root.Service != "provider-devops" || root.Tags["deployrun.outcome"] != "Succeeded" {
		bad("root span %s from %q, outcome %v: want provider-devops, Succeeded", root.Name, root.Service, root.Tags["deployrun.outcome"])
	}
	var phases []string
	phaseOf := map[string]string{}
	for _, s := range spans {
		if s.ParentID != root.SpanID || s.Tags["deployrun.phase"] == nil {
			continue
		}
		phases = append(phases, s.Name)
		phaseOf[s.SpanID] = s.Name
		// The root starts at the DeployRun's creation, kept to the second.
		if s.Start.Before(root.Start.Truncate(time.Second)) || s.Start.Add(s.Duration).After(root.Start.Add(root.Duration)) {
			bad("phase %s [%v, +%v] outside its deployment [%v, +%v]", s.Name, s.Start, s.Duration, root.Start, root.Duration)
		}
	}
	if got := strings.Join(phases, ","); got != "Pending,Building,Deploying,Verifying" {
		bad("phase spans %s, want Pending,Building,Deploying,Verifying in order under the root", got)
	}
	calls := map[string]map[string]bool{}
	queued := false
	for _, s := range spans {
		for k := range s.Tags {
			if l := strings.ToLower(k); strings.Contains(l, "query") || strings.Contains(l, "authorization") || strings.Contains(l, "header") {
				bad("span %s records %s", s.Name, k)
			}
		}
		sys, _ := s.Tags["rpc.system"].(string)
		if sys == "" {
			continue
		}
		if calls[sys] == nil {
			calls[sys] = map[string]bool{}
		}
		calls[sys][phaseOf[s.ParentID]] = true
		if p, ok := byID[s.ParentID]; ok && phaseOf[s.ParentID] != "" && s.Start.Before(p.Start) {
			bad("%s at %v starts before its phase %s at %v", s.Name, s.Start, p.Name, p.Start)
		}
		path, _ := s.Tags["url.path"].(string)
		queued = queued || s.Name == "POST jenkins" && strings.Contains(path, "/build") && phaseOf[s.ParentID] == "Building"
	}
	if !queued {
		bad("no POST to Jenkins queueing the build under the Building phase")
	}
	for _, want := range []struct{ sys, phase string }{{"jenkins", "Building"}, {"argocd", "Deploying"}, {"kubernetes", "Building"}} {
		if !calls[want.sys][want.phase] {
			bad("no %s call under the %s phase; %s calls are under %v", want.sys, want.phase, want.sys, calls[want.sys])
		}
	}
	return drawn, problems
}

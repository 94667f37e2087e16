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
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	toolscache "k8s.io/client-go/tools/cache"
)

// WatchTally is what Crossplane's XR controller is woken by while a
// project is created: every watch event of the DevOpsProject and of what
// it composes, by kind and by what changed. Each one costs the XR's
// circuit breaker a token (100, refilled at 1 a second).
type WatchTally struct {
	Total int
	// Table is the events by kind and change, most first.
	Table string
	// Tokens is what those events cost the breaker, as Crossplane's map
	// function charges them, and the lowest its bucket fell.
	Tokens string
}

// Crossplane's breaker defaults: 100 tokens, refilled 1 a second.
const (
	breakerBurst  = 100.0
	breakerRefill = 1.0
)

// tokenCost is what one watch event costs the XR's breaker: an update
// is mapped twice (the old object and the new), an added object once, an
// object being deleted never.
func tokenCost(added, deleting bool) float64 {
	switch {
	case deleting:
		return 0
	case added:
		return 1
	default:
		return 2
	}
}

// charge is one event's cost at its time.
type charge struct {
	at   time.Time
	cost float64
	xr   bool
}

// bucket replays charges through a token bucket as Crossplane's breaker
// keeps it, from a full one at start: what was spent, by the XR's own
// events and by the composed resources', and the lowest it fell.
func bucket(start time.Time, cs []charge) string {
	slices.SortFunc(cs, func(a, b charge) int { return a.at.Compare(b.at) })
	tokens, last := breakerBurst, start
	low, lowAt := tokens, time.Duration(0)
	var xr, composed float64
	for _, c := range cs {
		tokens = min(breakerBurst, tokens+breakerRefill*c.at.Sub(last).Seconds())
		last = c.at
		tokens -= c.cost
		if c.xr {
			xr += c.cost
		} else {
			composed += c.cost
		}
		if tokens < low {
			low, lowAt = tokens, c.at.Sub(start)
		}
	}
	verdict := "stays closed"
	if low < 0 {
		verdict = "opens"
	}
	return fmt.Sprintf("%.0f tokens (the XR's %.0f, composed resources' %.0f); the bucket's lowest %.0f at +%.1fs: %s at %.0f and %.0f/s",
		xr+composed, xr, composed, low, lowAt.Seconds(), verdict, breakerBurst, breakerRefill)
}

// tallyWatchEvents watches the project and its composed resources until
// stop is called. Informers, not bare watches: they list, watch and
// start again after an error (a young watch cache answers "too large
// resource version"), as Crossplane's own do.
func (c *Cluster) tallyWatchEvents(ctx context.Context) (stop func() WatchTally, err error) {
	dyn, err := dynamic.NewForConfig(c.REST)
	if err != nil {
		return nil, err
	}
	var (
		mu      sync.Mutex
		counts  = map[string]int{}
		charges []charge
		start   = time.Now()
	)
	count := func(kind, what string, cost float64) {
		mu.Lock()
		counts[kind+"\t"+what]++
		charges = append(charges, charge{at: time.Now(), cost: cost, xr: kind == "DevOpsProject"})
		mu.Unlock()
	}
	kinds := append([][2]string{
		{xrAPIVersion, "DevOpsProject"},
		{"jenkins.devops.freeleaps.io/v1alpha1", "JenkinsCredential"},
	}, mrKinds...)
	ctx, cancel := context.WithCancel(ctx)
	var synced []toolscache.InformerSynced
	for _, k := range kinds {
		kind := k[1]
		sel := func(o *metav1.ListOptions) { o.LabelSelector = "crossplane.io/composite=" + Project }
		if kind == "DevOpsProject" {
			sel = func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=" + Project }
		}
		gv, err := schema.ParseGroupVersion(k[0])
		if err != nil {
			cancel()
			return nil, err
		}
		m, err := c.Kube.RESTMapper().RESTMapping(gv.WithKind(kind).GroupKind(), gv.Version)
		if err != nil {
			cancel()
			return nil, fmt.Errorf("watching %s: %w", kind, err)
		}
		f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, ProjectNamespace, sel)
		inf := f.ForResource(m.Resource).Informer()
		if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc: func(any) { count(kind, "ADDED", tokenCost(true, false)) },
			UpdateFunc: func(o, n any) {
				old, _ := o.(*unstructured.Unstructured)
				cur, _ := n.(*unstructured.Unstructured)
				if old == nil || cur == nil || old.GetResourceVersion() == cur.GetResourceVersion() {
					return
				}
				count(kind, changed(old, cur), tokenCost(false, cur.GetDeletionTimestamp() != nil))
			},
		}); err != nil {
			cancel()
			return nil, err
		}
		go inf.Run(ctx.Done())
		synced = append(synced, inf.HasSynced)
	}
	if !toolscache.WaitForCacheSync(ctx.Done(), synced...) {
		cancel()
		return nil, errors.New("the watches of the project's resources never synced")
	}
	return func() WatchTally {
		cancel()
		mu.Lock()
		defer mu.Unlock()
		keys := make([]string, 0, len(counts))
		t := WatchTally{}
		for k, n := range counts {
			keys = append(keys, k)
			t.Total += n
		}
		sort.Slice(keys, func(i, j int) bool {
			if counts[keys[i]] != counts[keys[j]] {
				return counts[keys[i]] > counts[keys[j]]
			}
			return keys[i] < keys[j]
		})
		var b strings.Builder
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		_, _ = fmt.Fprintln(tw, "EVENTS\tKIND\tCHANGE")
		for _, k := range keys {
			_, _ = fmt.Fprintf(tw, "%d\t%s\n", counts[k], k)
		}
		_ = tw.Flush()
		t.Table = b.String()
		t.Tokens = bucket(start, charges)
		return t
	}, nil
}

// changed names what differs between two versions of an object: spec,
// the annotations, labels and finalizers that changed, the status
// fields, and the conditions whose status or reason changed.
func changed(old, cur *unstructured.Unstructured) string {
	if old == nil {
		return "MODIFIED (first seen)"
	}
	var parts []string
	if !reflect.DeepEqual(old.Object["spec"], cur.Object["spec"]) {
		parts = append(parts, "spec")
	}
	for _, m := range []struct {
		name     string
		old, cur map[string]string
	}{{"annotations", old.GetAnnotations(), cur.GetAnnotations()}, {"labels", old.GetLabels(), cur.GetLabels()}} {
		var keys []string
		for k, v := range m.cur {
			if m.old[k] != v {
				keys = append(keys, k)
			}
		}
		for k := range m.old {
			if _, ok := m.cur[k]; !ok {
				keys = append(keys, "-"+k)
			}
		}
		if len(keys) > 0 {
			slices.Sort(keys)
			parts = append(parts, m.name+"["+strings.Join(keys, ",")+"]")
		}
	}
	if !slices.Equal(old.GetFinalizers(), cur.GetFinalizers()) {
		parts = append(parts, "finalizers")
	}
	if !reflect.DeepEqual(old.GetOwnerReferences(), cur.GetOwnerReferences()) {
		parts = append(parts, "ownerReferences")
	}
	os, _, _ := unstructured.NestedMap(old.Object, "status")
	cs, _, _ := unstructured.NestedMap(cur.Object, "status")
	var fields []string
	for k, v := range cs {
		if k == "conditions" {
			if c := conditionChanges(os[k], v); c != "" {
				fields = append(fields, c)
			}
			continue
		}
		if !reflect.DeepEqual(os[k], v) {
			fields = append(fields, k)
		}
	}
	for k := range os {
		if _, ok := cs[k]; !ok {
			fields = append(fields, "-"+k)
		}
	}
	if len(fields) > 0 {
		slices.Sort(fields)
		parts = append(parts, "status["+strings.Join(fields, ",")+"]")
	}
	if len(parts) == 0 {
		return "nothing but metadata bookkeeping"
	}
	return strings.Join(parts, " ")
}

// conditionChanges names the conditions whose status, reason or message
// changed (a message-only change is marked with ~).
func conditionChanges(old, cur any) string {
	index := func(v any) map[string]map[string]any {
		out := map[string]map[string]any{}
		l, _ := v.([]any)
		for _, c := range l {
			m, _ := c.(map[string]any)
			t, _ := m["type"].(string)
			out[t] = m
		}
		return out
	}
	o, c := index(old), index(cur)
	var out []string
	for t, m := range c {
		p := o[t]
		switch {
		case p == nil || p["status"] != m["status"] || p["reason"] != m["reason"]:
			out = append(out, fmt.Sprintf("%s=%v", t, m["status"]))
		case p["message"] != m["message"]:
			out = append(out, "~"+t)
		case !reflect.DeepEqual(p, m):
			out = append(out, "."+t)
		}
	}
	if len(out) == 0 {
		return ""
	}
	slices.Sort(out)
	return "conditions(" + strings.Join(out, " ") + ")"
}

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
		mu     sync.Mutex
		counts = map[string]int{}
	)
	count := func(kind, what string) {
		mu.Lock()
		counts[kind+"\t"+what]++
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
			AddFunc: func(any) { count(kind, "ADDED") },
			UpdateFunc: func(o, n any) {
				old, _ := o.(*unstructured.Unstructured)
				cur, _ := n.(*unstructured.Unstructured)
				if old == nil || cur == nil || old.GetResourceVersion() == cur.GetResourceVersion() {
					return
				}
				count(kind, changed(old, cur))
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

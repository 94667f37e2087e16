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
	"context"
	"fmt"
	"testing"
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
)

// BenchmarkRunFunction measures one run for a project with n environments
// (half of them previews with a ttl), every resource observed Ready.
func BenchmarkRunFunction(b *testing.B) {
	for _, n := range []int{1, 4, 16, 64} {
		b.Run(fmt.Sprintf("environments=%d", n), func(b *testing.B) {
			req := benchRequest(n)
			f := &Function{now: func() time.Time { return t0 }}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				rsp, err := f.RunFunction(ctx, req)
				if err != nil || len(rsp.GetResults()) > 0 && rsp.GetResults()[0].GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
					b.Fatal(err, rsp.GetResults())
				}
			}
		})
	}
}

// benchRequest is the steady-state run for a project with n environments
// (half of them previews with a ttl), as Crossplane sends it once all is
// composed and Ready: the XR with the status and resource references the
// last run left, and each composed resource as the API server holds it
// (what the function asked for, plus metadata, conditions and the
// provider's atProvider).
func benchRequest(n int) *fnv1.RunFunctionRequest {
	x := xr()
	envs := make([]any, 0, n)
	names := make([]string, 0, n)
	for i := range n {
		e := map[string]any{"name": fmt.Sprintf("env-%d", i), "domain": fmt.Sprintf("env-%d.shop.example.com", i)}
		if i%2 == 1 {
			e["ttl"] = "72h"
		}
		envs = append(envs, e)
		names = append(names, e["name"].(string))
	}
	x["spec"].(map[string]any)["environments"] = envs
	t := &testing.T{}
	first := newRequest(t, x, allObserved(true, names...), nil)
	rsp, err := (&Function{now: func() time.Time { return t0 }}).RunFunction(context.Background(), first)
	if err != nil {
		panic(err)
	}
	minimal := allObserved(true, names...)
	observed := map[string]map[string]any{}
	var refs []any
	for name, r := range rsp.GetDesired().GetResources() {
		o := r.GetResource().AsMap()
		md := o["metadata"].(map[string]any)
		if md["name"] == nil {
			md["name"] = "shop-" + name + "-x7k2p"
		}
		md["namespace"] = "team-shop"
		md["uid"] = "6f1c1f3e-2b0a-4c43-9d0e-" + fmt.Sprintf("%012d", len(refs))
		md["generation"] = 1.0
		md["resourceVersion"] = "48211"
		md["creationTimestamp"] = "2026-11-22T11:00:00Z"
		md["finalizers"] = []any{"finalizer.managedresource.crossplane.io"}
		md["ownerReferences"] = []any{map[string]any{"apiVersion": "platform.freeleaps.io/v1alpha1", "kind": "DevOpsProject", "name": "shop", "uid": "0d9a6f2e-77b1-4c1e-8d59-3f0c2d1e9a10", "controller": true, "blockOwnerDeletion": true}}
		labels, _ := md["labels"].(map[string]any)
		if labels == nil {
			labels = map[string]any{}
		}
		labels["crossplane.io/composite"] = "shop"
		md["labels"] = labels
		ann, _ := md["annotations"].(map[string]any)
		if ann == nil {
			ann = map[string]any{}
		}
		ann["crossplane.io/composition-resource-name"] = name
		md["annotations"] = ann
		status := map[string]any{"conditions": []any{
			map[string]any{"type": "Ready", "status": "True", "reason": "Available", "lastTransitionTime": "2026-11-22T11:00:05Z", "observedGeneration": 1.0},
			map[string]any{"type": "Synced", "status": "True", "reason": "ReconcileSuccess", "lastTransitionTime": "2026-11-22T11:00:01Z", "observedGeneration": 1.0},
		}}
		if m, ok := minimal[name]; ok {
			if atp, ok := m["status"].(map[string]any)["atProvider"]; ok {
				status["atProvider"] = atp
			}
		}
		o["status"] = status
		observed[name] = o
		refs = append(refs, map[string]any{"apiVersion": o["apiVersion"], "kind": o["kind"], "name": md["name"]})
	}
	x["metadata"].(map[string]any)["uid"] = "0d9a6f2e-77b1-4c1e-8d59-3f0c2d1e9a10"
	x["spec"].(map[string]any)["crossplane"] = map[string]any{"compositionRef": map[string]any{"name": "devopsproject"}, "resourceRefs": refs}
	x["status"] = rsp.GetDesired().GetComposite().GetResource().AsMap()["status"]
	x["status"].(map[string]any)["conditions"] = []any{map[string]any{"type": "Ready", "status": "True", "reason": "Available", "lastTransitionTime": "2026-11-22T11:00:09Z"}}
	return newRequest(t, x, observed, nil)
}

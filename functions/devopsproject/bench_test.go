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

// benchRequest is a run for a project with n environments (half of them
// previews with a ttl), every resource observed Ready.
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
	return newRequest(&testing.T{}, x, allObserved(true, names...), nil)
}

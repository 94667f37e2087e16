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
	"net"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
)

// echo answers every RunFunction with one response built beforehand: the
// floor a function returning that response over gRPC cannot go below.
type echo struct {
	fnv1.UnimplementedFunctionRunnerServiceServer
	rsp *fnv1.RunFunctionResponse
}

func (e *echo) RunFunction(context.Context, *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
	return e.rsp, nil
}

// serve runs srv on a loopback port until the benchmark ends and returns a
// client of it.
func serve(b *testing.B, srv fnv1.FunctionRunnerServiceServer) fnv1.FunctionRunnerServiceClient {
	b.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	s := grpc.NewServer()
	fnv1.RegisterFunctionRunnerServiceServer(s, srv)
	go func() { _ = s.Serve(l) }()
	b.Cleanup(s.Stop)
	conn, err := grpc.NewClient(l.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = conn.Close() })
	return fnv1.NewFunctionRunnerServiceClient(conn)
}

// BenchmarkRunFunctionGRPC measures, side by side in one run, a
// RunFunction over gRPC to this function and to an echo server returning
// the same response (the same bytes on the wire): it reports both p50s and
// their ratio (fn/echo). The target is a ratio of at most 1.2 at 4
// and at 64 environments.
func BenchmarkRunFunctionGRPC(b *testing.B) {
	for _, n := range []int{4, 64} {
		b.Run(fmt.Sprintf("environments=%d", n), func(b *testing.B) {
			req := benchRequest(n)
			f := &Function{now: func() time.Time { return t0 }}
			want, err := f.RunFunction(context.Background(), req)
			if err != nil {
				b.Fatal(err)
			}
			fn, floor := serve(b, f), serve(b, &echo{rsp: want})
			ctx := context.Background()
			call := func(c fnv1.FunctionRunnerServiceClient) time.Duration {
				start := time.Now()
				rsp, err := c.RunFunction(ctx, req)
				if err != nil || len(rsp.GetDesired().GetResources()) == 0 {
					b.Fatal(err, rsp.GetResults())
				}
				return time.Since(start)
			}
			// Warm both connections.
			for range 20 {
				call(fn)
				call(floor)
			}
			var tf, te []time.Duration
			b.ResetTimer()
			for b.Loop() {
				tf = append(tf, call(fn))
				te = append(te, call(floor))
			}
			b.StopTimer()
			pf, pe := p50(tf), p50(te)
			b.ReportMetric(float64(pf.Microseconds()), "fn-p50-µs")
			b.ReportMetric(float64(pe.Microseconds()), "echo-p50-µs")
			b.ReportMetric(float64(pf)/float64(pe), "fn/echo")
			b.ReportMetric(float64(proto.Size(want)), "response-bytes")
		})
	}
}

func p50(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

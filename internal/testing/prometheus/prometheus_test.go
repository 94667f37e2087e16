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

package prometheus

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseQueryResponse(t *testing.T) {
	cases := map[string]struct {
		body    string
		want    []Sample
		wantErr string
	}{
		"Vector": {
			body: `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"up","job":"provider"},"value":[1764216000.5,"1"]}]}}`,
			want: []Sample{{Metric: map[string]string{"__name__": "up", "job": "provider"}, Value: 1}},
		},
		"EmptyVector": {
			body: `{"status":"success","data":{"resultType":"vector","result":[]}}`,
			want: []Sample{},
		},
		"NaN": {
			body: `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1764216000,"NaN"]}]}}`,
			want: []Sample{{Metric: map[string]string{}, Value: math.NaN()}},
		},
		"Scalar": {
			body: `{"status":"success","data":{"resultType":"scalar","result":[1764216000,"0.25"]}}`,
			want: []Sample{{Value: 0.25}},
		},
		"BadQuery": {
			body:    `{"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:4: parse error"}`,
			wantErr: "query failed: bad_data: invalid parameter",
		},
		"Matrix": {
			body:    `{"status":"success","data":{"resultType":"matrix","result":[]}}`,
			wantErr: `result type "matrix"`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseQueryResponse([]byte(tc.body))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want an error containing %q, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("-want +got:\n%s", diff)
			}
		})
	}
}

func TestConditions(t *testing.T) {
	if NonEmpty(nil) || !NonEmpty([]Sample{{}}) {
		t.Error("NonEmpty: want false for none, true for one")
	}
	for _, s := range [][]Sample{nil, {{Value: math.NaN()}}, {{Value: math.Inf(1)}}, {{Value: 1}, {Value: 2}}} {
		if OneNumber(s) {
			t.Errorf("OneNumber(%v): want false", s)
		}
	}
	if !OneNumber([]Sample{{Value: 0.05}}) {
		t.Error("OneNumber: want true for one finite sample")
	}
}

// TestScrapesItself runs the real Prometheus: it becomes ready, scrapes
// itself, and answers queries, a bad one with Prometheus's own error.
func TestScrapesItself(t *testing.T) {
	s := Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := s.WaitFor(ctx, `up{job="prometheus"} == 1`, NonEmpty)
	if err != nil {
		t.Fatalf("%v\ntargets:\n%s", err, s.Targets(ctx))
	}
	t.Logf(`up{job="prometheus"} == 1: %v`, got)
	if _, err := s.Query(ctx, `up{`); err == nil || !strings.Contains(err.Error(), "bad_data") {
		t.Errorf("a malformed query: want Prometheus's bad_data error, got %v", err)
	}
	if !strings.Contains(s.Targets(ctx), "prometheus http://") {
		t.Errorf("targets: want the prometheus job, got %q", s.Targets(ctx))
	}
}

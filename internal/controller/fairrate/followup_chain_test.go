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

package fairrate

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// TestFollowUpDoesNotChain: a resource whose every reconcile has its
// backend accept a Delete (an object its backend deletes slowly, or never:
// a tenant's own server) earns a free pass on each, including the free
// ones: past the first, none of its reconciles takes a token.
func TestFollowUpDoesNotChain(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := New(1, 1, 1)
	l.now = func() time.Time { return now }
	inner := reconcile.Func(func(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
		FollowUp(ctx) // Delete accepted, the object still there
		return reconcile.Result{}, nil
	})
	r := NewReconciler("argoapplication", inner, l)
	req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "team-a", Name: "web"}}
	passed := 0
	for range 1000 {
		if res, _ := r.Reconcile(context.Background(), req); res.RequeueAfter == 0 {
			passed++
		}
	}
	// Within one instant, at 1 per second, burst 10 global and 1 for the
	// namespace: at most 2 (one token, one follow-up) should pass.
	if passed > 2 {
		t.Errorf("%d reconciles passed in the same instant at a rate of 1/s (namespace burst 1); want at most 2", passed)
	}
}

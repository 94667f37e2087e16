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
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

var _ workqueue.TypedRateLimiter[string] = &Limiter{}

// TestNoisyNamespaceLeavesTheRest: a namespace with thousands of
// resources due at once waits behind its own share; another namespace's
// first reconciles pass at once. With a single global bucket the other's
// would wait behind all of them (the old behaviour, reproduced).
func TestNoisyNamespaceLeavesTheRest(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := New(50, 25, 25)
	l.now = func() time.Time { return now }
	// 5,000 resources of team-noisy due now.
	var longest time.Duration
	for i := range 5000 {
		longest = max(longest, l.WhenIn("team-noisy", fmt.Sprintf("argoapplication/team-noisy/app-%d", i)))
	}
	if longest < 100*time.Second {
		t.Errorf("the noisy namespace's last reconcile waits %s: want it held to its share, about 200s", longest)
	}
	// A second later a quiet team's new project: ten resources.
	now = now.Add(time.Second)
	for i := range 10 {
		if d := l.WhenIn("team-quiet", fmt.Sprintf("jenkinspipeline/team-quiet/shop-%d", i)); d > 0 {
			t.Errorf("the quiet namespace's reconcile %d waits %s behind the noisy one", i, d)
		}
	}

	// The same with one global bucket (crossplane-runtime's): the quiet
	// team waits behind the noisy one's thousands.
	now = time.Unix(1_700_000_000, 0)
	g := New(50, 1_000_000, 1_000_000)
	g.now = func() time.Time { return now }
	for i := range 5000 {
		g.WhenIn("team-noisy", fmt.Sprintf("argoapplication/team-noisy/app-%d", i))
	}
	now = now.Add(time.Second)
	if d := g.WhenIn("team-quiet", "jenkinspipeline/team-quiet/shop-0"); d < time.Minute {
		t.Errorf("a single bucket let the quiet namespace through after %s: the test no longer shows the difference", d)
	}
}

// TestWaitedItemPasses: an item told to wait passes the stage it waited
// at when it comes back, so each reconcile takes one token of each bucket.
func TestWaitedItemPasses(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := New(1, 1, 1)
	l.now = func() time.Time { return now }
	if d := l.WhenIn("a", "x"); d != 0 {
		t.Fatalf("first reconcile waits %s", d)
	}
	d := l.WhenIn("a", "y")
	if d <= 0 {
		t.Fatal("second reconcile of the namespace within its second does not wait")
	}
	now = now.Add(d)
	// Back after its namespace wait: the global bucket (burst 10) has a
	// token, so it runs.
	if d := l.WhenIn("a", "y"); d != 0 {
		t.Errorf("came back after its wait and waits again %s", d)
	}
	if _, ok := l.waiting["y"]; ok {
		t.Error("a passed item is still remembered")
	}
}

// TestEarlyReturnWaitsTheRest: an item requeued before its wait is over
// (a watch event: its owner touching it) waits the rest and takes no
// token, so touching one's own resources does not get past the share.
func TestEarlyReturnWaitsTheRest(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := New(50, 25, 25)
	l.now = func() time.Time { return now }
	for i := range 5000 {
		l.WhenIn("team-noisy", fmt.Sprintf("app-%d", i))
	}
	// Touched twice, each requeued at once.
	for range 2 {
		passed := 0
		for i := range 5000 {
			if l.WhenIn("team-noisy", fmt.Sprintf("app-%d", i)) == 0 {
				passed++
			}
		}
		if passed > 25 {
			t.Errorf("%d of the namespace's reconciles passed when touched again at once, want its burst at most", passed)
		}
	}
	now = now.Add(time.Second)
	if d := l.WhenIn("team-quiet", "shop"); d > 0 {
		t.Errorf("another namespace waits %s", d)
	}
}

// TestInFlightPerNamespace: a namespace whose backends never answer keeps
// at most inFlight reconciles running; the next is turned away for
// busyRetry, another namespace's runs.
func TestInFlightPerNamespace(t *testing.T) {
	l := New(1000, 1000, 2)
	block := make(chan struct{})
	started := make(chan struct{}, 10)
	inner := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
		started <- struct{}{}
		<-block
		return reconcile.Result{}, nil
	})
	r := NewReconciler("argoapplication", inner, l)
	req := func(ns, name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
	}
	for i := range 2 {
		go func() { _, _ = r.Reconcile(context.Background(), req("team-slow", fmt.Sprint(i))) }()
		<-started
	}
	res, _ := r.Reconcile(context.Background(), req("team-slow", "2"))
	if res.RequeueAfter != busyRetry {
		t.Errorf("a third reconcile of the namespace: %+v, want turned away for %s", res, busyRetry)
	}
	go func() { _, _ = r.Reconcile(context.Background(), req("team-quiet", "shop")) }()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Error("another namespace's reconcile did not run")
	}
	close(block)
}

// TestFollowUpPassesOnce: the reconcile after one whose backend accepted a
// change passes without a token, once; the one after it waits as any.
func TestFollowUpPassesOnce(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := New(1, 1, 1)
	l.now = func() time.Time { return now }
	created := true
	inner := reconcile.Func(func(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
		if created {
			FollowUp(ctx)
			created = false
		}
		return reconcile.Result{}, nil
	})
	r := NewReconciler("jenkinspipeline", inner, l)
	req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "team-a", Name: "web"}}
	for i, want := range []bool{true, true, false} {
		res, _ := r.Reconcile(context.Background(), req)
		if passed := res.RequeueAfter == 0; passed != want {
			t.Errorf("reconcile %d within the namespace's second: passed %t, want %t (%+v)", i+1, passed, want, res)
		}
	}
	FollowUp(context.Background()) // outside a reconcile: nothing, no panic
}

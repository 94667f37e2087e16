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

package health

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

type synced bool

func (s synced) WaitForCacheSync(context.Context) bool { return bool(s) }

func TestCacheSynced(t *testing.T) {
	req := httptest.NewRequest("GET", "/readyz", nil)
	if err := CacheSynced(synced(true))(req); err != nil {
		t.Errorf("synced: %v", err)
	}
	if err := CacheSynced(synced(false))(req); err == nil || !strings.Contains(err.Error(), "not synced") {
		t.Errorf("not synced: %v, want an error saying so", err)
	}
}

// TestAPIServer: the API server is asked at most once per interval, and
// its failure is reported until a later ask succeeds.
func TestAPIServer(t *testing.T) {
	req := httptest.NewRequest("GET", "/readyz", nil)
	now := time.Unix(0, 0)
	calls, fail := 0, false
	check := APIServer(func(context.Context) error {
		calls++
		if fail {
			return errors.New("connection refused")
		}
		return nil
	}, 5*time.Second, func() time.Time { return now })
	if err := check(req); err != nil || calls != 1 {
		t.Fatalf("first: %v after %d calls", err, calls)
	}
	fail = true
	now = now.Add(time.Second)
	if err := check(req); err != nil || calls != 1 {
		t.Fatalf("within the interval: %v after %d calls, want the last answer reused", err, calls)
	}
	now = now.Add(5 * time.Second)
	if err := check(req); err == nil || !strings.Contains(err.Error(), "cannot reach the API server: connection refused") || calls != 2 {
		t.Fatalf("after it: %v after %d calls, want the failure", err, calls)
	}
	fail = false
	now = now.Add(5 * time.Second)
	if err := check(req); err != nil || calls != 3 {
		t.Fatalf("recovered: %v after %d calls", err, calls)
	}
}

// TestLeader: the leader is ready; a standby while a holder renewed the
// lease within twice its duration (a takeover in between), not when none
// did or it cannot read it.
func TestLeader(t *testing.T) {
	s := runtime.NewScheme()
	if err := coordinationv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	key := types.NamespacedName{Namespace: "crossplane-system", Name: "lease"}
	lease := func(holder string, renewedAgo time.Duration) *coordinationv1.Lease {
		l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
		d := int32(60)
		l.Spec.LeaseDurationSeconds = &d
		if holder != "" {
			l.Spec.HolderIdentity = &holder
			l.Spec.RenewTime = &metav1.MicroTime{Time: now.Add(-renewedAgo)}
		}
		return l
	}
	// What client-go writes when a leader stops in order.
	released := func(ago time.Duration) *coordinationv1.Lease {
		l := lease("", 0)
		d, empty := int32(1), ""
		l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds = &empty, &d
		l.Spec.RenewTime = &metav1.MicroTime{Time: now.Add(-ago)}
		return l
	}
	req := httptest.NewRequest("GET", "/readyz", nil)
	elected := make(chan struct{})
	for name, tc := range map[string]struct {
		lease *coordinationv1.Lease
		want  string
	}{
		"StandbyOfALeader": {lease: lease("replica-a", 10*time.Second)},
		"TakeoverUnderWay": {lease: lease("replica-a", 90*time.Second)},
		"LeaderGone":       {lease: lease("replica-a", 121*time.Second), want: "no leader has renewed"},
		"Released":         {lease: released(5 * time.Second)},
		"ReleasedLongAgo":  {lease: released(time.Minute), want: "no leader has renewed"},
		"NeverHeld":        {lease: lease("", 0), want: "names no leader"},
		"LeaseNotReadable": {want: "cannot read the leader's lease"},
	} {
		t.Run(name, func(t *testing.T) {
			b := fake.NewClientBuilder().WithScheme(s)
			if tc.lease != nil {
				b = b.WithObjects(tc.lease)
			}
			err := Leader(elected, b.Build(), key, func() time.Time { return now })(req)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
	close(elected)
	if err := Leader(elected, fake.NewClientBuilder().WithScheme(s).Build(), key, time.Now)(req); err != nil {
		t.Errorf("the leader: %v", err)
	}
}

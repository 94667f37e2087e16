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

package mrcontroller

import (
	"context"
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

// TestCatchUp: a reconcile that finds in the cache a version its own write
// superseded waits until the cache holds the write, then runs; one with
// nothing superseded runs at once; one whose cache never catches up runs
// after catchUpWait, as before.
func TestCatchUp(t *testing.T) {
	s := runtime.NewScheme()
	if err := jenkinsv1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		written  bool
		catchUp  time.Duration // when the cache gets the write; 0 never
		minWait  time.Duration
		maxWait  time.Duration
		sawFresh bool
	}{
		"NothingWritten":    {maxWait: catchUpWait / 2},
		"CacheCatchesUp":    {written: true, catchUp: 100 * time.Millisecond, minWait: 100 * time.Millisecond, maxWait: catchUpWait * 3 / 4, sawFresh: true},
		"CacheNeverCatches": {written: true, minWait: catchUpWait},
	} {
		t.Run(name, func(t *testing.T) {
			p := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "shop-dev", Namespace: "team"}}
			cache := fake.NewClientBuilder().WithScheme(s).WithObjects(p).Build()
			controlled := &jenkinsv1alpha1.JenkinsPipeline{}
			if err := cache.Get(context.Background(), client.ObjectKeyFromObject(p), controlled); err != nil {
				t.Fatal(err)
			}
			stale := controlled.GetResourceVersion()
			w := newWritten()
			if tc.written {
				// The provider wrote the resource: the cache is now behind.
				newer := controlled.DeepCopy()
				newer.SetResourceVersion(stale + "1")
				w.wrote(newer, stale, false)
			}
			if tc.catchUp > 0 {
				go func() {
					time.Sleep(tc.catchUp)
					controlled.SetLabels(map[string]string{"written": "yes"})
					_ = cache.Update(context.Background(), controlled)
				}()
			}
			var saw string
			inner := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
				got := &jenkinsv1alpha1.JenkinsPipeline{}
				err := cache.Get(ctx, req.NamespacedName, got)
				saw = got.GetResourceVersion()
				return reconcile.Result{}, err
			})
			start := time.Now()
			if _, err := (catchUp[*jenkinsv1alpha1.JenkinsPipeline]{Reconciler: inner, kube: cache, new: func() *jenkinsv1alpha1.JenkinsPipeline { return &jenkinsv1alpha1.JenkinsPipeline{} }, w: w}).Reconcile(context.Background(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(p)}); err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			if took < tc.minWait || (tc.maxWait > 0 && took > tc.maxWait) {
				t.Errorf("the reconcile ran after %s, want between %s and %s", took, tc.minWait, tc.maxWait)
			}
			if fresh := saw != stale; fresh != tc.sawFresh {
				t.Errorf("the reconcile read version %s (the superseded one %s): fresh %t, want %t", saw, stale, fresh, tc.sawFresh)
			}
		})
	}
}

// TestSeen: a wake-up soon after a reconcile that planned its next look,
// finding the resource as that reconcile saw or left it, is skipped until
// the planned look; a new version, a later wake-up, a reconcile that
// failed or asked to be requeued, are not.
func TestSeen(t *testing.T) {
	key := types.NamespacedName{Namespace: "team", Name: "shop-dev"}
	planned := reconcile.Result{RequeueAfter: 5 * time.Minute}
	for name, tc := range map[string]struct {
		res     reconcile.Result
		err     error
		later   time.Duration
		version string
		skip    bool
	}{
		"SawIt":             {res: planned, version: "5", skip: true},
		"WroteIt":           {res: planned, version: "6", skip: true},
		"ChangedSince":      {res: planned, version: "7"},
		"LongAfter":         {res: planned, version: "5", later: seenFor + time.Millisecond},
		"Failed":            {res: planned, err: errors.New("boom"), version: "5"},
		"AskedToBeRequeued": {res: reconcile.Result{Requeue: true}, version: "5"}, //nolint:staticcheck // what the managed reconciler answers
		"PlannedLookIsDue":  {res: reconcile.Result{RequeueAfter: time.Second}, version: "5", later: time.Second},
		"GoneFromTheCache":  {res: planned, version: ""},
	} {
		t.Run(name, func(t *testing.T) {
			now := time.Unix(1_700_000_000, 0)
			s := newSeen()
			s.now = func() time.Time { return now }
			s.ended(key, tc.res, tc.err, "5", "6")
			now = now.Add(tc.later)
			if d := s.wait(key, tc.version); (d > 0) != tc.skip || (tc.skip && d != tc.res.RequeueAfter-tc.later) {
				t.Errorf("wait = %s, want skipped %t until the planned look", d, tc.skip)
			}
		})
	}
}

// TestCatchUpLabelsBackendRequests: the reconcile catchUp runs carries
// the resource's namespace and ProviderConfig for the backend metrics;
// a namespace's ProviderConfig by kind only (its name is the tenant's).
func TestCatchUpLabelsBackendRequests(t *testing.T) {
	s := runtime.NewScheme()
	if err := jenkinsv1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := v1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	platform := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "team"}}
	platform.SetProviderConfigReference(&xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "platform"})
	own := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "team"}}
	own.SetProviderConfigReference(&xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "whatever-the-team-chose"})
	// A name the tenant wrote that names no ClusterProviderConfig.
	made := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "team"}}
	made.SetProviderConfigReference(&xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "random-4f2a"})
	cpc := &v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "platform"}}
	cache := fake.NewClientBuilder().WithScheme(s).WithObjects(platform, own, made, cpc).Build()
	var got httpapi.Labels
	inner := reconcile.Func(func(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
		got = httpapi.LabelsOf(ctx)
		return reconcile.Result{}, nil
	})
	// Without seen, as for a kind that watches other objects too: every
	// kind passes here, whether or not it skips wake-ups.
	r := catchUp[*jenkinsv1alpha1.JenkinsPipeline]{Reconciler: inner, kube: cache, new: func() *jenkinsv1alpha1.JenkinsPipeline { return &jenkinsv1alpha1.JenkinsPipeline{} }, w: newWritten()}
	for name, want := range map[string]httpapi.Labels{
		"a":    {Namespace: "team", Config: "ClusterProviderConfig/platform"},
		"b":    {Namespace: "team", Config: "ProviderConfig"},
		"c":    {Namespace: "team", Config: "ClusterProviderConfig"},
		"gone": {Namespace: "team"},
	} {
		if _, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "team", Name: name}}); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: labels %+v, want %+v", name, got, want)
		}
	}
}

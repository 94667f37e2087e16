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

package backendconfig

import (
	"context"
	"testing"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	registryv1alpha1 "github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
)

// TestUsageTrackerCacheBehind: a usage the API server already holds, and
// the cache not yet, is recorded; any other failure still fails.
func TestUsageTrackerCacheBehind(t *testing.T) {
	s := runtime.NewScheme()
	_ = v1alpha1.SchemeBuilder.AddToScheme(s)
	_ = registryv1alpha1.SchemeBuilder.AddToScheme(s)
	mr := &registryv1alpha1.RegistryRepo{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web", UID: "u-1"}}
	mr.SetGroupVersionKind(registryv1alpha1.RegistryRepoGroupVersionKind)
	mr.SetProviderConfigReference(&xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"})
	gr := schema.GroupResource{Group: v1alpha1.Group, Resource: "providerconfigusages"}
	for name, tc := range map[string]struct {
		create error
		ok     bool
		later  int // creates after the third Track
	}{
		"created":                     {ok: true, later: 1},
		"already there, cache behind": {create: kerrors.NewAlreadyExists(gr, "u-1"), ok: true, later: 2},
		"refused for another reason":  {create: kerrors.NewForbidden(gr, "u-1", nil), later: 3},
		"the API server is not there": {create: kerrors.NewServiceUnavailable("down"), later: 3},
	} {
		t.Run(name, func(t *testing.T) {
			creates := 0
			kube := fake.NewClientBuilder().WithScheme(s).WithInterceptorFuncs(interceptor.Funcs{
				Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
					creates++
					if tc.create != nil {
						return tc.create
					}
					return c.Create(ctx, obj, opts...)
				},
			}).Build()
			tr := NewUsageTracker(kube)
			err := tr.Track(context.Background(), mr)
			if (err == nil) != tc.ok || creates != 1 {
				t.Errorf("Track: %v after %d creates, want ok=%t after 1", err, creates, tc.ok)
			}
			// Tracked again at once (the next reconcile, the cache
			// behind): recorded already, unless it failed.
			_ = tr.Track(context.Background(), mr)
			if want := map[bool]int{true: 1, false: 2}[tc.ok]; creates != want {
				t.Errorf("tracked again at once: %d creates, want %d", creates, want)
			}
			// Once the cache may have caught up, checked again as usual:
			// read, and created when not there.
			tr.(*usageTracker).now = func() time.Time { return time.Now().Add(cacheLag) }
			_ = tr.Track(context.Background(), mr)
			if creates != tc.later {
				t.Errorf("tracked again later: %d creates, want %d", creates, tc.later)
			}
		})
	}
}

// TestUsageTrackerRefChangedBack: a reference changed from A to B and back
// to A within cacheLag is recorded as A again, not left at B.
func TestUsageTrackerRefChangedBack(t *testing.T) {
	s := runtime.NewScheme()
	_ = v1alpha1.SchemeBuilder.AddToScheme(s)
	_ = registryv1alpha1.SchemeBuilder.AddToScheme(s)
	mr := &registryv1alpha1.RegistryRepo{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web", UID: "u-1"}}
	mr.SetGroupVersionKind(registryv1alpha1.RegistryRepoGroupVersionKind)
	kube := fake.NewClientBuilder().WithScheme(s).Build()
	tr := NewUsageTracker(kube)
	for _, pc := range []string{"a", "b", "a"} {
		mr.SetProviderConfigReference(&xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: pc})
		if err := tr.Track(context.Background(), mr); err != nil {
			t.Fatal(err)
		}
	}
	pcu := &v1alpha1.ProviderConfigUsage{}
	if err := kube.Get(context.Background(), client.ObjectKey{Namespace: "team-a", Name: "u-1"}, pcu); err != nil {
		t.Fatal(err)
	}
	if got := pcu.GetProviderConfigReference().Name; got != "a" {
		t.Errorf("usage records ProviderConfig %q, the resource uses %q", got, "a")
	}
}

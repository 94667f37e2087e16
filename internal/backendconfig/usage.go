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
	"sync"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
)

// NewUsageTracker records, as crossplane-runtime's tracker does, that a
// managed resource uses its ProviderConfig: a ProviderConfigUsage named by
// the resource's UID, created when the cache does not hold it.
//
// A new resource's second reconcile follows its first within milliseconds,
// often before the cache has seen the usage the first created; its create
// then fails as already existing, which crossplane-runtime's tracker
// reports as an error that fails the reconcile, costs a write and a
// back-off. So a usage recorded in the last cacheLag is not recorded again,
// and one that already exists is taken as recorded: it is named by this
// resource's UID, and a later connect, with the cache caught up, checks it
// as usual (controlled by the resource, of its config).
func NewUsageTracker(kube client.Client) Tracker {
	return &usageTracker{Tracker: resource.NewProviderConfigUsageTracker(kube, &v1alpha1.ProviderConfigUsage{}), recent: map[types.UID]recorded{}, now: time.Now}
}

// cacheLag is how long a recorded usage is not recorded again.
const cacheLag = 30 * time.Second

// maxRecent bounds the usages remembered; past it, the expired go.
const maxRecent = 10_000

// recorded is the config a resource's usage was last recorded for, and
// when. Keyed by the resource's UID alone, so that a reference changed
// back and forth within cacheLag is recorded again each time.
type recorded struct {
	ref xpv2.ProviderConfigReference
	at  time.Time
}

type usageTracker struct {
	Tracker
	now    func() time.Time
	mu     sync.Mutex
	recent map[types.UID]recorded
}

func (u *usageTracker) Track(ctx context.Context, mg resource.ModernManaged) error {
	ref := mg.GetProviderConfigReference()
	if ref == nil {
		return u.Tracker.Track(ctx, mg)
	}
	key := mg.GetUID()
	u.mu.Lock()
	r, ok := u.recent[key]
	u.mu.Unlock()
	if ok && r.ref == *ref && u.now().Sub(r.at) < cacheLag {
		return nil
	}
	if err := u.Tracker.Track(ctx, mg); err != nil && !kerrors.IsAlreadyExists(err) {
		return err
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	now := u.now()
	if len(u.recent) >= maxRecent {
		for k, r := range u.recent {
			if now.Sub(r.at) >= cacheLag {
				delete(u.recent, k)
			}
		}
	}
	if _, ok := u.recent[key]; ok || len(u.recent) < maxRecent {
		u.recent[key] = recorded{ref: *ref, at: now}
	}
	return nil
}

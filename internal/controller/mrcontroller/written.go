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
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// A reconcile that starts from a cached object older than the provider's
// own last write of it can only fail: its writes carry the old version
// and the API server refuses them as conflicts, each refusal a write, a
// failed reconcile and a back-off. That is common, not rare: the write
// that ends a create (the create-succeeded annotation) wakes the reconcile
// that observes the new object, often before the cache holds that write.
// At 10,000 new resources a third of them lost a status write and a
// second this way. So the versions the provider's writes supersede are
// remembered for a few seconds, and a reconcile that finds one of them in
// the cache waits, briefly, for the cache to catch up.
const (
	// catchUpWait is how long a reconcile waits for the cache at most; a
	// cache further behind than that reconciles as before.
	catchUpWait = 2 * time.Second
	// catchUpPoll is how often it looks meanwhile.
	catchUpPoll = 10 * time.Millisecond
	// supersededFor is how long superseded versions are remembered.
	supersededFor = 10 * time.Second
	// maxWritten bounds the resources remembered; past it, the expired go.
	maxWritten = 10_000
)

// written remembers, per resource, the versions its latest writes made
// stale.
type written struct {
	mu  sync.Mutex
	m   map[types.NamespacedName]superseded
	now func() time.Time
}

type superseded struct {
	versions []string
	at       time.Time
	// updated is when the object itself (not its status) was last
	// written: a change of its metadata or spec, which, unlike a status
	// write, the controller's DesiredStateChanged filter may let through.
	updated time.Time
}

func newWritten() *written {
	return &written{m: map[types.NamespacedName]superseded{}, now: time.Now}
}

// wrote notes that a write replaced version old of obj; status tells a
// status write from one of the object itself.
func (w *written) wrote(obj client.Object, old string, status bool) {
	if old == "" || old == obj.GetResourceVersion() {
		return
	}
	key := client.ObjectKeyFromObject(obj)
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.now()
	s, ok := w.m[key]
	if !ok && len(w.m) >= maxWritten {
		for k, s := range w.m {
			if now.Sub(s.at) > supersededFor {
				delete(w.m, k)
			}
		}
		if len(w.m) >= maxWritten {
			return
		}
	}
	if now.Sub(s.at) > supersededFor {
		s.versions = nil
	}
	// A create writes three times at most in one reconcile.
	s.versions = append(s.versions[max(len(s.versions)-3, 0):], old)
	s.at = now
	if !status {
		s.updated = now
	}
	w.m[key] = s
}

// stale is true when version of the resource key was superseded by a
// recent write.
func (w *written) stale(key types.NamespacedName, version string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.m[key]
	switch {
	case !ok:
		return false
	case w.now().Sub(s.at) > supersededFor:
		delete(w.m, key)
		return false
	case slices.Contains(s.versions, version):
		return true
	}
	// The cache holds the latest write, or a later one.
	delete(w.m, key)
	return false
}

// updatedSince is true when the resource itself, not only its status, was
// written after t. After an accepted Create that write can only be the
// create-succeeded annotation, whose watch event passes the controller's
// filter; a status write's does not.
func (w *written) updatedSince(key types.NamespacedName, t time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.m[key]
	return ok && s.updated.After(t)
}

// writtenClient notes the versions its updates supersede.
type writtenClient struct {
	client.Client
	w *written
}

func (c writtenClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	old := obj.GetResourceVersion()
	err := c.Client.Update(ctx, obj, opts...)
	if err == nil {
		c.w.wrote(obj, old, false)
	}
	return err
}

func (c writtenClient) Status() client.SubResourceWriter {
	return writtenStatus{SubResourceWriter: c.Client.Status(), w: c.w}
}

type writtenStatus struct {
	client.SubResourceWriter
	w *written
}

func (s writtenStatus) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	old := obj.GetResourceVersion()
	err := s.SubResourceWriter.Update(ctx, obj, opts...)
	if err == nil {
		s.w.wrote(obj, old, true)
	}
	return err
}

// catchUp makes a reconcile wait, up to catchUpWait, until the cache holds
// the resource as the provider last wrote it.
type catchUp[T client.Object] struct {
	reconcile.Reconciler
	kube client.Reader
	new  func() T
	w    *written
}

func (c catchUp[T]) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	deadline := time.Now().Add(catchUpWait)
	for {
		cr := c.new()
		if err := c.kube.Get(ctx, req.NamespacedName, cr, client.UnsafeDisableDeepCopy); err != nil || !c.w.stale(req.NamespacedName, cr.GetResourceVersion()) || time.Now().After(deadline) {
			return c.Reconciler.Reconcile(ctx, req)
		}
		select {
		case <-ctx.Done():
			return reconcile.Result{}, ctx.Err()
		case <-time.After(catchUpPoll):
		}
	}
}

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
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

// A reconcile that starts from a cached object older than the provider's
// own last write of it can only fail: its writes carry the old version
// and the API server refuses them as conflicts, each refusal a write, a
// failed reconcile and a back-off. That is common, not rare: the Update
// made before a create wakes the reconcile that observes the new object,
// often before the cache holds that write.
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
	// latest is the version the last write made.
	latest string
	at     time.Time
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
	s.latest = obj.GetResourceVersion()
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
// written after t. In a reconcile that creates, that write is the Update
// before the create, whose watch event passes the controller's filter; a
// status write's does not.
func (w *written) updatedSince(key types.NamespacedName, t time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.m[key]
	return ok && s.updated.After(t)
}

// latestSince is the version the resource's last write made, if that
// write was after t.
func (w *written) latestSince(key types.NamespacedName, t time.Time) (string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.m[key]
	if !ok || !s.at.After(t) {
		return "", false
	}
	return s.latest, true
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
	// seen, when set, is told what each reconcile saw and planned.
	seen *seen
}

func (c catchUp[T]) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	deadline := time.Now().Add(catchUpWait)
	for {
		cr := c.new()
		err := c.kube.Get(ctx, req.NamespacedName, cr, client.UnsafeDisableDeepCopy)
		if err != nil || !c.w.stale(req.NamespacedName, cr.GetResourceVersion()) || time.Now().After(deadline) {
			// The backend requests of this reconcile are counted for its
			// namespace and ProviderConfig.
			l := httpapi.Labels{Namespace: req.Namespace}
			if err == nil {
				l.Config = configLabel(ctx, c.kube, cr)
			}
			ctx = httpapi.WithLabels(ctx, l)
			if err != nil || c.seen == nil {
				return c.Reconciler.Reconcile(ctx, req)
			}
			start, version := time.Now(), cr.GetResourceVersion()
			res, err := c.Reconciler.Reconcile(ctx, req)
			latest, _ := c.w.latestSince(req.NamespacedName, start)
			c.seen.ended(req.NamespacedName, res, err, version, latest)
			return res, err
		}
		select {
		case <-ctx.Done():
			return reconcile.Result{}, ctx.Err()
		case <-time.After(catchUpPoll):
		}
	}
}

// The write that ends a create wakes the reconcile that observes the new
// object; that reconcile waits for the cache to hold the write, and the
// write's own watch event, arriving meanwhile, queues the resource once
// more. That third reconcile saw nothing new, but took a rate-limit token
// and read the backend again: at 2,000 new resources, two in three had it.
// So a reconcile that ends planning its next look remembers the versions
// it started from and wrote, and a reconcile within seenFor after it that
// finds the resource at one of them is not run: the planned look stands.
// Anything that changes the resource (a spec, label or annotation edit,
// its deletion) makes a new version and runs at once; kinds that are also
// woken by other objects (a credential's Secret) do not skip.
const (
	// seenFor is how long after a reconcile a wake-up with nothing new is
	// skipped.
	seenFor = 2 * time.Second
	// maxSeen bounds the resources remembered; past it, the expired go.
	maxSeen = 10_000
)

// seen remembers, per resource, what its last reconcile saw and planned.
type seen struct {
	mu  sync.Mutex
	m   map[types.NamespacedName]look
	now func() time.Time
}

type look struct {
	versions [2]string
	ended    time.Time
	next     time.Time
}

func newSeen() *seen { return &seen{m: map[types.NamespacedName]look{}, now: time.Now} }

// ended notes a reconcile of key that started from version and wrote
// latest ("" if nothing): when it planned its next look, a wake-up before
// then that finds one of them is skipped for seenFor.
func (s *seen) ended(key types.NamespacedName, res reconcile.Result, err error, version, latest string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if err != nil || res.Requeue || res.RequeueAfter <= 0 { //nolint:staticcheck // the managed reconciler still answers Requeue
		delete(s.m, key)
		return
	}
	if _, ok := s.m[key]; !ok && len(s.m) >= maxSeen {
		for k, l := range s.m {
			if now.Sub(l.ended) > seenFor {
				delete(s.m, k)
			}
		}
		if len(s.m) >= maxSeen {
			return
		}
	}
	s.m[key] = look{versions: [2]string{version, cmp.Or(latest, version)}, ended: now, next: now.Add(res.RequeueAfter)}
}

// wait is how long until the planned look of key, when a reconcile now
// would find version, which the last reconcile saw or wrote, within
// seenFor of it; 0 otherwise.
func (s *seen) wait(key types.NamespacedName, version string) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.m[key]
	now := s.now()
	if !ok || version == "" || now.Sub(l.ended) > seenFor || !now.Before(l.next) || (version != l.versions[0] && version != l.versions[1]) {
		return 0
	}
	return l.next.Sub(now)
}

// skipSeen skips a reconcile that would find nothing new: see seen. It
// runs before the rate limiter, so a skipped wake-up takes no token.
type skipSeen[T client.Object] struct {
	reconcile.Reconciler
	kube client.Reader
	new  func() T
	seen *seen
}

func (s skipSeen[T]) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cr := s.new()
	if err := s.kube.Get(ctx, req.NamespacedName, cr, client.UnsafeDisableDeepCopy); err == nil {
		if d := s.seen.wait(req.NamespacedName, cr.GetResourceVersion()); d > 0 {
			return reconcile.Result{RequeueAfter: d}, nil
		}
	}
	return s.Reconciler.Reconcile(ctx, req)
}

// configLabel is the metrics' config label of o's ProviderConfig. A
// ClusterProviderConfig is named only when it exists: the name in the
// reference is the tenant's to write, and one changed between this read
// and the reconcile's own must not become a label.
func configLabel(ctx context.Context, kube client.Reader, o client.Object) string {
	mg, ok := o.(interface {
		GetProviderConfigReference() *xpv2.ProviderConfigReference
	})
	if !ok {
		return ""
	}
	ref := mg.GetProviderConfigReference()
	if ref == nil {
		return ""
	}
	if ref.Kind == clusterProviderConfig && kube.Get(ctx, types.NamespacedName{Name: ref.Name}, &v1alpha1.ClusterProviderConfig{}) != nil {
		return clusterProviderConfig
	}
	return httpapi.ConfigLabel(ref.Kind, ref.Name)
}

// clusterProviderConfig is the platform's ProviderConfig kind.
const clusterProviderConfig = "ClusterProviderConfig"

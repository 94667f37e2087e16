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
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/contract"
)

// skipNoopStatus gives the managed reconciler a client whose status writes
// are skipped when they would change nothing. crossplane-runtime writes the
// status at the end of every reconcile, also when a poll found the resource
// up to date; each such write is an API request (a PUT the API server then
// discards as a no-op). Skipping it is safe: the object compared with is the
// cached one the reconcile started from, so an update would either change
// nothing or, against a newer version, fail with a conflict.
type skipNoopStatus struct {
	manager.Manager
	w *written
	// p, when set, coalesces the progress of resources being created.
	p *progress
}

// GetClient returns the filtering client, which notes what it writes.
func (m skipNoopStatus) GetClient() client.Client {
	return noopStatusClient{Client: pendingClient{writtenClient{Client: m.Manager.GetClient(), w: m.w}}, p: m.p}
}

type noopStatusClient struct {
	client.Client
	p *progress
}

func (c noopStatusClient) Status() client.SubResourceWriter {
	return noopStatusWriter{SubResourceWriter: c.Client.Status(), reader: c.Client, p: c.p}
}

type noopStatusWriter struct {
	client.SubResourceWriter
	reader client.Reader
	p      *progress
}

// Update skips the write when the cached object is identical, and the
// Creating status crossplane-runtime writes right after an external create
// (see creation.go): the reconcile that observes the new object follows at
// once and writes what it found.
func (w noopStatusWriter) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	key := client.ObjectKeyFromObject(obj)
	if len(opts) == 0 {
		cached, ok := obj.DeepCopyObject().(client.Object)
		if ok && w.reader.Get(ctx, key, cached) == nil {
			if equality.Semantic.DeepEqual(cached, obj) || justCreated(cached, obj) {
				return nil
			}
			if w.p != nil && !w.p.due(key, cached, obj) {
				w.p.hold(key)
				return nil
			}
		}
	}
	err := w.SubResourceWriter.Update(ctx, obj, opts...)
	if err == nil && w.p != nil {
		w.p.wrote(key)
	}
	return err
}

// A resource being created reports its backend's progress: an Argo CD
// application's first sync goes through several sync and health states in
// its first seconds, each a status write when a poll sees it. Each write
// is also a watch event of the composite that composed the resource, two
// tokens of Crossplane's circuit breaker (it maps the old and the new
// object), and a run of its composition function, which copies the
// progress into the composite's status, another event. So while a
// resource is young (progressYoung) and not Ready, a status write that
// changes no condition's status or reason, only messages and atProvider,
// is made at most every progressEvery, and the next look is planned for
// when it is due; every transition is written at once. `kubectl get`
// shows such progress up to progressEvery late. At 5s an application's
// first sync (about 15s) still wrote its progress once in between, which
// with the function's copy of it cost its project's XR about six tokens
// of the breaker's hundred: 20s outlasts a first sync.
const (
	progressEvery = 20 * time.Second
	progressYoung = 2 * time.Minute
	// maxProgress bounds the resources remembered; past it, the expired go.
	maxProgress = 10_000
)

// progress remembers when each resource's status was last written, and
// which resources have a write held back.
type progress struct {
	mu   sync.Mutex
	last map[types.NamespacedName]time.Time
	held map[types.NamespacedName]bool
	now  func() time.Time
}

func newProgress() *progress {
	return &progress{last: map[types.NamespacedName]time.Time{}, held: map[types.NamespacedName]bool{}, now: time.Now}
}

// hold notes that a status write of key was held back.
func (p *progress) hold(key types.NamespacedName) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.held) >= maxProgress {
		// Those of resources gone, or long written since.
		now := p.now()
		for k := range p.held {
			if now.Sub(p.last[k]) >= progressYoung {
				delete(p.held, k)
			}
		}
	}
	if len(p.held) < maxProgress {
		p.held[key] = true
	}
}

// PollInterval shortens interval, the time to the next look at mg, to when
// a status write held back becomes due: so the progress is written then,
// not at the next poll, which for a young resource may be 15s away.
func (p *progress) PollInterval(next managed.PollIntervalHook) managed.PollIntervalHook {
	return func(mg resource.Managed, interval time.Duration) time.Duration {
		d := next(mg, interval)
		key := types.NamespacedName{Namespace: mg.GetNamespace(), Name: mg.GetName()}
		p.mu.Lock()
		defer p.mu.Unlock()
		if !p.held[key] {
			return d
		}
		return min(d, max(p.last[key].Add(progressEvery).Sub(p.now()), minHeldLook))
	}
}

// minHeldLook is the soonest look PollInterval plans for a held write.
const minHeldLook = 100 * time.Millisecond

// due is false for a status write of obj (stored as cached) that only
// reports progress of a young resource not Ready, within progressEvery of
// its last status write.
func (p *progress) due(key types.NamespacedName, cached, obj client.Object) bool {
	was, okc := cached.(resource.Managed)
	mg, ok := obj.(resource.Managed)
	if !ok || !okc || !progressOnly(was, mg) {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	last, seen := p.last[key]
	return now.Sub(mg.GetCreationTimestamp().Time) >= progressYoung || !seen || now.Sub(last) >= progressEvery
}

// wrote notes a status write of key.
func (p *progress) wrote(key types.NamespacedName) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.held, key)
	now := p.now()
	if _, ok := p.last[key]; !ok && len(p.last) >= maxProgress {
		for k, t := range p.last {
			if now.Sub(t) >= progressEvery {
				delete(p.last, k)
			}
		}
		if len(p.last) >= maxProgress {
			return
		}
	}
	p.last[key] = now
}

// progressOnly is true when mg, not Ready, has its Ready and Synced
// conditions with the same status, reason and observed generation as was,
// and the same Created condition.
func progressOnly(was, mg resource.Managed) bool {
	if mg.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue {
		return false
	}
	for _, t := range []xpv2.ConditionType{xpv2.TypeReady, xpv2.TypeSynced} {
		b, a := was.GetCondition(t), mg.GetCondition(t)
		if b.Status != a.Status || b.Reason != a.Reason || b.ObservedGeneration != a.ObservedGeneration {
			return false
		}
	}
	// A create recorded, first or again, is never held back.
	return was.GetCondition(contract.ConditionCreated).Equal(mg.GetCondition(contract.ConditionCreated))
}

// justCreated is true for the status crossplane-runtime writes after
// creating the external object of a resource that has none yet: Creating
// and ReconcileSuccess, where the stored object has no conditions.
func justCreated(cached, obj client.Object) bool {
	was, okc := cached.(resource.Managed)
	mg, ok := obj.(resource.Managed)
	if !ok || !okc || was.GetCondition(xpv2.TypeSynced).Status != corev1.ConditionUnknown || was.GetCondition(xpv2.TypeReady).Status != corev1.ConditionUnknown {
		return false
	}
	return mg.GetCondition(xpv2.TypeReady).Reason == xpv2.ReasonCreating && mg.GetCondition(xpv2.TypeSynced).Reason == xpv2.ReasonReconcileSuccess
}

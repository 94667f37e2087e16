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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/events/vocab"
)

// Creating a managed resource the way crossplane-runtime does by default
// writes it six times: the external name and the finalizer (an Update
// each), the create-pending annotation (an Update that fails on a stale
// version, made before the external Create), the create-succeeded
// annotation (an Update after it), the Creating status, and the
// CreatedExternalResource event; then the first observed status. Here:
//
//   - the external name and the finalizer are set in memory (initializer)
//     and written by the Update before the create; a resource that has
//     them already (the DevOpsProject function composes its resources
//     with both) is not written at all, for that Update then changes
//     nothing and the API server makes no write of it (it still refuses
//     one from a stale version, so a stale cache cannot create);
//   - no create-pending or create-succeeded annotation is written
//     (pendingClient, noCriticalAnnotations): they keep a create's result
//     from being lost when the external name is only known once created,
//     and every kind here names its object before creating it. The
//     reconcile that observes the new object, which follows at once,
//     records the create as the Created condition (vocab.Created) with
//     the status it writes anyway (persistObserved);
//   - the Creating status is not written (skipNoopStatus);
//   - the CreatedExternalResource event is not sent (withoutCreatedEvent):
//     the Created condition and the lifecycle stream's created event
//     record the creation.
//
// A new resource then costs three writes (the Update before the create,
// its first status, its ProviderConfigUsage) instead of nine, and a
// composed one two: its composite's controller sees it added and its
// first status, three tokens of Crossplane's circuit breaker (an update
// costs two), where crossplane-runtime's writes cost thirteen.
//
// A provider stopped between a create and that status (a crash, a lost
// lease) leaves no record of the create on the resource. The next leader
// records it when it finds the object of a resource that never had a
// status written and whose ProviderConfigUsage was there before it
// connected: the usage is recorded before the first Observe, so an
// earlier reconcile ran, found no object and created it. A new resource
// that finds an object on its first reconcile (one an orphaned resource
// of the same name left) has no usage yet, and records no create.

// initializer sets the external name, from the spec (name, when the kind
// has a deterministic one) or else the resource's own name, and
// crossplane-runtime's finalizer, in memory: written with the Update before
// the external Create, or by persistObserved.
type initializer[T resource.Managed] struct {
	name func(T) string
}

func (i initializer[T]) Initialize(_ context.Context, mg resource.Managed) error {
	// A resource deleted before it was ever initialized is still observed
	// by its name (to let go of it), but gets no finalizer.
	if meta.GetExternalName(mg) == "" {
		n := mg.GetName()
		if i.name != nil {
			cr, ok := mg.(T)
			if !ok {
				return errors.Errorf("unexpected managed resource type %T", mg)
			}
			n = i.name(cr)
		}
		meta.SetExternalName(mg, n)
	}
	if !meta.WasDeleted(mg) {
		meta.AddFinalizer(mg, managed.FinalizerName)
	}
	return nil
}

// persistConnector writes what initializer set in memory when Observe finds
// the external object already there (adopted, or created before a crash),
// so no Create, and no Update before it, will write it; and records
// creates (see above).
type persistConnector[T resource.Managed] struct {
	managed.TypedExternalConnector[T]
	kube client.Client
	// accepted holds this replica's creates until they are recorded.
	accepted *creates
}

func (c persistConnector[T]) Connect(ctx context.Context, cr T) (managed.TypedExternalClient[T], error) {
	// Whether an earlier reconcile connected, asked before this one
	// records the usage; only for a resource that never had a status.
	earlier := false
	if neverObserved(cr) {
		earlier = c.kube.Get(ctx, types.NamespacedName{Namespace: cr.GetNamespace(), Name: string(cr.GetUID())}, &v1alpha1.ProviderConfigUsage{}) == nil
	}
	ec, err := c.TypedExternalConnector.Connect(ctx, cr)
	if err != nil {
		return nil, err
	}
	return persistObserved[T]{TypedExternalClient: ec, kube: c.kube, accepted: c.accepted, earlier: earlier}, nil
}

type persistObserved[T resource.Managed] struct {
	managed.TypedExternalClient[T]
	kube     client.Client
	accepted *creates
	earlier  bool
}

func (p persistObserved[T]) Observe(ctx context.Context, cr T) (managed.ExternalObservation, error) {
	o, err := p.TypedExternalClient.Observe(ctx, cr)
	if err != nil || !o.ResourceExists || meta.WasDeleted(cr) {
		return o, err
	}
	if err := persistInitialized(ctx, p.kube, cr); err != nil {
		return managed.ExternalObservation{}, err
	}
	key := types.NamespacedName{Namespace: cr.GetNamespace(), Name: cr.GetName()}
	at, ok := p.accepted.recorded(key, cr.GetUID(), vocab.CreatedAt(cr))
	switch {
	case ok:
		cr.SetConditions(vocab.Created(at))
	case createCutShort(cr, p.earlier, time.Now()):
		cr.SetConditions(vocab.Created(time.Now()))
	}
	return o, nil
}

func (p persistObserved[T]) Create(ctx context.Context, cr T) (managed.ExternalCreation, error) {
	c, err := p.TypedExternalClient.Create(ctx, cr)
	if err == nil {
		p.accepted.add(types.NamespacedName{Namespace: cr.GetNamespace(), Name: cr.GetName()}, cr.GetUID(), time.Now())
	}
	return c, err
}

// persistInitialized writes cr when the stored object (as cached) lacks
// its finalizer or external name.
func persistInitialized(ctx context.Context, kube client.Client, cr resource.Managed) error {
	stored, ok := cr.DeepCopyObject().(resource.Managed)
	if !ok {
		return errors.Errorf("unexpected managed resource type %T", cr)
	}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(cr), stored); err != nil {
		return errors.Wrap(err, "cannot read the managed resource")
	}
	if meta.FinalizerExists(stored, managed.FinalizerName) && meta.GetExternalName(stored) == meta.GetExternalName(cr) {
		return nil
	}
	// The Update answers with the stored status: nothing is recorded in
	// cr's status before it.
	return errors.Wrap(kube.Update(ctx, cr), "cannot record the external name and finalizer")
}

// neverObserved is true for a resource that never had a status written:
// every reconcile but one that creates (or stops) writes Synced.
func neverObserved(mg resource.Managed) bool {
	return mg.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionUnknown
}

// createCutShort is true when a create of mg's external object was cut
// short before its record (see above): mg, whose policies let the
// provider create, never had a status written and an earlier reconcile
// connected (earlier), or an earlier version's create-pending annotation
// records a create begun (at a time that has come, give or take the
// replicas' clock skew) and not recorded since.
func createCutShort(mg resource.Managed, earlier bool, now time.Time) bool {
	if !MayWrite(mg) {
		return false
	}
	created := vocab.CreatedAt(mg)
	if earlier && neverObserved(mg) && created.IsZero() {
		return true
	}
	pending, err := time.Parse(time.RFC3339, mg.GetAnnotations()[meta.AnnotationKeyExternalCreatePending])
	return err == nil && !pending.After(now.Add(vocab.MaxClockSkew)) && pending.After(created)
}

// pendingClient drops crossplane-runtime's create-pending annotation from
// the Update it makes before an external create (see above): with it, the
// Update would write the resource, and without its create-succeeded
// counterpart it would read as a create whose result was lost.
type pendingClient struct {
	client.Client
}

func (c pendingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	if a := obj.GetAnnotations(); a[meta.AnnotationKeyExternalCreatePending] != "" {
		delete(a, meta.AnnotationKeyExternalCreatePending)
		obj.SetAnnotations(a)
	}
	return c.Client.Update(ctx, obj, opts...)
}

// noCriticalAnnotations writes nothing after an external create, or after
// one that failed: see above. crossplane-runtime's updater would write the
// create-succeeded (or -failed) annotation, and any external name the
// create set, which no kind here does.
func noCriticalAnnotations(context.Context, client.Object) error { return nil }

// creates remembers the creates this replica's backends accepted, per
// resource, until the look that records them.
type creates struct {
	mu sync.Mutex
	m  map[types.NamespacedName]accepted
}

type accepted struct {
	uid types.UID
	at  time.Time
}

// forgetCreateAfter is how long an unrecorded create is remembered; a
// resource not looked at for that long is recorded by createCutShort.
const forgetCreateAfter = 10 * time.Minute

func newCreates() *creates { return &creates{m: map[types.NamespacedName]accepted{}} }

func (c *creates) add(key types.NamespacedName, uid types.UID, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; !ok && len(c.m) >= maxWritten {
		for k, a := range c.m {
			if at.Sub(a.at) > forgetCreateAfter {
				delete(c.m, k)
			}
		}
		if len(c.m) >= maxWritten {
			return
		}
	}
	c.m[key] = accepted{uid: uid, at: at}
}

// recorded returns when the create of the resource key (of uid) was
// accepted, if that is after its record (at): the create to record. Once
// the resource holds it (a later look finds at no earlier), it is
// forgotten; kept until then, a status write that failed, or that was
// coalesced, records it at the next look.
func (c *creates) recorded(key types.NamespacedName, uid types.UID, at time.Time) (time.Time, bool) {
	if c == nil {
		return time.Time{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.m[key]
	switch {
	case !ok:
		return time.Time{}, false
	case a.uid != uid || !a.at.Truncate(time.Second).After(at):
		// Another resource of the name, or recorded (the condition
		// keeps whole seconds).
		delete(c.m, key)
		return time.Time{}, false
	}
	return a.at, true
}

// withoutCreatedEvent drops the CreatedExternalResource event: see above.
type withoutCreatedEvent struct {
	event.Recorder
}

func (r withoutCreatedEvent) Event(obj runtime.Object, e event.Event) {
	if e.Type == event.TypeNormal && e.Reason == reasonCreated {
		return
	}
	r.Recorder.Event(obj, e)
}

func (r withoutCreatedEvent) WithAnnotations(keysAndValues ...string) event.Recorder {
	return withoutCreatedEvent{r.Recorder.WithAnnotations(keysAndValues...)}
}

// reasonCreated is crossplane-runtime's reason of the event it sends after
// an external create.
const reasonCreated event.Reason = "CreatedExternalResource"

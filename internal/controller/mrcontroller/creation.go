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
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/contract"
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
//     and written by the Update before the create, which records when the
//     create began in contract.AnnotationCreatePending (pendingClient); a
//     resource whose external object turns out to exist already (adopted,
//     or created before a crash) gets them written by persistObserved;
//   - nothing is written after the create (noCriticalAnnotations): the
//     reconcile that observes the new object follows at once and records
//     the create as contract.ConditionCreated with the status it writes
//     anyway (persistObserved). Every kind names its external object
//     before creating it, so there is nothing else to keep: a provider
//     stopped between the create and that status finds, from the pending
//     annotation, that it began a create, and records it then;
//   - the Creating status is not written (skipNoopStatus);
//   - the CreatedExternalResource event is not sent (withoutCreatedEvent):
//     the Created condition and the lifecycle stream's created event
//     record the creation.
//
// A new resource that is ready once created then costs three writes (the
// Update before the create, its first status, its ProviderConfigUsage)
// instead of nine; a composed one wakes its composite's controller three
// times (added, updated, its status) instead of four, which is what keeps a
// project's creation under Crossplane's circuit breaker.

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
// so no Create, and no Update before it, will write it.
type persistConnector[T resource.Managed] struct {
	managed.TypedExternalConnector[T]
	kube client.Client
}

func (c persistConnector[T]) Connect(ctx context.Context, cr T) (managed.TypedExternalClient[T], error) {
	ec, err := c.TypedExternalConnector.Connect(ctx, cr)
	if err != nil {
		return nil, err
	}
	return persistObserved[T]{TypedExternalClient: ec, kube: c.kube}, nil
}

type persistObserved[T resource.Managed] struct {
	managed.TypedExternalClient[T]
	kube client.Client
}

func (p persistObserved[T]) Observe(ctx context.Context, cr T) (managed.ExternalObservation, error) {
	o, err := p.TypedExternalClient.Observe(ctx, cr)
	if err != nil || !o.ResourceExists || meta.WasDeleted(cr) {
		return o, err
	}
	if err := persistInitialized(ctx, p.kube, cr); err != nil {
		return managed.ExternalObservation{}, err
	}
	return o, nil
}

// persistInitialized writes cr when the stored object (as cached) lacks
// its finalizer or external name, and records a create that has no record
// yet in cr's status (which the reconcile writes): the one this provider
// just made, or one a provider stopped (a crash, a lost lease) after it
// began. Recording it sends the lifecycle stream's created event, which
// would otherwise be lost with the provider that made the object.
func persistInitialized(ctx context.Context, kube client.Client, cr resource.Managed) error {
	stored, ok := cr.DeepCopyObject().(resource.Managed)
	if !ok {
		return errors.Errorf("unexpected managed resource type %T", cr)
	}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(cr), stored); err != nil {
		return errors.Wrap(err, "cannot read the managed resource")
	}
	if !meta.FinalizerExists(stored, managed.FinalizerName) || meta.GetExternalName(stored) != meta.GetExternalName(cr) {
		// The Update answers with the stored status: the record is set
		// after it.
		if err := kube.Update(ctx, cr); err != nil {
			return errors.Wrap(err, "cannot record the external name and finalizer")
		}
	}
	if now := time.Now(); createIncomplete(stored, now) {
		cr.SetConditions(vocab.Created(now))
	}
	return nil
}

// createIncomplete is true when mg records a create it began (at a time
// that has come, give or take the replicas' clock skew) and no result of
// it since, and its policies let the provider create. A time after that is
// no create of this provider's. crossplane-runtime's own annotations count
// too, for a resource a version before this one began creating.
func createIncomplete(mg resource.Managed, now time.Time) bool {
	if !MayWrite(mg) {
		return false
	}
	began := func(key string) bool {
		pending, err := time.Parse(time.RFC3339, mg.GetAnnotations()[key])
		return err == nil && !pending.After(now.Add(vocab.MaxClockSkew)) && pending.After(vocab.CreatedAt(mg))
	}
	return began(contract.AnnotationCreatePending) || meta.ExternalCreateIncomplete(mg) && began(meta.AnnotationKeyExternalCreatePending)
}

// pendingClient records, in the Update crossplane-runtime makes before an
// external create, when the create began as contract.AnnotationCreatePending
// instead of crossplane-runtime's create-pending annotation: without its
// create-succeeded counterpart, which is not written here, that one would
// read as a create whose result was lost.
type pendingClient struct {
	client.Client
}

func (c pendingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	if a := obj.GetAnnotations(); a[meta.AnnotationKeyExternalCreatePending] != "" {
		a[contract.AnnotationCreatePending] = a[meta.AnnotationKeyExternalCreatePending]
		delete(a, meta.AnnotationKeyExternalCreatePending)
		obj.SetAnnotations(a)
	}
	return c.Client.Update(ctx, obj, opts...)
}

// noCriticalAnnotations writes nothing after an external create, or after
// one that failed: see above. crossplane-runtime's updater would write the
// create-succeeded (or -failed) annotation, and any external name the
// create set, which no kind here does.
var noCriticalAnnotations = managed.CriticalAnnotationUpdateFn(func(context.Context, client.Object) error { return nil })

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

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

	"github.com/freeleaps/provider-devops/internal/events/vocab"
)

// Creating a managed resource the way crossplane-runtime does by default
// writes it six times: the external name and the finalizer (an Update
// each), the create-pending annotation (an Update that fails on a stale
// version, made before the external Create), the create-succeeded
// annotation, the Creating status, and the CreatedExternalResource event;
// then the first observed status. Here:
//
//   - the external name and the finalizer are set in memory (initializer)
//     and written by the create-pending Update; a resource whose external
//     object turns out to exist already (adopted, or created before a
//     crash) gets them written by persistObserved instead;
//   - the Creating status is not written (skipNoopStatus): the
//     create-succeeded Update triggers the reconcile that observes the new
//     object at once and writes what it found;
//   - the CreatedExternalResource event is not sent (withoutCreatedEvent):
//     the create-succeeded annotation and the lifecycle stream's created
//     event record the creation.
//
// A new resource that is ready once created then costs four writes (two
// Updates, its first status, its ProviderConfigUsage) instead of nine.

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
// its finalizer or external name, or records a create whose result was
// never recorded: the provider stopped (a crash, a lost lease) between
// the create-pending annotation and the create-succeeded one, and the
// object, under its deterministic name, is there. Recording it ends
// crossplane-runtime's "cannot determine creation result" state and
// sends the lifecycle stream's created event, which would otherwise be
// lost with the provider that made the object.
func persistInitialized(ctx context.Context, kube client.Client, cr resource.Managed) error {
	stored, ok := cr.DeepCopyObject().(resource.Managed)
	if !ok {
		return errors.Errorf("unexpected managed resource type %T", cr)
	}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(cr), stored); err != nil {
		return errors.Wrap(err, "cannot read the managed resource")
	}
	incomplete := createIncomplete(stored, time.Now())
	if meta.FinalizerExists(stored, managed.FinalizerName) && meta.GetExternalName(stored) == meta.GetExternalName(cr) && !incomplete {
		return nil
	}
	if incomplete {
		meta.SetExternalCreateSucceeded(cr, time.Now())
	}
	return errors.Wrap(kube.Update(ctx, cr), "cannot record the external name and finalizer")
}

// createIncomplete is true when mg records a create it began (at a time
// that has come, give or take the replicas' clock skew) and no result of
// it, and its policies let the provider create: what a provider stopped
// mid-create leaves. A time after that is no create of this provider's.
func createIncomplete(mg resource.Managed, now time.Time) bool {
	if !meta.ExternalCreateIncomplete(mg) || !MayWrite(mg) {
		return false
	}
	pending, err := time.Parse(time.RFC3339, mg.GetAnnotations()[meta.AnnotationKeyExternalCreatePending])
	return err == nil && !pending.After(now.Add(vocab.MaxClockSkew))
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

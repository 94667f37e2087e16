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
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/retryafter"
	"github.com/freeleaps/provider-devops/internal/controller/fairrate"
)

// TerminalBackoff is how long a resource waits after its backend refused
// it for good: rejected credentials, missing permissions, an invalid spec
// (httpapi.IsTerminal). The managed reconciler's own back-off starts at a
// second; retrying a rejected token that often gets accounts locked by
// Jenkins, Docker Hub or an SSO in front of Argo CD, and floods their audit
// logs, while the answer cannot change until someone acts. A change of the
// resource's spec still reconciles at once.
const TerminalBackoff = 2 * time.Minute

// MinRetryAfter is the shortest Retry-After a resource is requeued after:
// shorter ones are taken as this, so a server answering "Retry-After: 1"
// (a tenant's own, or one in maintenance) cannot pin a resource to a poll
// every second. The longest is retryafter.MaxWait.
const MinRetryAfter = 30 * time.Second

// MinAfterDeletion is the shortest time a resource is looked at again after its
// backend accepted a Delete (afterDeletion). The managed reconciler asks
// for that look as an immediate requeue, which the controller's rate
// limiter turns into its error back-off: after a few failed reconciles
// that is 8, 16, up to 60 seconds, so a repository Argo CD has deleted
// would keep its finalizer as long.
//
// After an accepted Create it asks the same, but no back-off is wanted:
// the look that records the create should follow at once. When the
// reconcile wrote the resource itself before the create (its finalizer
// and external name), that write's watch event, which arrives while the
// reconcile runs, is the look (with the cache caught up, see written.go),
// and nothing is requeued; a requeue as well would observe the new object
// a second time. When it wrote nothing (a composed resource the function
// made with both), the look is requeued after followCreate.
const MinAfterDeletion = time.Second

// followCreate is how soon the look after an accepted Create comes when
// nothing the reconcile wrote wakes the resource.
const followCreate = time.Millisecond

// afterDeletion is how soon a resource being deleted is looked at again
// while its deletion waits or its backend deletes: a sixth of the time
// since its deletion was asked for, from MinAfterDeletion up to
// NotReadyPollInterval.
func afterDeletion(mg resource.Managed, now time.Time) time.Duration {
	d := mg.GetDeletionTimestamp()
	if d == nil {
		return MinAfterDeletion
	}
	return min(max(now.Sub(d.Time)/notReadyPollFraction, MinAfterDeletion), NotReadyPollInterval)
}

// terminals carries, per resource, how long to wait after its last
// external call, from the external client (which sees the answer) to the
// reconciler wrapper (which decides when to requeue): TerminalBackoff
// after a terminal failure, the server's Retry-After after a transient one
// that asked for a wait (retrying sooner would only meet the gate that
// holds requests to that server), and the time to look again after an
// accepted Create or Delete (lookAgain).
type terminals struct {
	m sync.Map // types.NamespacedName -> time.Duration
	// created holds whether the backend accepted a resource's Create,
	// until its reconcile ends.
	created sync.Map // types.NamespacedName -> struct{}
	// w knows whether the reconcile wrote the resource itself; nil in
	// tests of the waits alone.
	w *written
}

// newTracking returns what a controller's writes are noted in, and its
// terminal waits, which read those writes.
func newTracking() (*written, *terminals) {
	w := newWritten()
	return w, &terminals{w: w}
}

// lookAgain notes, after the backend accepted a Create or Delete, when to
// look at mg again (MinAfterDeletion, afterDeletion).
func (t *terminals) lookAgain(mg resource.Managed, now time.Time) {
	t.m.Store(types.NamespacedName{Namespace: mg.GetNamespace(), Name: mg.GetName()}, afterDeletion(mg, now))
}

func (t *terminals) note(mg resource.Managed, err error) error {
	key := types.NamespacedName{Namespace: mg.GetNamespace(), Name: mg.GetName()}
	switch {
	case err == nil:
		return nil
	case httpapi.IsTerminal(err):
		t.m.Store(key, TerminalBackoff)
		return terminalError{err}
	case httpapi.IsTransient(err) && httpapi.RetryAfter(err) > 0:
		t.m.Store(key, min(max(httpapi.RetryAfter(err), MinRetryAfter), retryafter.MaxWait))
	}
	return err
}

// terminalError says, in the resource's Synced condition, that retrying
// waits.
type terminalError struct{ error }

func (e terminalError) Error() string {
	return fmt.Sprintf("%s (not retried for %s: the answer will not change until the credentials, the backend's permissions or this resource's spec do; a spec change retries at once)", e.error, TerminalBackoff)
}

func (e terminalError) Unwrap() error { return e.error }

// classifyConnector wraps a kind's connector so its external clients note
// terminal failures.
type classifyConnector[T resource.Managed] struct {
	managed.TypedExternalConnector[T]
	t    *terminals
	kind string
}

func (c classifyConnector[T]) Connect(ctx context.Context, cr T) (managed.TypedExternalClient[T], error) {
	ec, err := c.TypedExternalConnector.Connect(ctx, cr)
	if err != nil {
		return nil, err
	}
	return classified[T]{TypedExternalClient: ec, t: c.t, kind: c.kind}, nil
}

type classified[T resource.Managed] struct {
	managed.TypedExternalClient[T]
	t    *terminals
	kind string
}

func (c classified[T]) Observe(ctx context.Context, cr T) (managed.ExternalObservation, error) {
	o, err := c.TypedExternalClient.Observe(ctx, cr)
	observed(c.kind, o.ResourceExists, err)
	return o, c.t.note(cr, err)
}

func (c classified[T]) Create(ctx context.Context, cr T) (managed.ExternalCreation, error) {
	o, err := c.TypedExternalClient.Create(ctx, cr)
	if err == nil {
		c.t.created.Store(types.NamespacedName{Namespace: cr.GetNamespace(), Name: cr.GetName()}, struct{}{})
		fairrate.FollowUp(ctx)
	}
	return o, c.t.note(cr, err)
}

func (c classified[T]) Update(ctx context.Context, cr T) (managed.ExternalUpdate, error) {
	o, err := c.TypedExternalClient.Update(ctx, cr)
	return o, c.t.note(cr, err)
}

func (c classified[T]) Delete(ctx context.Context, cr T) (managed.ExternalDelete, error) {
	o, err := c.TypedExternalClient.Delete(ctx, cr)
	if err == nil {
		c.t.lookAgain(cr, time.Now())
		fairrate.FollowUp(ctx)
	}
	return o, c.t.note(cr, err)
}

// backOffTerminal requeues a resource whose reconcile ended in a terminal
// failure after TerminalBackoff, one whose backend asked for a wait after
// that wait, instead of the rate limiter's seconds, and one whose backend
// accepted a Delete when lookAgain says, instead of the rate limiter's
// back-off; one whose backend accepted a Create, in a reconcile that
// wrote the resource itself (the Update before the create), not at all,
// and otherwise after followCreate (see MinAfterDeletion).
type backOffTerminal struct {
	reconcile.Reconciler
	t *terminals
}

func (b backOffTerminal) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	// Cleared even when the reconcile panics, so a stale wait never
	// applies to a later reconcile or outlives a deleted resource.
	defer b.t.m.Delete(req.NamespacedName)
	defer b.t.created.Delete(req.NamespacedName)
	start := time.Now()
	res, err := b.Reconciler.Reconcile(ctx, req)
	if _, ok := b.t.created.Load(req.NamespacedName); ok && err == nil && res.Requeue { //nolint:staticcheck // the managed reconciler still answers Requeue
		if b.t.w != nil && b.t.w.updatedSince(req.NamespacedName, start) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{RequeueAfter: followCreate}, nil
	}
	v, noted := b.t.m.Load(req.NamespacedName)
	if wait, _ := v.(time.Duration); noted && err == nil && (res.Requeue || res.RequeueAfter > 0) && res.RequeueAfter < wait { //nolint:staticcheck // the managed reconciler still answers Requeue
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	return res, err
}

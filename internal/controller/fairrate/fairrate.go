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

// Package fairrate limits the provider's reconciles per second, all
// controllers together, like crossplane-runtime's global rate limiter, and
// shares them among namespaces (tenants). With one global token bucket, a
// team whose thousands of resources are not Ready (each polled every few
// seconds) reserves every token for minutes ahead, and another team's new
// resources wait behind all of them. Here a reconcile first takes a token
// from its namespace's bucket, which refills at a share of the global rate,
// and only then queues for a global token: one namespace can keep at most
// that share of the global rate busy, so the rest stays free for the
// others, whose reconciles then pass at once.
package fairrate

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
)

// maxNamespaces bounds the namespace buckets kept: past it, buckets that
// are full again (their namespaces idle) are dropped.
const maxNamespaces = 4096

// Limiter is the provider-wide limiter: rate reconciles per second at
// most, of which one namespace takes at most perNamespace.
type Limiter struct {
	global       *rate.Limiter
	perNamespace rate.Limit
	nsBurst      int
	now          func() time.Time

	// inFlight bounds one namespace's reconciles running at once: its
	// backends may answer slowly, or never (a tenant's own server), and
	// every kind's workers are shared.
	inFlight int

	mu         sync.Mutex
	namespaces map[string]*rate.Limiter
	// waiting records how far an item that was told to wait got and
	// when its wait ends: it passes that stage when it comes back then,
	// and waits the rest if it comes back sooner (a watch event, such as
	// its owner touching it, requeues it at once).
	waiting map[string]wait
	running map[string]int
}

type wait struct {
	stage int
	until time.Time
	// free marks a pass FollowUp granted: the reconcile it lets through
	// earns no pass of its own, so follow-ups never chain.
	free bool
}

// Stages an item waits at.
const (
	waitedNamespace = 1
	waitedGlobal    = 2
)

// New returns a limiter of r reconciles per second (burst 10 r, as
// crossplane-runtime's global limiter), of which one namespace may use
// perNamespace (burst perNamespace), with at most inFlight running at
// once.
func New(r, perNamespace, inFlight int) *Limiter {
	return &Limiter{
		global:       rate.NewLimiter(rate.Limit(r), r*10),
		perNamespace: rate.Limit(perNamespace),
		nsBurst:      max(perNamespace, 1),
		inFlight:     max(inFlight, 1),
		now:          time.Now,
		namespaces:   map[string]*rate.Limiter{},
		waiting:      map[string]wait{},
		running:      map[string]int{},
	}
}

// busyRetry is how soon a reconcile turned away because its namespace
// has inFlight running comes back.
const busyRetry = time.Second

// maxWaiting bounds the items remembered as waiting (an object deleted
// while it waited never comes back): past it, they are forgotten, and
// wait again.
const maxWaiting = 100_000

// WhenIn returns how long the reconcile of item, in namespace, waits; 0:
// run it now. An item told to wait is let through the stage it waited at
// when it comes back.
func (l *Limiter) WhenIn(namespace, item string) time.Duration {
	d, _ := l.whenIn(namespace, item)
	return d
}

// whenIn is WhenIn, and whether the pass is one FollowUp granted.
func (l *Limiter) whenIn(namespace, item string) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if len(l.waiting) >= maxWaiting {
		clear(l.waiting)
	}
	w := l.waiting[item]
	if w.stage != 0 && now.Before(w.until) {
		return w.until.Sub(now), false
	}
	switch w.stage {
	case waitedGlobal:
		delete(l.waiting, item)
		return 0, w.free
	case 0:
		if d := l.bucket(namespace, now).ReserveN(now, 1).DelayFrom(now); d > 0 {
			l.waiting[item] = wait{stage: waitedNamespace, until: now.Add(d)}
			return d, false
		}
	}
	if d := l.global.ReserveN(now, 1).DelayFrom(now); d > 0 {
		l.waiting[item] = wait{stage: waitedGlobal, until: now.Add(d)}
		return d, false
	}
	delete(l.waiting, item)
	return 0, false
}

// enter counts a reconcile of namespace as running, unless inFlight are;
// then item is told to come back after busyRetry, and passes the rate
// limits then (it has its tokens).
func (l *Limiter) enter(namespace, item string, free bool) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running[namespace] >= l.inFlight {
		l.waiting[item] = wait{stage: waitedGlobal, until: l.now().Add(busyRetry), free: free}
		return busyRetry, false
	}
	l.running[namespace]++
	return 0, true
}

func (l *Limiter) leave(namespace string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running[namespace]--; l.running[namespace] <= 0 {
		delete(l.running, namespace)
	}
}

func (l *Limiter) bucket(namespace string, now time.Time) *rate.Limiter {
	b, ok := l.namespaces[namespace]
	if ok {
		return b
	}
	if len(l.namespaces) >= maxNamespaces {
		for ns, b := range l.namespaces {
			if b.TokensAt(now) >= float64(l.nsBurst) {
				delete(l.namespaces, ns)
			}
		}
	}
	b = rate.NewLimiter(l.perNamespace, l.nsBurst)
	l.namespaces[namespace] = b
	return b
}

// Reconciler runs inner's reconciles when l lets them.
type Reconciler struct {
	name  string
	inner reconcile.Reconciler
	l     *Limiter
}

// NewReconciler returns r limited by l; name tells its items from other
// controllers'.
func NewReconciler(name string, r reconcile.Reconciler, l *Limiter) *Reconciler {
	return &Reconciler{name: name, inner: r, l: l}
}

// Limit returns r limited by l: fairly across namespaces when l is a
// Limiter, else as crossplane-runtime limits it.
func Limit(name string, r reconcile.Reconciler, l ratelimiter.RateLimiter) reconcile.Reconciler {
	if f, ok := l.(*Limiter); ok {
		return NewReconciler(name, r, f)
	}
	return ratelimiter.NewReconciler(name, r, l)
}

// Reconcile waits its turn by asking to be requeued, then reconciles.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	item := r.name + "/" + req.String()
	d, free := r.l.whenIn(req.Namespace, item)
	if d > 0 {
		return reconcile.Result{RequeueAfter: d}, nil
	}
	d, ok := r.l.enter(req.Namespace, item, free)
	if !ok {
		return reconcile.Result{RequeueAfter: d}, nil
	}
	defer r.l.leave(req.Namespace)
	var follow atomic.Bool
	res, err := r.inner.Reconcile(context.WithValue(ctx, followKey{}, &follow), req)
	if follow.Load() && !free {
		r.l.passNext(item)
	}
	return res, err
}

type followKey struct{}

// FollowUp says, from within a reconcile the Limiter let pass, that the
// resource's next reconcile is the look that confirms what this one did
// (a Create or Delete its backend accepted): it passes without a token,
// once. A change and the look that sees it done then cost one token, not
// two, so a burst of new resources is Ready twice as fast at the same
// rate; since only an accepted change earns it, the rate of reconciles
// stays within twice the limit: a reconcile that passed on such a pass
// earns none (a Delete its backend accepts while the object stays, on
// every reconcile, would otherwise never take a token again). Outside
// such a reconcile it does nothing.
func FollowUp(ctx context.Context) {
	if f, ok := ctx.Value(followKey{}).(*atomic.Bool); ok {
		f.Store(true)
	}
}

// passNext lets item's next reconcile pass without a token.
func (l *Limiter) passNext(item string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.waiting[item] = wait{stage: waitedGlobal, until: l.now(), free: true}
}

// The workqueue.TypedRateLimiter[string] crossplane-runtime's controller
// options hold: the global limit alone, for a controller that knows no
// namespace.

// NumRequeues is 0: the limiter keeps no count.
func (l *Limiter) NumRequeues(string) int { return 0 }

// Forget does nothing: an item is forgotten once it passes.
func (l *Limiter) Forget(string) {}

// When is WhenIn for an item of no namespace.
func (l *Limiter) When(item string) time.Duration { return l.WhenIn("", item) }

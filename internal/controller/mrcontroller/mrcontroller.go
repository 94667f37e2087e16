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

// Package mrcontroller wires a managed-resource kind into a controller-runtime
// manager the same way for every kind: the crossplane-runtime managed
// reconciler, global rate limiting, the desired-state-changed filter,
// management policies, metrics, and a poll interval with jitter that polls
// faster while the resource is not Ready.
package mrcontroller

import (
	"context"
	"math/rand/v2"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/feature"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/statemetrics"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/internal/backendconfig"
	"github.com/freeleaps/provider-devops/internal/controller/fairrate"
	"github.com/freeleaps/provider-devops/internal/events/vocab"
)

// NotReadyPollInterval caps the poll interval of a resource that is not yet
// Ready, so a pipeline or sync in progress is seen soon after it finishes;
// MinNotReadyPollInterval is the shortest (see PollInterval).
const (
	NotReadyPollInterval    = 15 * time.Second
	MinNotReadyPollInterval = 500 * time.Millisecond
	// notReadyPollFraction: a resource not Ready is polled at this
	// fraction of its age (see PollInterval).
	notReadyPollFraction = 6
)

// Descriptor describes a managed-resource kind: what its controller and
// its lifecycle events need. It is the one description of the kind.
type Descriptor[T resource.Managed] struct {
	GroupKind        string
	GroupVersionKind schema.GroupVersionKind
	// New returns an empty object of the kind; NewList an empty list.
	New     func() T
	NewList func() resource.ManagedList
	// ExternalName derives the external name of a new resource from its
	// spec. Nil means the resource's own name (crossplane-runtime's default).
	ExternalName func(T) string
	// Busy is true while the resource has work in progress in its backend
	// (a build running, a sync progressing): it is then polled as often as
	// a resource that is not Ready, so its status follows the work. Nil
	// means never busy.
	Busy func(T) bool
	// URL of the resource in its backend, for lifecycle events; nil for
	// none.
	URL func(T) string
	// Work in progress or last finished, for lifecycle events; nil when
	// the kind has none.
	Work func(T) *vocab.Work
	// Watch, when set, also reconciles the resources that an object of
	// another kind maps to whenever it changes (a JenkinsCredential's
	// Secret). Only that kind's metadata is watched and cached.
	Watch *Watch
}

// Watch maps changes of another kind's objects to resources to reconcile.
type Watch struct {
	// Object is an empty object of the kind watched.
	Object client.Object
	// Map returns the resources to reconcile when obj changed; kube reads
	// the manager's cache.
	Map func(ctx context.Context, kube client.Reader, obj client.Object) []reconcile.Request
}

// Lifecycle describes the kind to the event stream.
func (k Descriptor[T]) Lifecycle() vocab.Kind {
	l := vocab.Kind{Name: k.GroupVersionKind.Kind, GVK: k.GroupVersionKind, New: func() client.Object { return k.New() }}
	if k.URL != nil {
		l.URL = func(mg resource.Managed) string {
			if cr, ok := mg.(T); ok {
				return k.URL(cr)
			}
			return ""
		}
	}
	if k.Work != nil {
		l.Work = func(mg resource.Managed) *vocab.Work {
			if cr, ok := mg.(T); ok {
				return k.Work(cr)
			}
			return nil
		}
	}
	return l
}

// A Registration is one managed kind with its connector, of whatever
// resource type: what the provider's list of kinds holds.
type Registration interface {
	// GVK is the kind's group, version and kind.
	GVK() schema.GroupVersionKind
	// Events describes the kind to the event stream.
	Events() vocab.Kind
	// Setup adds the kind's controller.
	Setup(mgr ctrl.Manager, o controller.Options) error
}

// Register returns the registration of kind k, whose connector connect
// builds from the manager.
func Register[T resource.Managed](k Descriptor[T], connect func(ctrl.Manager) managed.TypedExternalConnector[T]) Registration {
	return registration[T]{k: k, connect: connect}
}

type registration[T resource.Managed] struct {
	k       Descriptor[T]
	connect func(ctrl.Manager) managed.TypedExternalConnector[T]
}

func (r registration[T]) GVK() schema.GroupVersionKind { return r.k.GroupVersionKind }
func (r registration[T]) Events() vocab.Kind           { return r.k.Lifecycle() }
func (r registration[T]) Setup(mgr ctrl.Manager, o controller.Options) error {
	return Setup(mgr, o, r.k, r.connect(mgr))
}

// SetupGated runs r's Setup once the kind's CRD is established, which is
// what lets the provider start with safe-start before its CRDs are active.
// A setup that fails then stops the provider (as provider-template does):
// a provider that reports healthy without one of its controllers would
// leave that kind's resources unreconciled with nothing saying why.
func SetupGated(mgr ctrl.Manager, o controller.Options, r Registration) {
	o.Gate.Register(func() {
		if err := r.Setup(mgr, o); err != nil {
			panic(errors.Wrapf(err, "cannot set up the %s controller", r.GVK().Kind))
		}
	}, r.GVK())
}

// Setup adds a controller for kind k, connecting to external systems with c.
func Setup[T resource.Managed](mgr ctrl.Manager, o controller.Options, k Descriptor[T], c managed.TypedExternalConnector[T]) error {
	name := managed.ControllerName(k.GroupKind)
	deleting.add(k.GroupVersionKind.Kind, mgr.GetClient(), k.NewList, mgr.Elected())
	w, t := newTracking()
	p := newProgress()
	kube := writtenClient{Client: mgr.GetClient(), w: w}
	opts := []managed.ReconcilerOption{
		managed.WithTypedExternalConnector[T](persistConnector[T]{
			TypedExternalConnector: classifyConnector[T]{TypedExternalConnector: letGoUnconfigured[T]{c}, t: t, kind: k.GroupVersionKind.Kind},
			kube:                   kube,
			accepted:               newCreates(),
		}),
		managed.WithLogger(o.Logger.WithValues("controller", name)),
		managed.WithPollInterval(o.PollInterval),
		managed.WithPollIntervalHook(p.PollInterval(PollInterval(o.PollInterval/10, rand.Float64, time.Now, busy(k.Busy)))),
		managed.WithRecorder(withoutCreatedEvent{event.NewAPIRecorder(mgr.GetEventRecorderFor(name))}), //nolint:staticcheck // crossplane-runtime still takes the old recorder.
		// Every kind names its external object deterministically (job path,
		// application, project or repository name, record set, repository
		// path) and marks it as its own: after a crash between an external
		// create and its record, the next Observe finds the object and
		// carries on (creation.go).
		managed.WithDeterministicExternalName(true),
		// A new resource is written once before its first status
		// (creation.go).
		managed.WithInitializers(initializer[T]{name: k.ExternalName}),
		managed.WithCriticalAnnotationUpdater(managed.CriticalAnnotationUpdateFn(noCriticalAnnotations)),
	}
	if o.Features.Enabled(feature.EnableBetaManagementPolicies) {
		opts = append(opts, managed.WithManagementPolicies())
	}
	if o.Features.Enabled(feature.EnableAlphaChangeLogs) && o.ChangeLogOptions != nil {
		opts = append(opts, managed.WithChangeLogger(o.ChangeLogOptions.ChangeLogger))
	}
	if o.MetricOptions != nil {
		opts = append(opts, managed.WithMetricRecorder(o.MetricOptions.MRMetrics))
		if o.MetricOptions.MRStateMetrics != nil {
			sm := statemetrics.NewMRStateRecorder(mgr.GetClient(), o.Logger, o.MetricOptions.MRStateMetrics, k.NewList(), o.MetricOptions.PollStateMetricInterval)
			if err := mgr.Add(sm); err != nil {
				return errors.Wrapf(err, "cannot register state metrics for %s", k.GroupKind)
			}
		}
	}

	r := managed.NewReconciler(skipNoopStatus{Manager: mgr, w: w, p: p}, resource.ManagedKind(k.GroupVersionKind), opts...)
	b := ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		For(k.New(), builder.WithPredicates(resource.DesiredStateChanged()))
	if watch := k.Watch; watch != nil {
		cached := mgr.GetClient()
		b = b.WatchesMetadata(watch.Object, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
			return watch.Map(ctx, cached, o)
		}))
	}
	ordered := deleteInOrder[T]{Reconciler: r, kube: kube, new: k.New, kind: k.GroupVersionKind.Kind, kinds: ownKinds(mgr.GetScheme()), now: time.Now}
	caughtUp := catchUp[T]{Reconciler: ordered, kube: mgr.GetClient(), new: k.New, w: w}
	if k.Watch == nil {
		// A kind woken by another object's change too is never skipped.
		caughtUp.seen = newSeen()
	}
	limited := fairrate.Limit(name, backOffTerminal{Reconciler: caughtUp, t: t}, o.GlobalRateLimiter)
	if caughtUp.seen == nil {
		return b.Complete(limited)
	}
	return b.Complete(skipSeen[T]{Reconciler: limited, kube: mgr.GetClient(), new: k.New, seen: caughtUp.seen})
}

// letGoUnconfigured lets a resource being deleted go, touching nothing in
// its backend, when it has no usable config any more: its ProviderConfig or
// credentials Secret is gone, or its ClusterProviderConfig no longer serves
// its namespace. A namespace being deleted takes its Secrets and
// ProviderConfigs with its resources, and cannot get them back; without
// this their finalizers, and the namespace, would stay forever. The backend
// object is orphaned, the safe direction.
type letGoUnconfigured[T resource.Managed] struct {
	managed.TypedExternalConnector[T]
}

func (l letGoUnconfigured[T]) Connect(ctx context.Context, cr T) (managed.TypedExternalClient[T], error) {
	c, err := l.TypedExternalConnector.Connect(ctx, cr)
	if err != nil && meta.WasDeleted(cr) && backendconfig.IsUnconfigured(err) {
		return Refused[T](errors.Wrap(err, "let go without touching the backend")), nil
	}
	return c, err
}

// busy adapts a kind's Busy to any managed resource; nil stays nil.
func busy[T resource.Managed](f func(T) bool) func(resource.Managed) bool {
	if f == nil {
		return nil
	}
	return func(mg resource.Managed) bool {
		cr, ok := mg.(T)
		return ok && f(cr)
	}
}

// PollInterval returns a poll-interval hook. A resource that is not Ready
// is polled the sooner the younger it is: at a sixth of its age, at least
// MinNotReadyPollInterval and at most NotReadyPollInterval. So a new Argo
// CD application that syncs in 6 s is seen Ready within about 1 s of it,
// at the cost of a few more polls in its first minute, and one that stays
// unready settles at the cap within a minute and a half. The age runs from the
// creation, which the API server sets: not from the Ready condition's last
// transition, which a changing message resets on every poll and whoever
// may write the status can set to the future. A Ready resource that is busy
// (busy may be nil) is polled at most every NotReadyPollInterval. Every
// interval gets up to ±jitter (±10% below the cap) so that many resources
// created together do not poll in lockstep. rnd returns a number in [0, 1)
// and now the time; tests pass fixed ones.
func PollInterval(jitter time.Duration, rnd func() float64, now func() time.Time, busy func(resource.Managed) bool) managed.PollIntervalHook {
	return func(mg resource.Managed, interval time.Duration) time.Duration {
		j := jitter
		switch {
		case mg.GetCondition(xpv2.TypeReady).Status != "True":
			age := now().Sub(mg.GetCreationTimestamp().Time)
			interval = min(interval, max(age/notReadyPollFraction, MinNotReadyPollInterval), NotReadyPollInterval)
			j = min(j, interval/10)
		case busy != nil && busy(mg) && interval > NotReadyPollInterval:
			interval = NotReadyPollInterval
			j = min(j, NotReadyPollInterval/10)
		}
		return interval + time.Duration((rnd()*2-1)*float64(j))
	}
}

// MayWrite is false for a resource whose management policies only observe
// (Observe, LateInitialize). Such a resource may watch an external object
// another owner manages, so ownership checks apply only when MayWrite.
func MayWrite(mg resource.Managed) bool {
	pols := mg.GetManagementPolicies()
	for _, p := range pols {
		if p != xpv2.ManagementActionObserve && p != xpv2.ManagementActionLateInitialize {
			return true
		}
	}
	return len(pols) == 0
}

// Refused is the external client of a resource its ProviderConfig does not
// allow (a folder outside the pinned root, a destination outside the
// project...): it reports err and touches nothing. A deleted resource is let
// go without touching the backend, so a namespace can always be deleted.
func Refused[T resource.Managed](err error) managed.TypedExternalClient[T] {
	return refused[T]{err: err}
}

type refused[T resource.Managed] struct{ err error }

func (r refused[T]) Observe(_ context.Context, cr T) (managed.ExternalObservation, error) {
	if meta.WasDeleted(cr) {
		return managed.ExternalObservation{ResourceExists: false}, nil
	}
	return managed.ExternalObservation{}, r.err
}

func (r refused[T]) Create(context.Context, T) (managed.ExternalCreation, error) {
	return managed.ExternalCreation{}, r.err
}

func (r refused[T]) Update(context.Context, T) (managed.ExternalUpdate, error) {
	return managed.ExternalUpdate{}, r.err
}

func (r refused[T]) Delete(context.Context, T) (managed.ExternalDelete, error) {
	return managed.ExternalDelete{}, r.err
}

func (r refused[T]) Disconnect(context.Context) error { return nil }

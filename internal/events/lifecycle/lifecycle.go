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

// Package lifecycle turns changes of managed resources into events: created,
// ready, failed, deleted and expired, one per real change (never one per
// poll), and heartbeats for work in progress (a Jenkins build, an Argo CD
// sync) until a final completed event. It watches the manager's informers,
// so it costs no API request of its own.
package lifecycle

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/internal/events"
	"github.com/freeleaps/provider-devops/internal/events/vocab"
)

// DefaultHeartbeat is the interval of heartbeats for work in progress.
const DefaultHeartbeat = 30 * time.Second

// Sink receives events; events.Publisher is one.
type Sink interface {
	Publish(e events.Event) error
}

// Work and Kind are the controllers' words (package vocab).
type (
	Work = vocab.Work
	Kind = vocab.Kind
)

// DefaultReplay is how far back a new leader sends again the transitions
// it finds: well past a lost leader's lease (60s), within which it may
// have made a transition it never sent. Events an old leader held longer
// (a broker down for minutes) are not covered.
const DefaultReplay = 5 * time.Minute

// DefaultReplayMax bounds the events one watcher sends again.
const DefaultReplayMax = 1000

// Options of a Watcher.
type Options struct {
	// Source is the CloudEvents source of every event.
	Source string
	// Heartbeat interval; DefaultHeartbeat when zero.
	Heartbeat time.Duration
	// Replay: when the watcher starts (a new leader), the resources it
	// finds created or Ready less than this long ago get that event
	// again, with the id it was first sent with. A leader that died (or
	// lost its lease) may not have sent them. Zero is DefaultReplay,
	// negative none. ReplayMax bounds how many (DefaultReplayMax when
	// zero).
	Replay    time.Duration
	ReplayMax int
	// ReplayDropped, when set, counts the events not sent again because
	// ReplayMax was reached.
	ReplayDropped prometheus.Counter
	Log           logging.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Watcher emits lifecycle events of the kinds it watches.
type Watcher struct {
	sink Sink
	o    Options

	mu           sync.Mutex
	running      map[types.UID]*tracked
	replayed     int
	replayCapped sync.Once
}

type tracked struct {
	data  events.Data
	work  Work
	since time.Time
}

// New returns a watcher that sends its events to sink.
func New(sink Sink, o Options) *Watcher {
	if o.Heartbeat <= 0 {
		o.Heartbeat = DefaultHeartbeat
	}
	if o.Source == "" {
		o.Source = "provider-devops"
	}
	if o.Log == nil {
		o.Log = logging.NewNopLogger()
	}
	if o.Replay == 0 {
		o.Replay = DefaultReplay
	}
	if o.ReplayMax <= 0 {
		o.ReplayMax = DefaultReplayMax
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Watcher{sink: sink, o: o, running: map[types.UID]*tracked{}}
}

// Start sends heartbeats until ctx ends. It implements manager.Runnable
// (leader only, like every other runnable of the provider).
func (w *Watcher) Start(ctx context.Context) error {
	t := time.NewTicker(w.o.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case now := <-t.C:
			w.heartbeat(now)
		}
	}
}

// Gate calls back once every kind given is served (crossplane-runtime's
// controller.Gate).
type Gate interface {
	Register(callback func(), gvks ...schema.GroupVersionKind)
}

// Setup adds w (its heartbeats) to mgr and has it watch each kind once the
// kind's CRD is established. A watch that cannot be set up stops the
// provider, like a controller that cannot.
func (w *Watcher) Setup(mgr manager.Manager, g Gate, kinds []Kind) error {
	for _, k := range kinds {
		g.Register(func() {
			if err := w.Watch(mgr, k); err != nil {
				panic(errors.Wrapf(err, "cannot watch %s for lifecycle events", k.Name))
			}
		}, k.GVK)
	}
	return mgr.Add(w)
}

// Watch registers the watcher on the manager's informer for k. Call it once
// k's CRD is established.
func (w *Watcher) Watch(mgr manager.Manager, k Kind) error {
	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		inf, err := informer(ctx, mgr, k)
		if err != nil {
			return errors.Wrapf(err, "cannot watch %s for events", k.Name)
		}
		reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc: func(obj any) {
				if mg, ok := obj.(resource.Managed); ok {
					w.Added(k, mg)
				}
			},
			UpdateFunc: func(oldObj, newObj any) {
				o, ok1 := oldObj.(resource.Managed)
				n, ok2 := newObj.(resource.Managed)
				if ok1 && ok2 {
					w.Changed(k, o, n)
				}
			},
			DeleteFunc: func(obj any) {
				if t, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
					obj = t.Obj
				}
				if mg, ok := obj.(resource.Managed); ok {
					w.Deleted(k, mg)
				}
			},
		})
		if err != nil {
			return errors.Wrapf(err, "cannot watch %s for events", k.Name)
		}
		<-ctx.Done()
		return inf.RemoveEventHandler(reg)
	}))
}

// informer gets k's informer. The gate opens when the CRD is Established,
// which the API server's discovery can trail for a moment ("no matches for
// kind"); that is retried for up to a minute instead of stopping the
// provider.
func informer(ctx context.Context, mgr manager.Manager, k Kind) (crcache.Informer, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		inf, err := mgr.GetCache().GetInformer(ctx, k.New())
		if err == nil || !apimeta.IsNoMatchError(err) || time.Now().After(deadline) {
			return inf, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// Added sees a resource for the first time: every resource when the
// watcher starts, on a new leader. Running work gets heartbeats, and what
// happened to it within the replay window is sent again, with the ids it
// was first sent with: the leader before may have died before sending it.
func (w *Watcher) Added(k Kind, mg resource.Managed) {
	d := w.data(k, mg)
	if w.o.Replay > 0 {
		now := w.o.Now()
		since := now.Add(-w.o.Replay)
		// A time ahead of this replica's clock (an annotation anyone who
		// may edit the resource can write) is not replayed.
		recent := func(at string) bool {
			t, err := time.Parse(time.RFC3339, at)
			return err == nil && t.After(since) && !t.After(now.Add(vocab.MaxClockSkew))
		}
		if a := created(mg); recent(a) {
			w.replay(func() { w.emitCreated(d, mg) })
		}
		if isReady(mg) && recent(transition(mg, xpv2.TypeReady)) {
			w.replay(func() { w.emitReady(d, mg) })
		}
	}
	if k.Work == nil {
		return
	}
	if wk := k.Work(mg); wk != nil && wk.Running {
		w.track(mg.GetUID(), d, *wk)
	}
}

// Changed compares two versions of a resource and emits what changed.
func (w *Watcher) Changed(k Kind, old, cur resource.Managed) {
	d := w.data(k, cur)
	if a := created(cur); a != "" && a != created(old) {
		w.emitCreated(d, cur)
	}
	if isReady(cur) && !isReady(old) {
		w.emitReady(d, cur)
	}
	if msg, failing := failure(cur); failing {
		if _, was := failure(old); !was {
			w.emitFailed(d, cur, msg)
		}
	}
	if k.Work != nil {
		w.work(d, cur.GetUID(), k.Work(old), k.Work(cur))
	}
}

// replay sends an event again unless this watcher has replayed
// ReplayMax already: replays must not fill the outbox that live events
// need.
func (w *Watcher) replay(send func()) {
	w.mu.Lock()
	full := w.replayed >= w.o.ReplayMax
	if !full {
		w.replayed++
	}
	w.mu.Unlock()
	if full {
		if w.o.ReplayDropped != nil {
			w.o.ReplayDropped.Inc()
		}
		w.replayCapped.Do(func() {
			w.o.Log.Info("lifecycle events not sent again: the replay limit is reached", "limit", w.o.ReplayMax)
		})
		return
	}
	send()
}

// The ids of created, ready and failed name the transition (the resource,
// what, and when it happened, as the resource records it), so a new leader
// replaying it sends the same id and a consumer dedupes on it. (Failed is
// not replayed: Synced's transition time moves while the message changes.)
func (w *Watcher) emitCreated(d events.Data, mg resource.Managed) {
	w.emitID(eventID(mg, events.Created, created(mg)), events.Created, d, reason(mg), "Created", "external object created")
}

func (w *Watcher) emitReady(d events.Data, mg resource.Managed) {
	w.emitID(eventID(mg, events.Ready, transition(mg, xpv2.TypeReady)), events.Ready, d, reason(mg), "Ready", readyMessage(mg))
}

func (w *Watcher) emitFailed(d events.Data, mg resource.Managed, msg string) {
	w.emitID(eventID(mg, events.Failed, transition(mg, xpv2.TypeSynced)), events.Failed, d, reason(mg), "Failed", msg)
}

// idSpace is the UUID namespace of the name-based event ids.
var idSpace = uuid.NewSHA1(uuid.NameSpaceDNS, []byte("events.devops.freeleaps.io")) //nolint:gochecknoglobals // read-only UUID namespace

// eventID is a name-based UUID of the resource's uid, what happened and
// when; random when the resource does not record when.
func eventID(mg resource.Managed, what, at string) string {
	if at == "" {
		return uuid.NewString()
	}
	return uuid.NewSHA1(idSpace, []byte(string(mg.GetUID())+"/"+what+"/"+at)).String()
}

// transition is when the condition last changed, as RFC 3339, or "".
func transition(mg resource.Managed, t xpv2.ConditionType) string {
	c := mg.GetCondition(t)
	if c.LastTransitionTime.IsZero() {
		return ""
	}
	return c.LastTransitionTime.UTC().Format(time.RFC3339)
}

// Deleted emits deleted, or expired when the resource's environment had
// expired, saying whether the external object was deleted or kept.
func (w *Watcher) Deleted(k Kind, mg resource.Managed) {
	w.mu.Lock()
	delete(w.running, mg.GetUID())
	w.mu.Unlock()
	what, msg := events.Deleted, "external object deleted"
	if kept, why := keeps(mg); kept {
		msg = "external object kept: " + why
	}
	at := time.Now()
	if ts := mg.GetDeletionTimestamp(); ts != nil {
		at = ts.Time
	}
	if exp, err := time.Parse(time.RFC3339, mg.GetAnnotations()[contract.AnnotationExpiresAt]); err == nil && !at.Before(exp) {
		what, msg = events.Expired, "environment expired at "+exp.UTC().Format(time.RFC3339)+"; "+msg
	}
	w.emit(what, w.data(k, mg), "Deleted", "Deleted", msg)
}

// work follows a build or sync: heartbeats while it runs, one completed
// event when it ends (also for a run that started and ended between two
// observations).
func (w *Watcher) work(d events.Data, uid types.UID, old, cur *Work) {
	if cur == nil {
		w.untrack(uid)
		return
	}
	if cur.Running {
		w.track(uid, d, *cur)
		return
	}
	wasTracked := w.untrack(uid)
	unseenRun := cur.ID != "" && (old == nil || old.ID != cur.ID)
	if wasTracked || (old != nil && old.Running) || unseenRun {
		d.URL = cmp.Or(cur.URL, d.URL)
		w.emit(events.Completed, d, cur.Phase, cur.Status, cur.Message)
	}
}

func (w *Watcher) track(uid types.UID, d events.Data, wk Work) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := w.running[uid]
	if !ok || t.work.ID != wk.ID {
		t = &tracked{since: time.Now()}
		w.running[uid] = t
	}
	t.data, t.work = d, wk
}

func (w *Watcher) untrack(uid types.UID) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.running[uid]
	delete(w.running, uid)
	return ok
}

func (w *Watcher) heartbeat(now time.Time) {
	w.mu.Lock()
	beats := make([]tracked, 0, len(w.running))
	for _, t := range w.running {
		beats = append(beats, *t)
	}
	w.mu.Unlock()
	for _, t := range beats {
		d := t.data
		d.URL = cmp.Or(t.work.URL, d.URL)
		msg := fmt.Sprintf("%s for %s", cmp.Or(t.work.Message, "in progress"), now.Sub(t.since).Round(time.Second))
		w.emit(events.Heartbeat, d, t.work.Phase, events.StatusRunning, msg)
	}
}

func (w *Watcher) emit(what string, d events.Data, phase, status, msg string) {
	w.emitID("", what, d, phase, status, msg)
}

// emitID sends an event with id, or a fresh one when id is "".
func (w *Watcher) emitID(id, what string, d events.Data, phase, status, msg string) {
	d.Phase, d.Status, d.Message = phase, status, msg
	e := events.New(w.o.Source, what, d, w.o.Now())
	if id != "" {
		e.ID = id
	}
	if err := w.sink.Publish(e); err != nil {
		// The publisher counts and logs drops; nothing more to do here.
		w.o.Log.Debug("event not published", "type", e.Type, "subject", e.Subject, "error", err.Error())
	}
}

func (w *Watcher) data(k Kind, mg resource.Managed) events.Data {
	d := events.Data{
		Project:     mg.GetLabels()[contract.LabelProject],
		Environment: mg.GetLabels()[contract.LabelEnvironment],
		Kind:        k.Name,
		Namespace:   mg.GetNamespace(),
		Name:        mg.GetName(),
	}
	if k.URL != nil {
		d.URL = k.URL(mg)
	}
	return d
}

// created is when the provider recorded creating mg's external object,
// as RFC 3339; "" when it did not.
func created(mg resource.Managed) string {
	t := vocab.CreatedAt(mg)
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func isReady(mg resource.Managed) bool {
	return mg.GetCondition(xpv2.TypeReady).Status == "True"
}

func reason(mg resource.Managed) string {
	return string(mg.GetCondition(xpv2.TypeReady).Reason)
}

func readyMessage(mg resource.Managed) string {
	return cmp.Or(mg.GetCondition(xpv2.TypeReady).Message, "resource is ready")
}

// failure is the Synced condition's message while reconciling fails.
func failure(mg resource.Managed) (string, bool) {
	c := mg.GetCondition(xpv2.TypeSynced)
	return c.Message, c.Status == "False" && c.Reason == xpv2.ReasonReconcileError
}

// keeps reports whether deleting mg leaves its external object in place.
func keeps(mg resource.Managed) (bool, string) {
	if o, ok := mg.(interface{ GetDeletionPolicy() xpv2.DeletionPolicy }); ok && o.GetDeletionPolicy() == xpv2.DeletionOrphan {
		return true, "deletionPolicy is Orphan"
	}
	pols := mg.GetManagementPolicies()
	if len(pols) == 0 {
		return false, ""
	}
	for _, p := range pols {
		if p == xpv2.ManagementActionAll || p == xpv2.ManagementActionDelete {
			return false, ""
		}
	}
	return true, "managementPolicies omit Delete"
}

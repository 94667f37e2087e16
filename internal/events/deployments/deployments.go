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

// Package deployments turns DeployRuns into the events of a running
// deployment: one when it enters a phase, a heartbeat every interval while
// it runs, and a final one when it succeeds, fails or is cancelled (its
// DeployRun deleted before it finished). It reads only DeployRun objects,
// through the manager's informer, so the DeployRun controller has nothing
// to do for it and it costs no API request of its own.
//
// Events go out as CloudEvents, like every other event of the stream, in
// the format of the Kopf operator provider-devops replaces (whose UI reads
// it unchanged), or both.
package deployments

import (
	"cmp"
	"context"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/events"
)

// DefaultHeartbeat is the interval of heartbeats while a deployment runs.
const DefaultHeartbeat = 30 * time.Second

// Legacy format: what the replaced operator sent and its UI reads.
const (
	// LegacyType is the AMQP type property of every legacy message.
	LegacyType = "DevOpsReconcileJobHeartbeat"
	// DefaultLegacyRoutingKey is the routing key of legacy messages unless
	// configured otherwise.
	DefaultLegacyRoutingKey = "DevOpsReconcileJobHeartbeat"
	// LegacyContentType is the content type of legacy messages.
	LegacyContentType = "application/json"
)

// Legacy statuses and phases, as the replaced operator spelled them.
const (
	legacyRunning    = "running"
	legacySucceeded  = "success"
	legacyFailed     = "failed"
	legacyTerminated = "terminated"
)

// TerminatedMessage is the message of the final event of a deployment
// cancelled by deleting its DeployRun.
const TerminatedMessage = "deployment cancelled: its DeployRun was deleted before it finished"

// Format is the wire format of deployment events.
type Format string

// Formats of deployment events.
const (
	// CloudEvents: structured CloudEvents like every other event.
	CloudEvents Format = "cloudevents"
	// Legacy: the replaced operator's heartbeat JSON.
	Legacy Format = "legacy"
	// Both: each event in both formats.
	Both Format = "both"
)

// Valid is true for CloudEvents, Legacy and Both.
func (f Format) Valid() bool { return f == CloudEvents || f == Legacy || f == Both }

// CloudEvents is true when f includes CloudEvents.
func (f Format) CloudEvents() bool { return f == CloudEvents || f == Both }

// Legacy is true when f includes the legacy format.
func (f Format) Legacy() bool { return f == Legacy || f == Both }

// Sink receives events and encoded messages; events.Publisher is one. The
// watcher calls it holding its lock, so that a deployment's events reach
// it in order (never a heartbeat behind the final event): it must not
// block.
type Sink interface {
	Publish(e events.Event) error
	PublishMessage(m events.Message) error
}

// Options of a Watcher.
type Options struct {
	// Source is the CloudEvents source of every event.
	Source string
	// Heartbeat interval; DefaultHeartbeat when zero.
	Heartbeat time.Duration
	// Format of the events; CloudEvents when empty.
	Format Format
	// LegacyRoutingKey of legacy messages; DefaultLegacyRoutingKey when
	// empty.
	LegacyRoutingKey string
	// Log receives what could not be published (at debug level: the
	// publisher counts and logs drops itself).
	Log logging.Logger
}

// A Watcher emits the events of DeployRuns.
//
// After a restart, or when this replica becomes the leader, the informer's
// initial list re-tracks the deployments still running: they get heartbeats
// again, but no phase event, since the watcher cannot know whether the
// previous leader sent it (the next heartbeat carries the phase). What
// happened while no provider led is not replayed: a deployment that
// finished meanwhile gets no final event (its DeployRun's status has the
// result).
type Watcher struct {
	sink Sink
	o    Options

	mu      sync.Mutex
	running map[types.UID]*v1alpha1.DeployRun
}

// New returns a watcher that sends its events to sink.
func New(sink Sink, o Options) *Watcher {
	if o.Heartbeat <= 0 {
		o.Heartbeat = DefaultHeartbeat
	}
	if o.Source == "" {
		o.Source = "provider-devops"
	}
	if o.Format == "" {
		o.Format = CloudEvents
	}
	if o.LegacyRoutingKey == "" {
		o.LegacyRoutingKey = DefaultLegacyRoutingKey
	}
	if o.Log == nil {
		o.Log = logging.NewNopLogger()
	}
	return &Watcher{sink: sink, o: o, running: map[types.UID]*v1alpha1.DeployRun{}}
}

// Start sends heartbeats until ctx ends. It implements manager.Runnable.
func (w *Watcher) Start(ctx context.Context) error {
	t := time.NewTicker(w.o.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case now := <-t.C:
			w.Beat(now)
		}
	}
}

// NeedLeaderElection is true: only the leader publishes.
func (w *Watcher) NeedLeaderElection() bool { return true }

// watch is the runnable that registers the watcher on the informer. It
// runs on the leader only, so that only the leader publishes.
type watch struct {
	w   *Watcher
	mgr manager.Manager
}

// NeedLeaderElection is true: only the leader publishes.
func (*watch) NeedLeaderElection() bool { return true }

// Start registers the watcher's handler and removes it when ctx ends.
func (r *watch) Start(ctx context.Context) error {
	inf, err := informer(ctx, r.mgr)
	if err != nil {
		return errors.Wrap(err, "cannot watch DeployRuns for deployment events")
	}
	reg, err := inf.AddEventHandler(r.w.Handler())
	if err != nil {
		return errors.Wrap(err, "cannot watch DeployRuns for deployment events")
	}
	<-ctx.Done()
	return inf.RemoveEventHandler(reg)
}

// Watch registers the watcher on the manager's DeployRun informer, on the
// leader. Call it once the DeployRun CRD is established.
func (w *Watcher) Watch(mgr manager.Manager) error {
	return mgr.Add(&watch{w: w, mgr: mgr})
}

// informer gets the DeployRun informer. The CRD gate opens when the CRD is
// Established, which the API server's discovery can trail for a moment
// ("no matches for kind"); that is retried for up to a minute.
func informer(ctx context.Context, mgr manager.Manager) (crcache.Informer, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		inf, err := mgr.GetCache().GetInformer(ctx, &v1alpha1.DeployRun{})
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

// Handler is the informer event handler that feeds the watcher.
func (w *Watcher) Handler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initialList bool) {
			if dr, ok := obj.(*v1alpha1.DeployRun); ok {
				w.Added(dr, initialList)
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := oldObj.(*v1alpha1.DeployRun)
			n, ok2 := newObj.(*v1alpha1.DeployRun)
			if ok1 && ok2 {
				w.Changed(o, n)
			}
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if dr, ok := obj.(*v1alpha1.DeployRun); ok {
				w.Deleted(dr)
			}
		},
	}
}

// Added sees a DeployRun for the first time. A new one (not in the
// informer's initial list) entered its phase: Pending when its status is
// still empty. One of the initial list (every DeployRun when the watcher
// starts) is only tracked for heartbeats while it runs.
func (w *Watcher) Added(dr *v1alpha1.DeployRun, initialList bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !initialList {
		w.entered(dr, time.Now())
	}
	w.track(dr)
}

// Changed emits an event when the DeployRun entered another phase.
func (w *Watcher) Changed(old, cur *v1alpha1.DeployRun) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if phase(old) != phase(cur) {
		w.entered(cur, time.Now())
	}
	w.track(cur)
}

// Deleted emits the final event, status terminated, of a DeployRun deleted
// before it finished: a cancelled deployment.
func (w *Watcher) Deleted(dr *v1alpha1.DeployRun) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.running, dr.GetUID())
	if p := phase(dr); !p.Final() {
		w.emit(report{what: events.Completed, status: events.StatusTerminated, phase: p, message: TerminatedMessage}, dr, time.Now())
	}
}

// Beat sends a heartbeat for every deployment that runs. Start calls it
// every Heartbeat interval.
func (w *Watcher) Beat(now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	runs := make([]*v1alpha1.DeployRun, 0, len(w.running))
	for _, dr := range w.running {
		runs = append(runs, dr)
	}
	sort.Slice(runs, func(i, j int) bool {
		return runs[i].Namespace+"/"+runs[i].Name < runs[j].Namespace+"/"+runs[j].Name
	})
	for _, dr := range runs {
		w.emit(report{what: events.Heartbeat, status: events.StatusRunning, phase: phase(dr), message: dr.Status.Message}, dr, now)
	}
}

// track keeps the last version of a running DeployRun, for its heartbeats;
// a final one is no longer tracked. Called holding w.mu.
func (w *Watcher) track(dr *v1alpha1.DeployRun) {
	if phase(dr).Final() {
		delete(w.running, dr.GetUID())
		return
	}
	w.running[dr.GetUID()] = dr
}

// entered emits the event of dr's phase: a phase event while it runs, the
// final one when it succeeded or failed. Called holding w.mu.
func (w *Watcher) entered(dr *v1alpha1.DeployRun, now time.Time) {
	r := report{what: events.Phase, status: events.StatusRunning, phase: phase(dr), message: dr.Status.Message}
	switch r.phase {
	case v1alpha1.DeploySucceeded:
		r.what, r.status, r.phase, r.url = events.Completed, events.StatusSucceeded, v1alpha1.DeployVerifying, dr.Status.URL
	case v1alpha1.DeployFailed:
		r.what, r.status, r.phase = events.Completed, events.StatusFailed, cmp.Or(dr.Status.FailedPhase, v1alpha1.DeployPending)
	case v1alpha1.DeployPending, v1alpha1.DeployBuilding, v1alpha1.DeployDeploying, v1alpha1.DeployVerifying:
		// Running: the phase event r already is.
	}
	w.emit(r, dr, now)
}

// report is one event of a deployment, whatever its format.
type report struct {
	// what: events.Phase, Heartbeat or Completed.
	what string
	// status: events.StatusRunning, Succeeded, Failed or Terminated.
	status string
	// phase the deployment is in, or ended in: Pending, Building,
	// Deploying or Verifying (Verifying once Succeeded, the failed phase
	// once Failed).
	phase   v1alpha1.DeployPhase
	message string
	// url the environment is live at; only once Succeeded.
	url string
}

// emit sends r in the configured formats. Called holding w.mu.
func (w *Watcher) emit(r report, dr *v1alpha1.DeployRun, now time.Time) {
	id := DeploymentID(dr)
	if w.o.Format.CloudEvents() {
		e := events.New(w.o.Source, r.what, events.Data{
			Project:     dr.Spec.Project,
			Environment: dr.Spec.Environment,
			Kind:        v1alpha1.DeployRunKind,
			Namespace:   dr.Namespace,
			Name:        dr.Name,
			Phase:       string(r.phase),
			Status:      r.status,
			Message:     r.message,
			URL:         r.url,
			Deployment:  id,
		}, now)
		if err := w.sink.Publish(e); err != nil {
			// The publisher counts and logs drops; nothing more to do here.
			w.o.Log.Debug("event not published", "type", e.Type, "subject", e.Subject, "error", err.Error())
		}
	}
	if w.o.Format.Legacy() {
		m := events.Message{
			RoutingKey:  w.o.LegacyRoutingKey,
			Type:        LegacyType,
			ContentType: LegacyContentType,
			Time:        now.UTC(),
			Body:        LegacyBody(id, r.status, r.phase, r.message, r.url),
		}
		if err := w.sink.PublishMessage(m); err != nil {
			w.o.Log.Debug("legacy deployment event not published", "deployment", id, "error", err.Error())
		}
	}
}

// DeploymentID is the id of dr's deployment in events: its spec.requestID,
// else <namespace>/<name> (a name alone could be another team's id: the
// legacy format carries no namespace).
func DeploymentID(dr *v1alpha1.DeployRun) string {
	return cmp.Or(dr.Spec.RequestID, dr.Namespace+"/"+dr.Name)
}

// phase is dr's phase; Pending until its controller set one.
func phase(dr *v1alpha1.DeployRun) v1alpha1.DeployPhase {
	return cmp.Or(dr.Status.Phase, v1alpha1.DeployPending)
}

// LegacyBody is the replaced operator's message:
//
//	{"operation": "heartbeat", "id": "<deployment id>", "status": "running", "phase": "building", "phase_message": "...", "url": null}
//
// with status (events.StatusRunning, Succeeded, Failed, Terminated) as
// running, success, failed or terminated, phase (Pending, Building,
// Deploying, Verifying) as initializing, building, deploying or verifying,
// and url null unless status is Succeeded and url is set. Every message is
// operation "heartbeat", as the operator's were. The fields are in this
// order and spaced as Python's json.dumps wrote them, non-ASCII escaped.
func LegacyBody(id, status string, p v1alpha1.DeployPhase, message, url string) []byte {
	b := make([]byte, 0, 128+len(id)+len(message)+len(url))
	b = append(b, `{"operation": "heartbeat", "id": `...)
	b = appendString(b, id)
	b = append(b, `, "status": `...)
	b = appendString(b, legacyStatus(status))
	b = append(b, `, "phase": `...)
	b = appendString(b, legacyPhase(p))
	b = append(b, `, "phase_message": `...)
	b = appendString(b, message)
	b = append(b, `, "url": `...)
	if status == events.StatusSucceeded && url != "" {
		b = appendString(b, url)
	} else {
		b = append(b, "null"...)
	}
	return append(b, '}')
}

func legacyStatus(status string) string {
	switch status {
	case events.StatusSucceeded:
		return legacySucceeded
	case events.StatusFailed:
		return legacyFailed
	case events.StatusTerminated:
		return legacyTerminated
	default:
		return legacyRunning
	}
}

func legacyPhase(p v1alpha1.DeployPhase) string {
	switch p {
	case "", v1alpha1.DeployPending:
		return "initializing"
	case v1alpha1.DeployBuilding:
		return "building"
	case v1alpha1.DeployDeploying:
		return "deploying"
	case v1alpha1.DeployVerifying:
		return "verifying"
	case v1alpha1.DeploySucceeded, v1alpha1.DeployFailed:
		// Final, never a running phase: named as any other phase is.
	}
	return strings.ToLower(string(p))
}

// appendString appends s as a JSON string the way Python's json.dumps
// writes it by default (ensure_ascii): printable ASCII as is, the usual
// short escapes, and every other character as \uXXXX (a surrogate pair
// beyond the BMP). Invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	u := func(b []byte, r rune) []byte {
		return append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
	}
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"':
			b = append(b, '\\', '"')
		case r == '\\':
			b = append(b, '\\', '\\')
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r == '\b':
			b = append(b, '\\', 'b')
		case r == '\f':
			b = append(b, '\\', 'f')
		case r >= 0x20 && r < 0x7f:
			b = append(b, byte(r))
		case r > 0xffff:
			hi, lo := utf16.EncodeRune(r)
			b = u(u(b, hi), lo)
		default:
			b = u(b, r)
		}
	}
	return append(b, '"')
}

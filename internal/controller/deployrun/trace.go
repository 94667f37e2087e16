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

package deployrun

import (
	"context"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/tracing"
)

// A deployment's trace: a root span from its creation to its end, a child
// per phase from the timeline, and under each phase the Jenkins, Argo CD
// and Kubernetes calls made in it. The spans' ids derive from the
// DeployRun's uid and timeline, so whichever replica reconciles it names
// the same parents, and a phase's span is exported once, by the replica
// whose status write ended it.
type runTrace struct {
	uid    string
	tid    trace.TraceID
	root   trace.SpanID
	flags  trace.TraceFlags
	parent trace.SpanContext // the deploy request's span, when recorded
}

func traceOf(d *v1alpha1.DeployRun) runTrace {
	if !tracing.Enabled() {
		// Off (the default): nothing to derive on every reconcile; every
		// method returns at once.
		return runTrace{}
	}
	t := runTrace{uid: string(d.UID), root: tracing.SpanID("deployrun", string(d.UID)), flags: trace.FlagsSampled}
	parent := tracing.ParseTraceParent(d.Annotations[contract.AnnotationTraceParent])
	pinned, err := trace.TraceIDFromHex(d.Status.TraceID)
	switch {
	case err == nil:
		// The trace was chosen when the deployment started: an annotation
		// changed since cannot move its later spans to another trace.
		t.tid = pinned
		if parent.IsValid() && parent.TraceID() == pinned {
			t.parent, t.flags = parent, parent.TraceFlags()
		}
	case parent.IsValid():
		t.tid, t.flags, t.parent = parent.TraceID(), parent.TraceFlags(), parent
	default:
		t.tid = tracing.TraceID("deployrun", string(d.UID))
	}
	return t
}

// pin records the deployment's trace in its status when tracing is on and
// the trace is sampled: what status.traceID names then exists, and stays
// the deployment's trace.
func (t runTrace) pin(d *v1alpha1.DeployRun) {
	if tracing.Enabled() && d.Status.TraceID == "" && t.flags.IsSampled() {
		d.Status.TraceID = t.tid.String()
	}
}

// phaseID is the span id of a phase the timeline entered at e.At (which
// the API server keeps to the second).
func (t runTrace) phaseID(e v1alpha1.DeployTransition) trace.SpanID {
	return tracing.SpanID("deployrun", t.uid, string(e.Phase), strconv.FormatInt(e.At.Unix(), 10))
}

func (t runTrace) remote(sid trace.SpanID) trace.SpanContext {
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: t.tid, SpanID: sid, TraceFlags: t.flags, Remote: true})
}

// within is ctx with the current phase's span (the root's before the first
// phase) as the parent of the calls made with it.
func (t runTrace) within(ctx context.Context, d *v1alpha1.DeployRun) context.Context {
	if !tracing.Enabled() {
		return ctx
	}
	sid := t.root
	if tl := d.Status.Timeline; len(tl) > 0 && !tl[len(tl)-1].Phase.Final() {
		sid = t.phaseID(tl[len(tl)-1])
	}
	return trace.ContextWithRemoteSpanContext(ctx, t.remote(sid))
}

// phaseSpan is a phase ended, timed to the microsecond or better.
type phaseSpan struct {
	e          v1alpha1.DeployTransition
	start, end time.Time
	failed     bool
}

// endedBy lists the phases that writing d's status over orig's ends. Call
// it before the write: d's new entries still have their nanoseconds, and
// the phase orig was in began at orig's phaseStartedAt.
func (t runTrace) endedBy(orig, d *v1alpha1.DeployRun) []phaseSpan {
	if !tracing.Enabled() {
		return nil
	}
	had := map[trace.SpanID]bool{}
	for _, e := range orig.Status.Timeline {
		had[t.phaseID(e)] = true
	}
	var out []phaseSpan
	tl := d.Status.Timeline
	for i := 0; i+1 < len(tl); i++ {
		if had[t.phaseID(tl[i+1])] || tl[i].Phase.Final() {
			continue
		}
		out = append(out, phaseSpan{e: tl[i], start: startOf(orig, tl[i]), end: tl[i+1].At.Time, failed: tl[i+1].Phase == v1alpha1.DeployFailed})
	}
	return out
}

// startOf is when the phase e entered began: d's phaseStartedAt when e is
// d's current phase, else e's own time (to the second once written).
func startOf(d *v1alpha1.DeployRun, e v1alpha1.DeployTransition) time.Time {
	tl := d.Status.Timeline
	if p := d.Status.PhaseStartedAt; p != nil && len(tl) > 0 && tl[len(tl)-1].Phase == e.Phase && tl[len(tl)-1].At.Equal(&e.At) && p.Unix() == e.At.Unix() {
		return p.Time
	}
	return e.At.Time
}

// written exports the phases a status write ended.
func (t runTrace) written(ctx context.Context, d *v1alpha1.DeployRun, ended []phaseSpan) {
	for _, p := range ended {
		t.phase(ctx, d, p.e, p.start, p.end, p.failed)
	}
}

func (t runTrace) phase(ctx context.Context, d *v1alpha1.DeployRun, e v1alpha1.DeployTransition, start, end time.Time, failed bool) {
	ctx = trace.ContextWithRemoteSpanContext(ctx, t.remote(t.root))
	ctx = tracing.WithIDs(ctx, t.tid, t.phaseID(e))
	_, span := tracing.Tracer().Start(ctx, string(e.Phase), trace.WithTimestamp(start),
		trace.WithAttributes(attribute.String("deployrun.phase", string(e.Phase)), attribute.String("deployrun.message", e.Message),
			attribute.String("k8s.namespace.name", d.Namespace), attribute.String("deployrun.name", d.Name)))
	if failed {
		span.SetStatus(codes.Error, d.Status.Message)
	}
	span.End(trace.WithTimestamp(end))
}

// finished exports the root span of a deployment that ended with outcome
// (and, when it was canceled, the span of the phase it was in).
func (t runTrace) finished(ctx context.Context, d *v1alpha1.DeployRun, outcome string, now time.Time) {
	if !tracing.Enabled() {
		return
	}
	// Not a child of the reconcile's phase span: of the request's, if any.
	ctx = trace.ContextWithSpanContext(ctx, trace.SpanContext{})
	if tl := d.Status.Timeline; len(tl) > 0 && !tl[len(tl)-1].Phase.Final() {
		t.phase(ctx, d, tl[len(tl)-1], startOf(d, tl[len(tl)-1]), now, false)
	}
	if t.parent.IsValid() {
		ctx = trace.ContextWithRemoteSpanContext(ctx, t.parent)
	}
	ctx = tracing.WithIDs(ctx, t.tid, t.root)
	attrs := []attribute.KeyValue{
		attribute.String("k8s.namespace.name", d.Namespace), attribute.String("deployrun.name", d.Name),
		attribute.String("deployrun.project", d.Spec.Project), attribute.String("deployrun.environment", d.Spec.Environment),
		attribute.String("deployrun.revision", d.Spec.Revision), attribute.String("deployrun.outcome", outcome),
	}
	if b := d.Status.Build; b != nil && b.Number > 0 {
		attrs = append(attrs, attribute.Int64("deployrun.build", b.Number))
	}
	if s := d.Status.Sync; s != nil && s.SyncedRevision != "" {
		attrs = append(attrs, attribute.String("deployrun.synced_revision", s.SyncedRevision))
	}
	_, span := tracing.Tracer().Start(ctx, "deploy "+d.Spec.Project+"/"+d.Spec.Environment, trace.WithTimestamp(d.CreationTimestamp.Time),
		trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	if outcome == string(v1alpha1.DeployFailed) {
		span.SetStatus(codes.Error, d.Status.Message)
	}
	span.End(trace.WithTimestamp(now))
}

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
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/tracing"
)

// A deployment's status writes, as the reconciler makes them, export one
// span per phase as it ends, under a root exported at the end; the calls
// made while a phase runs name that phase's span as their parent, whichever
// replica makes them.
func TestDeploymentTrace(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	stop := tracing.Export(exp)
	defer func() { _ = stop(context.Background()) }()

	for name, tc := range map[string]struct {
		annotation string
		failed     bool
	}{
		"FromRequest": {annotation: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
		"Derived":     {failed: true},
	} {
		t.Run(name, func(t *testing.T) {
			exp.Reset()
			at := time.Date(2026, 11, 27, 9, 0, 0, 300_000_000, time.UTC)
			d := &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "team", UID: types.UID("uid-" + name),
				CreationTimestamp: metav1.NewTime(at.Truncate(time.Second))}, Spec: v1alpha1.DeployRunSpec{Project: "shop", Environment: "dev"}}
			if tc.annotation != "" {
				d.Annotations = map[string]string{contract.AnnotationTraceParent: tc.annotation}
			}
			tr := traceOf(d)
			// write enters phases at the given offsets (one status write),
			// as the reconciler does: ended before, exported after.
			var calls []trace.SpanContext
			write := func(phases ...v1alpha1.DeployPhase) {
				calls = append(calls, trace.SpanContextFromContext(tr.within(context.Background(), d)))
				orig := d.DeepCopy()
				for _, p := range phases {
					at = at.Add(700 * time.Millisecond)
					d.Status.Phase = p
					d.Status.Timeline = append(d.Status.Timeline, v1alpha1.DeployTransition{Phase: p, At: metav1.NewTime(at)})
					started := metav1.NewMicroTime(at)
					d.Status.PhaseStartedAt = &started
				}
				ended := tr.endedBy(orig, d)
				// The API server keeps seconds, and microseconds.
				for i := range d.Status.Timeline {
					d.Status.Timeline[i].At = metav1.NewTime(d.Status.Timeline[i].At.Truncate(time.Second))
				}
				started := metav1.NewMicroTime(d.Status.PhaseStartedAt.Truncate(time.Microsecond))
				d.Status.PhaseStartedAt = &started
				tr.written(context.Background(), d, ended)
			}
			write(v1alpha1.DeployPending, v1alpha1.DeployBuilding)
			write(v1alpha1.DeployDeploying)
			write(v1alpha1.DeployVerifying)
			last := v1alpha1.DeploySucceeded
			if tc.failed {
				last = v1alpha1.DeployFailed
				d.Status.Message = "failed in Verifying: unhealthy"
			}
			write(last)
			tr.finished(context.Background(), d, string(last), at)

			spans := exp.GetSpans()
			var names []string
			for _, s := range spans {
				names = append(names, s.Name)
			}
			if got := strings.Join(names, ","); got != "Pending,Building,Deploying,Verifying,deploy shop/dev" {
				t.Fatalf("spans %s", got)
			}
			root := spans[4]
			if tc.annotation != "" && (root.SpanContext.TraceID().String() != "0af7651916cd43dd8448eb211c80319c" || root.Parent.SpanID().String() != "b7ad6b7169203331") {
				t.Errorf("root in %v under %v: want the request's trace, under its span", root.SpanContext.TraceID(), root.Parent.SpanID())
			}
			if tc.annotation == "" && (root.SpanContext.TraceID() != tracing.TraceID("deployrun", string(d.UID)) || root.Parent.IsValid()) {
				t.Errorf("root in %v under %v: want the trace derived from the uid, no parent", root.SpanContext.TraceID(), root.Parent)
			}
			if (root.Status.Code == codes.Error) != tc.failed || (spans[3].Status.Code == codes.Error) != tc.failed {
				t.Errorf("root %v, Verifying %v: an error status only for a failure", root.Status, spans[3].Status)
			}
			for i, s := range spans[:4] {
				if s.Parent.SpanID() != root.SpanContext.SpanID() || s.SpanContext.TraceID() != root.SpanContext.TraceID() {
					t.Errorf("%s is not the root's child", s.Name)
				}
				// Timed to the microsecond, whichever replica ends the
				// phase: each starts where the one before ended.
				if i > 0 && !s.StartTime.Equal(spans[i-1].EndTime) {
					t.Errorf("%s starts at %v, %s ended at %v", s.Name, s.StartTime, spans[i-1].Name, spans[i-1].EndTime)
				}
			}
			// The calls of each write were children of the phase then
			// current: the root's before any, then Building, Deploying,
			// Verifying.
			want := []trace.SpanID{root.SpanContext.SpanID(), spans[1].SpanContext.SpanID(), spans[2].SpanContext.SpanID(), spans[3].SpanContext.SpanID()}
			for i, c := range calls {
				if c.SpanID() != want[i] || c.TraceID() != root.SpanContext.TraceID() {
					t.Errorf("write %d: calls under %v, want %v", i, c.SpanID(), want[i])
				}
			}
		})
	}
}

// The trace is chosen once: an annotation changed mid-run cannot move the
// later spans to another trace, and status.traceID names only a trace
// whose spans are kept.
func TestTracePinned(t *testing.T) {
	stop := tracing.Export(tracetest.NewInMemoryExporter())
	defer func() { _ = stop(context.Background()) }()
	const (
		mine   = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
		theirs = "00-11111111111111111111111111111111-2222222222222222-01"
	)
	d := &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{UID: "u", Annotations: map[string]string{contract.AnnotationTraceParent: mine}}}
	tr := traceOf(d)
	tr.pin(d)
	if d.Status.TraceID != "0af7651916cd43dd8448eb211c80319c" {
		t.Fatalf("pinned %q, want the request's trace", d.Status.TraceID)
	}
	d.Annotations[contract.AnnotationTraceParent] = theirs
	if got := traceOf(d); got.tid.String() != d.Status.TraceID || got.parent.IsValid() {
		t.Errorf("after the annotation changed: trace %v parent %v, want the pinned trace without a parent", got.tid, got.parent)
	}
	unsampled := &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{UID: "v", Annotations: map[string]string{
		contract.AnnotationTraceParent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"}}}
	traceOf(unsampled).pin(unsampled)
	if unsampled.Status.TraceID != "" {
		t.Errorf("an unsampled trace pinned as %q: no span of it is kept", unsampled.Status.TraceID)
	}
}

func TestDescribeOperation(t *testing.T) {
	at := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	app := &argocd.Application{}
	if got := describeOperation(app); got != "no operation" {
		t.Errorf("no operation: %q", got)
	}
	app.Status.OperationState = &argocd.OperationState{Phase: "Running", StartedAt: &at, Message: "waiting for healthy state",
		Operation: argocd.Operation{InitiatedBy: &argocd.InitiatedBy{Automated: true}}}
	app.Operation = &argocd.Operation{InitiatedBy: &argocd.InitiatedBy{Username: "admin"}}
	want := "an operation Running, started 2026-11-27T08:00:00Z by automated sync: waiting for healthy state; an operation is pending by admin"
	if got := describeOperation(app); got != want {
		t.Errorf("describeOperation = %q, want %q", got, want)
	}
}

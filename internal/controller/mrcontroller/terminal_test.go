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
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"

	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

// failing is an external client whose Observe and Create fail with err.
type failing struct {
	managed.TypedExternalClient[*jenkinsv1alpha1.JenkinsPipeline]
	err error
}

func (f failing) Observe(context.Context, *jenkinsv1alpha1.JenkinsPipeline) (managed.ExternalObservation, error) {
	return managed.ExternalObservation{}, f.err
}

func (f failing) Create(context.Context, *jenkinsv1alpha1.JenkinsPipeline) (managed.ExternalCreation, error) {
	return managed.ExternalCreation{}, f.err
}

// requeue is what the managed reconciler answers after an error: requeue
// at the rate limiter's pace.
var requeue = reconcile.Result{Requeue: true} //nolint:staticcheck // the managed reconciler still answers Requeue

// observing is a reconciler that observes cr through ec and, like the
// managed reconciler, asks to be requeued on an error.
type observing struct {
	ec managed.TypedExternalClient[*jenkinsv1alpha1.JenkinsPipeline]
	cr *jenkinsv1alpha1.JenkinsPipeline
	// gotErr is the error the reconciler saw.
	gotErr error
}

func (o *observing) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	if _, err := o.ec.Observe(ctx, o.cr); err != nil {
		o.gotErr = err
		return requeue, nil
	}
	return reconcile.Result{RequeueAfter: 42}, nil
}

func TestTerminalBacksOff(t *testing.T) {
	unauthorized := &httpapi.Error{Backend: "Jenkins", Section: "jenkins", Status: http.StatusUnauthorized, Message: "bad token"}
	unavailable := &httpapi.Error{Backend: "Jenkins", Section: "jenkins", Status: http.StatusServiceUnavailable, Message: "down"}
	type want struct {
		result      reconcile.Result
		saysWaiting bool
	}
	cases := map[string]struct {
		reason string
		err    error
		want   want
	}{
		"Terminal": {
			reason: "A rejected credential is retried after TerminalBackoff, and the condition says so.",
			err:    errors.Wrap(unauthorized, "cannot get job"),
			want:   want{result: reconcile.Result{RequeueAfter: TerminalBackoff}, saysWaiting: true},
		},
		"Transient": {
			reason: "A backend outage keeps the rate limiter's back-off.",
			err:    unavailable,
			want:   want{result: requeue},
		},
		"RetryAfter": {
			reason: "A server that asked for a wait is called again after it, not at the rate limiter's pace.",
			err:    &httpapi.Error{Backend: "Jenkins", Status: http.StatusTooManyRequests, Message: "slow down", RetryAfter: 90 * time.Second},
			want:   want{result: reconcile.Result{RequeueAfter: 90 * time.Second}},
		},
		"RetryAfterTooShort": {
			reason: "A server answering Retry-After: 1 cannot pin a resource to a poll a second.",
			err:    &httpapi.Error{Backend: "Jenkins", Status: http.StatusServiceUnavailable, Message: "maintenance", RetryAfter: time.Second},
			want:   want{result: reconcile.Result{RequeueAfter: MinRetryAfter}},
		},
		"RetryAfterTooLong": {
			reason: "A server asking for years gets ten minutes: a resource being deleted must come back.",
			err:    &httpapi.Error{Backend: "Jenkins", Status: http.StatusTooManyRequests, Message: "later", RetryAfter: 87600 * time.Hour},
			want:   want{result: reconcile.Result{RequeueAfter: 10 * time.Minute}},
		},
		"Unclassified": {
			reason: "An error of ours (a tenancy refusal) keeps the rate limiter's back-off.",
			err:    errors.New("refused"),
			want:   want{result: requeue},
		},
		"Success": {
			reason: "A reconcile that succeeds keeps its own poll.",
			want:   want{result: reconcile.Result{RequeueAfter: 42}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ts := &terminals{}
			cr := &jenkinsv1alpha1.JenkinsPipeline{}
			cr.SetNamespace("team")
			cr.SetName("shop")
			ec, err := classifyConnector[*jenkinsv1alpha1.JenkinsPipeline]{TypedExternalConnector: connectorOf(failing{err: tc.err}), t: ts}.Connect(context.Background(), cr)
			if err != nil {
				t.Fatal(err)
			}
			inner := &observing{ec: ec, cr: cr}
			res, err := backOffTerminal{Reconciler: inner, t: ts}.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "team", Name: "shop"}})
			if err != nil {
				t.Fatal(err)
			}
			got := want{result: res, saysWaiting: inner.gotErr != nil && strings.Contains(inner.gotErr.Error(), "not retried for 2m0s")}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
			if tc.err != nil && !errors.Is(inner.gotErr, tc.err) {
				t.Errorf("%s: the error the reconciler saw no longer wraps the client's: %v", tc.reason, inner.gotErr)
			}
			if _, left := ts.m.Load(types.NamespacedName{Namespace: "team", Name: "shop"}); left {
				t.Errorf("%s: the terminal mark outlived the reconcile", tc.reason)
			}
		})
	}
}

// connectorOf connects every resource to ec.
func connectorOf(ec managed.TypedExternalClient[*jenkinsv1alpha1.JenkinsPipeline]) managed.TypedExternalConnector[*jenkinsv1alpha1.JenkinsPipeline] {
	return managed.TypedExternalConnectorFn[*jenkinsv1alpha1.JenkinsPipeline](func(context.Context, *jenkinsv1alpha1.JenkinsPipeline) (managed.TypedExternalClient[*jenkinsv1alpha1.JenkinsPipeline], error) {
		return ec, nil
	})
}

// TestTerminalPerResource: a terminal failure of one namespace's resource
// does not hold a resource of the same name in another namespace.
func TestTerminalPerResource(t *testing.T) {
	ts := &terminals{}
	mine := &jenkinsv1alpha1.JenkinsPipeline{}
	mine.SetNamespace("team-a")
	mine.SetName("shop")
	_ = ts.note(mine, &httpapi.Error{Backend: "Jenkins", Status: http.StatusUnauthorized})
	theirs := &jenkinsv1alpha1.JenkinsPipeline{}
	theirs.SetNamespace("team-b")
	theirs.SetName("shop")
	ec, _ := classifyConnector[*jenkinsv1alpha1.JenkinsPipeline]{TypedExternalConnector: connectorOf(failing{err: errors.New("boom")}), t: ts}.Connect(context.Background(), theirs)
	res, err := backOffTerminal{Reconciler: &observing{ec: ec, cr: theirs}, t: ts}.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "team-b", Name: "shop"}})
	if err != nil || res != requeue {
		t.Errorf("team-b/shop was held by team-a/shop's terminal failure: %+v, %v", res, err)
	}
}

// accepting is an external client whose Create and Delete succeed.
type accepting struct {
	managed.TypedExternalClient[*jenkinsv1alpha1.JenkinsPipeline]
}

func (accepting) Create(context.Context, *jenkinsv1alpha1.JenkinsPipeline) (managed.ExternalCreation, error) {
	return managed.ExternalCreation{}, nil
}

func (accepting) Delete(context.Context, *jenkinsv1alpha1.JenkinsPipeline) (managed.ExternalDelete, error) {
	return managed.ExternalDelete{}, nil
}

// writing is a reconciler that, like the managed reconciler, creates or
// deletes cr through ec and asks to be requeued at once.
type writing struct {
	ec managed.TypedExternalClient[*jenkinsv1alpha1.JenkinsPipeline]
	cr *jenkinsv1alpha1.JenkinsPipeline
	// annotated, when set, notes the Update before a Create, as the
	// managed reconciler's would be noted.
	annotated *written
}

func (w writing) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	var err error
	if w.cr.GetDeletionTimestamp() != nil {
		_, err = w.ec.Delete(ctx, w.cr)
	} else {
		if w.annotated != nil {
			written := w.cr.DeepCopy()
			written.SetResourceVersion("8")
			w.annotated.wrote(written, "7", false)
		}
		_, err = w.ec.Create(ctx, w.cr)
	}
	return requeue, err
}

// TestLookAgainAfterWrite: after an accepted Delete, the next look is not
// left to the rate limiter, whose back-off after earlier failures reaches
// a minute; after an accepted Create whose reconcile wrote the resource
// before it, that write's watch event is the next look, and nothing is
// requeued; when it wrote nothing, the look comes after followCreate,
// not after the rate limiter's back-off.
func TestLookAgainAfterWrite(t *testing.T) {
	for name, annotated := range map[string]bool{"CreatedAndAnnotated": true, "CreatedNotAnnotated": false} {
		t.Run(name, func(t *testing.T) {
			w, ts := newTracking()
			cr := &jenkinsv1alpha1.JenkinsPipeline{}
			cr.SetNamespace("team")
			cr.SetName("shop")
			ec, _ := classifyConnector[*jenkinsv1alpha1.JenkinsPipeline]{TypedExternalConnector: connectorOf(accepting{}), t: ts}.Connect(context.Background(), cr)
			r := writing{ec: ec, cr: cr}
			if annotated {
				r.annotated = w
			}
			res, err := backOffTerminal{Reconciler: r, t: ts}.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "team", Name: "shop"}})
			if want := map[bool]reconcile.Result{true: {}, false: {RequeueAfter: followCreate}}[annotated]; err != nil || res != want {
				t.Errorf("got %+v, %v; want %+v", res, err, want)
			}
		})
	}
	cases := map[string]struct {
		deletedAgo time.Duration
		want       time.Duration
	}{
		"JustDeleted":      {deletedAgo: time.Second, want: MinAfterDeletion},
		"DeletedMinuteAgo": {deletedAgo: time.Minute, want: 10 * time.Second},
		"DeletedLongAgo":   {deletedAgo: time.Hour, want: NotReadyPollInterval},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ts := &terminals{}
			cr := &jenkinsv1alpha1.JenkinsPipeline{}
			cr.SetNamespace("team")
			cr.SetName("shop")
			if tc.deletedAgo > 0 {
				cr.SetDeletionTimestamp(&metav1.Time{Time: time.Now().Add(-tc.deletedAgo)})
			}
			ec, _ := classifyConnector[*jenkinsv1alpha1.JenkinsPipeline]{TypedExternalConnector: connectorOf(accepting{}), t: ts}.Connect(context.Background(), cr)
			res, err := backOffTerminal{Reconciler: writing{ec: ec, cr: cr}, t: ts}.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "team", Name: "shop"}})
			// A second's slack: the time since the deletion is read
			// after the test set it.
			if err != nil || res.Requeue || res.RequeueAfter < tc.want || res.RequeueAfter > tc.want+time.Second/notReadyPollFraction { //nolint:staticcheck // the managed reconciler still answers Requeue
				t.Errorf("got %+v, %v; want a requeue after %s", res, err, tc.want)
			}
		})
	}
	ts := &terminals{}
	cr := &jenkinsv1alpha1.JenkinsPipeline{}
	ec, _ := classifyConnector[*jenkinsv1alpha1.JenkinsPipeline]{TypedExternalConnector: connectorOf(failing{err: errors.New("boom")}), t: ts}.Connect(context.Background(), cr)
	if _, err := ec.Create(context.Background(), cr); err == nil {
		t.Fatal("failing's Create succeeded")
	}
	if _, noted := ts.m.Load(types.NamespacedName{}); noted {
		t.Error("a failed Create was noted to be looked at again soon: it must keep the rate limiter's back-off")
	}
}

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

package projectrequest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	amqp "github.com/rabbitmq/amqp091-go"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/events"
)

// fakeProjects is the API server's DevOpsProjects: one project at most,
// and the bodies applied.
type fakeProjects struct {
	cur              *unstructured.Unstructured
	getErr, applyErr error
	applied          [][]byte
}

func (f *fakeProjects) Get(_ context.Context, namespace, name string) (*unstructured.Unstructured, error) {
	switch {
	case f.getErr != nil:
		return nil, f.getErr
	case f.cur == nil || f.cur.GetNamespace() != namespace || f.cur.GetName() != name:
		return nil, kerrors.NewNotFound(GroupVersionResource.GroupResource(), name)
	}
	return f.cur.DeepCopy(), nil
}

func (f *fakeProjects) Apply(_ context.Context, _, _ string, body []byte) error {
	if f.applyErr != nil {
		return f.applyErr
	}
	f.applied = append(f.applied, body)
	return nil
}

func project(pc string, annotations map[string]string, mut ...func(*unstructured.Unstructured)) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"providerConfigName": pc}}}
	u.SetNamespace("team")
	u.SetName("shop")
	u.SetResourceVersion("42")
	u.SetAnnotations(annotations)
	for _, m := range mut {
		m(u)
	}
	return u
}

func fieldConflict() error {
	return &kerrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: 409, Reason: metav1.StatusReasonConflict,
		Message: `Apply failed with 1 conflict: conflict with "kubectl-edit" using platform.freeleaps.io/v1alpha1: .spec.git.branch`,
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{
			Type: metav1.CauseTypeFieldManagerConflict, Message: `conflict with "kubectl-edit" using platform.freeleaps.io/v1alpha1`, Field: ".spec.git.branch",
		}}},
	}}
}

func TestApply(t *testing.T) {
	at := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	later := at.Add(time.Minute).Format(time.RFC3339Nano)
	gr := GroupVersionResource.GroupResource()
	type want struct {
		reject  string // a substring of the rejection
		retry   bool   // a passing failure
		applied bool
		body    map[string]any // what was applied, when set
	}
	cases := map[string]struct {
		reason   string
		projects *fakeProjects
		pc       string // the message's spec.providerConfigName
		user     string
		want     want
	}{
		"Create": {reason: "an authorised user's message is applied as sent, with the delivery's annotations",
			projects: &fakeProjects{}, user: "ci-team",
			want: want{applied: true, body: map[string]any{
				"apiVersion": "platform.freeleaps.io/v1alpha1", "kind": "DevOpsProject",
				"metadata": map[string]any{"name": "shop", "namespace": "team", "annotations": map[string]any{
					AnnotationRequestedAt: "2026-11-23T08:00:00Z", AnnotationRequestKey: "amqp-m1", AnnotationRequestedBy: "amqp:ci-team", AnnotationRequestID: "init-1",
				}},
				"spec": map[string]any{"git": map[string]any{"url": "https://git.example.com/shop.git"}},
			}}},
		"Update": {reason: "an update is applied against the version read, so nothing slips in between the checks and the write",
			projects: &fakeProjects{cur: project("default", map[string]string{AnnotationRequestedAt: "2026-11-23T07:00:00Z", AnnotationRequestKey: "amqp-m0"})}, user: "ci-team",
			want: want{applied: true, body: map[string]any{
				"apiVersion": "platform.freeleaps.io/v1alpha1", "kind": "DevOpsProject",
				"metadata": map[string]any{"name": "shop", "namespace": "team", "resourceVersion": "42", "annotations": map[string]any{
					AnnotationRequestedAt: "2026-11-23T08:00:00Z", AnnotationRequestKey: "amqp-m1", AnnotationRequestedBy: "amqp:ci-team", AnnotationRequestID: "init-1",
				}},
				"spec": map[string]any{"git": map[string]any{"url": "https://git.example.com/shop.git"}},
			}}},
		"Unauthorised": {reason: "a user the ProviderConfig does not list is refused, told which field of which config to change",
			projects: &fakeProjects{}, user: "ci-other",
			want: want{reject: `unauthorised: broker user "ci-other" may not write DevOpsProject team/shop in namespace team: it is not in spec.initializeUsers of ProviderConfig team/default`}},
		"PlaceholderIsThisNamespace": {reason: `"ci-{namespace}" lets ci-team write team only; the user of another namespace is refused`,
			projects: &fakeProjects{}, user: "ci-other-team",
			want: want{reject: `broker user "ci-other-team" may not write`}},
		"NamedProviderConfig": {reason: "the ProviderConfig consulted is the one the spec names",
			projects: &fakeProjects{}, pc: "open", user: "anyone", want: want{applied: true}},
		"NoSuchProviderConfig": {reason: "a ProviderConfig that does not exist authorises nobody",
			projects: &fakeProjects{}, pc: "missing", user: "ci-team",
			want: want{reject: "DevOpsProject team/shop would use ProviderConfig team/missing (spec.providerConfigName), which does not exist"}},
		"ExistingProviderConfig": {reason: "a project's own ProviderConfig, named again by the message, authorises its update",
			projects: &fakeProjects{cur: project("open", nil)}, pc: "open", user: "anyone", want: want{applied: true}},
		"OmittedIsDefault": {reason: "a message naming no ProviderConfig may leave the project on the default one (if only messages had set another): both must allow it",
			projects: &fakeProjects{cur: project("open", nil)}, user: "anyone",
			want: want{reject: `broker user "anyone" may not write DevOpsProject team/shop in namespace team: it is not in spec.initializeUsers of ProviderConfig team/default`}},
		"MoveNeedsBoth": {reason: "moving a project to a ProviderConfig that lists the user needs the one it uses now to list the user too",
			projects: &fakeProjects{cur: project("default", nil)}, pc: "open", user: "anyone",
			want: want{reject: `broker user "anyone" may not write DevOpsProject team/shop in namespace team: it is not in spec.initializeUsers of ProviderConfig team/default`}},
		"Redelivery": {reason: "the message applied last, delivered again, is acked and not applied again",
			projects: &fakeProjects{cur: project("default", map[string]string{AnnotationRequestedAt: later, AnnotationRequestKey: "amqp-m1"})}, user: "ci-team",
			want: want{}},
		"Superseded": {reason: "a message older than the one applied last is refused",
			projects: &fakeProjects{cur: project("default", map[string]string{AnnotationRequestedAt: later, AnnotationRequestKey: "amqp-m2"})}, user: "ci-team",
			want: want{reject: "superseded: requested at 2026-11-23T08:00:00Z, before the message last applied to DevOpsProject team/shop (2026-11-23T08:01:00Z)"}},
		"UnauthorisedLearnsNothing": {reason: "a user who may not write the project is refused as such, not told how old its last message is",
			projects: &fakeProjects{cur: project("default", map[string]string{AnnotationRequestedAt: later})}, user: "ci-other",
			want: want{reject: `unauthorised: broker user "ci-other"`}},
		"Deleting": {reason: "a project being deleted is not written",
			projects: &fakeProjects{cur: project("default", nil, func(u *unstructured.Unstructured) { u.SetDeletionTimestamp(&metav1.Time{Time: at}) })}, user: "ci-team",
			want: want{reject: "DevOpsProject team/shop is being deleted"}},
		"FieldConflict": {reason: "a field another manager set is not overwritten; the rejection names it and who set it",
			projects: &fakeProjects{applyErr: fieldConflict()}, user: "ci-team",
			want: want{reject: "conflict: DevOpsProject team/shop: the message changes .spec.git.branch (set by kubectl-edit), set by someone else; it was not applied"}},
		"Stale": {reason: "a project changed between the read and the apply is read again",
			projects: &fakeProjects{applyErr: kerrors.NewConflict(gr, "shop", errors.New("the object has been modified"))}, user: "ci-team",
			want: want{retry: true}},
		"Invalid": {reason: "the API server's validation (the XRD's schema and rules) is the rejection's reason, in its words",
			projects: &fakeProjects{applyErr: kerrors.NewInvalid(schema.GroupKind{Group: "platform.freeleaps.io", Kind: "DevOpsProject"}, "shop", field.ErrorList{field.Invalid(field.NewPath("spec", "environments"), "x", "every environments[].domain must be inside dns.zone")})}, user: "ci-team",
			want: want{reject: "DevOpsProject team/shop: refused by the API server: DevOpsProject.platform.freeleaps.io \"shop\" is invalid: spec.environments: Invalid value: \"x\": every environments[].domain must be inside dns.zone"}},
		"UnknownField": {reason: "strict field validation refuses a misspelt field, not silently dropped; the API server answers 500 for it (kubernetes/kubernetes#139253)",
			projects: &fakeProjects{applyErr: &kerrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 500,
				Message: "failed to create typed patch object (team/shop; platform.freeleaps.io/v1alpha1, Kind=DevOpsProject): .spec.git.brnach: field not declared in schema"}}}, user: "ci-team",
			want: want{reject: "refused by the API server: failed to create typed patch object (team/shop; platform.freeleaps.io/v1alpha1, Kind=DevOpsProject): .spec.git.brnach: field not declared in schema"}},
		"UnknownFieldFixed": {reason: "once the API server answers 400 for it, the same",
			projects: &fakeProjects{applyErr: kerrors.NewBadRequest(`.spec.git.brnach: field not declared in schema`)}, user: "ci-team",
			want: want{reject: "refused by the API server: .spec.git.brnach: field not declared in schema"}},
		"InternalError": {reason: "any other 500 is passing",
			projects: &fakeProjects{applyErr: kerrors.NewInternalError(errors.New("etcd leader changed"))}, user: "ci-team",
			want: want{retry: true}},
		"Forbidden": {reason: "a provider without the RBAC to read projects says what it needs",
			projects: &fakeProjects{getErr: kerrors.NewForbidden(gr, "shop", errors.New(`User "system:serviceaccount:crossplane-system:provider-devops" cannot get resource "devopsprojects"`))}, user: "ci-team",
			want: want{reject: "needs get, create and patch on devopsprojects.platform.freeleaps.io"}},
		"NotServed": {reason: "without the configuration package there is no DevOpsProject to write",
			projects: &fakeProjects{applyErr: kerrors.NewNotFound(gr, "shop")}, user: "ci-team",
			want: want{reject: "the API server does not serve DevOpsProject (platform.freeleaps.io/v1alpha1)"}},
		"Unavailable": {reason: "a passing failure is retried",
			projects: &fakeProjects{applyErr: kerrors.NewServiceUnavailable("etcd")}, user: "ci-team",
			want: want{retry: true}},
	}
	s := runtime.NewScheme()
	if err := v1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	broker := v1alpha1.EventsConfig{Credentials: v1alpha1.Credentials{Source: "None"}}
	configs := fake.NewClientBuilder().WithScheme(s).WithObjects(
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "team"}, Spec: v1alpha1.ProviderConfigSpec{Events: &broker, InitializeUsers: []string{"ci-{namespace}"}}},
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "open", Namespace: "team"}, Spec: v1alpha1.ProviderConfigSpec{Events: &broker, InitializeUsers: []string{"anyone"}}},
		// Another namespace's config lists everyone: it authorises nothing here.
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "missing", Namespace: "other"}, Spec: v1alpha1.ProviderConfigSpec{Events: &broker, InitializeUsers: []string{"ci-team", "anyone"}}},
	).Build()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := `{"git": {"url": "https://git.example.com/shop.git"}}`
			req := &Request{Namespace: "team", Project: "shop", ID: "init-1", RequestedAt: &at, Spec: json.RawMessage(spec), ProviderConfigName: tc.pc}
			err := Apply(context.Background(), tc.projects, configs, req, Delivery{Token: "amqp-m1", User: tc.user})
			var rej *events.RejectError
			switch {
			case tc.want.reject != "":
				if !errors.As(err, &rej) || !strings.Contains(rej.Reason, tc.want.reject) {
					t.Fatalf("%s: got %v, want a rejection containing %q", tc.reason, err, tc.want.reject)
				}
			case tc.want.retry:
				if err == nil || errors.As(err, &rej) {
					t.Fatalf("%s: got %v, want an error to retry", tc.reason, err)
				}
			case err != nil:
				t.Fatalf("%s: %v", tc.reason, err)
			}
			if n := len(tc.projects.applied); tc.want.applied != (n == 1) || n > 1 {
				t.Fatalf("%s: applied %d times, want applied %t (once)", tc.reason, n, tc.want.applied)
			}
			if tc.want.body == nil {
				return
			}
			got := map[string]any{}
			if err := json.Unmarshal(tc.projects.applied[0], &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want.body, got); diff != "" {
				t.Errorf("%s: applied -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestHandler(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	body := func(extra string) []byte {
		return []byte(`{"namespace": "team", "project": "shop", "spec": {"providerConfigName": "open"}` + extra + `}`)
	}
	cases := map[string]struct {
		reason string
		d      amqp.Delivery
		reject string
		at     time.Time // requestedAt applied, if anything is
	}{
		"TimestampStandsIn": {reason: "the AMQP timestamp stands in for requestedAt",
			d: amqp.Delivery{UserId: "anyone", MessageId: "m1", Timestamp: now, Body: body("")}, at: now},
		"RequestedAtWins": {reason: "requestedAt in the body wins over the AMQP timestamp",
			d: amqp.Delivery{UserId: "anyone", MessageId: "m1", Timestamp: now, Body: body(`, "requestedAt": "2026-01-01T00:00:00Z"`)}, at: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
		"NoTime": {reason: "a message without a time cannot be ordered",
			d: amqp.Delivery{UserId: "anyone", Body: body("")}, reject: "requestedAt is required"},
		"Future": {reason: "a time far ahead would hold back every later message",
			d: amqp.Delivery{UserId: "anyone", Timestamp: now.Add(time.Hour), Body: body("")}, reject: "is in the future"},
		"Anonymous": {reason: "without user_id nobody can be authorised",
			d: amqp.Delivery{Timestamp: now, Body: body("")}, reject: "unauthenticated DevOpsInitialize: no AMQP user_id"},
		"Huge": {reason: "a body over MaxBody is not read",
			d: amqp.Delivery{UserId: "anyone", Timestamp: now, Body: body(`, "id": "` + strings.Repeat("a", MaxBody) + `"`)}, reject: "larger than 65536: not read"},
		"Malformed": {reason: "a malformed message is refused with the parser's reason",
			d: amqp.Delivery{UserId: "anyone", Timestamp: now, Body: []byte(`{"project": "shop"}`)}, reject: "malformed DevOpsInitialize: namespace is required"},
	}
	s := runtime.NewScheme()
	if err := v1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	configs := fake.NewClientBuilder().WithScheme(s).WithObjects(&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "open", Namespace: "team"},
		Spec: v1alpha1.ProviderConfigSpec{Events: &v1alpha1.EventsConfig{}, InitializeUsers: []string{"anyone"}}}).Build()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := &fakeProjects{}
			err := Handler(p, configs)(context.Background(), tc.d)
			var rej *events.RejectError
			if tc.reject != "" {
				if !errors.As(err, &rej) || !strings.Contains(rej.Reason, tc.reject) {
					t.Fatalf("%s: got %v, want a rejection containing %q", tc.reason, err, tc.reject)
				}
				return
			}
			if err != nil || len(p.applied) != 1 {
				t.Fatalf("%s: error %v, applied %d times, want once", tc.reason, err, len(p.applied))
			}
			var got struct {
				Metadata metav1.ObjectMeta `json:"metadata"`
			}
			if err := json.Unmarshal(p.applied[0], &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.at.Format(time.RFC3339Nano), got.Metadata.Annotations[AnnotationRequestedAt]); diff != "" {
				t.Errorf("%s: requestedAt -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

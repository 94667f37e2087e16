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

package deployments_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/events"
	"github.com/freeleaps/provider-devops/internal/events/deployments"
	"github.com/freeleaps/provider-devops/internal/testing/rabbitmq"
)

const exchange = "devops.events"

// bind declares a durable queue bound to the events exchange with key.
func bind(t *testing.T, ch *amqp.Channel, queue, key string) <-chan amqp.Delivery {
	t.Helper()
	if _, err := ch.QueueDeclare(queue, true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := ch.QueueBind(queue, key, exchange, false, nil); err != nil {
		t.Fatal(err)
	}
	ds, err := ch.Consume(queue, "", true, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func receive(t *testing.T, ds <-chan amqp.Delivery, n int) []amqp.Delivery {
	t.Helper()
	var got []amqp.Delivery
	deadline := time.After(60 * time.Second)
	for len(got) < n {
		select {
		case d := <-ds:
			got = append(got, d)
		case <-deadline:
			t.Fatalf("received %d messages within 60s, want %d", len(got), n)
		}
	}
	return got
}

// A consumer of the old operator's heartbeats, a queue bound with
// DevOpsReconcileJobHeartbeat, receives the legacy body with its type
// property, next to the CloudEvents (format both) of the same deployment.
func TestLegacyOnRabbitMQ(t *testing.T) {
	b := rabbitmq.Start(t)
	conn, err := amqp.Dial(b.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.ExchangeDeclare(exchange, amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	legacy := bind(t, ch, "ui.heartbeats", "DevOpsReconcileJobHeartbeat")
	ces := bind(t, ch, "app.deployments", "deployrun.#")

	p := events.NewPublisher(events.PublisherOptions{Source: func(context.Context) (events.Broker, error) {
		return events.Broker{URL: b.URL, Exchange: exchange}, nil
	}})
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { _ = p.Start(ctx); close(stopped) }()
	t.Cleanup(func() { cancel(); <-stopped })

	w := deployments.New(p, deployments.Options{Format: deployments.Both})
	dr := run("shop-dev-1", "req-42")
	w.Added(dr, false)
	done := with(dr, v1alpha1.DeploySucceeded, "deployed abc123")
	done.Status.URL = "https://shop-dev.example.com"
	w.Changed(dr, done)

	want := []string{
		`{"operation": "heartbeat", "id": "req-42", "status": "running", "phase": "initializing", "phase_message": "", "url": null}`,
		`{"operation": "heartbeat", "id": "req-42", "status": "success", "phase": "verifying", "phase_message": "deployed abc123", "url": "https://shop-dev.example.com"}`,
	}
	ids := map[string]bool{}
	for i, d := range receive(t, legacy, len(want)) {
		if string(d.Body) != want[i] {
			t.Errorf("legacy message %d:\n got %s\nwant %s", i, d.Body, want[i])
		}
		if d.Type != "DevOpsReconcileJobHeartbeat" || d.ContentType != "application/json" || d.DeliveryMode != amqp.Persistent || d.RoutingKey != "DevOpsReconcileJobHeartbeat" {
			t.Errorf("legacy message %d: type %q, content type %q, delivery mode %d, routing key %q", i, d.Type, d.ContentType, d.DeliveryMode, d.RoutingKey)
		}
		if d.MessageId == "" || ids[d.MessageId] {
			t.Errorf("legacy message %d: message id %q missing or repeated", i, d.MessageId)
		}
		ids[d.MessageId] = true
	}
	for i, typ := range []string{"io.freeleaps.devops.work.phase", "io.freeleaps.devops.work.completed"} {
		d := receive(t, ces, 1)[0]
		var e events.Event
		if err := json.Unmarshal(d.Body, &e); err != nil {
			t.Fatalf("event %d: %v: %s", i, err, d.Body)
		}
		if e.Type != typ || d.Type != typ || d.ContentType != events.ContentType || e.Data.Deployment != "req-42" {
			t.Errorf("event %d: type %q (property %q), content type %q, deployment %q; want %q", i, e.Type, d.Type, d.ContentType, e.Data.Deployment, typ)
		}
	}
}

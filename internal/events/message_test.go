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

package events

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// PublishMessage and Publish share the outbox: one bound, one count.
func TestPublishMessage(t *testing.T) {
	m := NewMetrics(nil)
	p := NewPublisher(PublisherOptions{Source: source("amqp://127.0.0.1:1/"), Metrics: m, OutboxSize: 3})
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := p.PublishMessage(Message{ID: "m1", RoutingKey: "Key", Type: "T", ContentType: "text/plain", Time: at, Body: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	if err := p.PublishMessage(Message{RoutingKey: "Key", Type: "T", Body: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	e := event(1)
	if err := p.Publish(e); err != nil {
		t.Fatal(err)
	}
	if err := p.PublishMessage(Message{Body: []byte("{}")}); err != ErrOutboxFull {
		t.Fatalf("a 4th message into an outbox of 3: %v, want ErrOutboxFull", err)
	}
	if got := testutil.ToFloat64(m.Published); got != 3 {
		t.Errorf("published %v, want 3", got)
	}
	if got := testutil.ToFloat64(m.Dropped.WithLabelValues(DropOutboxFull)); got != 1 {
		t.Errorf("dropped %v, want 1", got)
	}
	q := p.queue
	if got := *q[0]; got.id != "m1" || got.key != "Key" || got.typ != "T" || got.contentType != "text/plain" || !got.at.Equal(at) || string(got.body) != "x" {
		t.Errorf("first message as given: %+v", got)
	}
	if got := *q[1]; got.id == "" || got.contentType != "application/json" || got.at.IsZero() {
		t.Errorf("second message's defaults: id %q, content type %q, time %v", got.id, got.contentType, got.at)
	}
	if got := *q[2]; got.id != e.ID || got.key != e.RoutingKey() || got.typ != e.Type || got.contentType != ContentType {
		t.Errorf("the event as a message: %+v", got)
	}
}

func TestPhaseType(t *testing.T) {
	e := New("s", Phase, Data{Kind: "DeployRun", Namespace: "team-a", Name: "shop-dev-1"}, time.Now())
	if got, want := e.Type, "io.freeleaps.devops.work.phase"; got != want {
		t.Errorf("Type = %q, want %q", got, want)
	}
	if got, want := e.RoutingKey(), "deployrun.team-a.shop-dev-1.phase"; got != want {
		t.Errorf("RoutingKey = %q, want %q", got, want)
	}
}

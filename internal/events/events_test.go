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
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/freeleaps/provider-devops/internal/testing/loopback"
	"github.com/freeleaps/provider-devops/internal/testing/rabbitmq"
)

const exchange = "devops.events"

func source(url string) Source {
	return func(context.Context) (Broker, error) { return Broker{URL: url, Exchange: exchange}, nil }
}

// listen declares a durable queue bound to the exchange for every event and
// returns a function that reads what has arrived so far.
func listen(t testing.TB, url, queue string) (read func(wantAtLeast int, within time.Duration) []amqp.Delivery) {
	t.Helper()
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.ExchangeDeclare(exchange, amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ch.QueueDeclare(queue, true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := ch.QueueBind(queue, "#", exchange, false, nil); err != nil {
		t.Fatal(err)
	}
	_ = conn.Close()
	return func(want int, within time.Duration) []amqp.Delivery {
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
		ds, err := ch.Consume(queue, "", true, false, false, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []amqp.Delivery
		deadline := time.After(within)
		for len(got) < want {
			select {
			case d := <-ds:
				got = append(got, d)
			case <-deadline:
				return got
			}
		}
		// Anything more (duplicates) arrives right behind.
		for {
			select {
			case d := <-ds:
				got = append(got, d)
			case <-time.After(500 * time.Millisecond):
				return got
			}
		}
	}
}

func start(t *testing.T, p interface{ Start(context.Context) error }) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = p.Start(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

func event(i int) Event {
	return New("/provider-devops/test", Ready, Data{Project: "shop", Environment: "dev", Kind: "JenkinsPipeline", Namespace: "team-a", Name: fmt.Sprintf("shop-dev.%d", i), Phase: "Available", Status: "Ready", URL: "https://jenkins.example/job/shop-dev/"}, time.Now())
}

// waitFor polls cond until it holds or the time is up.
func waitFor(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// check decodes every delivery as a CloudEvent, checks its schema and
// returns how many times each id arrived.
func check(t *testing.T, ds []amqp.Delivery) map[string]int {
	t.Helper()
	ids := map[string]int{}
	for _, d := range ds {
		var raw map[string]any
		if err := json.Unmarshal(d.Body, &raw); err != nil {
			t.Fatalf("not JSON: %v: %s", err, d.Body)
		}
		for _, f := range []string{"specversion", "id", "type", "source", "subject", "time", "datacontenttype", "data"} {
			if _, ok := raw[f]; !ok {
				t.Fatalf("event lacks %q: %s", f, d.Body)
			}
		}
		var e Event
		if err := json.Unmarshal(d.Body, &e); err != nil {
			t.Fatal(err)
		}
		switch {
		case e.SpecVersion != "1.0", !strings.HasPrefix(e.Type, TypePrefix), e.Time.IsZero(), e.Data.Kind == "", e.Data.Name == "":
			t.Fatalf("invalid event: %s", d.Body)
		case d.ContentType != ContentType, d.MessageId != e.ID, d.DeliveryMode != amqp.Persistent:
			t.Fatalf("properties: content type %q, message id %q (event %q), delivery mode %d", d.ContentType, d.MessageId, e.ID, d.DeliveryMode)
		case d.RoutingKey != e.RoutingKey():
			t.Fatalf("routing key %q, want %q", d.RoutingKey, e.RoutingKey())
		}
		ids[e.ID]++
	}
	return ids
}

func TestPublishConsume(t *testing.T) {
	b := rabbitmq.Start(t)
	read := listen(t, b.URL, "all-events")
	m := NewMetrics(nil)
	p := NewPublisher(PublisherOptions{Source: source(b.URL), Metrics: m, Window: 32})
	start(t, p)

	const n = 500
	want := map[string]bool{}
	for i := range n {
		e := event(i)
		want[e.ID] = true
		if err := p.Publish(e); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 60*time.Second, "every event confirmed", func() bool { return testutil.ToFloat64(m.Confirmed) == n })
	if d := p.Depth(); d != 0 {
		t.Errorf("outbox depth %d after every confirm, want 0", d)
	}
	got := check(t, read(n, 30*time.Second))
	if len(got) != n {
		t.Fatalf("consumed %d distinct events, want %d", len(got), n)
	}
	for id, c := range got {
		if !want[id] {
			t.Errorf("unexpected event %s", id)
		}
		if c != 1 {
			t.Errorf("event %s arrived %d times on a stable broker", id, c)
		}
	}
	if r, d := testutil.ToFloat64(m.Returned), testutil.ToFloat64(m.Dropped.WithLabelValues(DropOutboxFull)); r != 0 || d != 0 {
		t.Errorf("returned %v, dropped %v; want 0", r, d)
	}
}

// The broker is stopped in the middle of a stream and started again:
// every event published meanwhile arrives, and duplicates (at least once)
// are measured and reported.
func TestBrokerRestart(t *testing.T) {
	b := rabbitmq.Start(t)
	read := listen(t, b.URL, "restart-events")
	m := NewMetrics(nil)
	p := NewPublisher(PublisherOptions{Source: source(b.URL), Metrics: m, Backoff: Backoff{Min: 100 * time.Millisecond, Max: time.Second}})
	start(t, p)

	var (
		mu   sync.Mutex
		sent = map[string]bool{}
	)
	publish := func(k int) {
		for i := range k {
			e := event(i)
			if err := p.Publish(e); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			sent[e.ID] = true
			mu.Unlock()
			time.Sleep(2 * time.Millisecond)
		}
	}
	publish(200)
	stopped := make(chan error, 1)
	go func() { stopped <- b.Stop() }()
	publish(300) // while the broker goes down and is down
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	publish(200)
	depthWhileDown := p.Depth()
	if depthWhileDown == 0 {
		t.Fatal("outbox empty while the broker is down; the events went nowhere")
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	publish(100)
	const n = 800
	waitFor(t, 90*time.Second, "outbox drained after the restart", func() bool { return p.Depth() == 0 })
	got := check(t, read(n, 60*time.Second))
	dups := 0
	for id := range sent {
		if got[id] == 0 {
			t.Errorf("event %s was lost", id)
		}
		dups += got[id] - 1
	}
	if len(got) != len(sent) {
		t.Errorf("consumed %d distinct events, published %d", len(got), len(sent))
	}
	t.Logf("broker restart: %d events published, %d held in the outbox while down, %d duplicates delivered (at least once), confirmed %v",
		len(sent), depthWhileDown, dups, testutil.ToFloat64(m.Confirmed))
}

func TestUnroutableIsCountedAndDropped(t *testing.T) {
	b := rabbitmq.Start(t)
	m := NewMetrics(nil)
	p := NewPublisher(PublisherOptions{Source: source(b.URL), Metrics: m})
	start(t, p)
	if err := p.Publish(event(1)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the event returned", func() bool { return testutil.ToFloat64(m.Returned) == 1 })
	waitFor(t, 5*time.Second, "the outbox empty", func() bool { return p.Depth() == 0 })
	if c, d := testutil.ToFloat64(m.Confirmed), testutil.ToFloat64(m.Dropped.WithLabelValues(DropUnroutable)); c != 0 || d != 1 {
		t.Errorf("confirmed %v, dropped unroutable %v; want 0 and 1", c, d)
	}
}

func TestOutboxFullDropsAndCounts(t *testing.T) {
	port, err := loopback.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	m := NewMetrics(nil)
	p := NewPublisher(PublisherOptions{Source: source(fmt.Sprintf("amqp://guest:secret-pw@127.0.0.1:%d/", port)), Metrics: m, OutboxSize: 10})
	start(t, p)
	for i := range 10 {
		if err := p.Publish(event(i)); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	if err := p.Publish(event(10)); err != ErrOutboxFull {
		t.Fatalf("11th event into an outbox of 10: %v, want ErrOutboxFull", err)
	}
	if d := testutil.ToFloat64(m.Dropped.WithLabelValues(DropOutboxFull)); d != 1 {
		t.Errorf("dropped %v, want 1", d)
	}
	if d := p.Depth(); d != 10 {
		t.Errorf("depth %d, want 10", d)
	}
}

func TestRedact(t *testing.T) {
	if got := Redact("amqps://user:s3cret@mq.example:5671/vh"); strings.Contains(got, "s3cret") || !strings.Contains(got, "user@mq.example") {
		t.Errorf("Redact = %q", got)
	}
}

func TestRoutingKey(t *testing.T) {
	e := New("s", Deleted, Data{Kind: "DNSRecord", Namespace: "team-a", Name: "shop.dev"}, time.Now())
	if got, want := e.RoutingKey(), "dnsrecord.team-a.shop_dev.deleted"; got != want {
		t.Errorf("RoutingKey = %q, want %q", got, want)
	}
	if got, want := e.Type, "io.freeleaps.devops.resource.deleted"; got != want {
		t.Errorf("Type = %q, want %q", got, want)
	}
	if got, want := New("s", Heartbeat, Data{Kind: "JenkinsPipeline", Name: "x"}, time.Now()).Type, "io.freeleaps.devops.work.heartbeat"; got != want {
		t.Errorf("Type = %q, want %q", got, want)
	}
}

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
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/freeleaps/provider-devops/internal/testing/rabbitmq"
)

// BenchmarkPublishConfirmed publishes b.N events to a real RabbitMQ through
// the outbox and waits for every confirm: the stream's sustained rate.
func BenchmarkPublishConfirmed(b *testing.B) {
	broker := rabbitmq.Start(b)
	m := NewMetrics(nil)
	p := NewPublisher(PublisherOptions{Source: func(context.Context) (Broker, error) { return Broker{URL: broker.URL, Exchange: exchange}, nil }, Metrics: m, OutboxSize: max(b.N, 1)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = p.Start(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	// A bound queue, so that events are routed (not returned).
	listen(b, broker.URL, "bench")
	e := event(0)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if err := p.Publish(e); err != nil {
			b.Fatal(err)
		}
	}
	for testutil.ToFloat64(m.Confirmed) < float64(b.N) {
		time.Sleep(time.Millisecond)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkEventMarshal is the cost of encoding one event.
func BenchmarkEventMarshal(b *testing.B) {
	e := event(1)
	b.ReportAllocs()
	for range b.N {
		if _, err := e.Marshal(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDeployRequestFairness: how long one publisher's request waits
// while another floods the queue as fast as it can publish, against the
// same request on an idle queue. Each request costs the handler 5 ms (a
// DeployRun created through the API server costs about that). Reported:
// the median and worst wait, idle and flooded, the flood's rate, and how
// many of the second publisher's requests the broker refused (want 0).
func BenchmarkDeployRequestFairness(b *testing.B) {
	broker := rabbitmq.Start(b)
	urls := deployers(b, broker, "ci-a", "ci-b")
	const queue, work = "devops.deploy-requests", 5 * time.Millisecond
	done := make(chan string, 64)
	c := NewConsumer(ConsumerOptions{
		Source: source(broker.URL), Exchange: "devops.deploy", Queue: queue, BindingKey: "deploy.#",
		Handler: func(_ context.Context, d amqp.Delivery) error {
			time.Sleep(work)
			if d.UserId == "ci-b" {
				done <- d.MessageId
			}
			return nil
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { _ = c.Start(ctx); close(stopped) }()
	defer func() { cancel(); <-stopped }()
	channel := func(user string) *amqp.Channel {
		conn, err := amqp.Dial(urls[user])
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = conn.Close() })
		ch, err := conn.Channel()
		if err != nil {
			b.Fatal(err)
		}
		return ch
	}
	admin, err := amqp.Dial(broker.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = admin.Close() }()
	consuming(b, broker.URL, queue, DefaultMaxLength)
	chB := channel("ci-b")
	if err := chB.Confirm(false); err != nil {
		b.Fatal(err)
	}
	refused := 0
	wait := func(i int) time.Duration {
		id := fmt.Sprintf("b-%d", i)
		t0 := time.Now()
		dc, err := chB.PublishWithDeferredConfirmWithContext(context.Background(), "devops.deploy", "deploy.b", false, false, amqp.Publishing{UserId: "ci-b", MessageId: id, Body: []byte(id)})
		if err != nil {
			b.Fatal(err)
		}
		if !dc.Wait() {
			refused++
			return 0
		}
		for got := range done {
			if got == id {
				break
			}
		}
		return time.Since(t0)
	}
	const samples = 20
	var idle []time.Duration
	for i := range samples {
		idle = append(idle, wait(i))
	}

	chA := channel("ci-a")
	flood := make(chan int)
	fctx, stopFlood := context.WithCancel(context.Background())
	go func() {
		n := 0
		for fctx.Err() == nil {
			if chA.PublishWithContext(fctx, "devops.deploy", "deploy.a", false, false, amqp.Publishing{UserId: "ci-a", Body: []byte(`{"project":"flood"}`)}) != nil {
				break
			}
			n++
		}
		flood <- n
	}()
	depth := make(chan int)
	go func() {
		deepest := 0
		ach, err := admin.Channel()
		for err == nil && fctx.Err() == nil {
			q, qerr := ach.QueueDeclarePassive(queue, true, false, false, false, QueueArgs(queue, DefaultMaxLength))
			if qerr != nil {
				break
			}
			deepest = max(deepest, q.Messages)
			time.Sleep(20 * time.Millisecond)
		}
		depth <- deepest
	}()
	time.Sleep(time.Second) // the flood under way
	b.ResetTimer()
	t0 := time.Now()
	var flooded []time.Duration
	for i := range b.N {
		flooded = append(flooded, wait(samples+i))
	}
	elapsed := time.Since(t0) + time.Second
	b.StopTimer()
	stopFlood()
	n := <-flood
	deepest := <-depth
	slices.Sort(idle)
	slices.Sort(flooded)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(idle[len(idle)/2]), "idle-p50-ms")
	b.ReportMetric(ms(idle[len(idle)-1]), "idle-max-ms")
	b.ReportMetric(ms(flooded[len(flooded)/2]), "flooded-p50-ms")
	b.ReportMetric(ms(flooded[len(flooded)-1]), "flooded-max-ms")
	b.ReportMetric(float64(n)/elapsed.Seconds(), "flood-msgs/s")
	b.ReportMetric(float64(refused), "refused")
	b.ReportMetric(float64(deepest), "queue-max")
}

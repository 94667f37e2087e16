package events

import (
	"context"
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
	p := NewPublisher(PublisherOptions{Source: func(context.Context) (string, string, error) { return broker.URL, exchange, nil }, Metrics: m, OutboxSize: max(b.N, 1)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = p.Start(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	// A bound queue, so that events are routed (not returned).
	read := listenBench(b, broker.URL)
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
	read()
}

func listenBench(b *testing.B, url string) func() {
	b.Helper()
	conn, err := amqp.Dial(url)
	if err != nil {
		b.Fatal(err)
	}
	ch, err := conn.Channel()
	if err != nil {
		b.Fatal(err)
	}
	if err := ch.ExchangeDeclare(exchange, "topic", true, false, false, false, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := ch.QueueDeclare("bench", false, false, false, false, nil); err != nil {
		b.Fatal(err)
	}
	if err := ch.QueueBind("bench", "#", exchange, false, nil); err != nil {
		b.Fatal(err)
	}
	return func() { _, _ = ch.QueuePurge("bench", false); _ = conn.Close() }
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

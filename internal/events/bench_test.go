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
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

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

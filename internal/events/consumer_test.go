package events

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/freeleaps/provider-devops/internal/testing/rabbitmq"
)

func TestConsumer(t *testing.T) {
	b := rabbitmq.Start(t)
	var (
		mu        sync.Mutex
		handled   []string
		transient = 1
	)
	m := NewMetrics(nil)
	c := NewConsumer(ConsumerOptions{
		Source: source(b.URL), Queue: "devops.requests", BindingKey: "request.#", Prefetch: 4, RetryDelay: 50 * time.Millisecond, Metrics: m,
		Handler: func(_ context.Context, d amqp.Delivery) error {
			mu.Lock()
			defer mu.Unlock()
			switch body := string(d.Body); body {
			case "poison":
				return Reject("not a request: %q", body)
			case "panic":
				panic("boom")
			case "transient":
				if transient > 0 {
					transient--
					return errors.New("API server unavailable")
				}
			}
			handled = append(handled, string(d.Body))
			return nil
		},
	})
	start(t, c)

	conn, err := amqp.Dial(b.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	// The consumer declares its topology once connected.
	waitFor(t, 30*time.Second, "the request queue", func() bool {
		c2, err := conn.Channel()
		if err != nil {
			return false
		}
		defer func() { _ = c2.Close() }()
		_, err = c2.QueueDeclarePassive("devops.requests", true, false, false, false, amqp.Table{"x-dead-letter-exchange": DeadLetter("devops.requests")})
		return err == nil
	})
	for _, body := range []string{"ok-1", "poison", "transient", "panic", "ok-2"} {
		// Through the exchange's binding, as producers do.
		if err := ch.PublishWithContext(context.Background(), exchange, "request.deploy", true, false, amqp.Publishing{MessageId: body, Body: []byte(body)}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 30*time.Second, "three requests handled", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(handled) == 3
	})

	dead, err := ch.Consume(DeadLetter("devops.requests"), "", true, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for len(reasons) < 2 {
		select {
		case d := <-dead:
			reasons[string(d.Body)], _ = d.Headers[HeaderReason].(string)
			if q, _ := d.Headers[HeaderQueue].(string); q != "devops.requests" {
				t.Errorf("dead letter %q names queue %q", d.Body, q)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("dead letters: %v, want poison and panic", reasons)
		}
	}
	if got, want := reasons["poison"], `not a request: "poison"`; got != want {
		t.Errorf("poison reason %q, want %q", got, want)
	}
	if got, want := reasons["panic"], "internal error while handling the message: boom"; got != want {
		t.Errorf("panic reason %q, want %q", got, want)
	}
	for result, want := range map[string]float64{"done": 3, "dead-lettered": 2, "retried": 1} {
		if got := testutil.ToFloat64(m.Requests.WithLabelValues(result)); got != want {
			t.Errorf("requests %s = %v, want %v", result, got, want)
		}
	}
	q, err := ch.QueueDeclarePassive("devops.requests", true, false, false, false, amqp.Table{"x-dead-letter-exchange": DeadLetter("devops.requests")})
	if err != nil {
		t.Fatal(err)
	}
	if q.Messages != 0 {
		t.Errorf("%d messages left on the queue", q.Messages)
	}
}

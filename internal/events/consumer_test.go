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
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	amqp "github.com/rabbitmq/amqp091-go"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/freeleaps/provider-devops/internal/testing/rabbitmq"
	"github.com/go-logr/logr/testr"
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
		Source: source(b.URL), Exchange: "devops.deploy", Queue: "devops.requests", BindingKey: "request.#", Prefetch: 4, RetryDelay: 50 * time.Millisecond, Metrics: m,
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

	ch := consuming(t, b.URL, "devops.requests", DefaultMaxLength)
	for _, body := range []string{"ok-1", "poison", "transient", "panic", "ok-2"} {
		// Through the exchange's binding, as producers do.
		if err := ch.PublishWithContext(context.Background(), "devops.deploy", "request.deploy", true, false, amqp.Publishing{MessageId: body, Body: []byte(body)}); err != nil {
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
	// Counted by a reason of a bounded set, never by the message's text.
	for reason, want := range map[string]float64{"other": 1, "internal": 1} {
		if got := testutil.ToFloat64(m.Refused.WithLabelValues(reason)); got != want {
			t.Errorf("refused %s = %v, want %v", reason, got, want)
		}
	}
	for result, want := range map[string]float64{"done": 3, "dead-lettered": 2, "retried": 1} {
		if got := testutil.ToFloat64(m.Requests.WithLabelValues(result)); got != want {
			t.Errorf("requests %s = %v, want %v", result, got, want)
		}
	}
	q, err := ch.QueueDeclarePassive("devops.requests", true, false, false, false, QueueArgs("devops.requests", DefaultMaxLength))
	if err != nil {
		t.Fatal(err)
	}
	if q.Messages != 0 {
		t.Errorf("%d messages left on the queue", q.Messages)
	}
}

// TestConsumerQueueIsBounded: past MaxLength ready requests the broker
// refuses publishes (a publisher with confirms gets a nack) instead of
// growing without bound or dropping requests already accepted.
func TestConsumerQueueIsBounded(t *testing.T) {
	b := rabbitmq.Start(t)
	release := make(chan struct{})
	c := NewConsumer(ConsumerOptions{
		Source: source(b.URL), Exchange: "devops.deploy", Queue: "devops.bounded", BindingKey: "#", Prefetch: 1, MaxLength: 2,
		Handler: func(ctx context.Context, _ amqp.Delivery) error {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil
		},
	})
	start(t, c)
	ch := consuming(t, b.URL, "devops.bounded", 2)
	if err := ch.Confirm(false); err != nil {
		t.Fatal(err)
	}
	acked, nacked := 0, 0
	for i := range 6 {
		dc, err := ch.PublishWithDeferredConfirmWithContext(context.Background(), "devops.deploy", "deploy.x", false, false, amqp.Publishing{Body: []byte{byte('a' + i)}})
		if err != nil {
			t.Fatal(err)
		}
		if dc.Wait() {
			acked++
		} else {
			nacked++
		}
		time.Sleep(50 * time.Millisecond) // lets the first one be delivered
	}
	// What waits is counted: the one delivered and held, and those ready.
	waitFor(t, 3*waitingEvery, "the waiting requests counted", func() bool { return waitingOf(c.o.Metrics) == acked })
	close(release)
	waitFor(t, 3*waitingEvery, "no request waiting once handled", func() bool { return waitingOf(c.o.Metrics) == 0 })
	// One delivered and held, two ready; the rest refused.
	if acked > 3 || nacked < 3 {
		t.Errorf("with max length 2: %d publishes confirmed, %d refused; want at most 3 confirmed", acked, nacked)
	}
	t.Logf("max length 2, prefetch 1: %d confirmed, %d refused by the broker", acked, nacked)
}

// TestConsumerRedeliveryCap: a message that keeps failing for a passing
// reason is dead-lettered with its last error after MaxAttempts tries,
// instead of holding the queue's head (RetryDelay each time) for ever;
// the requests behind it are then handled.
func TestConsumerRedeliveryCap(t *testing.T) {
	b := rabbitmq.Start(t)
	var (
		mu       sync.Mutex
		handled  []string
		failures int
	)
	m := NewMetrics(nil)
	c := NewConsumer(ConsumerOptions{
		Source: source(b.URL), Exchange: "devops.deploy", Queue: "devops.capped", BindingKey: "#", Prefetch: 1, RetryDelay: 10 * time.Millisecond, MaxAttempts: 3, Metrics: m,
		Handler: func(_ context.Context, d amqp.Delivery) error {
			mu.Lock()
			defer mu.Unlock()
			if string(d.Body) == "always-failing" {
				failures++
				return errors.New("project lookup failed")
			}
			handled = append(handled, string(d.Body))
			return nil
		},
	})
	start(t, c)
	ch := consuming(t, b.URL, "devops.capped", DefaultMaxLength)
	for _, body := range []string{"always-failing", "behind-it"} {
		// Straight to the queue, through the default exchange.
		if err := ch.PublishWithContext(context.Background(), "", "devops.capped", true, false, amqp.Publishing{MessageId: body, Body: []byte(body)}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 30*time.Second, "the request behind it handled", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(handled) == 1
	})
	dead, err := ch.Consume(DeadLetter("devops.capped"), "", true, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case d := <-dead:
		reason, _ := d.Headers[HeaderReason].(string)
		if string(d.Body) != "always-failing" || reason != "failed 3 times, the last: project lookup failed" {
			t.Errorf("dead letter %q with reason %q", d.Body, reason)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the failing request was never dead-lettered")
	}
	mu.Lock()
	defer mu.Unlock()
	if failures != 3 {
		t.Errorf("tried %d times, want 3", failures)
	}
}

// TestConsumerFairToPublishers: one publisher's flood neither fills the
// queue for the others (its messages past PerPublisher are dead-lettered
// as they arrive) nor holds them behind its own: a message of its that
// keeps failing is parked, not retried at the queue's head.
func TestConsumerFairToPublishers(t *testing.T) {
	b := rabbitmq.Start(t)
	urls := deployers(t, b, "ci-a", "ci-b")
	const queue, maxLength = "devops.deploy-requests", 100
	var (
		mu      sync.Mutex
		handled []string
		release = make(chan struct{})
	)
	m := NewMetrics(nil)
	c := NewConsumer(ConsumerOptions{
		Source: source(b.URL), Exchange: "devops.deploy", Queue: queue, BindingKey: "deploy.#", MaxLength: maxLength, PerPublisher: 4, RetryDelay: time.Hour, Metrics: m,
		Handler: func(ctx context.Context, d amqp.Delivery) error {
			switch string(d.Body) {
			case "block":
				select {
				case <-release:
				case <-ctx.Done():
					return ctx.Err()
				}
			case "fail":
				return errors.New("project lookup failed")
			}
			mu.Lock()
			defer mu.Unlock()
			handled = append(handled, d.UserId+"/"+string(d.Body))
			return nil
		},
	})
	start(t, c)
	admin := consuming(t, b.URL, queue, maxLength)
	publisher := func(user string) func(bodies ...string) bool {
		_, ch := dial(t, urls[user])
		if err := ch.Confirm(false); err != nil {
			t.Fatal(err)
		}
		return func(bodies ...string) bool {
			var dcs []*amqp.DeferredConfirmation
			for _, body := range bodies {
				// An x-death header of its own: RabbitMQ 3.10's
				// dead-lettering crashes the queue on it.
				h := amqp.Table{"x-death": []any{"x"}}
				dc, err := ch.PublishWithDeferredConfirmWithContext(context.Background(), "devops.deploy", "deploy.x", false, false, amqp.Publishing{UserId: user, MessageId: body, Body: []byte(body), Headers: h})
				if err != nil {
					t.Fatal(err)
				}
				dcs = append(dcs, dc)
			}
			all := true
			for _, dc := range dcs {
				all = dc.Wait() && all
			}
			return all
		}
	}
	pubA, pubB := publisher("ci-a"), publisher("ci-b")
	handledBy := func(want string) func() bool {
		return func() bool {
			mu.Lock()
			defer mu.Unlock()
			return slices.Contains(handled, want)
		}
	}

	// ci-a's first message holds the worker; its flood follows, ten
	// times the queue's length.
	if !pubA("block") {
		t.Fatal("the broker refused ci-a's first message")
	}
	var flood []string
	for i := range 10 * maxLength {
		flood = append(flood, fmt.Sprintf("flood-%d", i))
	}
	pubA(flood...)
	waitFor(t, 60*time.Second, "the queue drained of ci-a's flood", func() bool {
		q, err := admin.QueueDeclarePassive(queue, true, false, false, false, QueueArgs(queue, maxLength))
		return err == nil && q.Messages == 0
	})
	if !pubB("b-1") {
		t.Fatal("the broker refused ci-b's message after ci-a's flood: the queue is full")
	}
	if got := testutil.ToFloat64(m.Requests.WithLabelValues("over-limit")); got < 2*maxLength {
		t.Errorf("%v of ci-a's messages over its limit, want more than the queue holds (%d of %d sent)", got, 2*maxLength, 10*maxLength)
	}
	close(release)
	waitFor(t, 30*time.Second, "ci-b's message handled", handledBy("ci-b/b-1"))

	// A message of ci-a's that keeps failing for a passing reason
	// (retried in an hour) does not hold ci-b's next one.
	pubA("fail")
	pubA("after-fail")
	pubB("b-2")
	waitFor(t, 30*time.Second, "ci-b's message handled while ci-a's waits for its retry", handledBy("ci-b/b-2"))
	mu.Lock()
	defer mu.Unlock()
	if slices.Contains(handled, "ci-a/after-fail") {
		t.Error("ci-a's message after its failing one was handled before it: a publisher's messages stay in order")
	}
}

// TestConsumerPoisonMessage: a request whose headers the AMQP library
// refuses to read (an array past its 8,192 entries, or nesting past its
// depth) closes the consumer's connection each time it is delivered; the
// consumer finds it and has the broker drop it, and the requests around
// it, another publisher's included, are all handled.
func TestConsumerPoisonMessage(t *testing.T) {
	b := rabbitmq.Start(t)
	var (
		mu      sync.Mutex
		handled []string
	)
	m := NewMetrics(nil)
	c := NewConsumer(ConsumerOptions{
		Source: source(b.URL), Exchange: "devops.deploy", Queue: "devops.poisoned", BindingKey: "#", Metrics: m,
		Backoff: Backoff{Min: 100 * time.Millisecond, Max: time.Second},
		Handler: func(_ context.Context, d amqp.Delivery) error {
			mu.Lock()
			defer mu.Unlock()
			handled = append(handled, string(d.Body))
			return nil
		},
	})
	start(t, c)
	ch := consuming(t, b.URL, "devops.poisoned", DefaultMaxLength)
	wide := make([]any, 8200)
	for i := range wide {
		wide[i] = int8(0)
	}
	var deep any = "x"
	for range 40 {
		deep = []any{deep}
	}
	publish := func(body string, h amqp.Table) {
		t.Helper()
		if err := ch.PublishWithContext(context.Background(), "devops.deploy", "deploy.x", false, false, amqp.Publishing{Headers: h, Body: []byte(body)}); err != nil {
			t.Fatal(err)
		}
	}
	publish("before", nil)
	publish("poison-wide", amqp.Table{"pad": wide})
	publish("between", nil)
	publish("poison-deep", amqp.Table{"pad": deep})
	for i := range 3 {
		publish(fmt.Sprintf("after-%d", i), nil)
	}
	waitFor(t, 90*time.Second, "every readable request handled", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(handled) >= 5
	})
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{"before", "between", "after-0", "after-1", "after-2"} {
		if !slices.Contains(handled, want) {
			t.Errorf("%s not handled: %v", want, handled)
		}
	}
	if got := testutil.ToFloat64(m.Requests.WithLabelValues("unreadable")); got != 2 {
		t.Errorf("%v unreadable requests dropped, want 2", got)
	}
}

// TestDeadLetterHeadersBounded: a dead letter keeps only short scalar
// headers, so a publisher's headers cannot make it larger than a frame.
func TestDeadLetterHeadersBounded(t *testing.T) {
	in := amqp.Table{"ok": "v", "n": int32(7), "big": string(make([]byte, 130_000)), "nested": amqp.Table{"a": "b"}, "list": []any{"a"}}
	for i := range 100 {
		in[fmt.Sprintf("k%d", i)] = "v"
	}
	out := deadLetterHeaders(in)
	if len(out) > maxHeaders {
		t.Errorf("%d headers kept, want at most %d", len(out), maxHeaders)
	}
	for _, k := range []string{"big", "nested", "list"} {
		if _, ok := out[k]; ok {
			t.Errorf("header %q kept", k)
		}
	}
}

// deployers creates broker users with the permissions of a CI system
// requesting deploys and returns their AMQP URLs by name.
func deployers(tb testing.TB, b *rabbitmq.Broker, users ...string) map[string]string {
	tb.Helper()
	urls := map[string]string{}
	for _, u := range users {
		url, err := b.AddUserWith(u, "pw-"+u, rabbitmq.DeployerPermissions)
		if err != nil {
			tb.Fatal(err)
		}
		urls[u] = url
	}
	return urls
}

// consuming waits until the consumer consumes queue (declared with
// maxLength), which it does after binding it to its exchange, and returns
// a channel of a connection of its own.
func consuming(t testing.TB, url, queue string, maxLength int) *amqp.Channel {
	t.Helper()
	conn, ch := dial(t, url)
	waitFor(t, 30*time.Second, "the consumer consuming "+queue, func() bool {
		c2, err := conn.Channel()
		if err != nil {
			return false
		}
		defer func() { _ = c2.Close() }()
		q, err := c2.QueueDeclarePassive(queue, true, false, false, false, QueueArgs(queue, maxLength))
		return err == nil && q.Consumers > 0
	})
	return ch
}

// TestOutageNotCounted: a failure that is not the message's (the API
// server down or overloaded) does not count towards MaxAttempts, or an
// outage would dead-letter good requests; the message's own do.
func TestOutageNotCounted(t *testing.T) {
	gr := schema.GroupResource{Group: "devops.freeleaps.io", Resource: "deployruns"}
	for err, want := range map[error]bool{
		kerrors.NewServiceUnavailable("etcd"):                        true,
		kerrors.NewTimeoutError("slow", 1):                           true,
		kerrors.NewTooManyRequests("busy", 1):                        true,
		kerrors.NewInternalError(errors.New("boom")):                 true,
		&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}:          true,
		kerrors.NewConflict(gr, "shop-dev-1", errors.New("changed")): false,
		errors.New("project lookup failed"):                          false,
	} {
		if got := outage(err); got != want {
			t.Errorf("outage(%v) = %v, want %v", err, got, want)
		}
	}
}

// TestLanes: each user named gets a queue of its own (a lane) on a
// connection of its own. A flood of requests the AMQP library cannot read
// stalls only its sender's lane, another user's request is handled
// meanwhile, once; a user without a lane still reaches the shared queue;
// the documented topic permissions keep a user out of another's lane,
// and without them a request in another user's lane is dead-lettered.
func TestLanes(t *testing.T) {
	b := rabbitmq.Start(t)
	urls := deployers(t, b, "ci-a", "ci-b", "ci-c", "ci-untopical")
	for _, u := range []string{"ci-a", "ci-b", "ci-c"} {
		if err := b.SetTopicPermissions(u, rabbitmq.DeployerTopicPermissions); err != nil {
			t.Fatal(err)
		}
	}
	providerURL, err := b.AddUserWith("provider", "provider-pw", rabbitmq.ProviderPermissions)
	if err != nil {
		t.Fatal(err)
	}
	const queue = "devops.deploy-requests"
	var (
		mu      sync.Mutex
		handled []string
	)
	m := NewMetrics(nil)
	shared := ConsumerOptions{
		Source: source(providerURL), Exchange: "devops.deploy", Queue: queue, BindingKey: "deploy.#", Alternate: true, Metrics: m, Log: logging.NewLogrLogger(testr.New(t)),
		Backoff: Backoff{Min: 100 * time.Millisecond, Max: time.Second},
		Handler: func(_ context.Context, d amqp.Delivery) error {
			mu.Lock()
			defer mu.Unlock()
			handled = append(handled, d.UserId+"/"+string(d.Body))
			return nil
		},
	}
	start(t, NewConsumer(shared))
	var named atomic.Value
	named.Store([]string{"ci-a", "ci-b", "shop", "dotted.name"})
	lanes := NewLanes(LaneOptions{Shared: shared, Resync: 100 * time.Millisecond, Users: func(context.Context) ([]string, error) {
		return named.Load().([]string), nil
	}})
	start(t, lanes)
	for _, q := range []string{queue, LaneQueue(queue, "ci-a"), LaneQueue(queue, "ci-b")} {
		consuming(t, b.URL, q, 0)
	}
	if got := lanes.Users(); !slices.Equal(got, []string{"ci-a", "ci-b", "shop"}) {
		t.Errorf("lanes for %v, want ci-a, ci-b and shop (a name with a dot cannot be one routing-key word)", got)
	}
	count := func(want string) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, h := range handled {
			if h == want {
				n++
			}
		}
		return n
	}
	publisher := func(user string) (*amqp.Channel, <-chan *amqp.Error) {
		_, ch := dial(t, urls[user])
		return ch, ch.NotifyClose(make(chan *amqp.Error, 1))
	}
	publish := func(ch *amqp.Channel, user, key, body string, h amqp.Table) {
		t.Helper()
		if err := ch.PublishWithContext(context.Background(), "devops.deploy", key, false, false, amqp.Publishing{UserId: user, Headers: h, Body: []byte(body)}); err != nil {
			t.Fatal(err)
		}
	}

	// ci-a floods its lane with unreadable requests: each closes the
	// lane's connection before it is found and dropped.
	const poisons = 300
	wide := make([]any, 8200)
	for i := range wide {
		wide[i] = int8(0)
	}
	chA, _ := publisher("ci-a")
	for range poisons {
		publish(chA, "ci-a", "user.ci-a.x", "poison", amqp.Table{"pad": wide})
	}
	waitFor(t, 30*time.Second, "ci-a's lane stalling on its first unreadable request", func() bool {
		return testutil.ToFloat64(m.Requests.WithLabelValues("unreadable")) >= 1
	})
	chB, _ := publisher("ci-b")
	publish(chB, "ci-b", "user.ci-b.shop", "b-1", nil)
	chC, _ := publisher("ci-c")
	publish(chC, "ci-c", "user.ci-c.shop", "c-1", nil)
	// A lane named like a word of others' routing keys ("shop", by a
	// tenant's config) takes none of their requests.
	chU, _ := publisher("ci-untopical")
	publish(chU, "ci-untopical", "deploy.shop.dev", "u-legacy", nil)
	waitFor(t, 30*time.Second, "ci-b's request (its lane) and ci-c's and a legacy one (no lane: the shared queue) handled", func() bool {
		return count("ci-b/b-1") == 1 && count("ci-c/c-1") == 1 && count("ci-untopical/u-legacy") == 1
	})
	if n := testutil.ToFloat64(m.Requests.WithLabelValues("unreadable")); n >= poisons {
		t.Errorf("ci-b's request waited for all %v of ci-a's unreadable requests", n)
	} else {
		t.Logf("ci-b's and ci-c's requests handled while ci-a's lane had dropped %v of its %d unreadable requests", n, poisons)
	}

	// The topic permissions keep ci-c out of ci-b's lane: the broker
	// closes its channel.
	chC2, closed := publisher("ci-c")
	publish(chC2, "ci-c", "user.ci-b.shop", "c-as-b", nil)
	select {
	case err := <-closed:
		if err == nil || err.Code != amqp.AccessRefused {
			t.Errorf("publishing under another user's name: channel closed with %v, want ACCESS_REFUSED", err)
		}
	case <-time.After(30 * time.Second):
		t.Error("the broker took a request published under another user's name")
	}

	// Without them, a request in another user's lane is dead-lettered.
	dead := listenQueue(t, b.URL, DeadLetter(queue))
	publish(chU, "ci-untopical", "user.ci-b.shop", "u-as-b", nil)
	var d amqp.Delivery
	select {
	case d = <-dead:
	case <-time.After(30 * time.Second):
		t.Fatal("no dead letter for a request in another user's lane")
	}
	if reason, _ := d.Headers[HeaderReason].(string); string(d.Body) != "u-as-b" || !strings.Contains(reason, `routing key of "ci-b"`) {
		t.Errorf("dead letter %q with reason %q, want u-as-b refused for ci-b's lane", d.Body, reason)
	}
	if count("ci-b/b-1") != 1 || count("ci-untopical/u-as-b") != 0 {
		t.Errorf("handled %v: want ci-b's request once and nothing of ci-untopical's", handled)
	}

	// ci-b no longer named: its lane is retired, its queue deleted, and
	// its requests reach the shared queue; names that come and go do not
	// use up the lanes.
	named.Store([]string{"ci-a"})
	admin, _ := dial(t, b.URL)
	waitFor(t, 30*time.Second, "ci-b's queue deleted", func() bool {
		ch, err := admin.Channel()
		if err != nil {
			return false
		}
		defer func() { _ = ch.Close() }()
		_, err = ch.QueueDeclarePassive(LaneQueue(queue, "ci-b"), true, false, false, false, nil)
		return err != nil && strings.Contains(err.Error(), "NOT_FOUND")
	})
	publish(chB, "ci-b", "user.ci-b.shop", "b-2", nil)
	waitFor(t, 30*time.Second, "ci-b's request handled from the shared queue", func() bool { return count("ci-b/b-2") == 1 })
	if got := lanes.Users(); !slices.Equal(got, []string{"ci-a"}) {
		t.Errorf("lanes for %v after ci-b and shop were dropped, want ci-a", got)
	}
}

// listenQueue consumes queue (which must exist) with auto-ack.
func listenQueue(t *testing.T, url, queue string) <-chan amqp.Delivery {
	t.Helper()
	_, ch := dial(t, url)
	ds, err := ch.Consume(queue, "", true, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// dial connects to url until the test ends and opens a channel.
func dial(t testing.TB, url string) (*amqp.Connection, *amqp.Channel) {
	t.Helper()
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	return conn, ch
}

// waitingOf is what provider_devops_requests_waiting reports.
func waitingOf(m *Metrics) int {
	m.depthMu.Lock()
	defer m.depthMu.Unlock()
	n := 0
	for _, v := range m.waiting {
		n += v
	}
	return n
}

func TestRefusalReason(t *testing.T) {
	for said, want := range map[string]string{
		"request body of 70000 bytes is larger than 65536: not read":                                               "too-large",
		`unauthorised: broker user "ci" may not deploy: it is not in spec.jenkins.deployUsers of ProviderConfig x`: "unauthorised",
		"ClusterProviderConfig platform may not be used from namespace team (spec.allowedNamespaces)":              "unauthorised",
		"superseded: requested at 2026-11-27T10:00:00Z, before DeployRun team/x of the same environment (y)":       "superseded",
		"malformed DevOpsReconcile: requestedAt is required":                                                       "malformed",
		"unknown target: no JenkinsPipeline is labelled shop/dev in team":                                          "unknown-target",
		`JenkinsPipeline team/shop-dev declares no parameter "X" (spec.forProvider.parameters)`:                    "bad-parameters",
		"failed 5 times, the last: unauthorised: ...":                                                              "failed-repeatedly",
		"internal error while handling the message: boom":                                                          "internal",
		"conflict: DevOpsProject team/shop: the message changes spec.x, set by someone else":                       "conflict",
		`not a request: "poison"`: "other",
		// What a publisher writes is quoted: it names nothing.
		`malformed DevOpsReconcile: project "internal error while x": not a DNS label`: "malformed",
		`not a request: "unauthorised: superseded: "`:                                  "other",
	} {
		if got := RefusalReason(said); got != want {
			t.Errorf("RefusalReason(%q) = %s, want %s", said, got, want)
		}
	}
}

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
	"crypto/sha256"
	"fmt"
	"net"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	kerrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
)

// Headers the consumer adds to a dead-lettered message.
const (
	HeaderReason = "x-devops-reason"
	HeaderQueue  = "x-devops-queue"
)

// Defaults of ConsumerOptions.
const (
	DefaultPrefetch     = 512
	DefaultPerPublisher = 32
	DefaultRetryDelay   = 2 * time.Second
)

// A Handler handles one message. Returning nil acks it; an error made by
// Reject dead-letters it with the reason; any other error puts it back on
// the queue after a delay, to be tried again.
type Handler func(ctx context.Context, d amqp.Delivery) error

// RejectError is a message that can never be handled.
type RejectError struct{ Reason string }

func (e *RejectError) Error() string { return e.Reason }

// Reject returns an error that dead-letters the message with the reason.
func Reject(format string, args ...any) error {
	return &RejectError{Reason: fmt.Sprintf(format, args...)}
}

// DefaultMaxLength bounds the request queue and its dead-letter queue.
const DefaultMaxLength = 10000

// ConsumerOptions configure a Consumer.
type ConsumerOptions struct {
	// Source of the broker URL. Its exchange (the outbound event stream) is
	// not used: requests come in on their own Exchange, so that the users
	// who may send requests need no right on the event stream, and the
	// event stream's consumers none on requests.
	Source Source
	// Exchange is the durable topic exchange requests are published to.
	// Empty binds nothing (publish to the queue through the default
	// exchange).
	Exchange string
	// Queue is the durable queue consumed. Its dead letters go to the
	// fanout exchange and durable queue named Queue + ".dead-letter".
	Queue string
	// BindingKey binds Queue to Exchange.
	BindingKey string
	// MaxLength bounds Queue (further publishes are refused: a publisher
	// with confirms sees a nack) and its dead-letter queue (the oldest dead
	// letters are dropped). Default DefaultMaxLength.
	MaxLength int
	// Prefetch bounds the messages delivered and not yet settled, of all
	// publishers. Default DefaultPrefetch.
	Prefetch int
	// PerPublisher bounds the messages one publishing user (user_id) has
	// delivered and not yet settled: past it, its further messages are
	// dead-lettered by the broker as they arrive (x-death reason
	// "rejected"), so that one publisher's flood cannot fill the queue for
	// the others. Default DefaultPerPublisher.
	PerPublisher int
	// RetryDelay is waited before a message that failed for a passing
	// reason goes back on the queue. Default 2s.
	RetryDelay time.Duration
	// MaxAttempts bounds how often one message is tried: past it, a
	// message that keeps failing for a passing reason of its own is
	// dead-lettered with its last error, instead of holding the queue's
	// head for ever (RetryDelay each time). Tries during an outage of the
	// API server are not counted (outage). Default DefaultMaxAttempts.
	MaxAttempts int
	// Alternate routes what no binding of Exchange takes to the fanout
	// exchange Unrouted(Exchange) (RabbitMQ's alternate-exchange), which
	// Queue is then bound to instead of by BindingKey: per-user queues
	// (Lanes) bound to Exchange take their users' requests, and the rest
	// still reach Queue. Every consumer of one Exchange must agree on it:
	// RabbitMQ refuses to redeclare an exchange with other arguments.
	Alternate bool
	// Separate makes Queue a queue of its own next to the shared one (the
	// replaced operator's legacy queue): bound to Exchange by BindingKey
	// even with Alternate, which only declares the exchange alike.
	Separate bool
	// User makes this consumer one publishing user's lane: a request
	// published by another user is dead-lettered unhandled.
	User string
	// DeadLetterTo names the dead-letter exchange and queue. Default
	// DeadLetter(Queue).
	DeadLetterTo string
	// DeadLetterMaxLength bounds the dead-letter queue. Default MaxLength.
	DeadLetterMaxLength int
	// Expires has the broker delete Queue once it had no consumer for
	// this long (x-expires); zero never.
	Expires time.Duration
	// Handler handles each message.
	Handler Handler
	Backoff Backoff
	Log     logging.Logger
	Metrics *Metrics
}

// A Consumer handles the messages of a durable queue one at a time, at
// least once: a message is acked only after its handler succeeded or after
// it was dead-lettered and the broker confirmed the dead letter.
type Consumer struct {
	o ConsumerOptions
	// attempts counts the failed tries of the messages in flight, by
	// digest (attemptKey). It lives as long as the process: the broker
	// keeps no count for a classic queue, and a message may not be
	// republished with a count (its user_id is the publisher's, which
	// authorises it, and only that user may send it).
	attempts map[[32]byte]int
	// probe finds and drops a request the AMQP library cannot read
	// (poison.go).
	probe probe
	// retired is set on a lane whose user is no longer named: its queue
	// is no longer bound (Lanes), and a new session must not bind it.
	retired atomic.Bool
	// queue is the current session's held deliveries.
	queue atomic.Pointer[fairQueue]
}

// holding is true while c holds a delivery it has not settled.
func (c *Consumer) holding() bool {
	q := c.queue.Load()
	return q != nil && !q.empty()
}

// DefaultMaxAttempts is ConsumerOptions.MaxAttempts' default.
const DefaultMaxAttempts = 5

// maxTracked bounds Consumer.attempts: past it, counting starts over.
const maxTracked = 10_000

// NewConsumer returns a consumer; Start connects it.
func NewConsumer(o ConsumerOptions) *Consumer {
	if o.Prefetch <= 0 {
		o.Prefetch = DefaultPrefetch
	}
	if o.PerPublisher <= 0 {
		o.PerPublisher = DefaultPerPublisher
	}
	if o.RetryDelay <= 0 {
		o.RetryDelay = DefaultRetryDelay
	}
	if o.MaxLength <= 0 {
		o.MaxLength = DefaultMaxLength
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.Log == nil {
		o.Log = logging.NewNopLogger()
	}
	if o.Metrics == nil {
		o.Metrics = NewMetrics(nil)
	}
	if o.DeadLetterMaxLength <= 0 {
		o.DeadLetterMaxLength = o.MaxLength
	}
	if o.DeadLetterTo == "" {
		o.DeadLetterTo = DeadLetter(o.Queue)
	}
	return &Consumer{o: o, attempts: map[[32]byte]int{}, probe: probe{at: -1}}
}

// attemptKey tells one message from another: who sent it, where, what.
func attemptKey(d amqp.Delivery) [32]byte {
	return sha256.Sum256([]byte(d.UserId + "\x00" + d.RoutingKey + "\x00" + d.MessageId + "\x00" + string(d.Body)))
}

// QueueArgs are the arguments the request queue is declared with: its
// dead-letter exchange, and a maximum length past which publishes are
// refused rather than the oldest requests dropped. RabbitMQ refuses to
// redeclare a queue with other arguments (PRECONDITION_FAILED).
//
// A classic queue, not a quorum queue with a delivery limit: a message
// the AMQP library cannot read closes the consumer's connection, and the
// broker then counts a delivery for every request in flight, so a limit
// dead-letters the good requests with the bad (tried on RabbitMQ 3.10:
// two such messages took three good ones with them).
func QueueArgs(queue string, maxLength int) amqp.Table {
	return amqp.Table{"x-dead-letter-exchange": DeadLetter(queue), "x-max-length": int64(maxLength), "x-overflow": "reject-publish"}
}

// DeadLetter is the name of the dead-letter exchange and queue of queue.
func DeadLetter(queue string) string { return queue + ".dead-letter" }

// Unrouted is the name of the alternate exchange of exchange
// (ConsumerOptions.Alternate).
func Unrouted(exchange string) string { return exchange + ".unrouted" }

// queueArgs are the arguments c's queue is declared with.
func (c *Consumer) queueArgs() amqp.Table {
	a := QueueArgs(c.o.Queue, c.o.MaxLength)
	a["x-dead-letter-exchange"] = c.o.DeadLetterTo
	if c.o.Expires > 0 {
		a["x-expires"] = c.o.Expires.Milliseconds()
	}
	return a
}

// exchangeArgs are the arguments the request exchange is declared with.
func (c *Consumer) exchangeArgs() amqp.Table {
	if !c.o.Alternate {
		return nil
	}
	return amqp.Table{"alternate-exchange": Unrouted(c.o.Exchange)}
}

// Start consumes until ctx ends. It implements manager.Runnable.
func (c *Consumer) Start(ctx context.Context) error {
	c.o.Log.Info("request consumer starting", "queue", c.o.Queue, "prefetch", c.o.Prefetch)
	connectLoop(ctx, "consumer", c.o.Source, c.o.Backoff, c.o.Log, c.session)
	return nil
}

// NeedLeaderElection is true: requests are handled by the leader only.
func (c *Consumer) NeedLeaderElection() bool { return true }

func (c *Consumer) session(ctx context.Context, conn *amqp.Connection, _ string) error {
	ch, err := conn.Channel()
	if err != nil {
		return errors.Wrap(err, "cannot open a channel")
	}
	defer closeWithin(ch.Close)
	if err := c.declare(ch); err != nil {
		return err
	}
	closed := conn.NotifyClose(make(chan *amqp.Error, 1))
	deliveries, q, err := c.consume(ch, closed)
	if err != nil {
		return err
	}
	wctx, stop := context.WithCancel(ctx)
	worked := make(chan error, 1)
	go func() { worked <- c.work(wctx, ch, q) }()
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		c.sampleWaiting(wctx, conn, q)
	}()
	defer func() {
		stop()
		<-sampled
		if err := <-worked; err != nil {
			c.o.Log.Debug("request worker stopped", "queue", c.o.Queue, "error", err.Error())
		}
	}()
	over := map[string]bool{}
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-worked:
			worked <- err // for the deferred wait
			return err
		case d, ok := <-deliveries:
			if !ok {
				return c.deliveriesClosed(closed)
			}
			if err := c.receive(q, over, d); err != nil {
				return err
			}
		}
	}
}

// declare declares the dead-letter exchange and queue, the queue and
// the exchanges, binds them, and sets the channel's prefetch and
// confirms, in that order.
func (c *Consumer) declare(ch *amqp.Channel) error {
	exchange := c.o.Exchange
	dl := c.o.DeadLetterTo
	// The shared queue takes what no lane's binding takes (Alternate):
	// bound to the alternate exchange, and no longer by BindingKey, which
	// would copy every lane's requests into it.
	shared := c.o.Alternate && c.o.User == "" && !c.o.Separate
	steps := []struct {
		what string
		do   func() error
	}{
		{"declare the dead-letter exchange " + dl, func() error { return ch.ExchangeDeclare(dl, amqp.ExchangeFanout, true, false, false, false, nil) }},
		{"declare the dead-letter queue " + dl, func() error {
			_, err := ch.QueueDeclare(dl, true, false, false, false, amqp.Table{"x-max-length": int64(c.o.DeadLetterMaxLength)})
			return err
		}},
		{"bind the dead-letter queue", func() error { return ch.QueueBind(dl, "", dl, false, nil) }},
		{"declare the queue " + c.o.Queue, func() error {
			_, err := ch.QueueDeclare(c.o.Queue, true, false, false, false, c.queueArgs())
			return err
		}},
		{"declare the exchange " + Unrouted(exchange), func() error {
			if exchange == "" || !c.o.Alternate {
				return nil
			}
			return ch.ExchangeDeclare(Unrouted(exchange), amqp.ExchangeFanout, true, false, false, false, nil)
		}},
		{"declare the exchange " + exchange, func() error {
			if exchange == "" {
				return nil
			}
			return ch.ExchangeDeclare(exchange, amqp.ExchangeTopic, true, false, false, false, c.exchangeArgs())
		}},
		{"bind the queue to " + exchange, func() error {
			switch {
			case exchange == "":
				return nil
			case shared:
				if err := ch.QueueBind(c.o.Queue, "", Unrouted(exchange), false, nil); err != nil {
					return err
				}
				return ch.QueueUnbind(c.o.Queue, c.o.BindingKey, exchange, nil)
			case c.retired.Load():
				return ch.QueueUnbind(c.o.Queue, c.o.BindingKey, exchange, nil)
			}
			return ch.QueueBind(c.o.Queue, c.o.BindingKey, exchange, false, nil)
		}},
		{"set the prefetch", func() error { return ch.Qos(c.o.Prefetch, 0, false) }},
		{"enable publisher confirms", func() error { return ch.Confirm(false) }},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			return errors.Wrapf(err, "cannot %s", s.what)
		}
	}
	return nil
}

// consume clears a poison message first when the last session found
// one, then starts consuming into a new fair queue, which holds the
// request the clearing kept, if any.
func (c *Consumer) consume(ch *amqp.Channel, closed <-chan *amqp.Error) (<-chan amqp.Delivery, *fairQueue, error) {
	var forgotten *amqp.Delivery
	if c.probe.on {
		var err error
		if forgotten, err = c.clearPoison(ch, closed); err != nil {
			return nil, nil, err
		}
	}
	// Not ConsumeWithContext: its cancel on ctx races the channel close
	// below inside the library and can leave both waiting forever.
	deliveries, err := ch.Consume(c.o.Queue, "", false, false, false, false, nil)
	if err != nil {
		return nil, nil, errors.Wrapf(err, "cannot consume %s", c.o.Queue)
	}
	c.o.Log.Info("request consumer connected", "queue", c.o.Queue)
	// The deliveries are read here as they come, so that the broker's
	// queue drains even while a message is being handled; the worker
	// handles what is held, fairly across publishers.
	q := newFairQueue(c.o.PerPublisher)
	c.queue.Store(q)
	if forgotten != nil {
		q.addForgotten(*forgotten)
	}
	return deliveries, q, nil
}

// deliveriesClosed is the error ending a session whose deliveries
// stopped: a frame error has the next session probe for the poison
// message that caused it.
func (c *Consumer) deliveriesClosed(closed <-chan *amqp.Error) error {
	if frameErrorOf(closed) {
		c.probe = probe{on: true, at: -1}
		return errFrame
	}
	return errors.New("delivery channel closed")
}

// receive holds a delivery for the worker, or settles at once one over
// its publisher's share. It returns an error only when the channel is
// unusable.
func (c *Consumer) receive(q *fairQueue, over map[string]bool, d amqp.Delivery) error {
	if q.add(d) {
		delete(over, d.UserId)
		return nil
	}
	// Over the publisher's share: dead-lettered by the broker at
	// once, so that one publisher's flood never fills the queue
	// for the others. One that carries x- headers of its own is
	// dropped instead: a publisher's own x-death header crashes
	// RabbitMQ 3.10's dead-lettering (the queue process dies on
	// an array of non-tables), and the broker's own are never
	// on a fresh request.
	if !over[d.UserId] {
		if len(over) >= maxTracked {
			clear(over)
		}
		over[d.UserId] = true
		c.o.Log.Info("publisher holds too many requests; its further requests are dead-lettered until it holds fewer", "queue", c.o.Queue, "user", d.UserId, "held", c.o.PerPublisher)
	}
	c.o.Metrics.Requests.WithLabelValues("over-limit").Inc()
	var err error
	if brokerHeaders(d.Headers) {
		err = d.Ack(false)
	} else {
		err = d.Nack(false, false)
	}
	if err != nil {
		return errors.Wrap(err, "cannot settle a request over the publisher's limit")
	}
	return nil
}

// brokerHeaders is true when a publisher set headers only the broker or
// the provider may set (x-death, x-devops-*, any x-).
func brokerHeaders(h amqp.Table) bool {
	for k := range h {
		if strings.HasPrefix(strings.ToLower(k), "x-") {
			return true
		}
	}
	return false
}

// work handles the held messages one at a time until ctx ends or the
// channel fails.
func (c *Consumer) work(ctx context.Context, ch *amqp.Channel, q *fairQueue) error {
	for ctx.Err() == nil {
		h, at := q.take(time.Now())
		if h != nil {
			if err := c.handle(ctx, ch, q, h); err != nil {
				return err
			}
			continue
		}
		var retry <-chan time.Time
		t := time.NewTimer(time.Until(at))
		if !at.IsZero() {
			retry = t.C
		}
		select {
		case <-ctx.Done():
		case <-q.wake:
		case <-retry:
		}
		t.Stop()
	}
	return nil
}

// handle settles one held delivery, or parks it to be tried again after
// RetryDelay. It returns an error only when the channel is unusable.
func (c *Consumer) handle(ctx context.Context, ch *amqp.Channel, q *fairQueue, h *held) error {
	err := c.try(ctx, h)
	key := attemptKey(h.d)
	var reject *RejectError
	if err != nil && !errors.As(err, &reject) && canceled(ctx) {
		return nil // stopping: the broker redelivers it
	}
	return c.settle(ctx, ch, q, h, c.count(key, err))
}

// try handles a held delivery: one too large to read, or published into
// another user's lane, is refused without calling the handler.
func (c *Consumer) try(ctx context.Context, h *held) error {
	d := h.d
	switch {
	case h.tooLarge > 0:
		return Reject("request body of %d bytes is larger than %d: not read", h.tooLarge, MaxRequestBody)
	case c.o.User != "" && d.UserId != c.o.User:
		// Only a broker without the documented topic permissions lets a
		// user publish under another's routing key.
		return Reject("published by broker user %q with the routing key of %q's queue", d.UserId, c.o.User)
	default:
		return c.call(ctx, d)
	}
}

// count counts a failure that is the message's (not a refusal, not an
// outage) against key, and turns the MaxAttempts-th into a refusal; a
// message done or refused is no longer counted.
func (c *Consumer) count(key [32]byte, err error) error {
	var reject *RejectError
	if err != nil && !errors.As(err, &reject) && !outage(err) {
		if len(c.attempts) >= maxTracked {
			clear(c.attempts)
		}
		c.attempts[key]++
		if n := c.attempts[key]; n >= c.o.MaxAttempts {
			err = Reject("failed %d times, the last: %v", n, err)
		}
	}
	if err == nil || errors.As(err, &reject) {
		delete(c.attempts, key)
	}
	return err
}

// settle acks a delivery handled, dead-letters one refused and parks one
// that failed.
func (c *Consumer) settle(ctx context.Context, ch *amqp.Channel, q *fairQueue, h *held, err error) error {
	d := h.d
	var reject *RejectError
	switch {
	case err == nil:
		q.pop(d.UserId)
		c.o.Metrics.Requests.WithLabelValues("done").Inc()
		return h.ack()
	case errors.As(err, &reject):
		q.pop(d.UserId)
		c.o.Log.Info("request dead-lettered", "queue", c.o.Queue, "messageId", d.MessageId, "reason", reject.Reason)
		if derr := c.deadLetter(ctx, ch, d, reject.Reason); derr != nil {
			c.o.Log.Info("cannot dead-letter request; it stays on the queue", "queue", c.o.Queue, "messageId", d.MessageId, "error", derr.Error())
			if !h.forgotten {
				_ = d.Nack(false, true)
			}
			return derr
		}
		c.o.Metrics.Requests.WithLabelValues("dead-lettered").Inc()
		c.o.Metrics.Refused.WithLabelValues(RefusalReason(reject.Reason)).Inc()
		return h.ack()
	default:
		// Parked, not put back: the broker would hand it straight back,
		// and the other publishers' messages go on meanwhile.
		c.o.Log.Info("request failed; it will be retried", "queue", c.o.Queue, "messageId", d.MessageId, "error", err.Error(), "retryIn", c.o.RetryDelay.String())
		c.o.Metrics.Requests.WithLabelValues("retried").Inc()
		q.park(d.UserId, time.Now().Add(c.o.RetryDelay))
		return nil
	}
}

// call runs the handler; a panic dead-letters the message rather than
// stopping the provider.
func (c *Consumer) call(ctx context.Context, d amqp.Delivery) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = Reject("internal error while handling the message: %v", r)
		}
	}()
	return c.o.Handler(ctx, d)
}

// deadLetter publishes d to the dead-letter exchange with the reason and
// waits for the broker's confirm.
func (c *Consumer) deadLetter(ctx context.Context, ch *amqp.Channel, d amqp.Delivery, reason string) error {
	dc, err := c.publishDeadLetter(ctx, ch, d, reason)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	acked, err := dc.WaitContext(wctx)
	if err != nil {
		return errors.Wrap(err, "no confirm for the dead letter")
	}
	if !acked {
		return errors.New("the broker refused the dead letter")
	}
	return nil
}

// publishDeadLetter publishes d to the dead-letter exchange with the
// reason and the headers a dead letter keeps (deadLetterHeaders).
func (c *Consumer) publishDeadLetter(ctx context.Context, ch *amqp.Channel, d amqp.Delivery, reason string) (*amqp.DeferredConfirmation, error) {
	h := deadLetterHeaders(d.Headers)
	if len(reason) > maxReason {
		reason = reason[:maxReason] + "…"
	}
	h[HeaderReason] = reason
	h[HeaderQueue] = c.o.Queue
	dc, err := ch.PublishWithDeferredConfirmWithContext(ctx, c.o.DeadLetterTo, d.RoutingKey, false, false, amqp.Publishing{
		Headers:       h,
		ContentType:   d.ContentType,
		DeliveryMode:  amqp.Persistent,
		MessageId:     d.MessageId,
		CorrelationId: d.CorrelationId,
		Timestamp:     d.Timestamp,
		Type:          d.Type,
		AppId:         d.AppId,
		Body:          d.Body,
	})
	return dc, errors.Wrap(err, "cannot publish the dead letter")
}

// Bounds of what a dead letter carries of the message's headers, and of
// its reason: a publisher's headers must not make the dead letter larger
// than the broker's frame, which would close the consumer's channel.
const (
	maxHeaders     = 32
	maxHeaderBytes = 256
	maxReason      = 1024
)

// deadLetterHeaders are the message's headers a dead letter keeps: at
// most maxHeaders, each a short key with a scalar value (strings at most
// maxHeaderBytes); the rest are dropped.
func deadLetterHeaders(in amqp.Table) amqp.Table {
	out := amqp.Table{}
	for k, v := range in {
		// x- headers are the broker's and ours (x-death, x-devops-*):
		// never taken from a publisher.
		if len(out) >= maxHeaders || len(k) > maxHeaderBytes || strings.HasPrefix(strings.ToLower(k), "x-") {
			continue
		}
		switch v := v.(type) {
		case string:
			if len(v) <= maxHeaderBytes {
				out[k] = v
			}
		case bool, int8, uint8, int16, uint16, int32, uint32, int64, float32, float64, time.Time:
			out[k] = v
		}
	}
	return out
}

// canceled is true once the consumer is stopping: a failure then is the
// stop's, not the message's.
func canceled(ctx context.Context) bool { return ctx.Err() != nil }

// outage is true for a failure that is not the message's: the API server
// unavailable, overloaded or not answering. Every message fails alike
// then, so holding one at the head of the queue holds back nobody it
// would not anyway; such tries are not counted, or an outage of a minute
// would dead-letter good requests one after another.
func outage(err error) bool {
	var ne net.Error
	return kerrors.IsServiceUnavailable(err) || kerrors.IsTimeout(err) || kerrors.IsServerTimeout(err) ||
		kerrors.IsTooManyRequests(err) || kerrors.IsInternalError(err) ||
		errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) || errors.Is(err, syscall.ECONNREFUSED)
}

// waitingEvery is how often a consumer samples its queue's depth.
const waitingEvery = 10 * time.Second

// sampleWaiting records, every waitingEvery while ctx lasts, the messages
// of the consumer's queue: those delivered and not yet settled, plus,
// when they fill the prefetch window (the broker delivers everything else
// at once), those ready in the broker, read by a passive declare on a
// channel of its own, so an error never closes the consumer's. A lane
// that keeps up costs the broker nothing.
func (c *Consumer) sampleWaiting(ctx context.Context, conn *amqp.Connection, q *fairQueue) {
	defer c.o.Metrics.setWaiting(c.o.Queue, -1)
	var ch *amqp.Channel
	defer func() {
		if ch != nil {
			closeWithin(ch.Close)
		}
	}()
	for {
		n := q.size()
		if n >= c.o.Prefetch {
			if ch == nil || ch.IsClosed() {
				ch, _ = conn.Channel()
			}
			if ch != nil {
				if st, err := ch.QueueDeclarePassive(c.o.Queue, true, false, false, false, nil); err == nil {
					n += st.Messages
				}
			}
		}
		c.o.Metrics.setWaiting(c.o.Queue, n)
		select {
		case <-ctx.Done():
			return
		case <-time.After(waitingEvery):
		}
	}
}

// refusals classify a refusal's reason by what it says; the first reason
// one of whose phrases it holds names it. Each phrase holds a space or a
// colon, which no Kubernetes name a refusal quotes can, and quoted text
// is not read (quoted, a message's own values).
var refusals = []struct { //nolint:gochecknoglobals // read-only
	reason string
	says   []string
}{
	{"internal", []string{"internal error while"}},
	{"failed-repeatedly", []string{" times, the last: "}},
	{"too-large", []string{" bytes is larger than "}},
	{"unauthorised", []string{"unauthorised: ", "unauthenticated ", " may not be used from namespace ", "published by broker user ", " is already another namespace's"}},
	{"superseded", []string{"superseded: "}},
	{"malformed", []string{"malformed ", "ambiguous message: ", "operator message of type "}},
	{"unknown-target", []string{"unknown target: ", "ambiguous target: ", "unmapped operator project ", " does not exist", " is disabled ", " expired at ", " is being deleted"}},
	{"bad-parameters", []string{" declares no parameter ", " parameter "}},
	{"conflict", []string{"conflict: "}},
}

// quoted is a Go-quoted string in a refusal.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// RefusalReason is the bounded reason a refused request is counted under
// (provider_devops_requests_refused_total): never the message's own text.
func RefusalReason(said string) string {
	said = quoted.ReplaceAllString(said, `""`)
	for _, r := range refusals {
		for _, p := range r.says {
			if strings.Contains(said, p) {
				return r.reason
			}
		}
	}
	return "other"
}

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
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
)

// Defaults of PublisherOptions.
const (
	DefaultOutboxSize = 10000
	DefaultWindow     = 256
)

// Reasons an event is dropped, the label of the dropped metric.
const (
	DropOutboxFull  = "outbox-full"
	DropUnroutable  = "unroutable"
	DropUnencodable = "unencodable"
	// DropReplayLimit: a new leader's replay of recent lifecycle events
	// reached its limit (a quarter of the outbox).
	DropReplayLimit = "replay-limit"
)

// ErrOutboxFull is returned by Publish when the outbox holds OutboxSize
// events not yet confirmed by the broker.
var ErrOutboxFull = errors.New("event outbox is full: the broker has been unreachable or slow for too long; event dropped")

// PublisherOptions configure a Publisher.
type PublisherOptions struct {
	// Source of the broker URL and exchange.
	Source Source
	// OutboxSize bounds the events held until the broker confirms them:
	// queued while the broker is down, and in flight. Default 10000.
	OutboxSize int
	// Window bounds the events published and not yet confirmed. Default 256.
	Window int
	// Backoff between connection attempts.
	Backoff Backoff
	// Log receives connection changes and throttled drop reports.
	Log logging.Logger
	// Metrics, or nil for none.
	Metrics *Metrics
}

// A Publisher sends events to a durable topic exchange with publisher
// confirms and mandatory routing. Publish never blocks: events wait in a
// bounded in-memory outbox until the broker confirms them, across
// reconnects, so an event published while the broker is down arrives once
// it is back (at least once: an event whose confirm was lost with the
// connection is sent again).
type Publisher struct {
	o    PublisherOptions
	wake chan struct{}

	mu       sync.Mutex
	queue    []*message // waiting to be sent, oldest first
	inflight int        // sent, not yet confirmed
	dropLog  throttle
}

type message struct {
	id, key, typ, contentType string
	at                        time.Time
	body                      []byte
}

// Message is an encoded message for the outbox: Publish encodes an Event
// into one, PublishMessage takes one as it is, for other wire formats.
type Message struct {
	// ID is the AMQP message id; a fresh one when empty. An unroutable
	// message is told apart by it, so it must be unique.
	ID string
	// RoutingKey on the exchange.
	RoutingKey string
	// Type is the AMQP type property.
	Type string
	// ContentType of Body; application/json when empty.
	ContentType string
	// Time is the AMQP timestamp; now when zero.
	Time time.Time
	// Body is sent as it is.
	Body []byte
}

// NewPublisher returns a publisher; Start connects it.
func NewPublisher(o PublisherOptions) *Publisher {
	if o.OutboxSize <= 0 {
		o.OutboxSize = DefaultOutboxSize
	}
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	o.Window = min(o.Window, o.OutboxSize)
	if o.Log == nil {
		o.Log = logging.NewNopLogger()
	}
	if o.Metrics == nil {
		o.Metrics = NewMetrics(nil)
	}
	p := &Publisher{o: o, wake: make(chan struct{}, 1), dropLog: throttle{period: 10 * time.Second}}
	o.Metrics.setDepth(p.Depth)
	return p
}

// Publish adds e to the outbox. It never blocks; it fails only when the
// outbox is full (ErrOutboxFull), which is counted and logged (throttled).
func (p *Publisher) Publish(e Event) error {
	body, err := e.Marshal()
	if err != nil {
		p.drop(DropUnencodable, e.Type, e.ID, err.Error())
		return errors.Wrap(err, "cannot encode event")
	}
	return p.PublishMessage(Message{ID: e.ID, RoutingKey: e.RoutingKey(), Type: e.Type, ContentType: ContentType, Time: e.Time, Body: body})
}

// PublishMessage adds m to the outbox, like Publish an event: it is sent
// with publisher confirms, mandatory and persistent, and held across
// reconnects. It never blocks; it fails only when the outbox is full
// (ErrOutboxFull), which is counted and logged (throttled).
func (p *Publisher) PublishMessage(m Message) error {
	if m.ID == "" {
		m.ID = uuid.NewString()
	}
	if m.ContentType == "" {
		m.ContentType = "application/json"
	}
	if m.Time.IsZero() {
		m.Time = time.Now()
	}
	p.mu.Lock()
	if len(p.queue)+p.inflight >= p.o.OutboxSize {
		p.mu.Unlock()
		p.drop(DropOutboxFull, m.Type, m.ID, fmt.Sprintf("%d events wait for the broker", p.o.OutboxSize))
		return ErrOutboxFull
	}
	p.queue = append(p.queue, &message{id: m.ID, key: m.RoutingKey, typ: m.Type, contentType: m.ContentType, at: m.Time, body: m.Body})
	p.mu.Unlock()
	p.o.Metrics.Published.Inc()
	p.signal()
	return nil
}

// Depth is the number of events in the outbox: waiting plus in flight.
func (p *Publisher) Depth() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.queue) + p.inflight
}

// Start connects and sends until ctx ends. It implements manager.Runnable.
func (p *Publisher) Start(ctx context.Context) error {
	p.o.Log.Info("event publisher starting", "outbox", p.o.OutboxSize, "window", p.o.Window)
	connectLoop(ctx, "publisher", p.o.Source, p.o.Backoff, p.o.Log, p.session)
	return nil
}

// NeedLeaderElection is true: only the leader publishes, like it is the
// only one reconciling.
func (p *Publisher) NeedLeaderElection() bool { return true }

func (p *Publisher) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// drop counts a dropped event and logs it, throttled.
func (p *Publisher) drop(reason, typ, id, detail string) {
	p.o.Metrics.Dropped.WithLabelValues(reason).Inc()
	if ok, n := p.dropLog.allow(time.Now()); ok {
		p.o.Log.Info("event dropped", "reason", reason, "detail", detail, "type", typ, "id", id, "droppedSinceLastReport", n)
	}
}

// take moves the oldest waiting message in flight.
func (p *Publisher) take() *message {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.queue) == 0 {
		return nil
	}
	m := p.queue[0]
	p.queue[0] = nil
	p.queue = p.queue[1:]
	p.inflight++
	return m
}

// done removes n confirmed (or dropped) in-flight messages.
func (p *Publisher) done(n int) {
	p.mu.Lock()
	p.inflight -= n
	p.mu.Unlock()
}

// requeue puts in-flight messages back at the front, in their order.
func (p *Publisher) requeue(ms ...*message) {
	if len(ms) == 0 {
		return
	}
	p.mu.Lock()
	p.queue = append(append(make([]*message, 0, len(ms)+len(p.queue)), ms...), p.queue...)
	p.inflight -= len(ms)
	p.mu.Unlock()
}

// session publishes on one connection. Messages still unconfirmed when it
// ends go back to the front of the outbox.
func (p *Publisher) session(ctx context.Context, conn *amqp.Connection, exchange string) error {
	ch, err := conn.Channel()
	if err != nil {
		return errors.Wrap(err, "cannot open a channel")
	}
	defer closeWithin(ch.Close)
	if err := ch.ExchangeDeclare(exchange, amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
		return errors.Wrapf(err, "cannot declare the durable topic exchange %q", exchange)
	}
	if err := ch.Confirm(false); err != nil {
		return errors.Wrap(err, "cannot enable publisher confirms")
	}
	// Buffers hold a whole window: the library never waits on us.
	confirms := ch.NotifyPublish(make(chan amqp.Confirmation, p.o.Window+1))
	returns := ch.NotifyReturn(make(chan amqp.Return, p.o.Window+1))
	closed := ch.NotifyClose(make(chan *amqp.Error, 1))
	p.o.Log.Info("event publisher connected", "exchange", exchange)

	s := &publishing{p: p, ch: ch, exchange: exchange, inflight: map[uint64]*message{}, returned: map[string]string{}}
	defer s.requeue()
	for {
		if err := s.publish(ctx); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-p.wake:
		case <-s.hold():
		case e := <-closed:
			return channelClosed(e)
		case r, ok := <-returns:
			if !ok {
				return errors.New("channel closed")
			}
			s.returned[r.MessageId] = fmt.Sprintf("%d %s", r.ReplyCode, r.ReplyText)
		case c, ok := <-confirms:
			if !ok {
				return errors.New("channel closed")
			}
			// A mandatory message that could not be routed is returned
			// before it is acked, by the same reader: drain returns first.
			drainReturns(returns, s.returned)
			s.confirmed(c)
		}
	}
}

// publishing is the state of one session: the messages in flight, the
// returns not yet matched to their confirm and the hold after a nack.
type publishing struct {
	p        *Publisher
	ch       *amqp.Channel
	exchange string
	inflight map[uint64]*message
	order    []uint64 // delivery tags in publish order, for requeueing
	returned map[string]string
	// holdUntil: after a nack, wait before sending again.
	holdUntil time.Time
	retries   int
}

// requeue puts the messages still in flight back at the front of the
// outbox, in their order.
func (s *publishing) requeue() {
	var back []*message
	for _, tag := range s.order {
		if m, ok := s.inflight[tag]; ok {
			back = append(back, m)
		}
	}
	s.p.requeue(back...)
}

// publish sends messages from the outbox while the window has room and
// no hold is on.
func (s *publishing) publish(ctx context.Context) error {
	for len(s.inflight) < s.p.o.Window && !time.Now().Before(s.holdUntil) {
		m := s.p.take()
		if m == nil {
			break
		}
		tag := s.ch.GetNextPublishSeqNo()
		err := s.ch.PublishWithContext(ctx, s.exchange, m.key, true, false, amqp.Publishing{
			ContentType:  m.contentType,
			DeliveryMode: amqp.Persistent,
			MessageId:    m.id,
			Type:         m.typ,
			Timestamp:    m.at,
			AppId:        "provider-devops",
			Body:         m.body,
		})
		if err != nil {
			s.p.requeue(m)
			return errors.Wrap(err, "cannot publish")
		}
		s.inflight[tag] = m
		s.order = append(s.order, tag)
	}
	return nil
}

// hold fires when the hold after a nack ends; nil without one.
func (s *publishing) hold() <-chan time.Time {
	if d := time.Until(s.holdUntil); d > 0 {
		return time.After(d)
	}
	return nil
}

// confirmed settles the message the broker confirmed: sent again after
// a pause when nacked, dropped when it was returned unroutable, done
// otherwise.
func (s *publishing) confirmed(c amqp.Confirmation) {
	m, found := s.inflight[c.DeliveryTag]
	if !found {
		return
	}
	delete(s.inflight, c.DeliveryTag)
	s.order = compact(s.order, s.inflight)
	switch reason, wasReturned := s.returned[m.id]; {
	case !c.Ack:
		s.p.o.Metrics.Retried.Inc()
		s.p.requeue(m)
		s.retries++
		s.holdUntil = time.Now().Add(min(time.Duration(s.retries)*100*time.Millisecond, 5*time.Second))
	case wasReturned:
		delete(s.returned, m.id)
		s.p.o.Metrics.Returned.Inc()
		s.p.done(1)
		s.p.drop(DropUnroutable, m.typ, m.id, "no queue is bound to exchange "+s.exchange+" for routing key "+m.key+" ("+reason+")")
	default:
		s.retries = 0
		s.p.o.Metrics.Confirmed.Inc()
		s.p.done(1)
	}
}

// channelClosed is the error of a channel closed by the broker (e) or
// by the library (nil).
func channelClosed(e *amqp.Error) error {
	if e == nil {
		return errors.New("channel closed")
	}
	return e
}

func drainReturns(returns <-chan amqp.Return, into map[string]string) {
	for {
		select {
		case r, ok := <-returns:
			if !ok {
				return
			}
			into[r.MessageId] = fmt.Sprintf("%d %s", r.ReplyCode, r.ReplyText)
		default:
			return
		}
	}
}

// compact drops confirmed tags from the front of order, keeping it short.
func compact(order []uint64, inflight map[uint64]*message) []uint64 {
	i := 0
	for i < len(order) {
		if _, ok := inflight[order[i]]; ok {
			break
		}
		i++
	}
	return order[i:]
}

// Metrics of the event stream.
type Metrics struct {
	Published, Confirmed, Returned, Retried prometheus.Counter
	Dropped                                 *prometheus.CounterVec
	Requests                                *prometheus.CounterVec
	// Refused counts requests dead-lettered, by RefusalReason.
	Refused *prometheus.CounterVec

	depthMu sync.Mutex
	depth   func() int
	// waiting is, per request queue read, the messages it holds: ready in
	// the broker and delivered but not yet settled.
	waiting map[string]int
}

// NewMetrics creates the metrics and registers them with reg, if not nil.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Published: prometheus.NewCounter(prometheus.CounterOpts{Name: "provider_devops_events_published_total", Help: "Events accepted into the outbox."}),
		Confirmed: prometheus.NewCounter(prometheus.CounterOpts{Name: "provider_devops_events_confirmed_total", Help: "Events the broker confirmed (routed to at least one queue)."}),
		Returned:  prometheus.NewCounter(prometheus.CounterOpts{Name: "provider_devops_events_returned_total", Help: "Events the broker returned as unroutable (no queue bound); they are dropped."}),
		Retried:   prometheus.NewCounter(prometheus.CounterOpts{Name: "provider_devops_events_retried_total", Help: "Events the broker refused (nack) and that were sent again."}),
		Dropped:   prometheus.NewCounterVec(prometheus.CounterOpts{Name: "provider_devops_events_dropped_total", Help: "Events dropped, by reason."}, []string{"reason"}),
		Requests:  prometheus.NewCounterVec(prometheus.CounterOpts{Name: "provider_devops_requests_total", Help: "Requests consumed, by result (done, dead-lettered, retried, over-limit: dead-lettered as they came, their broker user holding too many; unreadable: dropped, their headers unreadable)."}, []string{"result"}),
		Refused:   prometheus.NewCounterVec(prometheus.CounterOpts{Name: "provider_devops_requests_refused_total", Help: "Requests dead-lettered, by reason (unauthorised, malformed, too-large, superseded, unknown-target, bad-parameters, conflict, failed-repeatedly, internal, other)."}, []string{"reason"}),
		waiting:   map[string]int{},
	}
	// By kind of queue only: a lane is one broker user's (lanes.go), and
	// one user's backlog delays no one else's requests.
	waiting := func(kind string, lane bool) prometheus.GaugeFunc {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "provider_devops_requests_waiting", ConstLabels: prometheus.Labels{"queue": kind},
			Help: "Requests waiting in the request queues this replica reads, by kind of queue (shared, lane: one broker user's): ready in the broker, or delivered and not yet handled (sampled every 10s; 0 on a standby)."},
			func() float64 { n, _ := m.waitingIn(lane); return float64(n) })
	}
	backlogged := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "provider_devops_request_lanes_backlogged",
		Help: "Broker users' lanes holding 100 or more waiting requests."},
		func() float64 { _, n := m.waitingIn(true); return float64(n) })
	depth := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "provider_devops_events_outbox_depth", Help: "Events in the outbox: waiting for the broker or for its confirm."}, func() float64 {
		m.depthMu.Lock()
		defer m.depthMu.Unlock()
		if m.depth == nil {
			return 0
		}
		return float64(m.depth())
	})
	if reg != nil {
		for _, c := range []prometheus.Collector{m.Published, m.Confirmed, m.Returned, m.Retried, m.Dropped, m.Requests, m.Refused, depth, waiting("shared", false), waiting("lane", true), backlogged} {
			reg.MustRegister(c)
		}
	}
	return m
}

// BackloggedLane is how many waiting requests make a lane backlogged.
const BackloggedLane = 100

// waitingIn sums the requests waiting in the lanes (lane) or the other
// queues, and counts the queues holding BackloggedLane or more.
func (m *Metrics) waitingIn(lane bool) (n, backlogged int) {
	m.depthMu.Lock()
	defer m.depthMu.Unlock()
	for q, v := range m.waiting {
		if IsLane(q) != lane {
			continue
		}
		n += v
		if v >= BackloggedLane {
			backlogged++
		}
	}
	return n, backlogged
}

// setWaiting records how many requests queue holds; n < 0 forgets it.
func (m *Metrics) setWaiting(queue string, n int) {
	m.depthMu.Lock()
	defer m.depthMu.Unlock()
	if m.waiting == nil {
		m.waiting = map[string]int{}
	}
	if n < 0 {
		delete(m.waiting, queue)
		return
	}
	m.waiting[queue] = n
}

func (m *Metrics) setDepth(f func() int) {
	m.depthMu.Lock()
	m.depth = f
	m.depthMu.Unlock()
}

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
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
)

// A lane is one publishing user's own request queue, consumed on a
// connection of its own. A request the AMQP library cannot read closes
// the connection it arrives on (poison.go): in a lane, that stalls only
// the user who sent it, and a user's flood fills only its own queue.
// A lane is bound with "user.<name>.#", a prefix no request under the
// shared binding uses, so that naming a lane never takes anyone else's
// requests; what no lane takes reaches the shared queue through the
// exchange's alternate exchange.

// Lane defaults.
const (
	// DefaultLanes bounds the lanes one provider runs.
	DefaultLanes = 256
	// DefaultLaneMaxLength bounds one lane's queue.
	DefaultLaneMaxLength = 1000
	// LaneExpiry is how long a lane's queue outlives its last consumer
	// (a provider stopped for good): the broker then deletes it, with
	// what it holds.
	LaneExpiry = 7 * 24 * time.Hour
	// LanePrefix starts the routing key of a request to a lane.
	LanePrefix = "user."
	// laneResync is how often the users are read again.
	laneResync = 15 * time.Second
	// maxQueueName is AMQP's bound on a queue name, in bytes.
	maxQueueName = 255
)

// LaneQueue is the queue of user's lane beside queue.
func LaneQueue(queue, user string) string { return queue + laneInfix + user }

const laneInfix = ".user."

// IsLane is true for a lane's queue.
func IsLane(queue string) bool { return strings.Contains(queue, laneInfix) }

// LaneBinding is the binding of user's lane: "user.<name>.#". ok is false
// when the name is not one word of a routing key.
func LaneBinding(user string) (string, bool) {
	if user == "" || strings.ContainsAny(user, ".*#") {
		return "", false
	}
	return LanePrefix + user + ".#", true
}

// LaneOptions configure Lanes.
type LaneOptions struct {
	// Shared is the shared queue's consumer's options; a lane takes its
	// source, exchange, handler and bounds, and dead-letters to its
	// dead-letter queue.
	Shared ConsumerOptions
	// Users lists the users that get a lane, the most deserving first:
	// past Max, the rest have none.
	Users func(ctx context.Context) ([]string, error)
	// Max bounds the lanes. Default DefaultLanes.
	Max int
	// MaxLength bounds each lane's queue. Default DefaultLaneMaxLength.
	MaxLength int
	// Resync is how often Users is called. Default 15s.
	Resync time.Duration
}

// Lanes runs a lane for each of the first Max users Users names. A user
// no longer named is retired: its queue is unbound at once (its requests
// reach the shared queue), its consumer handles what the queue still
// holds, and then the queue is deleted. A lane grants nothing: every
// request is still authorised by the handler.
type Lanes struct {
	o LaneOptions

	mu    sync.Mutex
	lanes map[string]*lane
}

// lane is one user's running consumer.
type lane struct {
	c       *Consumer
	key     string
	stop    context.CancelFunc
	done    chan struct{}
	retired bool
}

// NewLanes returns lanes; Start runs them.
func NewLanes(o LaneOptions) *Lanes {
	if o.Max <= 0 {
		o.Max = DefaultLanes
	}
	if o.MaxLength <= 0 {
		o.MaxLength = DefaultLaneMaxLength
	}
	if o.Resync <= 0 {
		o.Resync = laneResync
	}
	if o.Shared.Log == nil {
		o.Shared.Log = logging.NewNopLogger()
	}
	return &Lanes{o: o, lanes: map[string]*lane{}}
}

// NeedLeaderElection is true: requests are handled by the leader only.
func (l *Lanes) NeedLeaderElection() bool { return true }

// Start reads the users and runs their lanes until ctx ends. It
// implements manager.Runnable.
func (l *Lanes) Start(ctx context.Context) error {
	defer l.stopAll()
	t := time.NewTicker(l.o.Resync)
	defer t.Stop()
	for {
		users, err := l.o.Users(ctx)
		if err != nil && ctx.Err() == nil {
			l.o.Shared.Log.Info("cannot read the users whose deploy requests get a queue of their own", "error", err.Error())
		}
		if err == nil {
			l.resync(ctx, users)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// resync makes the lanes those of the first Max users that can have one.
func (l *Lanes) resync(ctx context.Context, users []string) {
	want := map[string]bool{}
	for _, u := range users {
		if len(want) >= l.o.Max {
			l.o.Shared.Log.Debug("too many users for a queue each; the others' requests go to the shared queue", "max", l.o.Max)
			break
		}
		if _, ok := LaneBinding(u); ok && len(LaneQueue(l.o.Shared.Queue, u)) <= maxQueueName && l.o.Shared.Exchange != "" {
			want[u] = true
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var retiring []string
	for u, ln := range l.lanes {
		switch {
		case want[u] && (ln.retired || ln.c.retired.Load()):
			ln.retired = false
			ln.c.retired.Store(false)
			if err := l.bind(ctx, ln, true); err != nil {
				l.o.Shared.Log.Info("cannot bind a user's queue again", "user", u, "error", err.Error())
			}
		case !want[u]:
			retiring = append(retiring, u)
		}
	}
	for _, u := range retiring {
		l.retire(ctx, u)
	}
	for u := range want {
		if l.lanes[u] == nil {
			l.start(ctx, u, false)
		}
	}
}

// start runs user's lane, retired (its queue unbound) or not. Callers
// hold l.mu.
func (l *Lanes) start(ctx context.Context, user string, retired bool) {
	s := l.o.Shared
	key, _ := LaneBinding(user)
	o := s
	o.Queue, o.BindingKey, o.User = LaneQueue(s.Queue, user), key, user
	o.Alternate = true
	o.DeadLetterTo = DeadLetter(s.Queue)
	o.DeadLetterMaxLength = cmp.Or(s.DeadLetterMaxLength, s.MaxLength, DefaultMaxLength)
	o.MaxLength = l.o.MaxLength
	o.Expires = LaneExpiry
	o.Prefetch = min(cmp.Or(s.PerPublisher, DefaultPerPublisher), cmp.Or(s.Prefetch, DefaultPrefetch))
	o.PerPublisher = o.Prefetch
	o.Log = o.Log.WithValues("user", user)
	lctx, stop := context.WithCancel(ctx)
	ln := &lane{c: NewConsumer(o), key: key, stop: stop, done: make(chan struct{}), retired: retired}
	ln.c.retired.Store(retired)
	l.lanes[user] = ln
	go func() {
		defer close(ln.done)
		_ = ln.c.Start(lctx)
	}()
}

// retire unbinds user's lane and, once its queue is empty, stops it and
// deletes the queue; until then each resync tries again. Callers hold
// l.mu.
func (l *Lanes) retire(ctx context.Context, user string) {
	ln := l.lanes[user]
	log := l.o.Shared.Log.WithValues("user", user, "queue", ln.c.o.Queue)
	if !ln.retired {
		ln.c.retired.Store(true)
		if err := l.bind(ctx, ln, false); err != nil {
			ln.c.retired.Store(false)
			log.Info("cannot unbind the queue of a user no longer named", "error", err.Error())
			return
		}
		ln.retired = true
		log.Info("user no longer named: its queue is unbound, and deleted once empty")
	}
	err := l.channel(ctx, func(ch *amqp.Channel) error {
		q, err := ch.QueueDeclarePassive(ln.c.o.Queue, true, false, false, false, nil)
		if err != nil || q.Messages > 0 || ln.c.holding() {
			return err
		}
		ln.stop()
		<-ln.done
		// If unused: a consumer whose connection has not closed yet
		// still holds requests the broker would put back.
		_, err = ch.QueueDelete(ln.c.o.Queue, true, true, false)
		if err != nil {
			// A request put back as the consumer stopped: drain it.
			delete(l.lanes, user)
			l.start(ctx, user, true)
			return err
		}
		delete(l.lanes, user)
		return nil
	})
	if err != nil {
		log.Debug("retired queue not deleted yet", "error", err.Error())
	}
}

// bind binds (or unbinds) ln's queue to the exchange.
func (l *Lanes) bind(ctx context.Context, ln *lane, bind bool) error {
	return l.channel(ctx, func(ch *amqp.Channel) error {
		if bind {
			return ch.QueueBind(ln.c.o.Queue, ln.key, l.o.Shared.Exchange, false, nil)
		}
		return ch.QueueUnbind(ln.c.o.Queue, ln.key, l.o.Shared.Exchange, nil)
	})
}

// channel runs fn on a channel of a connection of its own.
func (l *Lanes) channel(ctx context.Context, fn func(*amqp.Channel) error) error {
	return connectOnce(ctx, "lanes", l.o.Shared.Source, func(_ context.Context, conn *amqp.Connection, _ string) error {
		ch, err := conn.Channel()
		if err != nil {
			return err
		}
		defer closeWithin(ch.Close)
		return fn(ch)
	})
}

// stopAll stops every lane and waits for them.
func (l *Lanes) stopAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ln := range l.lanes {
		ln.stop()
		<-ln.done
	}
}

// Users returns the users that have a lane not retired, sorted.
func (l *Lanes) Users() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, 0, len(l.lanes))
	for u, ln := range l.lanes {
		if !ln.retired {
			out = append(out, u)
		}
	}
	slices.Sort(out)
	return out
}

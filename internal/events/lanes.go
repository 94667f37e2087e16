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

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
)

// A lane is one publishing user's own request queue, consumed on a
// connection of its own. A request the AMQP library cannot read closes
// the connection it arrives on (poison.go): in a lane, that stalls only
// the user who sent it, and a user's flood fills only its own queue.
// Requests of users without a lane reach the shared queue through the
// exchange's alternate exchange.

// Lane defaults.
const (
	// DefaultLanes bounds the lanes one provider runs.
	DefaultLanes = 256
	// DefaultLaneMaxLength bounds one lane's queue.
	DefaultLaneMaxLength = 1000
	// LaneExpiry is how long a lane's queue outlives its last consumer
	// (for a user no config names any more): the broker then deletes it,
	// with what it holds, and the user's requests reach the shared queue.
	LaneExpiry = 7 * 24 * time.Hour
	// laneResync is how often the users are read again.
	laneResync = 15 * time.Second
	// maxQueueName is AMQP's bound on a queue name, in bytes.
	maxQueueName = 255
)

// LaneQueue is the queue of user's lane beside queue.
func LaneQueue(queue, user string) string { return queue + ".user." + user }

// LaneBinding is the binding of user's lane for a shared queue bound by
// binding: binding's last word "#" is replaced by the user's name and "#"
// ("deploy.#" gives "deploy.ci-shop.#"). ok is false when binding does not
// end in "#", or the name is not one word of a routing key.
func LaneBinding(binding, user string) (string, bool) {
	prefix, ok := strings.CutSuffix(binding, "#")
	if !ok || (prefix != "" && !strings.HasSuffix(prefix, ".")) || user == "" || strings.ContainsAny(user, ".*#") {
		return "", false
	}
	return prefix + user + ".#", true
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

// Lanes runs a lane for each user Users names, as long as it runs. A lane
// is never stopped while the provider runs: it grants nothing (every
// request is still authorised by its handler), and a user named again
// finds its queue where it was.
type Lanes struct {
	o LaneOptions

	mu      sync.Mutex
	running map[string]bool
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
	return &Lanes{o: o, running: map[string]bool{}}
}

// NeedLeaderElection is true: requests are handled by the leader only.
func (l *Lanes) NeedLeaderElection() bool { return true }

// Start reads the users and starts their lanes until ctx ends. It
// implements manager.Runnable.
func (l *Lanes) Start(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	t := time.NewTicker(l.o.Resync)
	defer t.Stop()
	full := false
	for {
		users, err := l.o.Users(ctx)
		if err != nil && ctx.Err() == nil {
			l.o.Shared.Log.Info("cannot read the users whose deploy requests get a queue of their own", "error", err.Error())
		}
		for _, u := range users {
			c, ok := l.lane(u)
			if !ok {
				continue
			}
			if len(l.running) >= l.o.Max {
				if !full {
					l.o.Shared.Log.Info("too many users for a queue each; the others' requests go to the shared queue", "max", l.o.Max)
				}
				full = true
				break
			}
			l.mu.Lock()
			l.running[u] = true
			l.mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				_ = c.Start(ctx)
			}()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// lane is user's lane's consumer; ok is false when it runs already or
// the user cannot have one.
func (l *Lanes) lane(user string) (*Consumer, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running[user] {
		return nil, false
	}
	s := l.o.Shared
	key, ok := LaneBinding(s.BindingKey, user)
	queue := LaneQueue(s.Queue, user)
	if !ok || s.Exchange == "" || len(queue) > maxQueueName {
		return nil, false
	}
	o := s
	o.Queue, o.BindingKey, o.User = queue, key, user
	o.Alternate = true
	o.DeadLetterTo = DeadLetter(s.Queue)
	o.DeadLetterMaxLength = cmp.Or(s.DeadLetterMaxLength, s.MaxLength, DefaultMaxLength)
	o.MaxLength = l.o.MaxLength
	o.Expires = LaneExpiry
	o.Prefetch = min(cmp.Or(s.PerPublisher, DefaultPerPublisher), cmp.Or(s.Prefetch, DefaultPrefetch))
	o.PerPublisher = o.Prefetch
	if o.Log != nil {
		o.Log = o.Log.WithValues("user", user)
	}
	return NewConsumer(o), true
}

// Users returns the users that have a lane, sorted.
func (l *Lanes) Users() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, 0, len(l.running))
	for u := range l.running {
		out = append(out, u)
	}
	slices.Sort(out)
	return out
}

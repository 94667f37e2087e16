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
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// held is a delivery the consumer holds: received, not yet settled.
type held struct {
	d amqp.Delivery
	// tooLarge is the size of a body larger than MaxRequestBody, which
	// is not kept (d.Body is nil): such a message is refused unread.
	tooLarge int
	// notBefore is when a message that failed for a passing reason may be
	// tried again.
	notBefore time.Time
	// forgotten is a message got with auto-ack (poison.go): the broker
	// has forgotten it, so it is never acked or put back.
	forgotten bool
}

// ack acks h's message, unless the broker has forgotten it.
func (h *held) ack() error {
	if h.forgotten {
		return nil
	}
	return h.d.Ack(false)
}

// fairQueue holds the deliveries of one session, a FIFO per publishing
// user (the AMQP user_id, which the broker checks), and hands them out
// round-robin across users: one user's flood, or one user's message that
// keeps failing, delays another user's next message by at most one
// handling. Each user holds at most perUser messages; the queue's
// prefetch bounds them all.
type fairQueue struct {
	perUser int

	mu    sync.Mutex
	users map[string][]*held
	// order is the round-robin ring of users holding messages; next is
	// where the next turn starts.
	order []string
	next  int
	// wake is signalled when a message is added.
	wake chan struct{}
}

func newFairQueue(perUser int) *fairQueue {
	return &fairQueue{perUser: perUser, users: map[string][]*held{}, wake: make(chan struct{}, 1)}
}

// add holds d at the end of its user's FIFO. It returns false, holding
// nothing, when that user already holds perUser messages.
func (q *fairQueue) add(d amqp.Delivery) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.users[d.UserId]) >= q.perUser {
		return false
	}
	h := &held{d: d}
	if len(d.Body) > MaxRequestBody {
		h.tooLarge, h.d.Body = len(d.Body), nil
	}
	q.hold(h, false)
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return true
}

// take returns the head message of the next user, round-robin, whose
// head may be tried now; the message stays held until pop or park. With
// none ready it returns nil and the earliest time one will be (zero when
// nothing is held).
func (q *fairQueue) take(now time.Time) (*held, time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var earliest time.Time
	n := len(q.order)
	for i := range n {
		j := (q.next + i) % n
		h := q.users[q.order[j]][0]
		if !h.notBefore.After(now) {
			q.next = (j + 1) % n
			return h, time.Time{}
		}
		if earliest.IsZero() || h.notBefore.Before(earliest) {
			earliest = h.notBefore
		}
	}
	return nil, earliest
}

// addForgotten holds d, got with auto-ack, at the head of its user's
// FIFO, whatever the user holds.
func (q *fairQueue) addForgotten(d amqp.Delivery) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.hold(&held{d: d, forgotten: true}, true)
}

// hold puts h at the end (or the head) of its user's FIFO, and the user
// in the round-robin if it held nothing. q.mu is held.
func (q *fairQueue) hold(h *held, head bool) {
	u := h.d.UserId
	l, ok := q.users[u]
	if !ok {
		q.order = append(q.order, u)
	}
	if head {
		l = append([]*held{h}, l...)
	} else {
		l = append(l, h)
	}
	q.users[u] = l
}

// pop drops the head message of user, which was settled.
func (q *fairQueue) pop(user string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	l := q.users[user]
	if len(l) == 0 {
		return
	}
	l[0] = nil
	if len(l) > 1 {
		q.users[user] = l[1:]
		return
	}
	delete(q.users, user)
	for i, u := range q.order {
		if u != user {
			continue
		}
		q.order = append(q.order[:i], q.order[i+1:]...)
		if q.next > i {
			q.next--
		}
		if q.next >= len(q.order) {
			q.next = 0
		}
		return
	}
}

// empty is true when q holds nothing.
// size is how many deliveries the queue holds.
func (q *fairQueue) size() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, l := range q.users {
		n += len(l)
	}
	return n
}

func (q *fairQueue) empty() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.order) == 0
}

// park keeps user's head message, to be tried again at until; the
// user's later messages wait behind it, in order.
func (q *fairQueue) park(user string, until time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if l := q.users[user]; len(l) > 0 {
		l[0].notBefore = until
	}
}

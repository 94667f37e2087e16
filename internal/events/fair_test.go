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
	"slices"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// TestFairQueue: users take turns; a user's messages stay in order, a
// parked head holds only its own user's, and each user holds at most
// perUser.
func TestFairQueue(t *testing.T) {
	q := newFairQueue(2)
	msg := func(user, body string) amqp.Delivery { return amqp.Delivery{UserId: user, Body: []byte(body)} }
	for _, d := range []amqp.Delivery{msg("a", "a1"), msg("a", "a2"), msg("b", "b1"), msg("c", "c1"), msg("b", "b2")} {
		if !q.add(d) {
			t.Fatalf("add(%s) refused", d.Body)
		}
	}
	if q.add(msg("a", "a3")) {
		t.Error("a third message of a held with perUser 2")
	}
	now := time.Now()
	var got []string
	next := func() {
		t.Helper()
		h, _ := q.take(now)
		if h == nil {
			t.Fatalf("nothing ready after %v", got)
		}
		got = append(got, string(h.d.Body))
		q.pop(h.d.UserId)
	}
	next() // a1
	next() // b1
	// c1 fails: parked for a minute, it holds nobody else.
	h, _ := q.take(now)
	if string(h.d.Body) != "c1" {
		t.Fatalf("third turn %s, want c1", h.d.Body)
	}
	q.park("c", now.Add(time.Minute))
	next() // a2
	next() // b2
	if want := []string{"a1", "b1", "a2", "b2"}; !slices.Equal(got, want) {
		t.Errorf("turns %v, want %v", got, want)
	}
	if h, at := q.take(now); h != nil || !at.Equal(now.Add(time.Minute)) {
		t.Errorf("take with only c1 parked = %v, %v; want nothing until %v", h, at, now.Add(time.Minute))
	}
	if !q.add(msg("a", "a3")) {
		t.Error("a's third message refused once a holds none")
	}
	next() // a3
	if h, _ := q.take(now.Add(time.Minute)); h == nil || string(h.d.Body) != "c1" {
		t.Errorf("c1 not ready after its minute: %v", h)
	}
	q.pop("c")
	if h, at := q.take(now); h != nil || !at.IsZero() {
		t.Errorf("take on an empty queue = %v, %v", h, at)
	}
	big := make([]byte, MaxRequestBody+1)
	q.add(msg("d", string(big)))
	if h, _ := q.take(now); h.tooLarge != MaxRequestBody+1 || h.d.Body != nil {
		t.Errorf("a too large body is kept: tooLarge %d, %d bytes", h.tooLarge, len(h.d.Body))
	}
}

// TestForgottenHeldFirst: a message got with auto-ack goes to the head
// of its user's FIFO whatever the user holds, and is never acked.
func TestForgottenHeldFirst(t *testing.T) {
	q := newFairQueue(1)
	q.add(amqp.Delivery{UserId: "a", Body: []byte("a1")})
	q.addForgotten(amqp.Delivery{UserId: "a", Body: []byte("lost-and-found")})
	h, _ := q.take(time.Now())
	if h == nil || string(h.d.Body) != "lost-and-found" || !h.forgotten {
		t.Fatalf("first taken %+v, want the forgotten message", h)
	}
	if err := h.ack(); err != nil {
		t.Errorf("ack of a forgotten message: %v (it must not reach the broker)", err)
	}
}

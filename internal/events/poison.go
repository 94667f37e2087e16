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
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// A request whose headers the AMQP library refuses to read (an array or
// table of more than 8,192 entries, nesting deeper than 32) closes the
// consumer's connection with a frame error as it is delivered. The broker
// takes it back, to its place at the head of the queue, and would hand it
// out first for ever: every team's requests would stop. After such a
// close the consumer finds it and has the broker drop it, in two more
// connections, before it consumes again:
//
//  1. it gets the queue's messages one at a time (basic.get, unacked)
//     until the connection closes again: the message that closed it is
//     at the position counted;
//  2. it gets that many again, unacked, then one with auto-ack: the
//     broker drops that one as it sends it, and the connection closes a
//     third time. The ones before it go back to their places. If that
//     one is readable after all (the unreadable one went away between
//     the steps, say it expired), it is held like any other and tried
//     as often, but a provider that stops meanwhile loses it: the
//     broker has forgotten it.
//
// A classic queue keeps a requeued message's place, and only this
// consumer takes messages off it, so the position holds between the
// connections; if it did not (the message got is read fine), nothing is
// dropped and that message is handled at once.

// probe is the consumer's search for an unreadable request.
type probe struct {
	// on is true after a frame error closed the connection.
	on bool
	// at is the position of the unreadable message found by step 1, or
	// -1.
	at int
}

// maxProbe bounds step 1: the unreadable message was among the
// messages delivered when the connection closed, at most the prefetch.
func (c *Consumer) maxProbe() int { return c.o.Prefetch + 1 }

// frameRetry is how soon the consumer connects again in the search: each
// unreadable request costs every team's requests three of these and
// three connections.
const frameRetry = 100 * time.Millisecond

// errFrame is a session's end by a frame error (*amqp.Error 501).
var errFrame = errors.New("the AMQP library could not read a delivered request (frame error)")

// frameErrorOf waits briefly for conn's close reason and tells a frame
// error.
func frameErrorOf(closed <-chan *amqp.Error) bool {
	select {
	case e := <-closed:
		return e != nil && e.Code == amqp.FrameError
	case <-time.After(time.Second):
		return false
	}
}

// clearPoison runs one step of the search on ch. It returns nil when the
// consumer may consume normally now, with the message it got with
// auto-ack if that was readable after all (the unreadable one had gone,
// say expired, between the steps): the broker has forgotten it, so the
// consumer holds it like any other, but it cannot be put back.
func (c *Consumer) clearPoison(ch *amqp.Channel, closed <-chan *amqp.Error) (*amqp.Delivery, error) {
	var got []amqp.Delivery
	requeue := func() {
		for _, d := range got {
			_ = d.Nack(false, true)
		}
	}
	n := c.maxProbe()
	if c.probe.at >= 0 {
		n = c.probe.at
	}
	for len(got) < n {
		d, ok, err := ch.Get(c.o.Queue, false)
		if err != nil {
			if frameErrorOf(closed) {
				c.probe.at = len(got)
				c.o.Log.Info("a request the AMQP library cannot read is at the head of the queue; removing it", "queue", c.o.Queue, "position", len(got))
				return nil, errFrame
			}
			return nil, errors.Wrap(err, "cannot get a request")
		}
		if !ok {
			// Gone, or never at the head: consume normally.
			requeue()
			c.probe = probe{at: -1}
			return nil, nil
		}
		got = append(got, d)
	}
	if c.probe.at < 0 {
		// None of the first maxProbe closed the connection.
		requeue()
		c.probe = probe{at: -1}
		return nil, nil
	}
	// Step 2: the broker drops the next one as it sends it.
	d, ok, err := ch.Get(c.o.Queue, true)
	if err != nil {
		if frameErrorOf(closed) {
			c.o.Log.Info("request the AMQP library cannot read dropped", "queue", c.o.Queue, "position", c.probe.at)
			c.o.Metrics.Requests.WithLabelValues("unreadable").Inc()
			c.probe = probe{at: -1}
			return nil, errFrame
		}
		return nil, errors.Wrap(err, "cannot get a request")
	}
	requeue()
	c.probe = probe{at: -1}
	if !ok {
		return nil, nil
	}
	c.o.Log.Info("the request at the unreadable one's place was readable; it is handled, but cannot be put back", "queue", c.o.Queue, "messageId", d.MessageId)
	return &d, nil
}

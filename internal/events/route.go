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
	"encoding/json"
	"slices"

	amqp "github.com/rabbitmq/amqp091-go"
)

// A Route sends the messages of some types to a handler.
type Route struct {
	// Types are the AMQP type properties and CloudEvent types of the
	// messages Handler handles: usually a name and TypePrefix + that name.
	Types   []string
	Handler Handler
}

// Router returns a handler that passes each message to the route of its
// type, and the rest to def. A message's type is its AMQP type property or,
// in a structured CloudEvent body, the CloudEvent's type: one queue then
// carries several kinds of request, each sent as its publisher knows how
// (the replaced operator set the AMQP type; a CloudEvent carries its own).
// A message whose two types pick different routes is rejected, as neither
// can be trusted to say what the publisher meant. A body larger than
// maxPeek is not read here: it goes by its AMQP type (or to def), and that
// handler refuses it.
func Router(def Handler, maxPeek int, routes ...Route) Handler {
	find := func(typ string) int {
		if typ == "" {
			return -1
		}
		return slices.IndexFunc(routes, func(r Route) bool { return slices.Contains(r.Types, typ) })
	}
	return func(ctx context.Context, d amqp.Delivery) error {
		ce := cloudEventType(d.Body, maxPeek)
		byProperty, byBody := find(d.Type), find(ce)
		switch {
		case byProperty >= 0 && byBody >= 0 && byProperty != byBody:
			return Reject("ambiguous message: its AMQP type %q and its CloudEvent type %q are different kinds of request", d.Type, ce)
		case byProperty >= 0:
			return routes[byProperty].Handler(ctx, d)
		case byBody >= 0:
			return routes[byBody].Handler(ctx, d)
		}
		return def(ctx, d)
	}
}

// cloudEventType is the type of a structured CloudEvent body, "" for any
// other body or one larger than max.
func cloudEventType(body []byte, max int) string {
	if len(body) > max {
		return ""
	}
	var ce struct {
		SpecVersion string `json:"specversion"`
		Type        string `json:"type"`
	}
	if json.Unmarshal(body, &ce) != nil || ce.SpecVersion == "" {
		return ""
	}
	return ce.Type
}

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
	"bytes"
	"context"
	"encoding/json"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"go.opentelemetry.io/otel/propagation"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// DecodeRequest decodes a request body of kind (DevOpsReconcile,
// DevOpsInitialize) into into, refusing fields it does not declare (named
// in fields, for the message). The body is the request's JSON, or a
// structured CloudEvent of type typ carrying it as data; the CloudEvent's
// time is returned (nil for a plain body).
func DecodeRequest(body []byte, typ, kind, fields string, into any) (*time.Time, error) {
	var env struct {
		SpecVersion string          `json:"specversion"`
		Type        string          `json:"type"`
		Time        *time.Time      `json:"time"`
		Data        json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, errors.Errorf("malformed message: not a JSON object: %v", err)
	}
	if env.SpecVersion != "" {
		if env.Type != typ {
			return nil, errors.Errorf("malformed message: CloudEvent type %q, want %q", env.Type, typ)
		}
		body = env.Data
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return nil, errors.Errorf("malformed %s: %v (fields: %s)", kind, err, fields)
	}
	return env.Time, nil
}

// MaxRequestBody is the largest request body the provider reads from its
// request queue; larger ones are dead-lettered unread.
const MaxRequestBody = 64 << 10

// MaxClockSkew is how far in the future a request's time may be.
const MaxClockSkew = 5 * time.Minute

// CheckRequest holds a request of kind (DevOpsReconcile, DevOpsInitialize)
// to what every request on the queue must carry, and completes its time:
// *at is taken from the AMQP timestamp property when the body gave none.
// A request without a time (it orders requests: an older one is never
// applied), with one in the future (it would hold back every later one),
// or without the AMQP user_id RabbitMQ authenticated is a rejection.
func CheckRequest(d amqp.Delivery, kind string, at **time.Time) error {
	if *at == nil && !d.Timestamp.IsZero() {
		t := d.Timestamp
		*at = &t
	}
	switch {
	case *at == nil:
		return Reject("malformed %s: requestedAt is required (or a CloudEvent time, or the AMQP timestamp property): it orders requests", kind)
	case (*at).After(time.Now().Add(MaxClockSkew)):
		return Reject("malformed %s: requestedAt %s is in the future: it would hold back every later request", kind, (*at).UTC().Format(time.RFC3339))
	case d.UserId == "":
		return Reject("unauthenticated %s: no AMQP user_id property; set it to the broker user publishing (RabbitMQ checks it)", kind)
	}
	return nil
}

// Truncate shortens a value quoted in a rejection to 80 bytes.
func Truncate(s string) string {
	const n = 80
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// TraceContext is ctx continuing the W3C trace context a message carries
// (the CloudEvents distributed-tracing extension): a structured
// CloudEvent's traceparent and tracestate attributes, or the AMQP
// application properties of that name, plain or with the CloudEvents AMQP
// binding's prefix. Without one, or with a malformed one, it is ctx.
func TraceContext(ctx context.Context, d amqp.Delivery) context.Context {
	c := propagation.MapCarrier{}
	for _, prefix := range []string{"", "cloudEvents:", "cloudEvents_"} {
		if tp, ok := d.Headers[prefix+"traceparent"].(string); ok && c["traceparent"] == "" {
			c["traceparent"] = tp
			if ts, ok := d.Headers[prefix+"tracestate"].(string); ok {
				c["tracestate"] = ts
			}
		}
	}
	var env struct {
		SpecVersion string `json:"specversion"`
		TraceParent string `json:"traceparent"`
		TraceState  string `json:"tracestate"`
	}
	if c["traceparent"] == "" && len(d.Body) <= MaxRequestBody && json.Unmarshal(d.Body, &env) == nil && env.SpecVersion != "" && env.TraceParent != "" {
		c["traceparent"], c["tracestate"] = env.TraceParent, env.TraceState
	}
	if c["traceparent"] == "" {
		return ctx
	}
	return propagation.TraceContext{}.Extract(ctx, c)
}

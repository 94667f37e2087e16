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
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"
	"go.opentelemetry.io/otel/trace"
)

func TestTraceContext(t *testing.T) {
	const (
		tp  = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
		tid = "0af7651916cd43dd8448eb211c80319c"
	)
	cases := map[string]struct {
		d    amqp.Delivery
		want string
	}{
		"Header":                {d: amqp.Delivery{Headers: amqp.Table{"traceparent": tp}, Body: []byte(`{}`)}, want: tid},
		"CloudEventsBinary":     {d: amqp.Delivery{Headers: amqp.Table{"cloudEvents:traceparent": tp}}, want: tid},
		"CloudEventsUnderscore": {d: amqp.Delivery{Headers: amqp.Table{"cloudEvents_traceparent": tp}}, want: tid},
		"Structured":            {d: amqp.Delivery{Body: []byte(`{"specversion": "1.0", "type": "x", "traceparent": "` + tp + `", "data": {}}`)}, want: tid},
		"PlainBodyField":        {d: amqp.Delivery{Body: []byte(`{"traceparent": "` + tp + `"}`)}},
		"Malformed":             {d: amqp.Delivery{Headers: amqp.Table{"traceparent": "00-nothex-01"}}},
		"NotAString":            {d: amqp.Delivery{Headers: amqp.Table{"traceparent": int32(7)}}},
		"None":                  {d: amqp.Delivery{Body: []byte(`{"project": "shop"}`)}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sc := trace.SpanContextFromContext(TraceContext(context.Background(), tc.d))
			got := ""
			if sc.IsValid() {
				got = sc.TraceID().String()
			}
			if got != tc.want {
				t.Errorf("trace %q, want %q", got, tc.want)
			}
		})
	}
}

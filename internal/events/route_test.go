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
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	amqp "github.com/rabbitmq/amqp091-go"
)

func TestRouter(t *testing.T) {
	var got string
	handler := func(name string) Handler {
		return func(context.Context, amqp.Delivery) error { got = name; return nil }
	}
	r := Router(handler("deploy"), 128,
		Route{Types: []string{"DevOpsInitialize", TypePrefix + "DevOpsInitialize"}, Handler: handler("initialize")},
		Route{Types: []string{"DevOpsReconcile", TypePrefix + "DevOpsReconcile"}, Handler: handler("deploy")},
	)
	cases := map[string]struct {
		reason string
		d      amqp.Delivery
		want   string
		reject string
	}{
		"Plain": {reason: "a plain body without a type is a deploy request, as before types were read",
			d: amqp.Delivery{Body: []byte(`{"project": "shop"}`)}, want: "deploy"},
		"AMQPType": {reason: "the replaced operator's AMQP type picks the route",
			d: amqp.Delivery{Type: "DevOpsInitialize", Body: []byte(`{"project": "shop"}`)}, want: "initialize"},
		"AMQPTypePrefixed": {reason: "the CloudEvents name of the type works as the AMQP type too",
			d: amqp.Delivery{Type: TypePrefix + "DevOpsInitialize", Body: []byte(`{}`)}, want: "initialize"},
		"CloudEvent": {reason: "a structured CloudEvent's type picks the route",
			d: amqp.Delivery{Body: []byte(`{"specversion": "1.0", "type": "io.freeleaps.devops.DevOpsInitialize", "data": {}}`)}, want: "initialize"},
		"SameBoth": {reason: "both types naming one route agree",
			d: amqp.Delivery{Type: "DevOpsInitialize", Body: []byte(`{"specversion": "1.0", "type": "io.freeleaps.devops.DevOpsInitialize"}`)}, want: "initialize"},
		"UnknownAMQPType": {reason: "an AMQP type no route knows leaves the choice to the body",
			d: amqp.Delivery{Type: "text", Body: []byte(`{"specversion": "1.0", "type": "io.freeleaps.devops.DevOpsInitialize"}`)}, want: "initialize"},
		"UnknownCloudEvent": {reason: "an unknown CloudEvent type goes to the default handler, which refuses it by its own rules",
			d: amqp.Delivery{Body: []byte(`{"specversion": "1.0", "type": "io.example.other"}`)}, want: "deploy"},
		"Disagree": {reason: "an AMQP type and a CloudEvent type of different routes are refused",
			d: amqp.Delivery{Type: "DevOpsReconcile", Body: []byte(`{"specversion": "1.0", "type": "io.freeleaps.devops.DevOpsInitialize"}`)}, reject: `AMQP type "DevOpsReconcile" and its CloudEvent type "io.freeleaps.devops.DevOpsInitialize"`},
		"LargeBody": {reason: "a body over the peek limit is not parsed: it goes by its AMQP type only",
			d: amqp.Delivery{Body: []byte(`{"specversion": "1.0", "type": "io.freeleaps.devops.DevOpsInitialize", "data": "` + strings.Repeat("x", 128) + `"}`)}, want: "deploy"},
		"NotJSON": {reason: "a body that is not JSON goes to the default handler, which says so",
			d: amqp.Delivery{Body: []byte(`{"project": `)}, want: "deploy"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got = ""
			err := r(context.Background(), tc.d)
			var rej *RejectError
			if tc.reject != "" {
				if !errors.As(err, &rej) || !strings.Contains(rej.Reason, tc.reject) {
					t.Fatalf("%s: got %v, want a rejection containing %q", tc.reason, err, tc.reject)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: handler -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

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

package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// The replaced operator's UI: it gives each deployment an id, sends it with
// the deploy request, and reads the deployment's heartbeats from a queue it
// bound to the events exchange with LegacyRoutingKey.
const (
	// DeploymentID is the UI's id of the scenario's deployment.
	DeploymentID = "ui-7f3e2a91"
	// LegacyRoutingKey is the key the UI bound its queue with (and the
	// provider's default --events-legacy-routing-key).
	LegacyRoutingKey = "DevOpsReconcileJobHeartbeat"
	// legacyType is the AMQP type of the operator's heartbeats.
	legacyType = "DevOpsReconcileJobHeartbeat"
	// legacyQueue is the UI's queue.
	legacyQueue = "legacy-ui.heartbeats"
)

// legacyPhases are the operator's phases, in the order a deployment goes
// through them.
var legacyPhases = []string{"initializing", "building", "deploying", "verifying"}

// legacyHeartbeat is the operator's message, as its UI reads it.
type legacyHeartbeat struct {
	Operation    string  `json:"operation"`
	ID           string  `json:"id"`
	Status       string  `json:"status"`
	Phase        string  `json:"phase"`
	PhaseMessage string  `json:"phase_message"`
	URL          *string `json:"url"`
}

// legacyMessage is one delivery on the UI's queue.
type legacyMessage struct {
	at                           time.Time
	typ, contentType, routingKey string
	body                         string
	heartbeat                    legacyHeartbeat
	decodeErr                    error
}

// legacyUI is the UI's queue and what it received.
type legacyUI struct {
	conn *amqp.Connection
	mu   sync.Mutex
	msgs []legacyMessage
}

// watchLegacy binds the UI's queue as the UI did and collects what arrives.
func (c *Cluster) watchLegacy() (*legacyUI, error) {
	conn, err := amqp.Dial(c.RabbitMQ.URL)
	if err != nil {
		return nil, err
	}
	ch, err := conn.Channel()
	if err == nil {
		err = ch.ExchangeDeclare("devops.events", "topic", true, false, false, false, nil)
	}
	if err == nil {
		_, err = ch.QueueDeclare(legacyQueue, false, true, true, false, nil)
	}
	if err == nil {
		err = ch.QueueBind(legacyQueue, LegacyRoutingKey, "devops.events", false, nil)
	}
	var msgs <-chan amqp.Delivery
	if err == nil {
		msgs, err = ch.Consume(legacyQueue, "e2e-legacy-ui", true, true, false, false, nil)
	}
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("the legacy UI's queue: %w", err)
	}
	ui := &legacyUI{conn: conn}
	go func() {
		for d := range msgs {
			m := legacyMessage{at: time.Now(), typ: d.Type, contentType: d.ContentType, body: string(d.Body), routingKey: d.RoutingKey}
			m.decodeErr = json.Unmarshal(d.Body, &m.heartbeat)
			ui.mu.Lock()
			ui.msgs = append(ui.msgs, m)
			ui.mu.Unlock()
		}
	}()
	return ui, nil
}

func (ui *legacyUI) close() { _ = ui.conn.Close() }

func (ui *legacyUI) received() []legacyMessage {
	ui.mu.Lock()
	defer ui.mu.Unlock()
	return slices.Clone(ui.msgs)
}

// checkDeployment waits for the deployment's final message and requires
// what the UI relies on: every message the operator's heartbeat (its type,
// its JSON spaced and ordered as Python wrote it) for the deployment's id;
// running ones through the phases in order, then one success with the
// live URL, last.
func (ui *legacyUI) checkDeployment(ctx context.Context, c *Cluster, r *Report, sent time.Time, url string) error {
	var msgs []legacyMessage
	err := c.Wait(ctx, "the legacy UI's queue to receive the deployment's final heartbeat", 30*time.Second, func(context.Context) (bool, string, error) {
		msgs = ui.received()
		for _, m := range msgs {
			if m.heartbeat.Status != "running" {
				return true, "", nil
			}
		}
		return false, fmt.Sprintf("%d messages, none final", len(msgs)), nil
	})
	if err != nil {
		return err
	}
	var phases []string
	for i, m := range msgs {
		if err := m.check(); err != nil {
			return fmt.Errorf("legacy message %d on the UI's queue: %w", i+1, err)
		}
		h := m.heartbeat
		said := ""
		if h.PhaseMessage != "" {
			said = fmt.Sprintf(" %q", h.PhaseMessage)
		}
		c.logf("  legacy heartbeat +%.1fs: %s %s%s%s", m.at.Sub(sent).Seconds(), h.Status, h.Phase, said, urlOf(h))
		if h.Status == "running" {
			if len(phases) == 0 || phases[len(phases)-1] != h.Phase {
				phases = append(phases, h.Phase)
			}
			continue
		}
		if i != len(msgs)-1 || h.Status != "success" || h.Phase != "verifying" || h.URL == nil || *h.URL != url {
			return fmt.Errorf("legacy message %d of %d is %s, want the last one success, phase verifying, url %q", i+1, len(msgs), m.body, url)
		}
	}
	if !slices.Equal(phases, legacyPhases) {
		return fmt.Errorf("legacy running messages went through the phases %v, want %v in order", phases, legacyPhases)
	}
	r.LegacyFinal = len(msgs)
	r.Legacy = fmt.Sprintf("%d messages for id %s: running through %s, then success with url %s", len(msgs), DeploymentID, strings.Join(phases, ", "), url)
	c.logf("  the legacy UI's queue (bound with %s) got %s", LegacyRoutingKey, r.Legacy)
	return nil
}

// checkAfter requires that nothing followed the deployment's final message:
// the UI would take a heartbeat after it for a deployment running again.
func (ui *legacyUI) checkAfter(r *Report) error {
	if msgs := ui.received(); len(msgs) != r.LegacyFinal {
		return fmt.Errorf("the legacy UI's queue got %d messages after the deployment's final one: %s", len(msgs)-r.LegacyFinal, msgs[r.LegacyFinal].body)
	}
	return nil
}

// check requires the message to be the operator's heartbeat of the
// scenario's deployment.
func (m legacyMessage) check() error {
	if m.decodeErr != nil {
		return fmt.Errorf("not JSON (%v): %s", m.decodeErr, m.body)
	}
	if m.typ != legacyType || m.contentType != "application/json" || m.routingKey != LegacyRoutingKey {
		return fmt.Errorf("type %q, content type %q, routing key %q, want %s, application/json, %s: %s", m.typ, m.contentType, m.routingKey, legacyType, LegacyRoutingKey, m.body)
	}
	if prefix := `{"operation": "heartbeat", "id": "` + DeploymentID + `", "status": "`; !strings.HasPrefix(m.body, prefix) {
		return fmt.Errorf("%s does not start with %s (fields in the operator's order, spaced as json.dumps)", m.body, prefix)
	}
	if !slices.Contains(legacyPhases, m.heartbeat.Phase) {
		return fmt.Errorf("phase %q is none of %v: %s", m.heartbeat.Phase, legacyPhases, m.body)
	}
	if m.heartbeat.Status == "running" && m.heartbeat.URL != nil {
		return fmt.Errorf("a running heartbeat with a url: %s", m.body)
	}
	return nil
}

func urlOf(h legacyHeartbeat) string {
	if h.URL == nil {
		return ""
	}
	return " url " + *h.URL
}

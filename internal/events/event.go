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

// Package events is the provider's RabbitMQ event stream: a publisher of
// CloudEvents with publisher confirms and a bounded outbox that survives
// broker restarts, and a consumer of requests that dead-letters what it
// cannot handle, with the reason. Both run their own reconnect loop.
package events

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/freeleaps/provider-devops/internal/events/vocab"
)

// TypePrefix starts every event type.
const TypePrefix = "io.freeleaps.devops."

// What happened: the last segment of an event's type and routing key.
const (
	// Created: the external object was created.
	Created = "created"
	// Ready: the resource became Ready.
	Ready = "ready"
	// Failed: the resource started failing to reconcile; data.message says why.
	Failed = "failed"
	// Deleted: the resource is gone (its external object deleted, or kept
	// when its policies say so; data.message says which).
	Deleted = "deleted"
	// Expired: the resource was deleted because its environment's
	// time-to-live ran out.
	Expired = "expired"
	// Heartbeat: work (a build, a sync, a deployment) is still in progress.
	Heartbeat = "heartbeat"
	// Completed: work finished; data.status is Succeeded or Failed, or
	// Terminated for a deployment cancelled (its DeployRun deleted) before
	// it finished.
	Completed = "completed"
	// Phase: work (a deployment) entered the phase in data.phase.
	Phase = "phase"
)

// Statuses in data.status (package vocab's).
const (
	StatusRunning    = vocab.StatusRunning
	StatusSucceeded  = vocab.StatusSucceeded
	StatusFailed     = vocab.StatusFailed
	StatusTerminated = vocab.StatusTerminated
)

// ContentType of a structured CloudEvent.
const ContentType = "application/cloudevents+json"

// Data is the payload of every event.
type Data struct {
	Project     string `json:"project,omitempty"`
	Environment string `json:"environment,omitempty"`
	Kind        string `json:"kind"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name"`
	Phase       string `json:"phase,omitempty"`
	Status      string `json:"status,omitempty"`
	Message     string `json:"message,omitempty"`
	URL         string `json:"url,omitempty"`
	// Deployment is the id of the deployment an event of a DeployRun is
	// about: its spec.requestID, else its name.
	Deployment string `json:"deployment,omitempty"`
}

// Event is a CloudEvent (spec 1.0) in structured JSON mode.
type Event struct {
	SpecVersion     string    `json:"specversion"`
	ID              string    `json:"id"`
	Type            string    `json:"type"`
	Source          string    `json:"source"`
	Subject         string    `json:"subject"`
	Time            time.Time `json:"time"`
	DataContentType string    `json:"datacontenttype"`
	Data            Data      `json:"data"`
}

// New returns an event of what (Created, Ready...) about the resource d
// describes, with a fresh id.
func New(source, what string, d Data, now time.Time) Event {
	group := "resource."
	if what == Heartbeat || what == Completed || what == Phase {
		group = "work."
	}
	subject := strings.ToLower(d.Kind) + "/" + d.Name
	if d.Namespace != "" {
		subject = strings.ToLower(d.Kind) + "/" + d.Namespace + "/" + d.Name
	}
	return Event{
		SpecVersion:     "1.0",
		ID:              uuid.NewString(),
		Type:            TypePrefix + group + what,
		Source:          source,
		Subject:         subject,
		Time:            now.UTC(),
		DataContentType: "application/json",
		Data:            d,
	}
}

// What is the last segment of the event's type: Created, Ready...
func (e Event) What() string { return e.Type[strings.LastIndexByte(e.Type, '.')+1:] }

// RoutingKey is <kind>.<namespace>.<name>.<what>, e.g.
// jenkinspipeline.team-a.shop-dev.ready. Dots inside a name become
// underscores so that every key has exactly four words, and a cluster-scoped
// resource has "_" for its namespace.
func (e Event) RoutingKey() string {
	word := func(s string) string {
		if s == "" {
			return "_"
		}
		return strings.ReplaceAll(s, ".", "_")
	}
	return word(strings.ToLower(e.Data.Kind)) + "." + word(e.Data.Namespace) + "." + word(e.Data.Name) + "." + e.What()
}

// Marshal returns the event's JSON.
func (e Event) Marshal() ([]byte, error) { return json.Marshal(e) }

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

// Package operatorrequest accepts the replaced Kopf operator's own
// DevOpsReconcile and DevOpsInitialize messages, which its UI sends, on a
// legacy queue of their own: it translates each into the provider's
// deploy request or project request and submits that through the same
// code (deployrequest.Submit, projectrequest.Submit), so they are
// authorised, ordered, applied once and refused exactly alike.
//
// The operator named projects by its own ids. Which DevOpsProject (and
// namespace) an id stands for is the platform's to say, in a table
// (Table); an id the table does not map is refused. The message names the
// project, never the namespace it acts in.
package operatorrequest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/events"
	"github.com/freeleaps/provider-devops/internal/events/deployrequest"
	"github.com/freeleaps/provider-devops/internal/events/projectrequest"
)

// The operator's event types: the AMQP type property, or the body's
// event_type.
const (
	TypeReconcile  = deployrequest.LegacyType
	TypeInitialize = projectrequest.LegacyType
)

// MaxBody is the largest message read, as on the provider's own queue.
const MaxBody = events.MaxRequestBody

// Submitters are where translated requests go: deployrequest.Submit and
// projectrequest.Submit with their clients.
type Submitters struct {
	Deploy     func(ctx context.Context, req *deployrequest.Request, d amqp.Delivery) error
	Initialize func(ctx context.Context, req *projectrequest.Request, d amqp.Delivery) error
}

// Handler returns the legacy queue's handler: each message is decoded in
// the operator's shape (by its type), its project id mapped by table, and
// the translated request submitted.
func Handler(table Table, to Submitters) events.Handler {
	return func(ctx context.Context, d amqp.Delivery) error {
		if len(d.Body) > MaxBody {
			return events.Reject("operator message body of %d bytes is larger than %d: not read", len(d.Body), MaxBody)
		}
		typ, err := typeOf(d)
		if err != nil {
			return err
		}
		if typ == TypeInitialize {
			return initialize(ctx, table, to, d)
		}
		return reconcile(ctx, table, to, d)
	}
}

// typeOf is a message's type: its AMQP type property or its body's
// event_type (DevOpsReconcile when neither is set, as on the provider's
// own queue); both set must agree.
func typeOf(d amqp.Delivery) (string, error) {
	var env struct {
		EventType string `json:"event_type"`
	}
	if err := json.Unmarshal(d.Body, &env); err != nil {
		return "", events.Reject("malformed operator message: not a JSON object: %v", err)
	}
	typ := cmp.Or(d.Type, env.EventType, TypeReconcile)
	switch {
	case d.Type != "" && env.EventType != "" && d.Type != env.EventType:
		return "", events.Reject("ambiguous operator message: AMQP type %q, event_type %q", events.Truncate(d.Type), events.Truncate(env.EventType))
	case typ != TypeReconcile && typ != TypeInitialize:
		return "", events.Reject("operator message of type %q: the legacy queue takes %s and %s", events.Truncate(typ), TypeReconcile, TypeInitialize)
	}
	return typ, nil
}

// reconcile submits a DevOpsReconcile as a deploy request.
func reconcile(ctx context.Context, table Table, to Submitters, d amqp.Delivery) error {
	m, err := ParseReconcile(d.Body)
	if err != nil {
		return events.Reject("%s", err.Error())
	}
	target, err := table.Lookup(ctx, m.ProjectID())
	if err != nil {
		return err
	}
	req := m.Request(target)
	if err := req.Validate(); err != nil {
		return events.Reject("%s (in the operator's format: environment is target_env, revision commit_sha)", err.Error())
	}
	return to.Deploy(ctx, req, keyed(d, m.ID, &req.RequestedAt))
}

// initialize submits a DevOpsInitialize as a project request.
func initialize(ctx context.Context, table Table, to Submitters, d amqp.Delivery) error {
	m, err := ParseInitialize(d.Body)
	if err != nil {
		return events.Reject("%s", err.Error())
	}
	target, err := table.Lookup(ctx, m.ProjectID())
	if err != nil {
		return err
	}
	req, err := m.Request(target)
	if err != nil {
		return events.Reject("%s", err.Error())
	}
	return to.Initialize(ctx, req, keyed(d, m.ID, &req.RequestedAt))
}

// keyed completes what the operator's UI may leave out: a message without
// a message_id is keyed by its id (the UI's retry of one deployment is
// applied once), and one without a time (neither triggered_at nor the AMQP
// timestamp) is ordered by when it is read, which is its queue's order.
func keyed(d amqp.Delivery, id string, at **time.Time) amqp.Delivery {
	if d.MessageId == "" && id != "" {
		d.MessageId = "operator-" + id
	}
	if *at == nil && d.Timestamp.IsZero() {
		now := time.Now().UTC()
		*at = &now
	}
	return d
}

// decode decodes body into into, refusing fields it does not declare.
func decode(body []byte, kind, fields string, into any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return errors.Errorf("malformed operator %s: %v (fields: %s)", kind, err, fields)
	}
	return nil
}

// projectID is the one project id of a message, which may name it
// devops_proj_id or project_id.
func projectID(kind, devopsProjID, projectID string) (string, error) {
	switch {
	case devopsProjID != "" && projectID != "" && devopsProjID != projectID:
		return "", errors.Errorf("malformed operator %s: devops_proj_id %q and project_id %q differ", kind, events.Truncate(devopsProjID), events.Truncate(projectID))
	case devopsProjID == "" && projectID == "":
		return "", errors.Errorf("malformed operator %s: devops_proj_id (or project_id) is required", kind)
	}
	return cmp.Or(devopsProjID, projectID), nil
}

// either is the one value of a field the operator's messages may name two
// ways (a and b, named na and nb).
func either(kind, na, a, nb, b string) (string, error) {
	if a != "" && b != "" && a != b {
		return "", errors.Errorf("malformed operator %s: %s %q and %s %q differ", kind, na, events.Truncate(a), nb, events.Truncate(b))
	}
	return cmp.Or(a, b), nil
}

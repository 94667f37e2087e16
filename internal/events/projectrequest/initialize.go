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

// Package projectrequest turns DevOpsInitialize messages from RabbitMQ into
// DevOpsProjects: the replaced operator's way to create or update a
// project. Messages that can never succeed are rejected with the reason,
// so the consumer dead-letters them.
//
// A message is authorised, not just well formed: its AMQP user_id (which
// RabbitMQ checks against the publishing user) must be listed in
// spec.initializeUsers of the ProviderConfig the project uses, the one its
// spec.providerConfigName names in its namespace. It is written with
// server-side apply under its own field manager and without force, so a
// field someone else set and the message would change is refused, never
// overwritten; and a message older than the last one applied to the
// project is never applied (redeliveries and publisher retries arrive out
// of order).
package projectrequest

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/events"
	"github.com/freeleaps/provider-devops/internal/events/deployrequest"
)

// LegacyType is the AMQP type property of the replaced operator's
// messages; Type is the same as a CloudEvents type.
const (
	LegacyType = "DevOpsInitialize"
	Type       = events.TypePrefix + LegacyType
)

// MaxBody and MaxClockSkew are those of deploy requests: one queue, one
// limit.
const (
	MaxBody      = deployrequest.MaxBody
	MaxClockSkew = deployrequest.MaxClockSkew
)

// CrossplaneField is the spec field Crossplane adds to every XR, which
// chooses the Composition: a message has no say in how the platform
// composes. Every other spec field goes to the API server, which knows the
// XRD and refuses what it does not declare.
const CrossplaneField = "crossplane"

// Request is a DevOpsInitialize message.
type Request struct {
	// Namespace and Project name the DevOpsProject.
	Namespace string `json:"namespace"`
	Project   string `json:"project"`
	// Spec is the DevOpsProject's spec, as the XRD describes it; applied
	// as sent, so the API server validates it.
	Spec json.RawMessage `json:"spec"`
	// ID is an id the requester tracks, recorded on the project.
	ID string `json:"id,omitempty"`
	// RequestedAt orders messages for one project: one older than the last
	// applied is never applied. A CloudEvent's time, or the AMQP timestamp
	// property, stand in when it is absent.
	RequestedAt *time.Time `json:"requestedAt,omitempty"`

	// ProviderConfigName is the namespaced ProviderConfig the spec names
	// (spec.providerConfigRef of kind ProviderConfig, or
	// spec.providerConfigName), "" when it names none or a
	// ClusterProviderConfig.
	ProviderConfigName string `json:"-"`
}

// Handler returns the consumer's handler: it reads and applies
// DevOpsProjects through projects and reads ProviderConfigs through
// configs, which should not be a cache: a user removed from
// initializeUsers is refused from the next message on.
func Handler(projects Projects, configs client.Reader) events.Handler {
	return func(ctx context.Context, d amqp.Delivery) error {
		if len(d.Body) > MaxBody {
			return events.Reject("DevOpsInitialize body of %d bytes is larger than %d: not read", len(d.Body), MaxBody)
		}
		req, err := Parse(d.Body)
		if err != nil {
			return events.Reject("%s", err.Error())
		}
		return Submit(ctx, projects, configs, req, d)
	}
}

// Submit applies a message parsed from d (this package's shape, or one
// translated from another), once d carries what every request must
// (events.CheckRequest).
func Submit(ctx context.Context, projects Projects, configs client.Reader, req *Request, d amqp.Delivery) error {
	if err := events.CheckRequest(d, LegacyType, &req.RequestedAt); err != nil {
		return err
	}
	// A conflict left here is the project changing between the read
	// and the apply (a field conflict is a rejection): read it again.
	return retry.OnError(retry.DefaultBackoff, kerrors.IsConflict, func() error {
		return Apply(ctx, projects, configs, req, Delivery{Token: deployrequest.Token(d), User: d.UserId})
	})
}

// Parse decodes and validates a message, plain or as a CloudEvent. The
// spec's contents are left to the API server, which knows the XRD.
func Parse(body []byte) (*Request, error) {
	var r Request
	at, err := events.DecodeRequest(body, Type, LegacyType, "id, namespace, project, spec, requestedAt", &r)
	if err != nil {
		return nil, err
	}
	if r.RequestedAt == nil {
		r.RequestedAt = at
	}
	for _, f := range []struct{ name, v string }{{"namespace", r.Namespace}, {"project", r.Project}} {
		if f.v == "" {
			return nil, errors.Errorf("malformed DevOpsInitialize: %s is required", f.name)
		}
		if errs := validation.IsDNS1123Label(f.v); len(errs) > 0 {
			return nil, errors.Errorf("malformed DevOpsInitialize: %s %q: %s", f.name, truncate(f.v), strings.Join(errs, "; "))
		}
	}
	if r.ID != "" && !idChars.MatchString(r.ID) {
		return nil, errors.Errorf("malformed DevOpsInitialize: id %q: at most 253 letters, digits, '.', '_', ':' or '-'", truncate(r.ID))
	}
	pc, err := parseSpec(r.Spec)
	if err != nil {
		return nil, err
	}
	r.ProviderConfigName = pc
	return &r, nil
}

// parseSpec checks that spec is an object without CrossplaneField and
// returns the namespaced ProviderConfig it names (ProviderConfigName).
func parseSpec(spec json.RawMessage) (string, error) {
	var fields map[string]json.RawMessage
	if len(spec) == 0 || string(spec) == "null" {
		return "", errors.New("malformed DevOpsInitialize: spec is required: the DevOpsProject's spec")
	}
	if err := json.Unmarshal(spec, &fields); err != nil {
		return "", errors.Errorf("malformed DevOpsInitialize: spec is not a JSON object: %v", err)
	}
	if _, ok := fields[CrossplaneField]; ok {
		return "", errors.Errorf("malformed DevOpsInitialize: spec.%s is not a field a message may set: it chooses the Composition, which is the platform's", CrossplaneField)
	}
	var pc string
	if raw, ok := fields["providerConfigRef"]; ok {
		var ref struct{ Kind, Name string }
		if err := json.Unmarshal(raw, &ref); err != nil {
			return "", errors.Errorf("malformed DevOpsInitialize: spec.providerConfigRef is not an object with kind and name")
		}
		if ref.Kind != "ProviderConfig" {
			// A ClusterProviderConfig never authorises: the namespace's
			// default ProviderConfig does (the API server refuses
			// another kind).
			return "", nil
		}
		pc = ref.Name
	} else if raw, ok := fields["providerConfigName"]; ok {
		if err := json.Unmarshal(raw, &pc); err != nil {
			return "", errors.Errorf("malformed DevOpsInitialize: spec.providerConfigName is not a string")
		}
	} else {
		return "", nil
	}
	if errs := validation.IsDNS1123Subdomain(pc); len(errs) > 0 {
		return "", errors.Errorf("malformed DevOpsInitialize: spec.providerConfigRef or providerConfigName %q: %s", truncate(pc), strings.Join(errs, "; "))
	}
	return pc, nil
}

// idChars is what an id may hold (as a DeployRun's spec.requestID).
var idChars = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,253}$`)

func truncate(s string) string { return events.Truncate(s) }

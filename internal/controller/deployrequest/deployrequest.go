// Package deployrequest turns DevOpsReconcile messages from RabbitMQ into a
// build of the matching JenkinsPipeline, by setting its buildRequest (and
// buildParameters): the JenkinsPipeline controller then queues exactly one
// build. Messages that can never succeed are rejected with the reason, so
// the consumer dead-letters them.
package deployrequest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	amqp "github.com/rabbitmq/amqp091-go"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/controller/lifecycle"
	"github.com/freeleaps/provider-devops/internal/events"
)

// Type is the CloudEvents type of a deploy request sent as a structured
// CloudEvent; a plain JSON body is accepted too.
const Type = events.TypePrefix + "DevOpsReconcile"

// RevisionParameter is the pipeline parameter a request's revision fills.
const RevisionParameter = v1alpha1.RevisionParameter

// Request is a DevOpsReconcile message.
type Request struct {
	// Project and Environment select the JenkinsPipeline by its
	// devops.freeleaps.io/project and /environment labels.
	Project     string `json:"project"`
	Environment string `json:"environment"`
	// Namespace narrows the search when a project exists in several.
	Namespace string `json:"namespace,omitempty"`
	// Revision to build: passed as the REVISION parameter, which the
	// pipeline must declare.
	Revision string `json:"revision,omitempty"`
	// Parameters of the build; each must be declared by the pipeline.
	Parameters map[string]string `json:"parameters,omitempty"`
}

// Handler returns the consumer's handler: it patches the JenkinsPipeline
// through kube (which may read from a cache).
func Handler(kube client.Client) events.Handler {
	return func(ctx context.Context, d amqp.Delivery) error {
		req, err := Parse(d.Body)
		if err != nil {
			return events.Reject("%s", err.Error())
		}
		return Apply(ctx, kube, req, Token(d))
	}
}

// Parse decodes and validates a request, plain or as a CloudEvent.
func Parse(body []byte) (*Request, error) {
	var env struct {
		SpecVersion string          `json:"specversion"`
		Type        string          `json:"type"`
		Data        json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, errors.Errorf("malformed message: not a JSON object: %v", err)
	}
	if env.SpecVersion != "" {
		if env.Type != Type {
			return nil, errors.Errorf("malformed message: CloudEvent type %q, want %q", env.Type, Type)
		}
		body = env.Data
	}
	var r Request
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, errors.Errorf("malformed DevOpsReconcile: %v (fields: project, environment, namespace, revision, parameters)", err)
	}
	for _, f := range []struct{ name, v string }{{"project", r.Project}, {"environment", r.Environment}} {
		if f.v == "" {
			return nil, errors.Errorf("malformed DevOpsReconcile: %s is required", f.name)
		}
		if errs := validation.IsValidLabelValue(f.v); len(errs) > 0 {
			return nil, errors.Errorf("malformed DevOpsReconcile: %s %q: %s", f.name, f.v, strings.Join(errs, "; "))
		}
	}
	if r.Namespace != "" {
		if errs := validation.IsDNS1123Label(r.Namespace); len(errs) > 0 {
			return nil, errors.Errorf("malformed DevOpsReconcile: namespace %q: %s", r.Namespace, strings.Join(errs, "; "))
		}
	}
	if len(r.Revision) > 255 {
		return nil, errors.New("malformed DevOpsReconcile: revision is longer than 255 characters")
	}
	if _, ok := r.Parameters[RevisionParameter]; ok && r.Revision != "" {
		return nil, errors.Errorf("malformed DevOpsReconcile: both revision and parameters.%s are set", RevisionParameter)
	}
	return &r, nil
}

// notTokenChars may not appear in a buildRequest token.
var notTokenChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// Token is the buildRequest a message sets: the same for every delivery of
// one message (its message id, else a digest of its body), so a redelivery
// never queues a second build.
func Token(d amqp.Delivery) string {
	if id := notTokenChars.ReplaceAllString(d.MessageId, "-"); id != "" {
		return "amqp-" + id[:min(len(id), 200)]
	}
	sum := sha256.Sum256(d.Body)
	return "amqp-sha256-" + hex.EncodeToString(sum[:12])
}

// Apply sets the buildRequest of the one JenkinsPipeline req selects.
func Apply(ctx context.Context, kube client.Client, req *Request, token string) error {
	list := &v1alpha1.JenkinsPipelineList{}
	opts := []client.ListOption{client.MatchingLabels{lifecycle.LabelProject: req.Project, lifecycle.LabelEnvironment: req.Environment}}
	if req.Namespace != "" {
		opts = append(opts, client.InNamespace(req.Namespace))
	}
	if err := kube.List(ctx, list, opts...); err != nil {
		return errors.Wrap(err, "cannot list JenkinsPipelines")
	}
	where := fmt.Sprintf("labelled %s=%s, %s=%s", lifecycle.LabelProject, req.Project, lifecycle.LabelEnvironment, req.Environment)
	if req.Namespace != "" {
		where += " in namespace " + req.Namespace
	}
	var live []*v1alpha1.JenkinsPipeline
	for i := range list.Items {
		if list.Items[i].GetDeletionTimestamp() == nil {
			live = append(live, &list.Items[i])
		}
	}
	switch len(live) {
	case 0:
		return events.Reject("unknown target: no JenkinsPipeline is %s", where)
	case 1:
	default:
		names := make([]string, 0, len(live))
		for _, p := range live {
			names = append(names, p.Namespace+"/"+p.Name)
		}
		return events.Reject("ambiguous target: %d JenkinsPipelines are %s (%s); set namespace", len(live), where, strings.Join(names, ", "))
	}
	p := live[0]
	params := maps.Clone(req.Parameters)
	if req.Revision != "" {
		if params == nil {
			params = map[string]string{}
		}
		params[RevisionParameter] = req.Revision
	}
	declared := map[string]bool{}
	for _, d := range p.Spec.ForProvider.Parameters {
		declared[d.Name] = true
	}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		if !declared[k] {
			return events.Reject("JenkinsPipeline %s/%s declares no parameter %q (spec.forProvider.parameters)", p.Namespace, p.Name, k)
		}
	}
	if p.Spec.ForProvider.Disabled {
		return events.Reject("JenkinsPipeline %s/%s is disabled (spec.forProvider.disabled)", p.Namespace, p.Name)
	}
	if p.Spec.ForProvider.BuildRequest == token {
		return nil // a redelivery of a request already applied
	}
	orig := p.DeepCopy()
	p.Spec.ForProvider.BuildRequest = token
	p.Spec.ForProvider.BuildParameters = params
	if err := kube.Patch(ctx, p, client.MergeFrom(orig)); err != nil {
		if kerrors.IsInvalid(err) || kerrors.IsForbidden(err) {
			return events.Reject("JenkinsPipeline %s/%s refused the request: %v", p.Namespace, p.Name, err)
		}
		return errors.Wrapf(err, "cannot set spec.forProvider.buildRequest of JenkinsPipeline %s/%s", p.Namespace, p.Name)
	}
	return nil
}

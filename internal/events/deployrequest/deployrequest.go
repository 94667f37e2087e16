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

// Package deployrequest turns DevOpsReconcile messages from RabbitMQ into
// DeployRuns: one deployment of one environment, which the DeployRun
// controller takes through build, Argo CD sync and verification. Messages
// that can never succeed are rejected with the reason, so the consumer
// dead-letters them.
//
// A request is authorised, not just well formed: it names its namespace;
// its AMQP user_id (which RabbitMQ checks against the publishing user) must
// be listed in spec.jenkins.deployUsers of the environment's
// JenkinsPipeline's ProviderConfig; its revision must be a git ref or
// commit id. Each request creates at most one DeployRun (its name derives
// from the message), and a request older than the last one accepted for
// the same environment is never applied (redeliveries and publisher
// retries arrive out of order).
package deployrequest

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
	"github.com/freeleaps/provider-devops/internal/events"
	"github.com/freeleaps/provider-devops/internal/tracing"
)

// LegacyType is the AMQP type property of the replaced operator's deploy
// requests; Type is the CloudEvents type of one sent as a structured
// CloudEvent. A plain JSON body without a type is a deploy request too.
const (
	LegacyType = "DevOpsReconcile"
	Type       = events.TypePrefix + LegacyType
)

// RevisionParameter is the pipeline parameter a request's revision fills.
const RevisionParameter = v1alpha1.RevisionParameter

// MaxBody is the largest request body read; larger ones are dead-lettered
// unread.
const MaxBody = events.MaxRequestBody

// MaxClockSkew is how far in the future a requestedAt may be.
const MaxClockSkew = events.MaxClockSkew

// Request is a DevOpsReconcile message.
type Request struct {
	// Project and Environment select the JenkinsPipeline by its
	// devops.freeleaps.io/project and /environment labels.
	Project     string `json:"project"`
	Environment string `json:"environment"`
	// Namespace the JenkinsPipeline is in.
	Namespace string `json:"namespace"`
	// Revision to build, a git ref (main, refs/tags/v1.2) or commit id:
	// passed as the REVISION parameter, which the pipeline must declare.
	Revision string `json:"revision,omitempty"`
	// Parameters of the build; each must be declared by the pipeline.
	Parameters map[string]string `json:"parameters,omitempty"`
	// ID is the deployment id the requester tracks (the replaced
	// operator's UI sends one): heartbeats carry it. Default: the message
	// id.
	ID string `json:"id,omitempty"`
	// RequestedAt orders requests for one pipeline: one older than the last
	// applied is never applied. A CloudEvent's time, or the AMQP timestamp
	// property, stand in when it is absent.
	RequestedAt *time.Time `json:"requestedAt,omitempty"`
	// TriggeredBy is who the replaced operator's UI says asked (its
	// triggered_by), recorded on the DeployRun; never part of this
	// package's own JSON.
	TriggeredBy string `json:"-"`
}

// Delivery is what the broker says about a request.
type Delivery struct {
	// Token is the buildRequest the request sets (see Token).
	Token string
	// User is the AMQP user_id, validated by RabbitMQ.
	User string
	// TraceParent is the W3C traceparent of the request's span, if any:
	// the DeployRun's trace continues it.
	TraceParent string
}

// Handler returns the consumer's handler: it patches the JenkinsPipeline
// through kube (which may read from a cache: the patch is optimistic-locked,
// so a stale read fails and is retried rather than applied).
func Handler(kube client.Client) events.Handler {
	return func(ctx context.Context, d amqp.Delivery) error {
		if len(d.Body) > MaxBody {
			return events.Reject("request body of %d bytes is larger than %d: not read", len(d.Body), MaxBody)
		}
		req, err := Parse(d.Body)
		if err != nil {
			return events.Reject("%s", err.Error())
		}
		return Submit(ctx, kube, req, d)
	}
}

// Submit applies a request parsed from d (this package's shape, or one
// translated from another), once d carries what every request must
// (events.CheckRequest).
func Submit(ctx context.Context, kube client.Client, req *Request, d amqp.Delivery) error {
	if err := events.CheckRequest(d, LegacyType, &req.RequestedAt); err != nil {
		return err
	}
	// The request is the first span of the deployment's trace, continuing
	// the caller's when it sent a traceparent; the DeployRun carries it on.
	// Its namespace and target are recorded once it is authorised: a
	// refused request must not be shown as another team's.
	parent := ctx
	if tracing.Enabled() {
		// Read only when traces are sent: off, the caller's context is
		// not carried on, and the body need not be decoded again for it.
		parent = events.TraceContext(ctx, d)
	}
	ctx, span := tracing.Tracer().Start(parent, "deploy request", trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(attribute.String("messaging.system", "rabbitmq")))
	defer span.End()
	del := Delivery{Token: Token(d), User: d.UserId}
	if tracing.Enabled() && span.SpanContext().IsSampled() {
		// Off, the caller's traceparent is not carried on: it would be a
		// publisher's choice of trace waiting in the DeployRun.
		del.TraceParent = tracing.TraceParent(span.SpanContext())
	}
	// A conflict means the cached pipeline was stale: list it again
	// after a short back-off (the cache catches up) rather than put
	// the message back behind the consumer's retry delay.
	err := retry.OnError(retry.DefaultBackoff, kerrors.IsConflict, func() error {
		return Apply(ctx, kube, req, del)
	})
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
		return err
	}
	span.SetAttributes(attribute.String("k8s.namespace.name", req.Namespace),
		attribute.String("deployrun.project", req.Project), attribute.String("deployrun.environment", req.Environment))
	return nil
}

// Parse decodes and validates a request, plain or as a CloudEvent.
func Parse(body []byte) (*Request, error) {
	var r Request
	at, err := events.DecodeRequest(body, Type, "DevOpsReconcile", "id, project, environment, namespace, revision, parameters, requestedAt", &r)
	if err != nil {
		return nil, err
	}
	if r.RequestedAt == nil {
		r.RequestedAt = at
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return &r, nil
}

// Validate checks a request's fields, however it was decoded.
func (r *Request) Validate() error {
	for _, f := range []struct{ name, v string }{{"project", r.Project}, {"environment", r.Environment}, {"namespace", r.Namespace}} {
		if f.v == "" {
			return errors.Errorf("malformed DevOpsReconcile: %s is required", f.name)
		}
		if errs := validation.IsValidLabelValue(f.v); len(errs) > 0 {
			return errors.Errorf("malformed DevOpsReconcile: %s %q: %s", f.name, f.v, strings.Join(errs, "; "))
		}
	}
	if errs := validation.IsDNS1123Label(r.Namespace); len(errs) > 0 {
		return errors.Errorf("malformed DevOpsReconcile: namespace %q: %s", r.Namespace, strings.Join(errs, "; "))
	}
	if r.ID != "" && !ValidID(r.ID) {
		return errors.Errorf("malformed DevOpsReconcile: id %q: at most 253 letters, digits, '.', '_', ':' or '-'", truncate(r.ID))
	}
	if r.Revision != "" && !IsRevision(r.Revision) {
		return errors.Errorf("malformed DevOpsReconcile: revision %q is not a git ref (letters, digits, '.', '_', '-', '/'; as git check-ref-format allows) or commit id", truncate(r.Revision))
	}
	if v, ok := r.Parameters[RevisionParameter]; ok {
		if r.Revision != "" {
			return errors.Errorf("malformed DevOpsReconcile: both revision and parameters.%s are set", RevisionParameter)
		}
		if !IsRevision(v) {
			return errors.Errorf("malformed DevOpsReconcile: parameters.%s %q is not a git ref or commit id", RevisionParameter, truncate(v))
		}
	}
	return nil
}

// ValidID is true for a request id a DeployRun's spec.requestID (and a
// DevOpsProject's annotation) may hold.
func ValidID(id string) bool { return requestIDChars.MatchString(id) }

// requestIDChars is what spec.requestID of a DeployRun allows.
var requestIDChars = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,253}$`)

// IsRevision is true for a git ref name or commit id (see
// v1alpha1.IsRevision).
func IsRevision(r string) bool { return pcv1alpha1.IsRevision(r) }

// truncate shortens a value quoted in a message to 80 bytes.
func truncate(s string) string { return events.Truncate(s) }

// notTokenChars may not appear in a buildRequest token.
var notTokenChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// Token is the buildRequest a message sets: the same for every delivery of
// one message (its message id, else a digest of its body and AMQP
// timestamp), so a redelivery never queues a second build. An id that is
// not already a token gets a digest of itself appended, so two ids never
// share a token ("build/1" and "build 1").
func Token(d amqp.Delivery) string {
	if d.MessageId != "" {
		id := notTokenChars.ReplaceAllString(d.MessageId, "-")
		if id == d.MessageId && len(id) <= 200 {
			return "amqp-" + id
		}
		sum := sha256.Sum256([]byte(d.MessageId))
		return "amqp-" + id[:min(len(id), 180)] + "-" + hex.EncodeToString(sum[:6])
	}
	h := sha256.New()
	h.Write(d.Body)
	if !d.Timestamp.IsZero() {
		h.Write([]byte(d.Timestamp.UTC().Format(time.RFC3339Nano)))
	}
	return "amqp-sha256-" + hex.EncodeToString(h.Sum(nil)[:12])
}

// Apply creates the DeployRun req asks for, if d.User may deploy to the
// one JenkinsPipeline of its environment. An environment whose pipeline is
// gone because it expired is renewed first, when its DevOpsProject lets a
// deploy renew it (renewing), and the DeployRun waits for it.
func Apply(ctx context.Context, kube client.Client, req *Request, d Delivery) error {
	opts := []client.ListOption{client.InNamespace(req.Namespace), client.MatchingLabels{contract.LabelProject: req.Project, contract.LabelEnvironment: req.Environment}}
	params, renew, err := allowed(ctx, kube, req, d, opts)
	if err != nil {
		return err
	}
	runs := &pcv1alpha1.DeployRunList{}
	if err := kube.List(ctx, runs, opts...); err != nil {
		return errors.Wrap(err, "cannot list DeployRuns")
	}
	name := RunName(req.Project, req.Environment, d.Token)
	// A request already applied is acknowledged before any run is asked
	// whether it supersedes it: a redelivery of an older request, after a
	// newer one was applied, is done, not superseded.
	if applied(runs.Items, name, d.Token) {
		return nil // a redelivery (or a second publish) of a request already applied
	}
	if err := superseded(runs.Items, req); err != nil {
		return err
	}
	run := newRun(req, d, name, params)
	if err := checkRequestID(ctx, kube, req, run); err != nil {
		return err
	}
	if renew != nil {
		// Renewed before the run exists: a run created first could find
		// no environment and no renewal coming. Renewing twice (a retry
		// after a failed create) writes the same value.
		if err := renew.apply(ctx, kube); err != nil {
			return err
		}
		run.Annotations[contract.AnnotationRenews] = renew.value
	}
	return create(ctx, kube, run)
}

// allowed authorises req and checks its parameters against the pipeline
// of its environment; for an environment that expired (no live pipeline,
// or one past its expiry) it returns the renewal instead, authorised by
// the config the project records for it.
func allowed(ctx context.Context, kube client.Client, req *Request, d Delivery, opts []client.ListOption) (map[string]string, *renewal, error) {
	p, err := target(ctx, kube, req, opts)
	if err != nil {
		return nil, nil, err
	}
	if p == nil || expired(p.GetAnnotations(), time.Now()) {
		r, err := renewing(ctx, kube, req, d)
		if err != nil {
			return nil, nil, err
		}
		// The pipeline's declarations are checked by the DeployRun once
		// the pipeline is back.
		return revisionParameters(req), r, nil
	}
	if err := authorise(ctx, kube, p.Namespace, p.GetProviderConfigReference(), d.User, "deploy JenkinsPipeline "+p.Namespace+"/"+p.Name); err != nil {
		return nil, nil, err
	}
	params, err := checkedParameters(p, req)
	if err != nil {
		return nil, nil, err
	}
	if p.Spec.ForProvider.Disabled {
		return nil, nil, events.Reject("JenkinsPipeline %s/%s is disabled (spec.forProvider.disabled)", p.Namespace, p.Name)
	}
	return params, nil, nil
}

// target is the one live JenkinsPipeline of req's environment (listed
// with opts), nil when there is none.
func target(ctx context.Context, kube client.Client, req *Request, opts []client.ListOption) (*v1alpha1.JenkinsPipeline, error) {
	list := &v1alpha1.JenkinsPipelineList{}
	if err := kube.List(ctx, list, opts...); err != nil {
		return nil, errors.Wrap(err, "cannot list JenkinsPipelines")
	}
	var live []*v1alpha1.JenkinsPipeline
	for i := range list.Items {
		if list.Items[i].GetDeletionTimestamp() == nil {
			live = append(live, &list.Items[i])
		}
	}
	switch len(live) {
	case 0:
		return nil, nil
	case 1:
		return live[0], nil
	default:
		names := make([]string, 0, len(live))
		for _, p := range live {
			names = append(names, p.Namespace+"/"+p.Name)
		}
		return nil, events.Reject("ambiguous target: %d JenkinsPipelines are %s (%s)", len(live), where(req), strings.Join(names, ", "))
	}
}

// revisionParameters are req's parameters with its revision as REVISION.
func revisionParameters(req *Request) map[string]string {
	params := maps.Clone(req.Parameters)
	if req.Revision != "" {
		if params == nil {
			params = map[string]string{}
		}
		params[RevisionParameter] = req.Revision
	}
	return params
}

// checkedParameters are req's parameters, its revision among them, once
// each is one p declares and its value passes the declaration's check.
func checkedParameters(p *v1alpha1.JenkinsPipeline, req *Request) (map[string]string, error) {
	params := revisionParameters(req)
	declared := map[string]v1alpha1.Parameter{}
	for _, d := range p.Spec.ForProvider.Parameters {
		declared[d.Name] = d
	}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		decl, ok := declared[k]
		if !ok {
			return nil, events.Reject("JenkinsPipeline %s/%s declares no parameter %q (spec.forProvider.parameters)", p.Namespace, p.Name, k)
		}
		if msg := decl.Check(params[k]); msg != "" {
			return nil, events.Reject("JenkinsPipeline %s/%s parameter %s: %s", p.Namespace, p.Name, k, msg)
		}
	}
	return params, nil
}

// applied is true when one of runs is the request's (by name, or by the
// token it was created for).
func applied(runs []pcv1alpha1.DeployRun, name, token string) bool {
	for _, r := range runs {
		if r.Name == name || r.GetAnnotations()[contract.AnnotationDeployRequestKey] == token {
			return true
		}
	}
	return false
}

// superseded refuses req when a broker request applied to the same
// environment was requested after it.
func superseded(runs []pcv1alpha1.DeployRun, req *Request) error {
	for _, r := range runs {
		// Only broker requests order broker requests, and none from the
		// future: the annotation is the namespace's to edit, and one set
		// in 2099 by hand must not supersede every request after it.
		if !strings.HasPrefix(r.Spec.RequestedBy, "amqp:") {
			continue
		}
		if last, err := time.Parse(time.RFC3339Nano, r.GetAnnotations()[contract.AnnotationDeployRequestTime]); err == nil && req.RequestedAt.Before(last) && !last.After(time.Now().Add(MaxClockSkew)) {
			return events.Reject("superseded: requested at %s, before DeployRun %s/%s of the same environment (%s)",
				req.RequestedAt.UTC().Format(time.RFC3339Nano), r.Namespace, r.Name, last.Format(time.RFC3339Nano))
		}
	}
	return nil
}

// newRun is the DeployRun named name that req asks for, with params
// (the revision taken out of them into spec.revision).
func newRun(req *Request, d Delivery, name string, params map[string]string) *pcv1alpha1.DeployRun {
	revision := params[RevisionParameter] // revision, or parameters.REVISION (Parse allows one)
	delete(params, RevisionParameter)
	run := &pcv1alpha1.DeployRun{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: req.Namespace,
			Labels: map[string]string{contract.LabelProject: req.Project, contract.LabelEnvironment: req.Environment},
			Annotations: map[string]string{
				contract.AnnotationDeployRequestTime: req.RequestedAt.UTC().Format(time.RFC3339Nano),
				contract.AnnotationDeployRequestKey:  d.Token,
			},
		},
		Spec: pcv1alpha1.DeployRunSpec{
			Project: req.Project, Environment: req.Environment, Revision: revision, Parameters: params,
			RequestedBy: "amqp:" + d.User, RequestID: cmp.Or(req.ID, req.Namespace+"/"+strings.TrimPrefix(d.Token, "amqp-")),
		},
	}
	if len(run.Spec.Parameters) == 0 {
		run.Spec.Parameters = nil
	}
	if req.TriggeredBy != "" {
		run.Annotations[contract.AnnotationTriggeredBy] = truncate(req.TriggeredBy)
	}
	if d.TraceParent != "" {
		run.Annotations[contract.AnnotationTraceParent] = d.TraceParent
	}
	if len(run.Spec.RequestID) > 253 {
		run.Spec.RequestID = run.Spec.RequestID[:253]
	}
	return run
}

// checkRequestID refuses an explicit request id that another namespace's
// DeployRun already has.
//
// The id is what the legacy heartbeats carry, without a namespace:
// one another namespace's deployment already has is refused, or this
// request would report as that deployment in the old UI. The message
// id standing in for a missing id is prefixed with the namespace
// (an explicit id holds no "/"), so no other namespace can take it
// first.
func checkRequestID(ctx context.Context, kube client.Client, req *Request, run *pcv1alpha1.DeployRun) error {
	if req.ID == "" {
		return nil
	}
	all := &pcv1alpha1.DeployRunList{}
	if err := kube.List(ctx, all); err != nil {
		return errors.Wrap(err, "cannot list DeployRuns")
	}
	for _, o := range all.Items {
		if o.Spec.RequestID == run.Spec.RequestID && o.Namespace != run.Namespace {
			return events.Reject("deployment id %q is already another namespace's: the legacy heartbeats, which carry no namespace, would mix the two up; send a new id", truncate(run.Spec.RequestID))
		}
	}
	return nil
}

// create creates run: done when it exists already, refused when the API
// server finds it invalid or forbidden.
func create(ctx context.Context, kube client.Client, run *pcv1alpha1.DeployRun) error {
	if err := kube.Create(ctx, run); err != nil {
		switch {
		case kerrors.IsAlreadyExists(err):
			return nil
		case kerrors.IsInvalid(err) || kerrors.IsForbidden(err):
			return events.Reject("DeployRun %s/%s refused: %v", run.Namespace, run.Name, err)
		}
		return errors.Wrapf(err, "cannot create DeployRun %s/%s", run.Namespace, run.Name)
	}
	return nil
}

// RunName is the name of the DeployRun a message creates: the project,
// the environment and a digest of the message's token, so every delivery
// of one message names the same object.
func RunName(project, env, token string) string {
	sum := sha256.Sum256([]byte(project + "\x00" + env + "\x00" + token))
	prefix := project + "-" + env
	if len(prefix) > 240 {
		prefix = prefix[:240]
	}
	return prefix + "-" + hex.EncodeToString(sum[:5])
}

// authorise checks that user is among the deployUsers of ref, the config
// of namespace's resources that what (the refusal's words) would use.
func authorise(ctx context.Context, kube client.Client, namespace string, ref *xpv2.ProviderConfigReference, user, what string) error {
	if ref == nil {
		return events.Reject("unauthorised: broker user %q may not %s: it names no providerConfigRef, so no deployUsers", user, what)
	}
	var spec pcv1alpha1.ProviderConfigSpec
	name := ref.Kind + " " + ref.Name
	switch ref.Kind {
	case pcv1alpha1.ClusterProviderConfigKind:
		pc := &pcv1alpha1.ClusterProviderConfig{}
		if err := kube.Get(ctx, client.ObjectKey{Name: ref.Name}, pc); err != nil {
			return notFoundIsFinal(err, name)
		}
		if !backendconfig.NamespaceAllowed(pc.Spec.AllowedNamespaces, namespace) {
			return events.Reject("%s may not be used from namespace %s (spec.allowedNamespaces)", name, namespace)
		}
		spec = pc.Spec
	default:
		pc := &pcv1alpha1.ProviderConfig{}
		name = "ProviderConfig " + namespace + "/" + ref.Name
		if err := kube.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, pc); err != nil {
			return notFoundIsFinal(err, name)
		}
		spec = pc.Spec
	}
	if spec.Jenkins == nil || !slices.ContainsFunc(spec.Jenkins.DeployUsers, func(u string) bool {
		return strings.ReplaceAll(u, "{namespace}", namespace) == user
	}) {
		return events.Reject("unauthorised: broker user %q may not %s: it is not in spec.jenkins.deployUsers of %s", user, what, name)
	}
	return nil
}

func notFoundIsFinal(err error, name string) error {
	if kerrors.IsNotFound(err) {
		return events.Reject("%s does not exist, so nobody may deploy with it", name)
	}
	return errors.Wrapf(err, "cannot get %s", name)
}

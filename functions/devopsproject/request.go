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

package main

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/crossplane/function-sdk-go/errors"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/request"
	"github.com/crossplane/function-sdk-go/resource"

	"github.com/freeleaps/provider-devops/functions/devopsproject/input/v1beta1"
	"github.com/freeleaps/provider-devops/internal/pbcodec"
)

// requestState is everything one run reads from its RunFunctionRequest,
// decoded and validated once, so that planning and composing never go back
// to the protobuf request and a bad input is refused before anything is
// written.
type requestState struct {
	// project is the XR's validated spec, the Composition's input with
	// defaults applied, and where and under which names its resources go.
	project *project
	// annotations are the XR's; the renew annotations move an expiry.
	annotations map[string]string
	// prev is status.environments as the last run wrote it (nil on the
	// first run): expiries persist there, never recomputed.
	prev []EnvStatus
	// orphaned is status.orphanedEnvironments as the last run wrote it.
	orphaned []OrphanedEnvironment
	// observed are the composed resources as Crossplane sent them, read
	// in place (pbAt): a run reads a few fields of each.
	observed map[resource.Name]*structpb.Struct
	// ready says which observed resources are Ready, read once for both
	// the plan (phases) and the composer (desired readiness).
	ready map[resource.Name]bool
	// changed is when the composition last grew while not Ready: the
	// latest creation of the XR and of the observed resources that are
	// not Ready (zero when unknown). Runs come sooner the more recent it
	// is (plan).
	changed time.Time
	// handHost is the host each environment's application is handed
	// (gateHosts); absent for none.
	handHost map[string]string
	// hostNote says, per environment whose application does not carry
	// its host yet, what the host waits for.
	hostNote map[string]string
	// hostAwaits names, for a host note that is progress rather than a
	// problem, the resource being made for it ("" for a problem).
	hostAwaits map[string]resource.Name
	// now is the run's clock.
	now time.Time
}

// readRequest reads and validates what RunFunction needs. Its error is the
// Fatal result's message: it names the field at fault.
func readRequest(req *fnv1.RunFunctionRequest, patterns *patternCache, now time.Time) (*requestState, error) {
	var in *v1beta1.Input // none: defaults
	if req.GetInput() != nil {
		in = &v1beta1.Input{}
		if err := request.GetInput(req, in); err != nil {
			return nil, errors.Wrap(err, "cannot read the function input (devopsproject.fn.freeleaps.io/v1beta1 Input) given by the Composition step")
		}
	}
	s, err := parseInput(in, patterns)
	if err != nil {
		return nil, err
	}
	// The XR is read in place: its metadata, then spec and status
	// decoded straight from protobuf (pbcodec.Decode).
	oxr := req.GetObserved().GetComposite().GetResource()
	if oxr == nil {
		return nil, errors.New("cannot read the observed composite resource: the request has none")
	}
	spec := &ProjectSpec{}
	if err := pbcodec.Decode(pbAt(oxr, "spec"), spec); err != nil {
		return nil, errors.Wrap(err, "cannot read spec")
	}
	if err := spec.validate(); err != nil {
		return nil, err
	}
	md := pbAt(oxr, "metadata").GetStructValue()
	p, err := projectOf(md, spec, s)
	if err != nil {
		return nil, err
	}
	if err := s.allowedIngresses(spec); err != nil {
		return nil, err
	}
	if t, _ := dnsTarget(spec.DNS, s); t == "" {
		return nil, fieldErr("spec.dns.target", "is required: what the environments' names point to (the ingress's address or host), unless the Composition's input sets ingressAddress")
	}
	rs := &requestState{project: p, now: now}
	_ = pbcodec.Decode(pbAt(md, "annotations"), &rs.annotations)
	status := pbAt(oxr, "status").GetStructValue()
	rs.prev = decodeEach[EnvStatus](pbAt(status, "environments"))                       // absent on the first run
	rs.orphaned = decodeEach[OrphanedEnvironment](pbAt(status, "orphanedEnvironments")) // absent until one is
	obs := req.GetObserved().GetResources()
	rs.observed = make(map[resource.Name]*structpb.Struct, len(obs))
	for n, o := range obs {
		if o.GetResource() == nil {
			return nil, errors.Errorf("cannot read the observed composed resource %s: it has no content", n)
		}
		rs.observed[resource.Name(n)] = o.GetResource()
	}
	rs.ready = observedReady(rs.observed)
	rs.addPreviews(now)
	p.keep(rs.observed)
	if err := p.checkEnvironments(); err != nil {
		return nil, err
	}
	rs.gateHosts()
	rs.changed = lastChange(md, rs.observed, rs.ready)
	return rs, nil
}

// projectOf places the project: a namespaced XR composes into its own
// namespace, a legacy cluster-scoped one into its claim's, named after the
// claim so its resources keep their names across the two.
func projectOf(md *structpb.Struct, spec *ProjectSpec, s *settings) (*project, error) {
	name, namespace := pbAt(md, "name").GetStringValue(), pbAt(md, "namespace").GetStringValue()
	labels := pbAt(md, "labels").GetStructValue()
	p := &project{name: name, spec: spec, in: s, tenant: namespace, stable: name, config: spec.configOf(s)}
	if claim := pbAt(labels, "crossplane.io/claim-name").GetStringValue(); claim != "" {
		p.stable = claim
	}
	if namespace == "" {
		// A legacy cluster-scoped XR composes namespaced resources into
		// its claim's namespace.
		p.namespace = pbAt(labels, "crossplane.io/claim-namespace").GetStringValue()
		if p.namespace == "" {
			return nil, errors.New("metadata.namespace: a cluster-scoped XDevOpsProject must be created through a DevOpsProjectClaim (its resources are namespaced); use the namespaced DevOpsProject instead")
		}
		p.tenant = p.namespace
	}
	return p, nil
}

// observedReady says which observed resources are Ready.
func observedReady(observed map[resource.Name]*structpb.Struct) map[resource.Name]bool {
	ready := make(map[resource.Name]bool, len(observed))
	for n, o := range observed {
		ready[n] = readyCondition(o)
	}
	return ready
}

// readyCondition reads the Ready condition straight from the object: the
// SDK's GetCondition round-trips every condition through JSON.
func readyCondition(o *structpb.Struct) bool {
	for _, c := range pbAt(o, "status", "conditions").GetListValue().GetValues() {
		if m := c.GetStructValue(); pbAt(m, "type").GetStringValue() == "Ready" {
			return pbAt(m, "status").GetStringValue() == "True"
		}
	}
	return false
}

// decodeEach reads a list of the XR's status entry by entry: one that
// does not decode (a status written by hand) is left out, the others kept,
// so the expiries they hold are never lost to a neighbour.
func decodeEach[T any](v *structpb.Value) []T {
	values := v.GetListValue().GetValues()
	if len(values) == 0 {
		return nil
	}
	out := make([]T, 0, len(values))
	for _, x := range values {
		var e T
		if pbcodec.Decode(x, &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

// lastChange is the latest creation among the XR and the observed
// resources that are not Ready: the API server sets those times. Not a Ready condition's last transition, which a changing message
// resets on every poll and whoever may write a status can set to the
// future.
func lastChange(xrMeta *structpb.Struct, observed map[resource.Name]*structpb.Struct, ready map[resource.Name]bool) time.Time {
	last := createdAt(xrMeta)
	for n, o := range observed {
		if ready[n] {
			continue
		}
		if t := createdAt(pbAt(o, "metadata").GetStructValue()); t.After(last) {
			last = t
		}
	}
	return last
}

// createdAt is the creationTimestamp of an object's metadata md; zero when
// it has none.
func createdAt(md *structpb.Struct) time.Time {
	t, _ := time.Parse(time.RFC3339, pbAt(md, "creationTimestamp").GetStringValue())
	return t
}

// pbAt is the value at path in s, nil (reading as the zero value) when
// anything on the way is missing or not an object.
func pbAt(s *structpb.Struct, path ...string) *structpb.Value {
	var v *structpb.Value
	for i, k := range path {
		if i > 0 {
			s = v.GetStructValue()
		}
		v = s.GetFields()[k]
		if v == nil {
			return nil
		}
	}
	return v
}

// envReady is true when the environment's three resources are observed
// Ready.
func (rs *requestState) envReady(env string) bool {
	for _, n := range []resource.Name{namePipeline(env), nameApp(env), nameDNS(env)} {
		if !rs.ready[n] {
			return false
		}
	}
	return true
}

// deployments reads the environment's current and last successful
// deployments from its pipeline's status.deployments (the DeployRun
// controller records them there). The last one outlives the pipeline in
// the environment's status (prev): an expired preview's ttl ran from it.
func (rs *requestState) deployments(env string, prev *EnvStatus) (cur, last *Deployment) {
	if prev != nil {
		last = prev.LastDeployment
	}
	o, ok := rs.observed[namePipeline(env)]
	if !ok {
		return nil, last
	}
	d := pbAt(o, "status", "deployments").GetStructValue()
	cur = deploymentOf(pbAt(d, "current").GetStructValue())
	if l := deploymentOf(pbAt(d, "lastSucceeded").GetStructValue()); l != nil && (last == nil || !l.finishedAt().Before(last.finishedAt())) {
		last = l
	}
	return cur, last
}

// deploymentOf reads one DeploymentSummary of a pipeline's status.
func deploymentOf(m *structpb.Struct) *Deployment {
	name := pbAt(m, "name").GetStringValue()
	if name == "" {
		return nil
	}
	return &Deployment{
		Name:       name,
		Phase:      pbAt(m, "phase").GetStringValue(),
		Revision:   pbAt(m, "revision").GetStringValue(),
		StartedAt:  pbAt(m, "startedAt").GetStringValue(),
		FinishedAt: pbAt(m, "finishedAt").GetStringValue(),
	}
}

// allowedIngresses checks every environment's ingress, and the previews',
// against the Composition input's allow-lists.
func (s *settings) allowedIngresses(spec *ProjectSpec) error {
	for i, e := range spec.Environments {
		if err := s.allowed(fmt.Sprintf("spec.environments[%d]", i), ingressOf(spec.Ingress, e.Ingress)); err != nil {
			return err
		}
	}
	if pr := spec.Previews.PullRequests; pr != nil {
		return s.allowed(previewsPath+".template", ingressOf(spec.Ingress, pr.Template.Ingress))
	}
	return nil
}

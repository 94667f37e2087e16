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

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crossplane/function-sdk-go/errors"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/request"
	"github.com/crossplane/function-sdk-go/resource"
	"github.com/crossplane/function-sdk-go/resource/composite"

	"github.com/freeleaps/provider-devops/functions/devopsproject/input/v1beta1"
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
	observed map[resource.Name]resource.ObservedComposed
	// ready says which observed resources are Ready, read once for both
	// the plan (phases) and the composer (desired readiness).
	ready   map[resource.Name]bool
	desired map[resource.Name]*resource.DesiredComposed
	dxr     *resource.Composite
}

// readRequest reads and validates what RunFunction needs. Its error is the
// Fatal result's message: it names the field at fault.
func readRequest(req *fnv1.RunFunctionRequest) (*requestState, error) {
	var in *v1beta1.Input // none: defaults
	if req.GetInput() != nil {
		in = &v1beta1.Input{}
		if err := request.GetInput(req, in); err != nil {
			return nil, errors.Wrap(err, "cannot read the function input (devopsproject.fn.freeleaps.io/v1beta1 Input) given by the Composition step")
		}
	}
	s, err := parseInput(in)
	if err != nil {
		return nil, err
	}
	oxr, err := request.GetObservedCompositeResource(req)
	if err != nil {
		return nil, errors.Wrap(err, "cannot read the observed composite resource")
	}
	spec := &ProjectSpec{}
	if err := oxr.Resource.GetValueInto("spec", spec); err != nil {
		return nil, errors.Wrap(err, "cannot read spec")
	}
	if err := spec.validate(); err != nil {
		return nil, err
	}
	p, err := projectOf(oxr.Resource, spec, s)
	if err != nil {
		return nil, err
	}
	for i, e := range spec.Environments {
		if err := s.allowed(fmt.Sprintf("spec.environments[%d]", i), ingressOf(spec.Ingress, e.Ingress)); err != nil {
			return nil, err
		}
	}
	if t, _ := dnsTarget(spec.DNS, s); t == "" {
		return nil, fieldErr("spec.dns.target", "is required: what the environments' names point to (the ingress's address or host), unless the Composition's input sets ingressAddress")
	}
	rs := &requestState{project: p, annotations: oxr.Resource.GetAnnotations()}
	_ = oxr.Resource.GetValueInto("status.environments", &rs.prev)             // absent on the first run
	_ = oxr.Resource.GetValueInto("status.orphanedEnvironments", &rs.orphaned) // absent until one is
	if rs.observed, err = request.GetObservedComposedResources(req); err != nil {
		return nil, errors.Wrap(err, "cannot read the observed composed resources")
	}
	rs.ready = observedReady(rs.observed)
	if rs.desired, err = request.GetDesiredComposedResources(req); err != nil {
		return nil, errors.Wrap(err, "cannot read the desired composed resources")
	}
	if rs.dxr, err = request.GetDesiredCompositeResource(req); err != nil {
		return nil, errors.Wrap(err, "cannot read the desired composite resource")
	}
	return rs, nil
}

// projectOf places the project: a namespaced XR composes into its own
// namespace, a legacy cluster-scoped one into its claim's, named after the
// claim so its resources keep their names across the two.
func projectOf(xr *composite.Unstructured, spec *ProjectSpec, s *settings) (*project, error) {
	p := &project{name: xr.GetName(), spec: spec, in: s, tenant: xr.GetNamespace(), stable: xr.GetName()}
	if claim := xr.GetLabels()["crossplane.io/claim-name"]; claim != "" {
		p.stable = claim
	}
	if xr.GetNamespace() == "" {
		// A legacy cluster-scoped XR composes namespaced resources into
		// its claim's namespace.
		p.namespace = xr.GetLabels()["crossplane.io/claim-namespace"]
		if p.namespace == "" {
			return nil, errors.New("metadata.namespace: a cluster-scoped XDevOpsProject must be created through a DevOpsProjectClaim (its resources are namespaced); use the namespaced DevOpsProject instead")
		}
		p.tenant = p.namespace
	}
	return p, nil
}

// observedReady says which observed resources are Ready. A Usage has no
// Ready condition worth waiting for: it counts as Ready once observed.
func observedReady(observed map[resource.Name]resource.ObservedComposed) map[resource.Name]bool {
	ready := make(map[resource.Name]bool, len(observed))
	for n, o := range observed {
		ready[n] = o.Resource.GetKind() == "Usage" || readyCondition(o.Resource.Object)
	}
	return ready
}

// readyCondition reads the Ready condition straight from the object: the
// SDK's GetCondition round-trips every condition through JSON.
func readyCondition(obj map[string]any) bool {
	conds, _, _ := unstructured.NestedSlice(obj, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Ready" {
			return m["status"] == "True"
		}
	}
	return false
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
	dv, _, _ := unstructured.NestedFieldNoCopy(o.Resource.Object, "status", "deployments")
	d, _ := dv.(map[string]any)
	cur = deploymentOf(d["current"])
	if l := deploymentOf(d["lastSucceeded"]); l != nil && (last == nil || !l.finishedAt().Before(last.finishedAt())) {
		last = l
	}
	return cur, last
}

// deploymentOf reads one DeploymentSummary of a pipeline's status.
func deploymentOf(v any) *Deployment {
	m, _ := v.(map[string]any)
	name, _ := m["name"].(string)
	if name == "" {
		return nil
	}
	d := &Deployment{Name: name}
	d.Phase, _ = m["phase"].(string)
	d.Revision, _ = m["revision"].(string)
	d.StartedAt, _ = m["startedAt"].(string)
	d.FinishedAt, _ = m["finishedAt"].(string)
	return d
}

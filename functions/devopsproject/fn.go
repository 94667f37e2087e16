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
	"context"
	"fmt"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/crossplane/function-sdk-go/errors"
	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/request"
	"github.com/crossplane/function-sdk-go/resource"
	"github.com/crossplane/function-sdk-go/response"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/functions/devopsproject/input/v1beta1"
)

// ConditionExpiring is the XR condition that reports expiring environments.
const ConditionExpiring = "Expiring"

// phaseRequeue is how soon the function asks to run again while an
// environment is between the two expiry phases.
const phaseRequeue = 10 * time.Second

// Function expands a DevOpsProject into managed resources.
type Function struct {
	fnv1.UnimplementedFunctionRunnerServiceServer

	log logging.Logger
	now func() time.Time
}

// RunFunction composes one project.
func (f *Function) RunFunction(_ context.Context, req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
	now := f.now().UTC()
	rsp := response.To(req, defaultPollInterval)

	var in *v1beta1.Input // none: defaults
	if req.GetInput() != nil {
		in = &v1beta1.Input{}
		if err := request.GetInput(req, in); err != nil {
			response.Fatal(rsp, errors.Wrap(err, "cannot read the function input (devopsproject.fn.freeleaps.io/v1beta1 Input) given by the Composition step"))
			return rsp, nil
		}
	}
	s, err := parseInput(in)
	if err != nil {
		response.Fatal(rsp, err)
		return rsp, nil
	}
	oxr, err := request.GetObservedCompositeResource(req)
	if err != nil {
		response.Fatal(rsp, errors.Wrap(err, "cannot read the observed composite resource"))
		return rsp, nil
	}
	spec := &ProjectSpec{}
	if err := oxr.Resource.GetValueInto("spec", spec); err != nil {
		response.Fatal(rsp, errors.Wrap(err, "cannot read spec"))
		return rsp, nil
	}
	if err := spec.validate(); err != nil {
		response.Fatal(rsp, err)
		return rsp, nil
	}
	var prevList []EnvStatus
	_ = oxr.Resource.GetValueInto("status.environments", &prevList) // absent on the first run
	prev := map[string]*EnvStatus{}
	for i := range prevList {
		prev[prevList[i].Name] = &prevList[i]
	}

	p := &project{name: oxr.Resource.GetName(), spec: spec, in: s, tenant: oxr.Resource.GetNamespace(), stable: oxr.Resource.GetName()}
	if claim := oxr.Resource.GetLabels()["crossplane.io/claim-name"]; claim != "" {
		p.stable = claim
	}
	if oxr.Resource.GetNamespace() == "" {
		// A legacy cluster-scoped XR composes namespaced resources into
		// its claim's namespace.
		p.namespace = oxr.Resource.GetLabels()["crossplane.io/claim-namespace"]
		if p.namespace == "" {
			response.Fatal(rsp, errors.New("metadata.namespace: a cluster-scoped XDevOpsProject must be created through a DevOpsProjectClaim (its resources are namespaced); use the namespaced DevOpsProject instead"))
			return rsp, nil
		}
		p.tenant = p.namespace
	}

	observed, err := request.GetObservedComposedResources(req)
	if err != nil {
		response.Fatal(rsp, errors.Wrap(err, "cannot read the observed composed resources"))
		return rsp, nil
	}
	desired, err := request.GetDesiredComposedResources(req)
	if err != nil {
		response.Fatal(rsp, errors.Wrap(err, "cannot read the desired composed resources"))
		return rsp, nil
	}
	dxr, err := request.GetDesiredCompositeResource(req)
	if err != nil {
		response.Fatal(rsp, errors.Wrap(err, "cannot read the desired composite resource"))
		return rsp, nil
	}

	c := newComposer(p, observed, desired)
	// An orphaned environment's application keeps syncing after the
	// project is deleted: its AppProject and repository credentials stay
	// with it, also when the environment left the spec before (recorded in
	// status, never forgotten).
	var prevOrphaned []OrphanedEnvironment
	_ = oxr.Resource.GetValueInto("status.orphanedEnvironments", &prevOrphaned) // absent until one is
	orphaned := c.orphanedEnvironments(spec.Environments, prevList, prevOrphaned)
	keepArgo := len(orphaned) > 0
	for _, e := range spec.Environments {
		keepArgo = keepArgo || policyOf(e, expiryOf(s, e, prev[e.Name], oxr.Resource.GetAnnotations(), now)) == PolicyOrphan
	}
	projectWide := map[resource.Name]runtime.Object{nameRegistry: p.registry(), nameArgoProject: p.argoProject(keepArgo, orphaned)}
	// The repository's credentials go into the AppProject only once this
	// project's ArgoProject holds it (observed Ready): never into a
	// project of that name someone else made first.
	if r := p.argoRepository(keepArgo); r != nil && (c.exists(nameArgoRepo) || c.ready[nameArgoProject]) {
		projectWide[nameArgoRepo] = r
	}
	for n, o := range projectWide {
		if err := c.add(n, o); err != nil {
			response.Fatal(rsp, err)
			return rsp, nil
		}
	}
	next := s.pollInterval
	statuses := make([]EnvStatus, 0, len(spec.Environments))
	var expiring []string
	expired := false
	for _, e := range spec.Environments {
		x := expiryOf(s, e, prev[e.Name], oxr.Resource.GetAnnotations(), now)
		phase := phaseAt(x, now, c.envReady(e.Name), prev[e.Name], e, observed)
		if err := c.environment(e, phase, x); err != nil {
			response.Fatal(rsp, err)
			return rsp, nil
		}
		st := c.status(e, phase, x)
		statuses = append(statuses, st)
		report(rsp, prev[e.Name], st)
		if phase == PhaseProvisioning {
			// Come back soon to report Ready: the watch events that would
			// trigger it are dropped while Crossplane's XR circuit breaker
			// is open, which a project's creation burst can trip.
			next = min(next, phaseRequeue)
		}

		switch phase {
		case PhaseExpiringSoon:
			expiring = append(expiring, fmt.Sprintf("%s expires at %s", e.Name, st.ExpiresAt))
			next = min(next, x.at.Sub(now))
		case PhaseExpiring:
			expiring = append(expiring, e.Name+" is expiring: its retained resources are being orphaned")
			expired = true
			next = min(next, phaseRequeue)
		case PhaseExpired:
			expiring = append(expiring, e.Name+" expired at "+st.ExpiresAt)
			expired = true
		default:
			if !x.at.IsZero() {
				next = min(next, x.warnAt.Sub(now))
			}
		}
	}

	if err := dxr.Resource.SetValue("status.environments", statuses); err != nil {
		response.Fatal(rsp, errors.Wrap(err, "cannot write status.environments"))
		return rsp, nil
	}
	if len(orphaned) > 0 {
		if err := dxr.Resource.SetValue("status.orphanedEnvironments", orphaned); err != nil {
			response.Fatal(rsp, errors.Wrap(err, "cannot write status.orphanedEnvironments"))
			return rsp, nil
		}
	}
	if err := response.SetDesiredCompositeResource(rsp, dxr); err != nil {
		response.Fatal(rsp, errors.Wrap(err, "cannot set the desired composite resource"))
		return rsp, nil
	}
	if err := response.SetDesiredComposedResources(rsp, desired); err != nil {
		response.Fatal(rsp, errors.Wrap(err, "cannot set the desired composed resources"))
		return rsp, nil
	}
	if len(expiring) > 0 {
		reason := "ExpiringSoon"
		if expired {
			reason = "Expired"
		}
		response.ConditionTrue(rsp, ConditionExpiring, reason).WithMessage(strings.Join(expiring, "; ")).TargetCompositeAndClaim()
	} else {
		response.ConditionFalse(rsp, ConditionExpiring, "NoneExpiring").TargetCompositeAndClaim()
	}
	rsp.Meta.Ttl = durationpb.New(max(next, time.Second))
	return rsp, nil
}

// report adds a result when an environment's phase changes, so events
// say what happened and nothing repeats every run.
func report(rsp *fnv1.RunFunctionResponse, prev *EnvStatus, st EnvStatus) {
	if prev != nil && prev.Phase == st.Phase {
		return
	}
	switch st.Phase {
	case PhaseExpiringSoon:
		response.Warning(rsp, errors.Errorf("environment %s expires at %s; annotate %s%s to renew it", st.Name, st.ExpiresAt, contract.AnnotationRenewPrefix, st.Name)).WithReason("ExpiringSoon").TargetCompositeAndClaim()
	case PhaseExpiring:
		response.Warning(rsp, errors.Errorf("environment %s expired at %s: orphaning its retained resources", st.Name, st.ExpiresAt)).WithReason("Expiring").TargetCompositeAndClaim()
	case PhaseExpired:
		response.Warning(rsp, errors.Errorf("environment %s expired at %s: its resources are being deleted", st.Name, st.ExpiresAt)).WithReason("Expired").TargetCompositeAndClaim()
	case PhaseReady:
		response.Normalf(rsp, "environment %s is Ready at %s", st.Name, st.URL).WithReason("Ready").TargetCompositeAndClaim()
	case PhaseProvisioning:
		response.Normalf(rsp, "environment %s is being provisioned", st.Name).WithReason("Provisioning").TargetCompositeAndClaim()
	}
}

// OrphanedEnvironment is an environment that left the spec with the Orphan
// policy: its Argo CD application, Jenkins job and DNS record remain, and
// the AppProject keeps its destination so the application still syncs.
type OrphanedEnvironment struct {
	Name      string `json:"name"`
	Cluster   string `json:"cluster,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// orphanedEnvironments are those recorded before and those that left the
// spec since the last run (their destination read from the application
// still observed), less any back in the spec (managed again).
func (c *composer) orphanedEnvironments(envs []Environment, prev []EnvStatus, recorded []OrphanedEnvironment) []OrphanedEnvironment {
	inSpec := make(map[string]bool, len(envs))
	for _, e := range envs {
		inSpec[e.Name] = true
	}
	var out []OrphanedEnvironment
	seen := map[string]bool{}
	add := func(o OrphanedEnvironment) {
		if !inSpec[o.Name] && !seen[o.Name] {
			seen[o.Name] = true
			out = append(out, o)
		}
	}
	for _, o := range recorded {
		add(o)
	}
	for _, st := range prev {
		if st.DeletionPolicy != PolicyOrphan || st.Phase == PhaseExpired || inSpec[st.Name] {
			continue
		}
		o := OrphanedEnvironment{Name: st.Name}
		if app, ok := c.observed[nameApp(st.Name)]; ok {
			o.Cluster, _, _ = unstructured.NestedString(app.Resource.Object, "spec", "forProvider", "destination", "server")
			o.Namespace, _, _ = unstructured.NestedString(app.Resource.Object, "spec", "forProvider", "destination", "namespace")
		}
		add(o)
	}
	return out
}

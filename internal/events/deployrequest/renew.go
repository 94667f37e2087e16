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

package deployrequest

import (
	"context"
	"fmt"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/internal/events"
)

// ProjectKind is the DevOpsProject, the namespaced XR whose environments
// deploy requests name (package/configuration/xrd.yaml).
var ProjectKind = schema.GroupVersionKind{Group: "platform.freeleaps.io", Version: "v1alpha1", Kind: "DevOpsProject"} //nolint:gochecknoglobals // read-only, as an API package's kinds

// Environment phases of a DevOpsProject's status that renewOnDeploy acts
// on (the function's ttl.go).
const (
	phaseExpiring     = "Expiring"
	phaseExpired      = "Expired"
	phaseProvisioning = "Provisioning"
)

// renewValuePrefix starts the renew annotation value a deploy request
// sets, so the project's history says what renewed it.
const renewValuePrefix = "deploy:"

// renewal is what a deploy request for an environment without a pipeline
// does: renew the expired environment (set its renew annotation to value)
// or wait for one coming back.
type renewal struct {
	project *unstructured.Unstructured
	key     string
	value   string
}

// renewing finds whether req's environment, which has no live
// JenkinsPipeline (or one past its expiry), is one a deploy may renew:
// its DevOpsProject lets it (spec.environments[].renewOnDeploy), it is
// Expiring, Expired, or Provisioning (coming back), and d's user is among
// the deployUsers of the config the project records for it. Any other
// answer is a refusal that says how to allow it, to an authorised user.
func renewing(ctx context.Context, kube client.Client, req *Request, d Delivery) (*renewal, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(ProjectKind)
	name := req.Namespace + "/" + req.Project
	if err := kube.Get(ctx, client.ObjectKey{Namespace: req.Namespace, Name: req.Project}, u); err != nil {
		switch {
		case kerrors.IsNotFound(err) || meta.IsNoMatchError(err):
			return nil, unknownTarget(req)
		case kerrors.IsForbidden(err):
			return nil, events.Reject("%v; cannot tell whether DevOpsProject %s lets a deploy renew environment %s: the provider's service account needs get and patch on devopsprojects.platform.freeleaps.io (examples/events/initialize-rbac.yaml)", unknownTarget(req), name, req.Environment)
		}
		return nil, errors.Wrapf(err, "cannot get DevOpsProject %s", name)
	}
	st := environmentStatus(u, req.Environment)
	phase, _ := st["phase"].(string)
	switch phase {
	case phaseExpired, phaseExpiring, phaseProvisioning:
	default:
		return nil, unknownTarget(req)
	}
	renew := renewOnDeploy(u, req.Environment)
	ref := configRef(st)
	switch {
	case ref == nil && renew:
		return nil, events.Reject("environment %s of DevOpsProject %s has renewOnDeploy, but its status records no providerConfigRef yet (the composition function records it): publish the request again once it does", req.Environment, name)
	case ref == nil:
		// Nobody can be authorised: say no more than for no project.
		return nil, unknownTarget(req)
	}
	// Authorised before anything more is said: the expiry and the
	// project's renewal setting are not for another namespace's users.
	what := fmt.Sprintf("renew and deploy environment %s of DevOpsProject %s", req.Environment, name)
	if err := authorise(ctx, kube, req.Namespace, ref, d.User, what); err != nil {
		return nil, err
	}
	if !renew {
		if phase == phaseProvisioning {
			return nil, unknownTarget(req)
		}
		at, _ := st["expiresAt"].(string)
		return nil, events.Reject("environment %s of DevOpsProject %s expired at %s, and deploying does not renew it: set renewOnDeploy: true on the environment in the project's spec.environments, or renew it by hand (kubectl annotate devopsproject -n %s %s %s%s=<a new value>), then publish the request again",
			req.Environment, name, at, req.Namespace, req.Project, contract.AnnotationRenewPrefix, req.Environment)
	}
	r := &renewal{project: u, key: contract.AnnotationRenewPrefix + req.Environment}
	if phase == phaseProvisioning {
		r.value = u.GetAnnotations()[r.key] // coming back already: wait for it
	} else {
		r.value = renewValuePrefix + d.Token
	}
	return r, nil
}

// apply sets the renew annotation, optimistic-locked: a project changed
// since it was read is read again (the handler retries conflicts).
func (r *renewal) apply(ctx context.Context, kube client.Client) error {
	if r.project.GetAnnotations()[r.key] == r.value {
		return nil
	}
	orig := r.project.DeepCopy()
	a := r.project.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[r.key] = r.value
	r.project.SetAnnotations(a)
	if err := kube.Patch(ctx, r.project, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		if kerrors.IsForbidden(err) {
			return events.Reject("cannot renew DevOpsProject %s/%s: %v (the provider's service account needs patch on devopsprojects.platform.freeleaps.io)", r.project.GetNamespace(), r.project.GetName(), err)
		}
		return errors.Wrapf(err, "cannot renew environment by annotating DevOpsProject %s/%s", r.project.GetNamespace(), r.project.GetName())
	}
	return nil
}

// environmentStatus is the status.environments entry of env, nil when
// there is none.
func environmentStatus(u *unstructured.Unstructured, env string) map[string]any {
	l, _, _ := unstructured.NestedSlice(u.Object, "status", "environments")
	for _, e := range l {
		if m, ok := e.(map[string]any); ok && m["name"] == env {
			return m
		}
	}
	return nil
}

// renewOnDeploy is true when the project's spec.environments entry of env
// sets renewOnDeploy.
func renewOnDeploy(u *unstructured.Unstructured, env string) bool {
	l, _, _ := unstructured.NestedSlice(u.Object, "spec", "environments")
	for _, e := range l {
		if m, ok := e.(map[string]any); ok && m["name"] == env {
			b, _ := m["renewOnDeploy"].(bool)
			return b
		}
	}
	return false
}

// configRef is the config an environment's status records (the
// function's), nil when it records none usable.
func configRef(st map[string]any) *xpv2.ProviderConfigReference {
	m, _ := st["providerConfigRef"].(map[string]any)
	kind, _ := m["kind"].(string)
	name, _ := m["name"].(string)
	if name == "" || (kind != "ProviderConfig" && kind != "ClusterProviderConfig") {
		return nil
	}
	return &xpv2.ProviderConfigReference{Kind: kind, Name: name}
}

// unknownTarget refuses a request whose environment has no pipeline.
func unknownTarget(req *Request) error {
	return events.Reject("unknown target: no JenkinsPipeline is %s", where(req))
}

// where says which pipelines a request selects.
func where(req *Request) string {
	return fmt.Sprintf("labelled %s=%s, %s=%s in namespace %s", contract.LabelProject, req.Project, contract.LabelEnvironment, req.Environment, req.Namespace)
}

// expired is true for a pipeline whose environment's expiry (the
// function's annotation) has passed: it is about to go.
func expired(annotations map[string]string, now time.Time) bool {
	t, err := time.Parse(time.RFC3339, annotations[contract.AnnotationExpiresAt])
	return err == nil && !now.Before(t)
}

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
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	protectionv1beta1 "github.com/crossplane/crossplane/apis/v2/protection/v1beta1"
	"github.com/crossplane/function-sdk-go/resource"

	"github.com/freeleaps/provider-devops/apis/contract"
)

// usage protects of from deletion while by exists: Crossplane deletes an
// environment's resources in teardown order. Built from Crossplane's typed
// protection API so a renamed or mistyped field fails to compile instead
// of being dropped by the API server.
//
// The Usage only lives until it is encoded, so its selectors
// share the metadata's labels map and one true: a run builds three Usages
// per environment.
func (p *project) usage(env string, of, by usageEnd) *protectionv1beta1.Usage {
	reason := by.kind + " is deleted before " + of.kind
	// Crossplane's Usage controller writes the reason into this
	// annotation; composed with it, that is one write (and one wake of
	// the XR) less per Usage.
	m := p.meta(env, map[string]string{usageDetailsAnnotation: reason}) // labels: project and environment
	yes := ptr.To(true)
	u := &protectionv1beta1.Usage{
		TypeMeta:   metav1.TypeMeta{APIVersion: usageAPIVersion, Kind: protectionv1beta1.UsageKind},
		ObjectMeta: m,
		Spec: protectionv1beta1.UsageSpec{
			Of:             protectionv1beta1.NamespacedResource{APIVersion: apiVersionOf[of.kind], Kind: of.kind},
			By:             &protectionv1beta1.Resource{APIVersion: apiVersionOf[by.kind], Kind: by.kind},
			ReplayDeletion: yes,
			Reason:         ptr.To(reason),
		},
	}
	// By name where it is known: the Usage controller writes a selector's
	// match into the Usage, a write (and a wake of the XR) per selector.
	if of.name != "" {
		u.Spec.Of.ResourceRef = &protectionv1beta1.NamespacedResourceRef{Name: of.name}
	} else {
		u.Spec.Of.ResourceSelector = &protectionv1beta1.NamespacedResourceSelector{MatchControllerRef: yes, MatchLabels: of.labels(m.Labels)}
	}
	if by.name != "" {
		u.Spec.By.ResourceRef = &protectionv1beta1.ResourceRef{Name: by.name}
	} else {
		u.Spec.By.ResourceSelector = &protectionv1beta1.ResourceSelector{MatchControllerRef: yes, MatchLabels: m.Labels}
	}
	return u
}

// usageEnd is one end of a Usage: a kind, and the composed resource's
// name when known ("" selects it by labels).
type usageEnd struct {
	kind, name string
	// project selects by the project label alone: the ArgoProject
	// carries no environment label.
	project bool
}

// labels are the labels that select the end: env's, or the project's.
func (e usageEnd) labels(env map[string]string) map[string]string {
	if e.project {
		return map[string]string{contract.LabelProject: env[contract.LabelProject]}
	}
	return env
}

// usageDetailsAnnotation is where Crossplane's Usage controller records
// a Usage's reason.
const usageDetailsAnnotation = "crossplane.io/usage-details"

// usageAPIVersion is protection.crossplane.io/v1beta1, the version of
// Usage whose spec.of selects namespaced resources.
var usageAPIVersion = protectionv1beta1.SchemeGroupVersion.String() //nolint:gochecknoglobals // read-only, computed once

// usageName is the composition-resource name of env's Usage of ofKind by
// byKind: "<env>-usage-<of>-by-<by>", kinds in lower case.
func usageName(env, ofKind, byKind string) resource.Name {
	return resource.Name(env + "-usage-" + lowerKind(ofKind) + "-by-" + lowerKind(byKind))
}

// lowerKinds are the composed kinds in lower case, computed once rather
// than twice per Usage per run.
var lowerKinds = func() map[string]string { //nolint:gochecknoglobals // read-only table
	m := map[string]string{}
	for _, k := range []string{KindPipeline, KindApp, KindDNS, KindRegistry, KindProject, KindRepo} {
		m[k] = strings.ToLower(k)
	}
	return m
}()

func lowerKind(kind string) string {
	if l, ok := lowerKinds[kind]; ok {
		return l
	}
	return strings.ToLower(kind)
}

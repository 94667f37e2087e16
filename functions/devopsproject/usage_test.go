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
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	protectionv1beta1 "github.com/crossplane/crossplane/apis/v2/protection/v1beta1"
)

// TestUsageObject holds usageObject, which writes Usages without
// reflection, to what the generic converter (toComposed) makes of the same
// typed Usage: a field usage sets that usageObject forgot would show here.
func TestUsageObject(t *testing.T) {
	s, err := parseInput(nil)
	if err != nil {
		t.Fatal(err)
	}
	namespaced := &project{name: "shop", tenant: "team-shop", spec: &ProjectSpec{}, in: s}
	legacy := &project{name: "shop-x7k2p", namespace: "team-shop", tenant: "team-shop", spec: &ProjectSpec{}, in: s}
	cases := map[string]struct {
		reason string
		args   *protectionv1beta1.Usage
	}{
		"Teardown": {
			reason: "An environment's teardown Usage of a namespaced project: no namespace, labels in metadata and both selectors.",
			args:   namespaced.usage("prod", KindApp, KindDNS),
		},
		"LegacyNamespace": {
			reason: "A legacy claim's Usage carries the claim's namespace.",
			args:   legacy.usage("pr-7", KindPipeline, KindApp),
		},
		"Project": {
			reason: "The ArgoProject is selected by project alone.",
			args:   namespaced.projectUsage("prod"),
		},
		"EveryField": {
			reason: "Every field of UsageSpec, references instead of selectors, and the metadata usage may set.",
			args: &protectionv1beta1.Usage{
				TypeMeta:   metav1.TypeMeta{APIVersion: usageAPIVersion, Kind: protectionv1beta1.UsageKind},
				ObjectMeta: metav1.ObjectMeta{Name: "u", Namespace: "ns", Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"c": "d"}},
				Spec: protectionv1beta1.UsageSpec{
					Of: protectionv1beta1.NamespacedResource{
						APIVersion: "v1", Kind: "Secret",
						ResourceRef:      &protectionv1beta1.NamespacedResourceRef{Name: "s", Namespace: ptr.To("other")},
						ResourceSelector: &protectionv1beta1.NamespacedResourceSelector{MatchLabels: map[string]string{"e": "f"}, MatchControllerRef: ptr.To(false), Namespace: ptr.To("other")},
					},
					By: &protectionv1beta1.Resource{
						APIVersion: "v1", Kind: "Pod",
						ResourceRef:      &protectionv1beta1.ResourceRef{Name: "p"},
						ResourceSelector: &protectionv1beta1.ResourceSelector{MatchLabels: map[string]string{"g": "h"}, MatchControllerRef: ptr.To(true)},
					},
					Reason:         ptr.To("because"),
					ReplayDeletion: ptr.To(false),
				},
			},
		},
		"Minimal": {
			reason: "Only what a Usage requires: empty and nil fields are left out, as the converter leaves them out.",
			args: &protectionv1beta1.Usage{Spec: protectionv1beta1.UsageSpec{
				Of: protectionv1beta1.NamespacedResource{ResourceRef: &protectionv1beta1.NamespacedResourceRef{Name: "s"}},
				By: &protectionv1beta1.Resource{ResourceSelector: &protectionv1beta1.ResourceSelector{}},
			}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := toComposed(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.Object, usageObject(tc.args).Object); diff != "" {
				t.Errorf("%s\nusageObject(...): -converter +usageObject:\n%s", tc.reason, diff)
			}
		})
	}
}

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
	"k8s.io/utils/ptr"

	protectionv1beta1 "github.com/crossplane/crossplane/apis/v2/protection/v1beta1"

	"github.com/freeleaps/provider-devops/apis/contract"
)

func TestUsageEnds(t *testing.T) {
	p := &project{name: "shop", namespace: "team"}
	env := map[string]string{contract.LabelProject: "shop", contract.LabelEnvironment: "prod"}
	cases := map[string]struct {
		reason string
		of, by usageEnd
		wantOf protectionv1beta1.NamespacedResource
		wantBy protectionv1beta1.Resource
	}{
		"ByName": {
			reason: "Known names are referenced: the Usage controller then writes nothing back into the spec.",
			of:     usageEnd{kind: KindApp, name: "shop.prod-app"}, by: usageEnd{kind: KindDNS, name: "shop.prod-dns"},
			wantOf: protectionv1beta1.NamespacedResource{APIVersion: apiVersionOf[KindApp], Kind: KindApp, ResourceRef: &protectionv1beta1.NamespacedResourceRef{Name: "shop.prod-app"}},
			wantBy: protectionv1beta1.Resource{APIVersion: apiVersionOf[KindDNS], Kind: KindDNS, ResourceRef: &protectionv1beta1.ResourceRef{Name: "shop.prod-dns"}},
		},
		"BySelector": {
			reason: "A name Crossplane generates is not known before the resource exists: it is selected by its controller and labels.",
			of:     usageEnd{kind: KindProject, project: true}, by: usageEnd{kind: KindApp},
			wantOf: protectionv1beta1.NamespacedResource{APIVersion: apiVersionOf[KindProject], Kind: KindProject, ResourceSelector: &protectionv1beta1.NamespacedResourceSelector{
				MatchControllerRef: ptr.To(true), MatchLabels: map[string]string{contract.LabelProject: "shop"}}},
			wantBy: protectionv1beta1.Resource{APIVersion: apiVersionOf[KindApp], Kind: KindApp, ResourceSelector: &protectionv1beta1.ResourceSelector{
				MatchControllerRef: ptr.To(true), MatchLabels: env}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := p.usage("prod", tc.of, tc.by)
			if diff := cmp.Diff(tc.wantOf, u.Spec.Of); diff != "" {
				t.Errorf("%s\nspec.of: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(&tc.wantBy, u.Spec.By); diff != "" {
				t.Errorf("%s\nspec.by: -want, +got:\n%s", tc.reason, diff)
			}
			want := tc.by.kind + " is deleted before " + tc.of.kind
			if got := u.GetAnnotations()[usageDetailsAnnotation]; got != want || ptr.Deref(u.Spec.Reason, "") != want {
				t.Errorf("%s\nreason %q and annotation %s %q, want both %q", tc.reason, ptr.Deref(u.Spec.Reason, ""), usageDetailsAnnotation, got, want)
			}
		})
	}
}

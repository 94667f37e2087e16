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

package controlplane

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// xrd is the part of a Crossplane CompositeResourceDefinition a CRD is
// made of.
type xrd struct {
	Spec struct {
		Group    string                                        `json:"group"`
		Names    apiextensionsv1.CustomResourceDefinitionNames `json:"names"`
		Scope    apiextensionsv1.ResourceScope                 `json:"scope"`
		Versions []struct {
			Name   string                                   `json:"name"`
			Served bool                                     `json:"served"`
			Schema apiextensionsv1.CustomResourceValidation `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

// InstallXRD installs, once, the CRD Crossplane makes from the XRD at path
// (relative to the repository): its names, scope and schema, with a status
// subresource, and spec.crossplane and status.conditions left open as
// Crossplane adds them. No Crossplane runs here: the composite resources
// are only stored, which is what tests of their writers need. It returns
// once the CRD is established.
func InstallXRD(t *testing.T, e *Env, path string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(RepoRoot(), path))
	Must(t, err)
	x := &xrd{}
	Must(t, yaml.Unmarshal(b, x))
	n := x.Spec.Names
	if n.ListKind == "" {
		n.ListKind = n.Kind + "List"
	}
	if n.Singular == "" {
		n.Singular = strings.ToLower(n.Kind)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: n.Plural + "." + x.Spec.Group},
		Spec:       apiextensionsv1.CustomResourceDefinitionSpec{Group: x.Spec.Group, Names: n, Scope: x.Spec.Scope},
	}
	open := true
	for i, v := range x.Spec.Versions {
		s := v.Schema.OpenAPIV3Schema.DeepCopy()
		// Crossplane's own fields: what it adds is not under test.
		for _, f := range []string{"spec", "status"} {
			p := s.Properties[f]
			if p.Properties == nil {
				p.Properties = map[string]apiextensionsv1.JSONSchemaProps{}
			}
			p.Type = "object"
			s.Properties[f] = p
		}
		s.Properties["spec"].Properties["crossplane"] = apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &open}
		s.Properties["status"].Properties["conditions"] = apiextensionsv1.JSONSchemaProps{Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{
			Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &open}}}
		crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{
			Name: v.Name, Served: v.Served, Storage: i == 0,
			Schema:       &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: s},
			Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
		})
	}
	ctx := context.Background()
	if err := e.Client.Create(ctx, crd); err != nil && !kerrors.IsAlreadyExists(err) {
		t.Fatalf("cannot install the CRD of %s: %v", path, err)
	}
	Eventually(t, "CRD "+crd.Name+" established", func() bool {
		if err := e.Client.Get(ctx, client.ObjectKeyFromObject(crd), crd); err != nil {
			return false
		}
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true
			}
		}
		return false
	})
	return crd
}

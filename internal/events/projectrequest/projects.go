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

package projectrequest

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
)

// Kind of a DevOpsProject, the namespaced XR of
// package/configuration/xrd.yaml.
const Kind = "DevOpsProject"

// GroupVersionResource of a DevOpsProject.
var GroupVersionResource = schema.GroupVersionResource{Group: "platform.freeleaps.io", Version: "v1alpha1", Resource: "devopsprojects"} //nolint:gochecknoglobals // read-only, as an API package's kinds

// Projects reads and applies DevOpsProjects.
type Projects interface {
	// Get reads a project from the API server.
	Get(ctx context.Context, namespace, name string) (*unstructured.Unstructured, error)
	// Apply server-side applies body (JSON) to a project as FieldManager.
	Apply(ctx context.Context, namespace, name string, body []byte) error
}

// NewProjects returns Projects talking to the API server of cfg. Reads are
// not cached (one read per message; nothing watches every project), and an
// apply has strict field validation: an unknown field is refused, not
// dropped, so a typo in a message is never a setting silently ignored.
func NewProjects(cfg *rest.Config) (Projects, error) {
	c, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &projects{c: c}, nil
}

type projects struct{ c dynamic.Interface }

func (p *projects) Get(ctx context.Context, namespace, name string) (*unstructured.Unstructured, error) {
	return p.c.Resource(GroupVersionResource).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
}

func (p *projects) Apply(ctx context.Context, namespace, name string, body []byte) error {
	_, err := p.c.Resource(GroupVersionResource).Namespace(namespace).Patch(ctx, name, types.ApplyPatchType, body, metav1.PatchOptions{
		FieldManager: FieldManager, Force: ptr.To(false), FieldValidation: metav1.FieldValidationStrict,
	})
	return err
}

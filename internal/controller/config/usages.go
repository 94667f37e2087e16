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

package config

import (
	"context"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
)

// realUsages keeps the ProviderConfigUsages that a managed resource really
// holds: its controller is a managed resource of this provider, with that
// UID, that references the usage's config; and a ClusterProviderConfig's
// usage sits in a namespace the config serves. A usage a tenant writes by
// hand (ProviderConfigUsages are namespaced, so any namespace admin can)
// therefore never pins the platform's ClusterProviderConfig, or another
// namespace's ProviderConfig, against deletion. A usage without a
// controller is kept: crossplane-runtime's reconciler deletes it.
func realUsages(ctx context.Context, c client.Reader, scheme *runtime.Scheme, in []v1alpha1.ProviderConfigUsage) []v1alpha1.ProviderConfigUsage {
	out := in[:0]
	// One count lists every usage of one config: its ClusterProviderConfig
	// is read once, not once per usage.
	cpcs := map[string]*v1alpha1.ClusterProviderConfig{}
	for _, u := range in {
		if real, err := isReal(ctx, c, scheme, cpcs, &u); err != nil || real {
			// When the answer is unknown (the API server failed), the
			// usage counts: a config in use must not be let go.
			out = append(out, u)
		}
	}
	return out
}

func isReal(ctx context.Context, c client.Reader, scheme *runtime.Scheme, cpcs map[string]*v1alpha1.ClusterProviderConfig, u *v1alpha1.ProviderConfigUsage) (bool, error) {
	owner := metav1.GetControllerOf(u)
	if owner == nil {
		return true, nil
	}
	kind, name := u.GetLabels()[xpv2.LabelKeyProviderKind], u.GetLabels()[xpv2.LabelKeyProviderName]
	gvk := schema.FromAPIVersionAndKind(owner.APIVersion, owner.Kind)
	if !scheme.Recognizes(gvk) {
		return false, nil // not a kind of this provider
	}
	obj, err := scheme.New(gvk)
	if err != nil {
		return false, err
	}
	mg, ok := obj.(interface {
		client.Object
		resource.TypedProviderConfigReferencer
	})
	if !ok {
		return false, nil
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: u.GetNamespace(), Name: owner.Name}, mg); err != nil {
		if kerrors.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	ref := mg.GetProviderConfigReference()
	if mg.GetUID() != owner.UID || ref == nil || ref.Kind != kind || ref.Name != name {
		return false, nil
	}
	if kind != v1alpha1.ClusterProviderConfigKind {
		return true, nil
	}
	cpc, ok := cpcs[name]
	if !ok {
		cpc = &v1alpha1.ClusterProviderConfig{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, cpc); err != nil {
			return kerrors.IsNotFound(err), client.IgnoreNotFound(err)
		}
		cpcs[name] = cpc
	}
	return backendconfig.NamespaceAllowed(cpc.Spec.AllowedNamespaces, u.GetNamespace()), nil
}

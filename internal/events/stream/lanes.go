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

package stream

import (
	"context"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
)

// MaxLanesPerNamespace bounds the users one namespace's own
// ProviderConfigs give a queue of their own: a tenant listing many users
// cannot take every lane.
const MaxLanesPerNamespace = 8

// LaneUsers returns the broker users who may send requests, the
// platform's first: those a ClusterProviderConfig's deployUsers give the
// namespaces whose JenkinsPipelines use it (its "{namespace}" expanded),
// then each namespace's own ProviderConfigs' deployUsers and
// initializeUsers, at most MaxLanesPerNamespace per namespace.
func LaneUsers(ctx context.Context, c client.Reader) ([]string, error) {
	cpcs := &v1alpha1.ClusterProviderConfigList{}
	if err := c.List(ctx, cpcs); err != nil {
		return nil, errors.Wrap(err, "cannot list ClusterProviderConfigs")
	}
	pipelines := &jenkinsv1alpha1.JenkinsPipelineList{}
	if err := c.List(ctx, pipelines); err != nil {
		return nil, errors.Wrap(err, "cannot list JenkinsPipelines")
	}
	pcs := &v1alpha1.ProviderConfigList{}
	if err := c.List(ctx, pcs); err != nil {
		return nil, errors.Wrap(err, "cannot list ProviderConfigs")
	}
	seen := map[string]bool{}
	platform := platformUsers(cpcs.Items, pipelines.Items, seen)
	return appendTenantUsers(platform, tenantUsers(pcs.Items), seen), nil
}

// platformUsers are the deployUsers the ClusterProviderConfigs give the
// namespaces of the pipelines that use them, sorted, each once; seen
// records them.
func platformUsers(cpcs []v1alpha1.ClusterProviderConfig, pipelines []jenkinsv1alpha1.JenkinsPipeline, seen map[string]bool) []string {
	byName := map[string]*v1alpha1.ClusterProviderConfig{}
	for i := range cpcs {
		byName[cpcs[i].Name] = &cpcs[i]
	}
	var platform []string
	for _, p := range pipelines {
		ref := p.GetProviderConfigReference()
		if ref == nil || ref.Kind != v1alpha1.ClusterProviderConfigKind {
			continue
		}
		cpc := byName[ref.Name]
		if cpc == nil || cpc.Spec.Jenkins == nil || !backendconfig.NamespaceAllowed(cpc.Spec.AllowedNamespaces, p.Namespace) {
			continue
		}
		for _, u := range backendconfig.ExpandNamespace(cpc.Spec.Jenkins.DeployUsers, nil, p.Namespace) {
			if !seen[u] {
				seen[u] = true
				platform = append(platform, u)
			}
		}
	}
	slices.Sort(platform)
	return platform
}

// tenantUsers are, by namespace, the initializeUsers and deployUsers of
// its own ProviderConfigs, sorted within each, at most
// MaxLanesPerNamespace.
func tenantUsers(pcs []v1alpha1.ProviderConfig) map[string][]string {
	tenants := map[string][]string{}
	for _, pc := range pcs {
		users := backendconfig.ExpandNamespace(pc.Spec.InitializeUsers, nil, pc.Namespace)
		if pc.Spec.Jenkins != nil {
			users = append(users, backendconfig.ExpandNamespace(pc.Spec.Jenkins.DeployUsers, nil, pc.Namespace)...)
		}
		slices.Sort(users)
		for _, u := range users {
			if len(tenants[pc.Namespace]) < MaxLanesPerNamespace && !slices.Contains(tenants[pc.Namespace], u) {
				tenants[pc.Namespace] = append(tenants[pc.Namespace], u)
			}
		}
	}
	return tenants
}

// appendTenantUsers appends the tenants' users not seen yet to out,
// namespace by namespace in name order.
func appendTenantUsers(out []string, tenants map[string][]string, seen map[string]bool) []string {
	namespaces := make([]string, 0, len(tenants))
	for ns := range tenants {
		namespaces = append(namespaces, ns)
	}
	slices.Sort(namespaces)
	for _, ns := range namespaces {
		for _, u := range tenants[ns] {
			if !seen[u] {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	return out
}

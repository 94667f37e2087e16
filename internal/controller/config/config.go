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

// Package config runs the ProviderConfig and ClusterProviderConfig
// controllers: they count the managed resources using each config (status
// users) and keep a config that is in use from being deleted.
package config

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/providerconfig"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
)

// Setup adds both config controllers.
func Setup(mgr ctrl.Manager, o controller.Options) error {
	if err := setup(mgr, o, v1alpha1.ProviderConfigGroupKind, v1alpha1.ProviderConfigGroupVersionKind, v1alpha1.ProviderConfigKind, &v1alpha1.ProviderConfig{}); err != nil {
		return err
	}
	return setup(mgr, o, v1alpha1.ClusterProviderConfigGroupKind, v1alpha1.ClusterProviderConfigGroupVersionKind, v1alpha1.ClusterProviderConfigKind, &v1alpha1.ClusterProviderConfig{})
}

// setup adds one config controller. Both kinds count namespaced
// ProviderConfigUsages: a namespaced managed resource records its usage in its
// own namespace whichever config kind it references (labelled with that kind),
// since a cluster-scoped usage could not be owned by a namespaced resource.
func setup(mgr ctrl.Manager, o controller.Options, groupKind string, gvk schema.GroupVersionKind, kind string, obj resource.ProviderConfig) error {
	name := providerconfig.ControllerName(groupKind)
	of := resource.ProviderConfigKinds{
		Config:    gvk,
		Usage:     v1alpha1.ProviderConfigUsageGroupVersionKind,
		UsageList: v1alpha1.ProviderConfigUsageListGroupVersionKind,
	}
	r := providerconfig.NewReconciler(mgr, of,
		providerconfig.WithLogger(o.Logger.WithValues("controller", name)),
		providerconfig.WithRecorder(event.NewAPIRecorder(mgr.GetEventRecorderFor(name)))) //nolint:staticcheck // crossplane-runtime still takes the old recorder.

	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		For(obj).
		Watches(&v1alpha1.ProviderConfigUsage{}, &resource.EnqueueRequestForProviderConfig{Kind: kind}).
		Complete(ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter))
}

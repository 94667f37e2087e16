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

package controller

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	dnsv1alpha1 "github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	registryv1alpha1 "github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/controller/argoapplication"
	"github.com/freeleaps/provider-devops/internal/controller/argoproject"
	"github.com/freeleaps/provider-devops/internal/controller/argorepository"
	"github.com/freeleaps/provider-devops/internal/controller/dnsrecord"
	"github.com/freeleaps/provider-devops/internal/controller/jenkinspipeline"
	"github.com/freeleaps/provider-devops/internal/events/lifecycle"
	"github.com/freeleaps/provider-devops/internal/controller/registryrepo"
)

// SetupLifecycleEvents adds w (its heartbeats) and has it watch each
// managed-resource kind once the kind's CRD is established.
func SetupLifecycleEvents(mgr ctrl.Manager, o controller.Options, w *lifecycle.Watcher) error {
	for _, k := range []struct {
		gvk  schema.GroupVersionKind
		kind lifecycle.Kind
	}{
		{jenkinsv1alpha1.JenkinsPipelineGroupVersionKind, jenkinspipeline.Lifecycle},
		{argov1alpha1.ArgoApplicationGroupVersionKind, argoapplication.Lifecycle},
		{argov1alpha1.ArgoProjectGroupVersionKind, argoproject.Lifecycle},
		{argov1alpha1.ArgoRepositoryGroupVersionKind, argorepository.Lifecycle},
		{dnsv1alpha1.DNSRecordGroupVersionKind, dnsrecord.Lifecycle},
		{registryv1alpha1.RegistryRepoGroupVersionKind, registryrepo.Lifecycle},
	} {
		o.Gate.Register(func() {
			if err := w.Watch(mgr, k.kind); err != nil {
				mgr.GetLogger().Error(err, "cannot watch for lifecycle events", "kind", k.kind.Name)
			}
		}, k.gvk)
	}
	return mgr.Add(w)
}

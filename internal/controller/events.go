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
	"github.com/freeleaps/provider-devops/internal/controller/lifecycle"
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

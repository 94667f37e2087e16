// Package argoapplication reconciles ArgoApplication managed resources against Argo CD.
package argoapplication

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
)

// Kind describes the ArgoApplication kind to the shared controller setup.
var Kind = mrcontroller.Kind[*v1alpha1.ArgoApplication]{
	GroupKind:        v1alpha1.ArgoApplicationGroupKind,
	GroupVersionKind: v1alpha1.ArgoApplicationGroupVersionKind,
	New:              func() *v1alpha1.ArgoApplication { return &v1alpha1.ArgoApplication{} },
	NewList:          func() resource.ManagedList { return &v1alpha1.ArgoApplicationList{} },
}

// SetupGated adds the ArgoApplication controller once its CRD is established. Until the
// Argo CD client lands, its connector reports that the backend is not implemented.
func SetupGated(mgr ctrl.Manager, o controller.Options) error {
	return mrcontroller.SetupGated(mgr, o, Kind, mrcontroller.UnimplementedConnector[*v1alpha1.ArgoApplication](mgr.GetClient(), mrcontroller.Backend[pcv1alpha1.ArgoCDConfig]{
		Name:        "Argo CD",
		Section:     "argocd",
		Pick:        func(s *pcv1alpha1.ProviderConfigSpec) *pcv1alpha1.ArgoCDConfig { return s.ArgoCD },
		Credentials: func(s *pcv1alpha1.ArgoCDConfig) pcv1alpha1.Credentials { return s.Credentials },
	}))
}

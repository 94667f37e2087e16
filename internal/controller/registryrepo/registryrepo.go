// Package registryrepo reconciles RegistryRepo managed resources against container registry.
package registryrepo

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
)

// Kind describes the RegistryRepo kind to the shared controller setup.
var Kind = mrcontroller.Kind[*v1alpha1.RegistryRepo]{
	GroupKind:        v1alpha1.RegistryRepoGroupKind,
	GroupVersionKind: v1alpha1.RegistryRepoGroupVersionKind,
	New:              func() *v1alpha1.RegistryRepo { return &v1alpha1.RegistryRepo{} },
	NewList:          func() resource.ManagedList { return &v1alpha1.RegistryRepoList{} },
}

// SetupGated adds the RegistryRepo controller once its CRD is established. Until the
// container registry client lands, its connector reports that the backend is not implemented.
func SetupGated(mgr ctrl.Manager, o controller.Options) error {
	return mrcontroller.SetupGated(mgr, o, Kind, mrcontroller.UnimplementedConnector[*v1alpha1.RegistryRepo](mgr.GetClient(), mrcontroller.Backend[pcv1alpha1.RegistryConfig]{
		Name:        "container registry",
		Section:     "registry",
		Pick:        func(s *pcv1alpha1.ProviderConfigSpec) *pcv1alpha1.RegistryConfig { return s.Registry },
		Credentials: func(s *pcv1alpha1.RegistryConfig) pcv1alpha1.Credentials { return s.Credentials },
	}))
}

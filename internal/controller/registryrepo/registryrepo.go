// Package registryrepo reconciles RegistryRepo managed resources against container registry.
package registryrepo

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/providerconfig"
)

// errNotImplemented is what a RegistryRepo says in its Synced condition until the container registry
// client is part of the provider: it never pretends to have reconciled.
const errNotImplemented = "the container registry backend is not implemented in this provider version: the RegistryRepo was not reconciled"

// Kind describes the RegistryRepo kind to the shared controller setup.
var Kind = mrcontroller.Kind[*v1alpha1.RegistryRepo]{
	GroupKind:        v1alpha1.RegistryRepoGroupKind,
	GroupVersionKind: v1alpha1.RegistryRepoGroupVersionKind,
	New:              func() *v1alpha1.RegistryRepo { return &v1alpha1.RegistryRepo{} },
	NewList:          func() resource.ManagedList { return &v1alpha1.RegistryRepoList{} },
}

// SetupGated adds the RegistryRepo controller once its CRD is established.
func SetupGated(mgr ctrl.Manager, o controller.Options) error {
	return mrcontroller.SetupGated(mgr, o, Kind, NewConnector(mgr.GetClient()))
}

// NewConnector returns the connector the RegistryRepo controller uses.
func NewConnector(kube client.Client) managed.TypedExternalConnector[*v1alpha1.RegistryRepo] {
	return &connector{kube: kube, usage: resource.NewProviderConfigUsageTracker(kube, &pcv1alpha1.ProviderConfigUsage{})}
}

type connector struct {
	kube  client.Client
	usage providerconfig.Tracker
}

// Connect resolves the ProviderConfig and its registry section and reads the
// credentials, so configuration mistakes are reported now.
func (c *connector) Connect(ctx context.Context, cr *v1alpha1.RegistryRepo) (managed.TypedExternalClient[*v1alpha1.RegistryRepo], error) {
	pc, section, err := providerconfig.Section(ctx, c.kube, c.usage, cr, "registry", func(s *pcv1alpha1.ProviderConfigSpec) *pcv1alpha1.RegistryConfig { return s.Registry })
	if err != nil {
		return nil, err
	}
	if _, err := pc.Credentials(ctx, c.kube, "spec.registry.credentials", section.Credentials); err != nil {
		return nil, err
	}
	return nil, errors.New(errNotImplemented)
}

// Package argoapplication reconciles ArgoApplication managed resources against Argo CD.
package argoapplication

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/providerconfig"
)

// errNotImplemented is what a ArgoApplication says in its Synced condition until the Argo CD
// client is part of the provider: it never pretends to have reconciled.
const errNotImplemented = "the Argo CD backend is not implemented in this provider version: the ArgoApplication was not reconciled"

// Kind describes the ArgoApplication kind to the shared controller setup.
var Kind = mrcontroller.Kind[*v1alpha1.ArgoApplication]{
	GroupKind:        v1alpha1.ArgoApplicationGroupKind,
	GroupVersionKind: v1alpha1.ArgoApplicationGroupVersionKind,
	New:              func() *v1alpha1.ArgoApplication { return &v1alpha1.ArgoApplication{} },
	NewList:          func() resource.ManagedList { return &v1alpha1.ArgoApplicationList{} },
}

// SetupGated adds the ArgoApplication controller once its CRD is established.
func SetupGated(mgr ctrl.Manager, o controller.Options) error {
	return mrcontroller.SetupGated(mgr, o, Kind, NewConnector(mgr.GetClient()))
}

// NewConnector returns the connector the ArgoApplication controller uses.
func NewConnector(kube client.Client) managed.TypedExternalConnector[*v1alpha1.ArgoApplication] {
	return &connector{kube: kube, usage: resource.NewProviderConfigUsageTracker(kube, &pcv1alpha1.ProviderConfigUsage{})}
}

type connector struct {
	kube  client.Client
	usage providerconfig.Tracker
}

// Connect resolves the ProviderConfig and its argocd section and reads the
// credentials, so configuration mistakes are reported now.
func (c *connector) Connect(ctx context.Context, cr *v1alpha1.ArgoApplication) (managed.TypedExternalClient[*v1alpha1.ArgoApplication], error) {
	pc, section, err := providerconfig.Section(ctx, c.kube, c.usage, cr, "argocd", func(s *pcv1alpha1.ProviderConfigSpec) *pcv1alpha1.ArgoCDConfig { return s.ArgoCD })
	if err != nil {
		return nil, err
	}
	if _, err := pc.Credentials(ctx, c.kube, "spec.argocd.credentials", section.Credentials); err != nil {
		return nil, err
	}
	return nil, errors.New(errNotImplemented)
}

package mrcontroller

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/providerconfig"
)

const errFmtNotImplemented = "the %s backend is not implemented in this provider version: the resource was not reconciled"

// Backend says which ProviderConfig section a kind uses.
type Backend[S any] struct {
	// Name of the backend for messages ("Argo CD").
	Name string
	// Section is the field name in the ProviderConfig spec ("argocd").
	Section string
	// Pick selects the section; Credentials its credentials.
	Pick        func(*v1alpha1.ProviderConfigSpec) *S
	Credentials func(*S) v1alpha1.Credentials
}

// UnimplementedConnector is the connector of a kind whose backend client is
// not written yet. It does everything a real Connect does first, so
// configuration mistakes are reported now, then says plainly in the Synced
// condition that the backend is not implemented: it never pretends to have
// reconciled.
func UnimplementedConnector[T resource.ModernManaged, S any](kube client.Client, b Backend[S]) managed.TypedExternalConnector[T] {
	usage := resource.NewProviderConfigUsageTracker(kube, &v1alpha1.ProviderConfigUsage{})
	return managed.TypedExternalConnectorFn[T](func(ctx context.Context, mg T) (managed.TypedExternalClient[T], error) {
		pc, s, err := providerconfig.Section(ctx, kube, usage, mg, b.Section, b.Pick)
		if err != nil {
			return nil, err
		}
		if _, err := pc.Credentials(ctx, kube, "spec."+b.Section+".credentials", b.Credentials(s)); err != nil {
			return nil, err
		}
		return nil, errors.Errorf(errFmtNotImplemented, b.Name)
	})
}

// Package dnsrecord reconciles DNSRecord managed resources against DNS.
package dnsrecord

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/providerconfig"
)

// errNotImplemented is what a DNSRecord says in its Synced condition until the DNS
// client is part of the provider: it never pretends to have reconciled.
const errNotImplemented = "the DNS backend is not implemented in this provider version: the DNSRecord was not reconciled"

// Kind describes the DNSRecord kind to the shared controller setup.
var Kind = mrcontroller.Kind[*v1alpha1.DNSRecord]{
	GroupKind:        v1alpha1.DNSRecordGroupKind,
	GroupVersionKind: v1alpha1.DNSRecordGroupVersionKind,
	New:              func() *v1alpha1.DNSRecord { return &v1alpha1.DNSRecord{} },
	NewList:          func() resource.ManagedList { return &v1alpha1.DNSRecordList{} },
}

// SetupGated adds the DNSRecord controller once its CRD is established.
func SetupGated(mgr ctrl.Manager, o controller.Options) error {
	return mrcontroller.SetupGated(mgr, o, Kind, NewConnector(mgr.GetClient()))
}

// NewConnector returns the connector the DNSRecord controller uses.
func NewConnector(kube client.Client) managed.TypedExternalConnector[*v1alpha1.DNSRecord] {
	return &connector{kube: kube, usage: resource.NewProviderConfigUsageTracker(kube, &pcv1alpha1.ProviderConfigUsage{})}
}

type connector struct {
	kube  client.Client
	usage providerconfig.Tracker
}

// Connect resolves the ProviderConfig and its dns section and reads the
// credentials, so configuration mistakes are reported now.
func (c *connector) Connect(ctx context.Context, cr *v1alpha1.DNSRecord) (managed.TypedExternalClient[*v1alpha1.DNSRecord], error) {
	pc, section, err := providerconfig.Section(ctx, c.kube, c.usage, cr, "dns", func(s *pcv1alpha1.ProviderConfigSpec) *pcv1alpha1.DNSConfig { return s.DNS })
	if err != nil {
		return nil, err
	}
	if _, err := pc.Credentials(ctx, c.kube, "spec.dns.credentials", section.Credentials); err != nil {
		return nil, err
	}
	return nil, errors.New(errNotImplemented)
}

// Package dnsrecord reconciles DNSRecord managed resources against DNS.
package dnsrecord

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
)

// Kind describes the DNSRecord kind to the shared controller setup.
var Kind = mrcontroller.Kind[*v1alpha1.DNSRecord]{
	GroupKind:        v1alpha1.DNSRecordGroupKind,
	GroupVersionKind: v1alpha1.DNSRecordGroupVersionKind,
	New:              func() *v1alpha1.DNSRecord { return &v1alpha1.DNSRecord{} },
	NewList:          func() resource.ManagedList { return &v1alpha1.DNSRecordList{} },
}

// SetupGated adds the DNSRecord controller once its CRD is established. Until the
// DNS client lands, its connector reports that the backend is not implemented.
func SetupGated(mgr ctrl.Manager, o controller.Options) error {
	return mrcontroller.SetupGated(mgr, o, Kind, mrcontroller.UnimplementedConnector[*v1alpha1.DNSRecord](mgr.GetClient(), mrcontroller.Backend[pcv1alpha1.DNSConfig]{
		Name:        "DNS",
		Section:     "dns",
		Pick:        func(s *pcv1alpha1.ProviderConfigSpec) *pcv1alpha1.DNSConfig { return s.DNS },
		Credentials: func(s *pcv1alpha1.DNSConfig) pcv1alpha1.Credentials { return s.Credentials },
	}))
}

// Package controller registers all of the provider's controllers.
package controller

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"

	"github.com/freeleaps/provider-devops/internal/controller/argoapplication"
	"github.com/freeleaps/provider-devops/internal/controller/dnsrecord"
	"github.com/freeleaps/provider-devops/internal/controller/jenkinspipeline"
	"github.com/freeleaps/provider-devops/internal/controller/providerconfig"
	"github.com/freeleaps/provider-devops/internal/controller/registryrepo"
)

// SetupGated adds the config controllers now and each managed-resource
// controller once its CRD is established (safe-start).
func SetupGated(mgr ctrl.Manager, o controller.Options) error {
	for _, setup := range []func(ctrl.Manager, controller.Options) error{
		providerconfig.Setup,
		jenkinspipeline.SetupGated,
		argoapplication.SetupGated,
		dnsrecord.SetupGated,
		registryrepo.SetupGated,
	} {
		if err := setup(mgr, o); err != nil {
			return err
		}
	}
	return nil
}

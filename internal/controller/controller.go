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

// Package controller registers all of the provider's controllers.
package controller

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"

	"github.com/freeleaps/provider-devops/internal/controller/argoapplication"
	"github.com/freeleaps/provider-devops/internal/controller/argoproject"
	"github.com/freeleaps/provider-devops/internal/controller/argorepository"
	"github.com/freeleaps/provider-devops/internal/controller/dnsrecord"
	"github.com/freeleaps/provider-devops/internal/controller/jenkinspipeline"
	"github.com/freeleaps/provider-devops/internal/controller/config"
	"github.com/freeleaps/provider-devops/internal/controller/registryrepo"
)

// Config is what the provider's flags tell the controllers.
type Config struct {
	// OwnerID identifies this control plane in the ownership records it
	// writes (DNS), so two control planes sharing a zone never touch each
	// other's records. "" means "default".
	OwnerID string
}

// SetupGated adds the config controllers now and each managed-resource
// controller once its CRD is established (safe-start).
func SetupGated(mgr ctrl.Manager, o controller.Options, cfg Config) error {
	for _, setup := range []func(ctrl.Manager, controller.Options) error{
		config.Setup,
		jenkinspipeline.SetupGated,
		argoapplication.SetupGated,
		argoproject.SetupGated,
		argorepository.SetupGated,
		func(mgr ctrl.Manager, o controller.Options) error { return dnsrecord.SetupGated(mgr, o, cfg.OwnerID) },
		registryrepo.SetupGated,
	} {
		if err := setup(mgr, o); err != nil {
			return err
		}
	}
	return nil
}

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
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	dnsv1alpha1 "github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	forgev1alpha1 "github.com/freeleaps/provider-devops/apis/forge/v1alpha1"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	registryv1alpha1 "github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
	apisv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"

	"github.com/freeleaps/provider-devops/internal/clients/netguard"
	"github.com/freeleaps/provider-devops/internal/controller/argoapplication"
	"github.com/freeleaps/provider-devops/internal/controller/argoproject"
	"github.com/freeleaps/provider-devops/internal/controller/argorepository"
	"github.com/freeleaps/provider-devops/internal/controller/config"
	"github.com/freeleaps/provider-devops/internal/controller/deployrun"
	"github.com/freeleaps/provider-devops/internal/controller/dnsrecord"
	"github.com/freeleaps/provider-devops/internal/controller/forgerepository"
	"github.com/freeleaps/provider-devops/internal/controller/jenkinscredential"
	"github.com/freeleaps/provider-devops/internal/controller/jenkinspipeline"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/controller/registryrepo"
	"github.com/freeleaps/provider-devops/internal/events/vocab"
)

// Config is what the provider's flags tell the controllers.
type Config struct {
	// OwnerID identifies this control plane in the ownership records it
	// writes (DNS), so two control planes sharing a zone never touch each
	// other's records. "" means "default".
	OwnerID string
	// DeployHistory is how many finished DeployRuns of each environment
	// are kept (deployrun.DefaultKeep when 0).
	DeployHistory int
	// DeployHTTPCheck makes a DeployRun GET the live URL before it
	// succeeds.
	DeployHTTPCheck bool
	// WatchCredentialSecrets reconciles a JenkinsCredential as soon as its
	// Secret changes (a metadata watch of every Secret); false: at the
	// next poll.
	WatchCredentialSecrets bool
	// Guard is the platform's rule for the backends namespaced
	// ProviderConfigs name (--tenant-backend-hosts and
	// --tenant-backend-networks); nil is the strictest: any host name,
	// public addresses only.
	Guard *netguard.Guard
}

// Kinds are the provider's managed kinds, each with its connector: the one
// list that drives both their controllers and their lifecycle events.
func Kinds(cfg Config) []mrcontroller.Registration {
	credentials := jenkinscredential.Descriptor
	if cfg.WatchCredentialSecrets {
		credentials = jenkinscredential.WithSecretWatch(credentials)
	}
	return []mrcontroller.Registration{
		mrcontroller.Register(jenkinspipeline.Descriptor, func(mgr ctrl.Manager) managed.TypedExternalConnector[*jenkinsv1alpha1.JenkinsPipeline] {
			return jenkinspipeline.NewConnector(mgr.GetClient(), cfg.Guard, nil)
		}),
		mrcontroller.Register(credentials, func(mgr ctrl.Manager) managed.TypedExternalConnector[*jenkinsv1alpha1.JenkinsCredential] {
			return jenkinscredential.NewConnector(mgr.GetClient(), cfg.Guard, nil)
		}),
		mrcontroller.Register(argoapplication.Descriptor, func(mgr ctrl.Manager) managed.TypedExternalConnector[*argov1alpha1.ArgoApplication] {
			return argoapplication.NewConnector(mgr.GetClient(), cfg.Guard, nil)
		}),
		mrcontroller.Register(argoproject.Descriptor, func(mgr ctrl.Manager) managed.TypedExternalConnector[*argov1alpha1.ArgoProject] {
			return argoproject.NewConnector(mgr.GetClient(), cfg.Guard, nil)
		}),
		mrcontroller.Register(argorepository.Descriptor, func(mgr ctrl.Manager) managed.TypedExternalConnector[*argov1alpha1.ArgoRepository] {
			return argorepository.NewConnector(mgr.GetClient(), cfg.Guard, nil)
		}),
		mrcontroller.Register(dnsrecord.Descriptor, func(mgr ctrl.Manager) managed.TypedExternalConnector[*dnsv1alpha1.DNSRecord] {
			return dnsrecord.NewConnector(mgr.GetClient(), cfg.Guard, nil, cfg.OwnerID)
		}),
		mrcontroller.Register(registryrepo.Descriptor, func(mgr ctrl.Manager) managed.TypedExternalConnector[*registryv1alpha1.RegistryRepo] {
			return registryrepo.NewConnector(mgr.GetClient(), cfg.Guard, nil)
		}),
		mrcontroller.Register(forgerepository.Descriptor, func(mgr ctrl.Manager) managed.TypedExternalConnector[*forgev1alpha1.ForgeRepository] {
			return forgerepository.NewConnector(mgr.GetClient(), cfg.Guard, nil)
		}),
	}
}

// Events are the kinds as the event stream knows them.
func Events(kinds []mrcontroller.Registration) []vocab.Kind {
	out := make([]vocab.Kind, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, k.Events())
	}
	return out
}

// SetupGated is SetupKinds with Kinds(cfg).
func SetupGated(mgr ctrl.Manager, o controller.Options, cfg Config) error {
	return SetupKinds(mgr, o, cfg, Kinds(cfg))
}

// SetupKinds adds the config controllers now and each managed-resource
// controller of kinds once its CRD is established (safe-start). A
// managed-resource controller that cannot be set up then stops the
// provider.
func SetupKinds(mgr ctrl.Manager, o controller.Options, cfg Config, kinds []mrcontroller.Registration) error {
	if err := config.Setup(mgr, o); err != nil {
		return err
	}
	// DeployRuns are not managed resources: their CRD ships with the
	// provider and is not activated through a ManagedResourceDefinition.
	opts := deployrun.Options{Keep: cfg.DeployHistory, Guard: cfg.Guard}
	if cfg.DeployHTTPCheck {
		opts.HTTPCheck = deployrun.NewHTTPCheckClient(cfg.Guard)
	}
	// Set up once the DeployRun CRD is served: its index needs the kind's
	// REST mapping.
	o.Gate.Register(func() {
		if err := deployrun.Setup(mgr, o, opts); err != nil {
			panic(errors.Wrap(err, "cannot set up the DeployRun controller"))
		}
	}, apisv1alpha1.DeployRunGroupVersionKind)
	for _, k := range kinds {
		mrcontroller.SetupGated(mgr, o, k)
	}
	return nil
}

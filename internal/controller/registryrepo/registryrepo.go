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

// Package registryrepo reconciles RegistryRepo managed resources: one
// container image repository on Docker Hub, Harbor or an OCI registry.
package registryrepo

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/netguard"
	"github.com/freeleaps/provider-devops/internal/clients/registry"
	"github.com/freeleaps/provider-devops/internal/clients/retryafter"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
)

const errNewClient = "cannot create the registry client from ProviderConfig"

// Descriptor describes the RegistryRepo kind to the shared controller setup.
var Descriptor = mrcontroller.Descriptor[*v1alpha1.RegistryRepo]{ //nolint:gochecknoglobals // read-only descriptor of the kind
	GroupKind:        v1alpha1.RegistryRepoGroupKind,
	GroupVersionKind: v1alpha1.RegistryRepoGroupVersionKind,
	New:              func() *v1alpha1.RegistryRepo { return &v1alpha1.RegistryRepo{} },
	NewList:          func() resource.ManagedList { return &v1alpha1.RegistryRepoList{} },
	ExternalName:     (*v1alpha1.RegistryRepo).DefaultExternalName,
	URL:              func(cr *v1alpha1.RegistryRepo) string { return cr.Status.AtProvider.URL },
}

// NewConnector returns the connector. guard is the platform's rule for
// namespaced configs' connections; newClient builds the registry client,
// nil means the real one.
func NewConnector(kube client.Client, guard *netguard.Guard, newClient func(registry.Config) (registry.Client, error)) managed.TypedExternalConnector[*v1alpha1.RegistryRepo] {
	if newClient == nil {
		newClient = registry.New
	}
	return &connector{
		kube:       kube,
		configs:    backendconfig.Resolver{Kube: kube, Usage: backendconfig.NewUsageTracker(kube), Guard: guard},
		newClient:  newClient,
		retryAfter: retryafter.New(nil),
		transports: httpapi.NewTransports(),
		cache:      registry.NewCache(),
	}
}

type connector struct {
	kube    client.Client
	configs backendconfig.Resolver
	// retryAfter, transports and cache are shared by this controller's
	// clients: a Retry-After holds all resources using that server, a
	// poll reuses the last one's connections, tokens and sessions.
	retryAfter *retryafter.Gate
	transports *httpapi.Transports
	cache      *registry.Cache
	newClient  func(registry.Config) (registry.Client, error)
}

// Connect reads the ProviderConfig's registry section and credentials.
func (c *connector) Connect(ctx context.Context, cr *v1alpha1.RegistryRepo) (managed.TypedExternalClient[*v1alpha1.RegistryRepo], error) {
	pc, s, err := backendconfig.Section(ctx, c.configs, cr, "registry", func(s *pcv1alpha1.ProviderConfigSpec) *pcv1alpha1.RegistryConfig { return s.Registry })
	if err != nil {
		return nil, err
	}
	// Through a ClusterProviderConfig a namespace may manage only the
	// repositories it allows, and adopt none unless it says so: anything
	// else is refused before the registry is touched, and let go
	// untouched on delete.
	tenancy := TenancyOf(pc, s, cr.GetNamespace())
	if err := tenancy.Check(cr.Spec.ForProvider); err != nil {
		return mrcontroller.Refused[*v1alpha1.RegistryRepo](err), nil
	}
	data, err := pc.Credentials(ctx, c.kube, "spec.registry.credentials", s.Credentials)
	if err != nil {
		return nil, err
	}
	creds, err := registry.ParseCredentials(data)
	if err != nil {
		return nil, errors.Wrapf(err, "%s %s", errNewClient, pc)
	}
	cl, err := c.newClient(registry.Config{Kind: string(s.Kind), URL: s.URL, Username: creds.Username, Password: creds.Password, TLS: pc.TLS(s.TLSConfig), RetryAfter: c.retryAfter, Transports: c.transports, Cache: c.cache})
	if err != nil {
		return nil, errors.Wrapf(err, "%s %s", errNewClient, pc)
	}
	return &external{client: cl, kube: c.kube, tenancy: tenancy}, nil
}

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

// Package argoproject reconciles ArgoProject managed resources: Argo CD
// AppProjects, through the Argo CD API.
package argoproject

import (
	"context"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/clients/netguard"
	"github.com/freeleaps/provider-devops/internal/controller/argoaccess"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
)

// Descriptor describes the ArgoProject kind to the shared controller setup.
var Descriptor = mrcontroller.Descriptor[*v1alpha1.ArgoProject]{ //nolint:gochecknoglobals // read-only descriptor of the kind
	GroupKind:        v1alpha1.ArgoProjectGroupKind,
	GroupVersionKind: v1alpha1.ArgoProjectGroupVersionKind,
	New:              func() *v1alpha1.ArgoProject { return &v1alpha1.ArgoProject{} },
	NewList:          func() resource.ManagedList { return &v1alpha1.ArgoProjectList{} },
	URL:              func(cr *v1alpha1.ArgoProject) string { return cr.Status.AtProvider.URL },
}

// Client is the part of the Argo CD API the controller uses.
type Client interface {
	GetProject(ctx context.Context, name string) (*argocd.Project, error)
	CreateProject(ctx context.Context, p *argocd.Project) error
	UpdateProject(ctx context.Context, p *argocd.Project) error
	DeleteProject(ctx context.Context, name string) error
}

// NewConnector returns the connector. guard is the platform's rule for
// namespaced configs' connections; newClient builds the Argo CD client, nil
// means the real one.
func NewConnector(kube client.Client, guard *netguard.Guard, newClient func(argocd.Config) (Client, error)) managed.TypedExternalConnector[*v1alpha1.ArgoProject] {
	if newClient == nil {
		newClient = func(cfg argocd.Config) (Client, error) { return argoaccess.Real(cfg) }
	}
	return &connector{argoaccess.NewConnector(kube, guard, newClient)}
}

type connector struct {
	*argoaccess.Connector[Client]
}

// Connect reads the ProviderConfig's argocd section and token.
func (c *connector) Connect(ctx context.Context, cr *v1alpha1.ArgoProject) (managed.TypedExternalClient[*v1alpha1.ArgoProject], error) {
	conn, err := c.Connector.Connect(ctx, cr)
	if err != nil {
		return nil, err
	}
	// Through a ClusterProviderConfig the project's name, destinations,
	// source repositories and cluster-scoped kinds are bounded; anything
	// else is refused before Argo CD sees it, and let go untouched on
	// delete.
	if err := conn.Tenancy.CheckProjectSpec(cr.Spec.ForProvider); err != nil {
		return mrcontroller.Refused[*v1alpha1.ArgoProject](err), nil
	}
	// A name the tenancy does not allow is refused by Observe, on the
	// one read it makes, unless the resource already holds that project.
	return &external{client: conn.Client, server: strings.TrimSuffix(conn.Server, "/"), tenancy: conn.Tenancy,
		nameRefused: conn.Tenancy.CheckProjectName(meta.GetExternalName(cr))}, nil
}

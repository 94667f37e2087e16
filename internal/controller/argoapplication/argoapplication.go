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

// Package argoapplication reconciles ArgoApplication managed resources against
// the Argo CD API.
package argoapplication

import (
	"cmp"
	"context"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/clients/netguard"
	"github.com/freeleaps/provider-devops/internal/controller/argoaccess"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/events/vocab"
)

// Descriptor describes the ArgoApplication kind to the shared controller setup.
var Descriptor = mrcontroller.Descriptor[*v1alpha1.ArgoApplication]{ //nolint:gochecknoglobals // read-only descriptor of the kind
	GroupKind:        v1alpha1.ArgoApplicationGroupKind,
	GroupVersionKind: v1alpha1.ArgoApplicationGroupVersionKind,
	New:              func() *v1alpha1.ArgoApplication { return &v1alpha1.ArgoApplication{} },
	NewList:          func() resource.ManagedList { return &v1alpha1.ArgoApplicationList{} },
	Busy: func(cr *v1alpha1.ArgoApplication) bool {
		w := Work(cr.Status.AtProvider)
		return w != nil && w.Running
	},
	URL:  func(cr *v1alpha1.ArgoApplication) string { return cr.Status.AtProvider.URL },
	Work: func(cr *v1alpha1.ArgoApplication) *vocab.Work { return Work(cr.Status.AtProvider) },
}

// Client is the part of the Argo CD API the controller uses.
type Client interface {
	Get(ctx context.Context, name string) (*argocd.Application, error)
	Create(ctx context.Context, app *argocd.Application) (*argocd.Application, error)
	Patch(ctx context.Context, name string, mergePatch []byte) (*argocd.Application, error)
	Delete(ctx context.Context, name, project string, cascade bool) error
	// GetProject reads the application's project, to check through a
	// ClusterProviderConfig that it is the namespace's own.
	GetProject(ctx context.Context, name string) (*argocd.Project, error)
}

// NewConnector returns the connector. guard is the platform's rule for
// namespaced configs' connections; newClient builds the Argo CD client, nil
// means the real one.
func NewConnector(kube client.Client, guard *netguard.Guard, newClient func(argocd.Config) (Client, error)) managed.TypedExternalConnector[*v1alpha1.ArgoApplication] {
	if newClient == nil {
		newClient = func(cfg argocd.Config) (Client, error) { return argoaccess.Real(cfg) }
	}
	return &connector{argoaccess.NewConnector(kube, guard, newClient)}
}

type connector struct{ *argoaccess.Connector[Client] }

// Connect reads the ProviderConfig's argocd section and token.
func (c *connector) Connect(ctx context.Context, cr *v1alpha1.ArgoApplication) (managed.TypedExternalClient[*v1alpha1.ArgoApplication], error) {
	conn, err := c.Connector.Connect(ctx, cr)
	if err != nil {
		return nil, err
	}
	return &external{client: conn.Client, server: conn.Server, tenancy: conn.Tenancy}, nil
}

// Work is the application's sync in progress, or how the last one ended.
func Work(o v1alpha1.ArgoApplicationObservation) *vocab.Work {
	id := ""
	if o.Revision != "" {
		id = "sync to " + o.Revision
	}
	switch {
	case o.OperationPhase == "Running" || o.OperationPhase == "Terminating":
		return &vocab.Work{ID: id, Running: true, Status: vocab.StatusRunning, Phase: o.OperationPhase, Message: "sync " + strings.ToLower(o.OperationPhase) + messageSuffix(o.OperationMessage)}
	case o.HealthStatus == "Progressing":
		return &vocab.Work{ID: id, Running: true, Status: vocab.StatusRunning, Phase: o.HealthStatus, Message: "application progressing" + messageSuffix(o.HealthMessage)}
	case o.OperationPhase == "Failed" || o.OperationPhase == "Error":
		return &vocab.Work{ID: id, Status: vocab.StatusFailed, Phase: o.OperationPhase, Message: "sync " + strings.ToLower(o.OperationPhase) + messageSuffix(o.OperationMessage)}
	case o.HealthStatus == "Degraded":
		return &vocab.Work{ID: id, Status: vocab.StatusFailed, Phase: o.HealthStatus, Message: "application degraded" + messageSuffix(o.HealthMessage)}
	case o.OperationPhase == "" && o.HealthStatus == "":
		return nil
	}
	// Finished runs carry no id: a completed event follows only a run seen
	// in progress, never a poll.
	return &vocab.Work{Status: vocab.StatusSucceeded, Phase: cmp.Or(o.OperationPhase, o.HealthStatus), Message: "synced to " + cmp.Or(o.Revision, "the target revision") + ", health " + cmp.Or(o.HealthStatus, "unknown")}
}

func messageSuffix(m string) string {
	if m == "" {
		return ""
	}
	return ": " + m
}

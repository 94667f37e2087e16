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

// Package argorepository reconciles ArgoRepository managed resources: Argo
// CD repositories and their credentials, scoped to one AppProject, through
// the Argo CD API.
package argorepository

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/clients/netguard"
	"github.com/freeleaps/provider-devops/internal/controller/argoaccess"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
)

const (
	errFmtGetSecret     = "spec.forProvider.credentialsSecretRef: cannot get Secret %s/%s"
	errFmtSecretMissing = "spec.forProvider.credentialsSecretRef: Secret %s/%s not found"
)

// Descriptor describes the ArgoRepository kind to the shared controller setup.
// The external name is the repository URL.
var Descriptor = mrcontroller.Descriptor[*v1alpha1.ArgoRepository]{ //nolint:gochecknoglobals // read-only descriptor of the kind
	GroupKind:        v1alpha1.ArgoRepositoryGroupKind,
	GroupVersionKind: v1alpha1.ArgoRepositoryGroupVersionKind,
	New:              func() *v1alpha1.ArgoRepository { return &v1alpha1.ArgoRepository{} },
	NewList:          func() resource.ManagedList { return &v1alpha1.ArgoRepositoryList{} },
	ExternalName:     (*v1alpha1.ArgoRepository).DefaultExternalName,
	// The URL is the repository's, which holds no credential (the schema
	// refuses userinfo in https URLs).
	URL: func(cr *v1alpha1.ArgoRepository) string { return cr.Spec.ForProvider.URL },
}

// Client is the part of the Argo CD API the controller uses.
type Client interface {
	GetRepository(ctx context.Context, repo, project string, refresh bool) (*argocd.Repository, error)
	CreateRepository(ctx context.Context, r *argocd.Repository) error
	UpdateRepository(ctx context.Context, r *argocd.Repository) error
	DeleteRepository(ctx context.Context, repo, project string) error
	argoaccess.ProjectGetter
}

// NewConnector returns the connector. guard is the platform's rule for
// namespaced configs' connections; newClient builds the Argo CD client, nil
// means the real one.
func NewConnector(kube client.Client, guard *netguard.Guard, newClient func(argocd.Config) (Client, error), opts ...ConnectorOption) managed.TypedExternalConnector[*v1alpha1.ArgoRepository] {
	if newClient == nil {
		newClient = func(cfg argocd.Config) (Client, error) { return argoaccess.Real(cfg) }
	}
	c := &connector{Connector: argoaccess.NewConnector(kube, guard, newClient), kube: kube, refresh: NewRefreshLimiter(RefreshEvery, time.Now)}
	for _, o := range opts {
		o(c)
	}
	return c
}

// A ConnectorOption configures the connector.
type ConnectorOption func(*connector)

// WithRefreshEvery sets how often at most a forced connection test is
// asked of one Argo CD (default RefreshEvery).
func WithRefreshEvery(d time.Duration) ConnectorOption {
	return func(c *connector) { c.refresh = NewRefreshLimiter(d, time.Now) }
}

type connector struct {
	*argoaccess.Connector[Client]
	kube    client.Client
	refresh *RefreshLimiter
}

// RefreshEvery is how often at most the provider asks Argo CD to test its
// repositories' connections again. Argo CD's forceRefresh tests every
// repository the token can see, not one, so a tenant rewriting its
// credentials in a loop must not make it test all of them in that loop.
const RefreshEvery = time.Minute

// RefreshLimiter lets a forced refresh through at most once per interval
// per Argo CD server; one refresh updates every repository's cached state.
type RefreshLimiter struct {
	mu    sync.Mutex
	every time.Duration
	now   func() time.Time
	last  map[string]time.Time
}

// NewRefreshLimiter returns a limiter allowing one refresh per every.
func NewRefreshLimiter(every time.Duration, now func() time.Time) *RefreshLimiter {
	return &RefreshLimiter{every: every, now: now, last: map[string]time.Time{}}
}

// Allow is true, and counts a refresh, when server's last one is at least
// the interval ago.
func (l *RefreshLimiter) Allow(server string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if last, ok := l.last[server]; ok && now.Sub(last) < l.every {
		return false
	}
	l.last[server] = now
	return true
}

// Connect reads the ProviderConfig's argocd section and token.
func (c *connector) Connect(ctx context.Context, cr *v1alpha1.ArgoRepository) (managed.TypedExternalClient[*v1alpha1.ArgoRepository], error) {
	conn, err := c.Connector.Connect(ctx, cr)
	if err != nil {
		return nil, err
	}
	server := conn.Server
	return &external{client: conn.Client, secrets: secretReader{kube: c.kube}, tenancy: conn.Tenancy, now: time.Now,
		mayRefresh: func() bool { return c.refresh.Allow(server) }}, nil
}

// secretReader reads a repository's credentials Secret from the resource's
// own namespace, straight from the API server (no cluster-wide cache).
type secretReader struct{ kube client.Reader }

func (r secretReader) Secret(ctx context.Context, namespace, name string) (*corev1.Secret, error) {
	s := &corev1.Secret{}
	if err := r.kube.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, s); err != nil {
		if kerrors.IsNotFound(err) {
			return nil, errors.Errorf(errFmtSecretMissing, namespace, name)
		}
		return nil, errors.Wrapf(err, errFmtGetSecret, namespace, name)
	}
	return s, nil
}

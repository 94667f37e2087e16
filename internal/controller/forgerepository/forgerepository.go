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

// Package forgerepository reconciles ForgeRepository managed resources: one
// repository on a Gitea or Forgejo forge, whose open pull requests it
// lists and on which it posts commit statuses and one comment each.
package forgerepository

import (
	"context"
	"crypto/sha256"
	"strings"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/forge/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
	"github.com/freeleaps/provider-devops/internal/clients/gitea"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/netguard"
	"github.com/freeleaps/provider-devops/internal/clients/retryafter"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
)

const (
	errNewClient = "cannot create the forge client from"
	errUser      = "cannot read the login of the forge token (the author of the comments)"
)

// Descriptor describes the ForgeRepository kind to the shared controller
// setup.
var Descriptor = mrcontroller.Descriptor[*v1alpha1.ForgeRepository]{ //nolint:gochecknoglobals // read-only descriptor of the kind
	GroupKind:        v1alpha1.ForgeRepositoryGroupKind,
	GroupVersionKind: v1alpha1.ForgeRepositoryGroupVersionKind,
	New:              func() *v1alpha1.ForgeRepository { return &v1alpha1.ForgeRepository{} },
	NewList:          func() resource.ManagedList { return &v1alpha1.ForgeRepositoryList{} },
	ExternalName:     (*v1alpha1.ForgeRepository).DefaultExternalName,
	// Always busy: a forge tells nobody of a new pull request (webhooks
	// would need an endpoint every forge can reach), so a Ready resource
	// is polled every mrcontroller.NotReadyPollInterval (15 s), and a
	// pull request opened is listed within about that. A poll that finds
	// nothing new is one read and no write.
	Busy: func(*v1alpha1.ForgeRepository) bool { return true },
}

// Client is what the controller needs of the forge (gitea.Client).
type Client interface {
	OpenPullRequests(ctx context.Context, repo string) ([]gitea.PullRequest, error)
	SetStatus(ctx context.Context, repo, sha string, s gitea.Status) error
	UpsertComment(ctx context.Context, repo string, number, id int64, author, marker, body string) (int64, error)
	User(ctx context.Context) (string, error)
}

// NewConnector returns the connector. guard is the platform's rule for
// namespaced configs' connections; newClient builds the forge client, nil
// means the real one.
func NewConnector(kube client.Client, guard *netguard.Guard, newClient func(gitea.Config) (Client, error)) managed.TypedExternalConnector[*v1alpha1.ForgeRepository] {
	if newClient == nil {
		newClient = func(cfg gitea.Config) (Client, error) { return gitea.New(cfg) }
	}
	return &connector{
		kube:       kube,
		configs:    backendconfig.Resolver{Kube: kube, Usage: backendconfig.NewUsageTracker(kube), Guard: guard},
		newClient:  newClient,
		retryAfter: retryafter.New(nil),
		transports: httpapi.NewTransports(),
		logins:     &logins{m: map[loginKey]string{}},
	}
}

type connector struct {
	kube    client.Client
	configs backendconfig.Resolver
	// retryAfter and transports are shared by this controller's clients:
	// a Retry-After holds all resources using that forge, a poll reuses
	// the last one's connections.
	retryAfter *retryafter.Gate
	transports *httpapi.Transports
	logins     *logins
	newClient  func(gitea.Config) (Client, error)
}

// Connect reads the ProviderConfig's forge section and token.
func (c *connector) Connect(ctx context.Context, cr *v1alpha1.ForgeRepository) (managed.TypedExternalClient[*v1alpha1.ForgeRepository], error) {
	pc, s, err := backendconfig.Section(ctx, c.configs, cr, "forge", func(s *pcv1alpha1.ProviderConfigSpec) *pcv1alpha1.ForgeConfig { return s.Forge })
	if err != nil {
		return nil, err
	}
	// Through a ClusterProviderConfig, whose token is the platform's, a
	// namespace may watch and write only the repositories its tenancy
	// names, and no fork's pull request unless the platform allows it:
	// anything else is refused before the forge is touched.
	tenancy := TenancyOf(pc, s, cr.GetNamespace())
	if err := tenancy.Check(cr.Spec.ForProvider); err != nil {
		return mrcontroller.Refused[*v1alpha1.ForgeRepository](err), nil
	}
	data, err := pc.Credentials(ctx, c.kube, "spec.forge.credentials", s.Credentials)
	if err != nil {
		return nil, err
	}
	token := strings.TrimSpace(string(data))
	cl, err := c.newClient(gitea.Config{URL: s.URL, Token: token, TLS: pc.TLS(s.TLSConfig), RetryAfter: c.retryAfter, Transports: c.transports})
	if err != nil {
		return nil, errors.Wrapf(err, "%s %s", errNewClient, pc)
	}
	key := loginKey{url: strings.TrimSuffix(s.URL, "/"), token: sha256.Sum256([]byte(token))}
	return &external{client: cl, forge: s.URL, forks: tenancy.ForksAllowed(), login: func(ctx context.Context) (string, error) {
		return c.logins.get(ctx, key, cl)
	}}, nil
}

// loginKey names a token on a forge without holding it: its digest.
type loginKey struct {
	url   string
	token [sha256.Size]byte
}

// logins caches the login each token authenticates, the author whose
// comments UpsertComment edits: asking the forge on every poll would
// double the reads for an answer that changes only with the token.
type logins struct {
	mu sync.Mutex
	m  map[loginKey]string
}

func (l *logins) get(ctx context.Context, k loginKey, c Client) (string, error) {
	l.mu.Lock()
	login, ok := l.m[k]
	l.mu.Unlock()
	if ok {
		return login, nil
	}
	login, err := c.User(ctx)
	if err != nil {
		return "", errors.Wrap(err, errUser)
	}
	l.mu.Lock()
	if len(l.m) >= maxLogins {
		// Rotated tokens leave their entries behind: start over rather
		// than grow without bound.
		clear(l.m)
	}
	l.m[k] = login
	l.mu.Unlock()
	return login, nil
}

// maxLogins bounds the logins cached: far more than the forges and tokens
// one provider's configs name.
const maxLogins = 1024

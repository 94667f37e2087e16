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

package argoaccess

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/url"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/netguard"
	"github.com/freeleaps/provider-devops/internal/clients/retryafter"
)

const errNewClient = "cannot create the Argo CD client from ProviderConfig"

// Connector connects a resource of any Argo CD kind to Argo CD through a
// client of type C.
type Connector[C any] struct {
	kube    client.Client
	configs backendconfig.Resolver
	// retryAfter and transports are shared by every client this
	// connector builds: a Retry-After holds all resources using that
	// server, and a poll reuses the last one's connections.
	retryAfter *retryafter.Gate
	transports *httpapi.Transports
	newClient  func(argocd.Config) (C, error)
}

// NewConnector returns a connector. guard is the platform's rule for
// namespaced configs' connections; newClient builds the Argo CD client (a
// kind that uses the real one passes Real).
func NewConnector[C any](kube client.Client, guard *netguard.Guard, newClient func(argocd.Config) (C, error)) *Connector[C] {
	return &Connector[C]{
		kube:       kube,
		configs:    backendconfig.Resolver{Kube: kube, Usage: backendconfig.NewUsageTracker(kube), Guard: guard},
		newClient:  newClient,
		retryAfter: retryafter.New(nil),
		transports: httpapi.NewTransports(),
	}
}

// Real builds the real Argo CD client.
func Real(cfg argocd.Config) (*argocd.Client, error) { return argocd.New(cfg) }

// Conn is a connection of any Argo CD kind to its Argo CD.
type Conn[C any] struct {
	Client C
	// Server is the Argo CD URL without userinfo, for links in status.
	Server string
	// Tenancy bounds the resource when its config is a
	// ClusterProviderConfig; nil otherwise.
	Tenancy *Tenancy
}

// Connect builds the Argo CD client of mr from its ProviderConfig's argocd
// section and token.
func (c *Connector[C]) Connect(ctx context.Context, mr resource.ModernManaged) (Conn[C], error) {
	var zero Conn[C]
	pc, s, err := backendconfig.Section(ctx, c.configs, mr, "argocd", func(s *pcv1alpha1.ProviderConfigSpec) *pcv1alpha1.ArgoCDConfig { return s.ArgoCD })
	if err != nil {
		return zero, err
	}
	token, err := pc.Credentials(ctx, c.kube, "spec.argocd.credentials", s.Credentials)
	if err != nil {
		return zero, err
	}
	cl, err := c.newClient(argocd.Config{URL: s.URL, Token: string(token), TLS: pc.TLS(s.TLSConfig), Namespace: s.Namespace, RetryAfter: c.retryAfter, Transports: c.transports})
	if err != nil {
		return zero, errors.Wrapf(err, "%s %s", errNewClient, pc)
	}
	return Conn[C]{Client: cl, Server: withoutUserinfo(s.URL), Tenancy: TenancyOf(pc, s, mr.GetNamespace())}, nil
}

// withoutUserinfo drops user:password@ from a URL: the Argo CD URL is shown
// in status and on the event stream, and must never carry a credential.
func withoutUserinfo(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	u.User = nil
	return u.String()
}

// Owner is the contract.LabelOwner value naming the resource
// namespace/name of any Argo CD kind: "<namespace>.<name>", hashed when it
// would not fit a label value.
func Owner(namespace, name string) string {
	v := namespace + "." + name
	if len(v) <= 63 {
		return v
	}
	h := sha256.Sum256([]byte(v))
	return v[:40] + "-" + hex.EncodeToString(h[:])[:22]
}

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

// Package dnsrecord reconciles DNSRecord managed resources: one record set
// in a DNS zone, through libdns.
package dnsrecord

import (
	"context"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
	"github.com/freeleaps/provider-devops/internal/clients/dns"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/netguard"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
)

const errNewClient = "cannot create the DNS client from ProviderConfig"

// Descriptor describes the DNSRecord kind to the shared controller setup.
var Descriptor = mrcontroller.Descriptor[*v1alpha1.DNSRecord]{ //nolint:gochecknoglobals // read-only descriptor of the kind
	GroupKind:        v1alpha1.DNSRecordGroupKind,
	GroupVersionKind: v1alpha1.DNSRecordGroupVersionKind,
	New:              func() *v1alpha1.DNSRecord { return &v1alpha1.DNSRecord{} },
	NewList:          func() resource.ManagedList { return &v1alpha1.DNSRecordList{} },
	ExternalName:     (*v1alpha1.DNSRecord).DefaultExternalName,
	// The URL is the record's name, as dns:<fqdn>.
	URL: func(cr *v1alpha1.DNSRecord) string {
		if cr.Status.AtProvider.FQDN == "" {
			return ""
		}
		return "dns:" + cr.Status.AtProvider.FQDN
	},
}

// Client is the part of a DNS provider the controller uses.
type Client interface {
	Get(ctx context.Context, zone, name, typ string) (*dns.Observed, error)
	Set(ctx context.Context, zone string, want dns.RRset, owner dns.Owner) error
	// Create is Set for a record set read as absent: where the backend
	// can, it fails rather than overwrite one written since the read.
	Create(ctx context.Context, zone string, want dns.RRset, owner dns.Owner) error
	Delete(ctx context.Context, zone string, have dns.RRset, owner dns.Owner) error
	EffectiveTTL(want time.Duration) time.Duration
}

// NewConnector returns the connector. guard is the platform's rule for
// namespaced configs' connections; newClient builds the DNS client, nil
// means the real one. ownerID identifies this control plane in ownership
// records ("" means dns.DefaultOwnerID).
func NewConnector(kube client.Client, guard *netguard.Guard, newClient func(dns.Config) (Client, error), ownerID string) managed.TypedExternalConnector[*v1alpha1.DNSRecord] {
	if newClient == nil {
		newClient = func(c dns.Config) (Client, error) { return dns.New(c) }
	}
	if ownerID == "" {
		ownerID = dns.DefaultOwnerID
	}
	return &connector{
		kube:       kube,
		configs:    backendconfig.Resolver{Kube: kube, Usage: backendconfig.NewUsageTracker(kube), Guard: guard},
		newClient:  newClient,
		ownerID:    ownerID,
		zones:      dns.NewZoneCache(),
		transports: httpapi.NewTransports(),
	}
}

type connector struct {
	kube      client.Client
	configs   backendconfig.Resolver
	newClient func(dns.Config) (Client, error)
	ownerID   string
	// zones is the zone reads this controller's clients share, and
	// transports their HTTP connections.
	zones      *dns.ZoneCache
	transports *httpapi.Transports
}

// Connect reads the ProviderConfig's dns section and credentials.
func (c *connector) Connect(ctx context.Context, cr *v1alpha1.DNSRecord) (managed.TypedExternalClient[*v1alpha1.DNSRecord], error) {
	pc, s, err := backendconfig.Section(ctx, c.configs, cr, "dns", func(s *pcv1alpha1.ProviderConfigSpec) *pcv1alpha1.DNSConfig { return s.DNS })
	if err != nil {
		return nil, err
	}
	// Through a ClusterProviderConfig a namespace may manage only the
	// names and types it allows, and adopt nothing unless it says so:
	// anything else is refused before the zone is touched, and let go
	// untouched on delete.
	tn := TenancyOf(pc, s, cr.GetNamespace())
	if err := tn.Check(cr.Spec.ForProvider); err != nil {
		return mrcontroller.Refused[*v1alpha1.DNSRecord](err), nil
	}
	secret, err := pc.Credentials(ctx, c.kube, "spec.dns.credentials", s.Credentials)
	if err != nil {
		return nil, err
	}
	cfg := dns.Config{Provider: string(s.Provider), Secret: string(secret), TLS: pc.TLS(s.TLSConfig), Share: cr.GetNamespace(), Cache: c.zones, Transports: c.transports}
	if o := s.RFC2136; o != nil {
		cfg.Server, cfg.KeyName, cfg.KeyAlgorithm = o.Server, o.KeyName, o.KeyAlgorithm
	}
	if o := s.GoDaddy; o != nil {
		cfg.URL = o.URL
	}
	cl, err := c.newClient(cfg)
	if err != nil {
		return nil, errors.Wrapf(err, "%s %s", errNewClient, pc)
	}
	return &external{client: cl, ownerID: c.ownerID, strict: tn != nil}, nil
}

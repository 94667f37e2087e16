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

package dnsrecord

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/dns"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
)

const (
	errGet                 = "cannot observe the DNS record set"
	errSet                 = "cannot write the DNS record set"
	errDelete              = "cannot delete the DNS record set"
	errFmtOwnedByOther     = "DNS record set %s is owned by DNSRecord %s (ownership TXT record %s): it was left untouched"
	errFmtOtherOwnerID     = "DNS record set %s is owned by another control plane (owner id %q, this provider runs with --owner-id %q; ownership TXT record %s): it was left untouched, whatever adoptExisting says"
	errFmtOwnershipName    = "DNS name %q is refused: labels starting with %q are the provider's ownership records, and writing one could take over another resource's record set"
	errFmtNeighbour        = "DNS record set %s %s is refused: %s %s, at the same name, above or below it, is owned by DNSRecord %s of another namespace or control plane, and a namespace may add no record set at, above or below another's names (another type there would take part of its traffic, an NS would delegate it, an _acme-challenge TXT would get certificates for it). Use a name of your own, or ask that team"
	errFmtUnownedNeighbour = "DNS record set %s %s is refused: it would sit at, above or below %s %s, which no DNSRecord of this namespace owns (the platform's own records); through a ClusterProviderConfig a namespace adds record sets only beside its own"
	errFmtNotOwned         = "DNS record set %s already exists and no DNSRecord owns it: it was left untouched. Set spec.forProvider.adoptExisting: true to take it over, or delete it from the zone"
)

type external struct {
	client  Client
	ownerID string
	// strict, through a ClusterProviderConfig, also refuses a new record
	// set beside, above or below one nobody owns (the platform's own).
	strict bool
}

// owner is how the ownership record names cr.
func (e *external) owner(cr *v1alpha1.DNSRecord) dns.Owner {
	return dns.Owner{ID: e.ownerID, Resource: cr.GetNamespace() + "/" + cr.GetName()}
}

// Desired is the record set cr asks for.
func Desired(cr *v1alpha1.DNSRecord) dns.RRset {
	p := cr.Spec.ForProvider
	ttl := int64(300)
	if p.TTL != nil {
		ttl = *p.TTL
	}
	return dns.RRset{Name: p.Name, Type: string(p.Type), TTL: time.Duration(ttl) * time.Second, Values: p.Values}
}

// Observe reads the zone once and compares the record set's values and TTL.
func (e *external) Observe(ctx context.Context, cr *v1alpha1.DNSRecord) (managed.ExternalObservation, error) {
	p := cr.Spec.ForProvider
	if dns.IsOwnershipName(p.Name) {
		// The CRD refuses these names; one stored before it did is never
		// written, and let go when deleted.
		if meta.WasDeleted(cr) {
			return managed.ExternalObservation{ResourceExists: false}, nil
		}
		return managed.ExternalObservation{}, errors.Errorf(errFmtOwnershipName, p.Name, dns.OwnerPrefix)
	}
	fqdn := dns.FQDN(p.Name, p.Zone)
	obs, err := e.read(ctx, cr)
	if err != nil {
		return managed.ExternalObservation{}, errors.Wrap(err, errGet)
	}
	mine := obs.Owner == e.owner(cr)
	if obs.RRset == nil {
		return managed.ExternalObservation{ResourceExists: mine && meta.WasDeleted(cr)}, e.absent(cr, obs, mine)
	}
	adopting := false
	if !mine && mrcontroller.MayWrite(cr) {
		if meta.WasDeleted(cr) {
			// Never ours: let the resource go and leave the record set.
			return managed.ExternalObservation{ResourceExists: false}, nil
		}
		if err := e.adoptable(cr, obs, fqdn); err != nil {
			return managed.ExternalObservation{}, err
		}
		adopting = true
	}
	cr.Status.AtProvider = v1alpha1.DNSRecordObservation{FQDN: fqdn, Values: obs.RRset.Values, TTL: int64(obs.RRset.TTL / time.Second)}
	cr.SetConditions(xpv2.Available())

	diff := e.diff(cr, obs.RRset)
	if adopting {
		diff += "ownership record to be written (adoptExisting)\n"
	}
	return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: diff == "", Diff: diff}, nil
}

// absent checks a record set that does not exist before this resource
// creates it. An ownership record left alone by an interrupted delete is
// ours to remove; one naming another resource (whose record set is being
// written, or was) is not ours to overwrite.
func (e *external) absent(cr *v1alpha1.DNSRecord, obs *dns.Observed, mine bool) error {
	if meta.WasDeleted(cr) || !mrcontroller.MayWrite(cr) {
		return nil
	}
	if obs.Owner != (dns.Owner{}) && !mine {
		return e.ownedByOther(cr, obs.Owner)
	}
	return e.neighbourhood(cr, obs)
}

// adoptable checks a record set this resource does not own before it
// takes it over: never another's, and only when asked to adopt.
func (e *external) adoptable(cr *v1alpha1.DNSRecord, obs *dns.Observed, fqdn string) error {
	if obs.Owner != (dns.Owner{}) {
		return e.ownedByOther(cr, obs.Owner)
	}
	if p := cr.Spec.ForProvider; !p.AdoptExisting {
		return errors.Errorf(errFmtNotOwned, fmt.Sprintf("%s %s", fqdn, p.Type))
	}
	return e.neighbourhood(cr, obs)
}

// cachedReader is a Client that can serve a poll from a recent read of
// the zone (dns.Client.GetCached).
type cachedReader interface {
	GetCached(ctx context.Context, zone, name, typ string) (obs *dns.Observed, fresh bool, err error)
}

// read reads the record set from a zone read up to dns.ZoneCacheTTL old
// when that shows it exactly as this resource wants it and holds it: a
// poll with nothing to do, which would otherwise read the whole zone for
// each of its records. Anything else (absent, another owner, a
// difference, a deletion) is decided on a fresh read: the cache's own when
// it just read the zone, so a poll reads the zone at most once.
func (e *external) read(ctx context.Context, cr *v1alpha1.DNSRecord) (*dns.Observed, error) {
	p := cr.Spec.ForProvider
	if c, ok := e.client.(cachedReader); ok && !meta.WasDeleted(cr) {
		obs, fresh, err := c.GetCached(ctx, p.Zone, p.Name, string(p.Type))
		if err != nil || fresh || e.settled(cr, obs) {
			return obs, err
		}
	}
	return e.client.Get(ctx, p.Zone, p.Name, string(p.Type))
}

// settled is true when obs is the record set cr wants, owned by cr.
func (e *external) settled(cr *v1alpha1.DNSRecord, obs *dns.Observed) bool {
	return obs.RRset != nil && obs.Owner == e.owner(cr) && e.diff(cr, obs.RRset) == ""
}

// diff is how have differs from the record set cr wants: its values and
// its TTL as the backend keeps it ("" when they are the same).
func (e *external) diff(cr *v1alpha1.DNSRecord, have *dns.RRset) string {
	want := Desired(cr)
	diff := cmp.Diff(dns.NormalizeValues(want.Type, want.Values), have.Values)
	if ttl := e.client.EffectiveTTL(want.TTL); ttl != have.TTL {
		diff += fmt.Sprintf("ttl: want %s, got %s\n", ttl, have.TTL)
	}
	return diff
}

// neighbourhood refuses a new record set at, above or below a name whose
// record sets another namespace (or another control plane) owns: another
// type beside its A record would take part of its traffic, an NS above or
// below would delegate its names away, and a TXT such as _acme-challenge
// below it would let its holder obtain certificates for it. Record sets a
// resource already holds are not rechecked.
func (e *external) neighbourhood(cr *v1alpha1.DNSRecord, obs *dns.Observed) error {
	p := cr.Spec.ForProvider
	own := map[dns.RRsetRef]bool{}
	for _, r := range obs.Related {
		ns, _, _ := strings.Cut(r.Owner.Resource, "/")
		if r.Owner.ID == e.ownerID && ns == cr.GetNamespace() {
			own[dns.RRsetRef{Name: r.Name, Type: strings.ToUpper(r.Type)}] = true
			continue
		}
		return errors.Errorf(errFmtNeighbour, dns.FQDN(p.Name, p.Zone), p.Type, dns.FQDN(r.Name, p.Zone), r.Type, r.Owner)
	}
	if !e.strict {
		return nil
	}
	for _, n := range obs.Neighbours {
		if !own[n] {
			return errors.Errorf(errFmtUnownedNeighbour, dns.FQDN(p.Name, p.Zone), p.Type, dns.FQDN(n.Name, p.Zone), n.Type)
		}
	}
	return nil
}

func (e *external) ownedByOther(cr *v1alpha1.DNSRecord, o dns.Owner) error {
	p := cr.Spec.ForProvider
	name, rec := fmt.Sprintf("%s %s", dns.FQDN(p.Name, p.Zone), p.Type), dns.OwnerName(p.Name, string(p.Type))
	if o.ID != e.ownerID {
		return errors.Errorf(errFmtOtherOwnerID, name, o.ID, e.ownerID, rec)
	}
	return errors.Errorf(errFmtOwnedByOther, name, o.Resource, rec)
}

// Create writes the record set and its ownership record.
func (e *external) Create(ctx context.Context, cr *v1alpha1.DNSRecord) (managed.ExternalCreation, error) {
	cr.SetConditions(xpv2.Creating())
	err := e.client.Create(ctx, cr.Spec.ForProvider.Zone, Desired(cr), e.owner(cr))
	return managed.ExternalCreation{}, errors.Wrap(err, errSet)
}

// Update replaces the record set (and writes the ownership record).
func (e *external) Update(ctx context.Context, cr *v1alpha1.DNSRecord) (managed.ExternalUpdate, error) {
	err := e.client.Set(ctx, cr.Spec.ForProvider.Zone, Desired(cr), e.owner(cr))
	return managed.ExternalUpdate{}, errors.Wrap(err, errSet)
}

// Delete removes exactly the values this resource manages and its
// ownership record; values others added stay.
func (e *external) Delete(ctx context.Context, cr *v1alpha1.DNSRecord) (managed.ExternalDelete, error) {
	cr.SetConditions(xpv2.Deleting())
	err := e.client.Delete(ctx, cr.Spec.ForProvider.Zone, Desired(cr), e.owner(cr))
	return managed.ExternalDelete{}, errors.Wrap(err, errDelete)
}

// Disconnect has nothing to release.
func (e *external) Disconnect(_ context.Context) error { return nil }

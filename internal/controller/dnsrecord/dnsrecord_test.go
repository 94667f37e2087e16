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

package dnsrecord_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mdns "github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/dns"
	"github.com/freeleaps/provider-devops/internal/controller/dnsrecord"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/testing/bind"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	godaddyfake "github.com/freeleaps/provider-devops/internal/testing/godaddy"
)

func TestMain(m *testing.M) { controlplane.Main(m) }

// counting counts the calls the controller makes to the DNS provider for
// the record set www, the one the steady-state figure is about.
type counting struct {
	dnsrecord.Client
	reads, writes *atomic.Int64
}

func (c counting) Get(ctx context.Context, zone, name, typ string) (*dns.Observed, error) {
	if name == "www" {
		c.reads.Add(1)
	}
	return c.Client.Get(ctx, zone, name, typ)
}

func (c counting) Set(ctx context.Context, zone string, want dns.RRset, owner dns.Owner) error {
	if want.Name == "www" {
		c.writes.Add(1)
	}
	return c.Client.Set(ctx, zone, want, owner)
}

func (c counting) Create(ctx context.Context, zone string, want dns.RRset, owner dns.Owner) error {
	if want.Name == "www" {
		c.writes.Add(1)
	}
	return c.Client.Create(ctx, zone, want, owner)
}

func (c counting) Delete(ctx context.Context, zone string, have dns.RRset, owner dns.Owner) error {
	if have.Name == "www" {
		c.writes.Add(1)
	}
	return c.Client.Delete(ctx, zone, have, owner)
}

func TestDNSRecordAgainstBIND(t *testing.T) {
	srv := bind.Start(t)
	env := controlplane.Shared(t)
	c := env.Client
	ctx := context.Background()
	ns := "dns-bind"
	controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	controlplane.Must(t, c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "tsig", Namespace: ns}, StringData: map[string]string{"secret": srv.Secret, "wrong": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}}))
	pc := func(name, key string) *pcv1alpha1.ProviderConfig {
		return &pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: pcv1alpha1.ProviderConfigSpec{DNS: &pcv1alpha1.DNSConfig{
			Provider: pcv1alpha1.DNSProviderRFC2136,
			RFC2136:  &pcv1alpha1.RFC2136Options{Server: srv.Addr, KeyName: bind.KeyName, KeyAlgorithm: "hmac-sha256"},
			Credentials: pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret,
				SecretRef: &pcv1alpha1.SecretKeySelector{Name: "tsig", Key: key}},
		}}}
	}
	controlplane.Must(t, c.Create(ctx, pc("default", "secret")))
	controlplane.Must(t, c.Create(ctx, pc("wrong-key", "wrong")))

	var reads, writes atomic.Int64
	controlplane.StartManager(t, env, 2*time.Second, func(mgr ctrl.Manager, o controller.Options) error {
		return mrcontroller.Setup(mgr, o, dnsrecord.Descriptor, dnsrecord.NewConnector(mgr.GetClient(), controlplane.TenantGuard(), func(cfg dns.Config) (dnsrecord.Client, error) {
			cl, err := dns.New(cfg)
			if err != nil {
				return nil, err
			}
			return counting{Client: cl, reads: &reads, writes: &writes}, nil
		}, "cp1"))
	})

	www := newRecord(ns, "www", "www", v1alpha1.RecordA, "192.0.2.1", "192.0.2.2")
	controlplane.Must(t, c.Create(ctx, www))
	controlplane.Eventually(t, "A record set served and Ready", func() bool {
		return get(c, www) && ready(www) && len(srv.Values("www.example.test.", mdns.TypeA)) == 2
	})
	if got := meta.GetExternalName(www); got != "www.example.test./A" {
		t.Errorf("external name: got %q", got)
	}
	if got := www.Status.AtProvider; got.FQDN != "www.example.test." || strings.Join(got.Values, ",") != "192.0.2.1,192.0.2.2" || got.TTL != 300 {
		t.Errorf("atProvider: got %+v", got)
	}
	if owner := srv.Values("_devops-owner-a.www.example.test.", mdns.TypeTXT); len(owner) != 1 || !strings.Contains(owner[0], "owner=cp1,resource="+ns+"/www") {
		t.Errorf("ownership record: got %v", owner)
	}

	t.Run("OtherTypes", func(t *testing.T) {
		cases := map[string]struct {
			cr    *v1alpha1.DNSRecord
			query string
			qtype uint16
			want  string
		}{
			"AAAA":  {newRecord(ns, "v6", "v6", v1alpha1.RecordAAAA, "2001:db8::10"), "v6.example.test.", mdns.TypeAAAA, "2001:db8::10"},
			"CNAME": {newRecord(ns, "alias", "shop", v1alpha1.RecordCNAME, "www.example.test"), "shop.example.test.", mdns.TypeCNAME, "www.example.test."},
			"TXT":   {newRecord(ns, "verify", "_verify", v1alpha1.RecordTXT, "token=abc 123"), "_verify.example.test.", mdns.TypeTXT, `"token=abc 123"`},
		}
		for name, tc := range cases {
			controlplane.Must(t, c.Create(ctx, tc.cr))
			controlplane.Eventually(t, name+" served and Ready", func() bool {
				v := srv.Values(tc.query, tc.qtype)
				return get(c, tc.cr) && ready(tc.cr) && len(v) == 1 && v[0] == tc.want
			})
			controlplane.Must(t, c.Delete(ctx, tc.cr))
			controlplane.Eventually(t, name+" deleted", func() bool { return len(srv.Values(tc.query, tc.qtype)) == 0 })
		}
	})

	t.Run("DriftCorrected", func(t *testing.T) {
		srv.NSUpdate(t, "update delete www.example.test. A 192.0.2.2\nupdate add www.example.test. 300 A 198.51.100.66")
		controlplane.Eventually(t, "drift corrected", func() bool {
			v := srv.Values("www.example.test.", mdns.TypeA)
			return strings.Join(sortedCopy(v), ",") == "192.0.2.1,192.0.2.2"
		})
	})

	t.Run("SteadyState", func(t *testing.T) {
		controlplane.Eventually(t, "settled", func() bool { return get(c, www) && ready(www) })
		time.Sleep(3 * time.Second)
		get(c, www)
		rv := www.GetResourceVersion()
		reads.Store(0)
		writes.Store(0)
		time.Sleep(7 * time.Second)
		get(c, www)
		t.Logf("steady state over 7s (poll 2s): %d zone reads, %d writes, resourceVersion %s -> %s", reads.Load(), writes.Load(), rv, www.GetResourceVersion())
		if r := reads.Load(); r < 1 || r > 5 {
			t.Errorf("want one read per poll (1-5 in 7s), got %d", r)
		}
		if writes.Load() != 0 || www.GetResourceVersion() != rv {
			t.Errorf("want no DNS or Kubernetes writes in steady state: %d writes, resourceVersion %s -> %s", writes.Load(), rv, www.GetResourceVersion())
		}
	})

	t.Run("RefuseThenAdopt", func(t *testing.T) {
		srv.NSUpdate(t, "update add legacy.example.test. 300 A 203.0.113.5")
		legacy := newRecord(ns, "legacy", "legacy", v1alpha1.RecordA, "203.0.113.9")
		controlplane.Must(t, c.Create(ctx, legacy))
		controlplane.Eventually(t, "refused", func() bool {
			return get(c, legacy) && legacy.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionFalse &&
				strings.Contains(legacy.GetCondition(xpv2.TypeSynced).Message, "DNS record set legacy.example.test. A already exists and no DNSRecord owns it")
		})
		if v := srv.Values("legacy.example.test.", mdns.TypeA); len(v) != 1 || v[0] != "203.0.113.5" {
			t.Errorf("a refused record set was changed: %v", v)
		}
		// Another resource claiming www is refused: it has an owner.
		thief := newRecord(ns, "thief", "www", v1alpha1.RecordA, "203.0.113.1")
		thief.Spec.ForProvider.AdoptExisting = true
		controlplane.Must(t, c.Create(ctx, thief))
		controlplane.Eventually(t, "owned record set refused even with adoptExisting", func() bool {
			return get(c, thief) && strings.Contains(thief.GetCondition(xpv2.TypeSynced).Message, "is owned by DNSRecord "+ns+"/www")
		})
		controlplane.Must(t, c.Delete(ctx, thief))
		controlplane.Eventually(t, "thief gone, www intact", func() bool {
			return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(thief), thief)) && len(srv.Values("www.example.test.", mdns.TypeA)) == 2
		})

		// The same namespace/name in another control plane (owner id cp2)
		// is never touched, adoptExisting or not, and never deleted.
		srv.NSUpdate(t, "update add twin.example.test. 300 A 203.0.113.20\n"+
			`update add _devops-owner-a.twin.example.test. 300 TXT "heritage=provider-devops,owner=cp2,resource=`+ns+`/twin"`)
		twin := newRecord(ns, "twin", "twin", v1alpha1.RecordA, "203.0.113.21")
		twin.Spec.ForProvider.AdoptExisting = true
		controlplane.Must(t, c.Create(ctx, twin))
		controlplane.Eventually(t, "another control plane's record set refused", func() bool {
			return get(c, twin) && strings.Contains(twin.GetCondition(xpv2.TypeSynced).Message, `owned by another control plane (owner id "cp2"`)
		})
		controlplane.Must(t, c.Delete(ctx, twin))
		controlplane.Eventually(t, "twin let go", func() bool { return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(twin), twin)) })
		if v, o := srv.Values("twin.example.test.", mdns.TypeA), srv.Values("_devops-owner-a.twin.example.test.", mdns.TypeTXT); len(v) != 1 || v[0] != "203.0.113.20" || len(o) != 1 || !strings.Contains(o[0], "owner=cp2") {
			t.Errorf("another control plane's record set was changed: %v %v", v, o)
		}
		// An ownership record without its record set (another resource's
		// write in progress, GoDaddy writes the ownership record first) is
		// not taken over either.
		srv.NSUpdate(t, `update add _devops-owner-a.pending.example.test. 300 TXT "heritage=provider-devops,owner=cp1,resource=`+ns+`/first"`)
		second := newRecord(ns, "second", "pending", v1alpha1.RecordA, "203.0.113.30")
		controlplane.Must(t, c.Create(ctx, second))
		controlplane.Eventually(t, "pending ownership respected", func() bool {
			return get(c, second) && strings.Contains(second.GetCondition(xpv2.TypeSynced).Message, "is owned by DNSRecord "+ns+"/first")
		})
		if v := srv.Values("pending.example.test.", mdns.TypeA); len(v) != 0 {
			t.Errorf("a record set claimed by another resource was written: %v", v)
		}
		controlplane.Must(t, c.Delete(ctx, second))

		patch(t, c, legacy, func(r *v1alpha1.DNSRecord) { r.Spec.ForProvider.AdoptExisting = true })
		controlplane.Eventually(t, "adopted", func() bool {
			v := srv.Values("legacy.example.test.", mdns.TypeA)
			return get(c, legacy) && ready(legacy) && len(v) == 1 && v[0] == "203.0.113.9" &&
				len(srv.Values("_devops-owner-a.legacy.example.test.", mdns.TypeTXT)) == 1
		})
	})

	// Another team sharing the platform's config may not add record sets
	// at, below or above this namespace's names: an AAAA beside its A, an
	// _acme-challenge TXT (a certificate for it), an NS above it.
	t.Run("AnotherNamespacesNames", func(t *testing.T) {
		other := "dns-bind-other"
		controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: other}}))
		controlplane.Must(t, c.Create(ctx, &pcv1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "dns-bind-platform"}, Spec: pcv1alpha1.ProviderConfigSpec{
			AllowedNamespaces: []string{other},
			DNS: &pcv1alpha1.DNSConfig{
				Provider: pcv1alpha1.DNSProviderRFC2136,
				RFC2136:  &pcv1alpha1.RFC2136Options{Server: srv.Addr, KeyName: bind.KeyName, KeyAlgorithm: "hmac-sha256"},
				Credentials: pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret,
					SecretRef: &pcv1alpha1.SecretKeySelector{Name: "tsig", Key: "secret", Namespace: ns}},
			},
		}}))
		shared := func(cr *v1alpha1.DNSRecord) *v1alpha1.DNSRecord {
			cr.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "dns-bind-platform"}
			return cr
		}
		attacks := map[string]struct {
			cr    *v1alpha1.DNSRecord
			fqdn  string
			rtype uint16
		}{
			"Challenge": {shared(newRecord(other, "challenge", "_acme-challenge.www", v1alpha1.RecordTXT, "stolen-cert-token")), "_acme-challenge.www.example.test.", mdns.TypeTXT},
			"Beside":    {shared(newRecord(other, "beside", "www", v1alpha1.RecordAAAA, "2001:db8::66")), "www.example.test.", mdns.TypeAAAA},
			"Below":     {shared(newRecord(other, "below", "api.www", v1alpha1.RecordCNAME, "evil.example.org")), "api.www.example.test.", mdns.TypeCNAME},
		}
		for _, a := range attacks {
			controlplane.Must(t, c.Create(ctx, a.cr))
		}
		fine := shared(newRecord(other, "fine", "www2", v1alpha1.RecordA, "192.0.2.50"))
		controlplane.Must(t, c.Create(ctx, fine))
		controlplane.Eventually(t, "its own name served", func() bool { return get(c, fine) && ready(fine) })
		for name, a := range attacks {
			controlplane.Eventually(t, name+" refused", func() bool {
				return get(c, a.cr) && strings.Contains(a.cr.GetCondition(xpv2.TypeSynced).Message, "is owned by DNSRecord "+ns+"/www (owner id cp1) of another namespace")
			})
			if v := srv.Values(a.fqdn, a.rtype); len(v) != 0 {
				t.Errorf("%s: written beside another namespace's name: %v", name, v)
			}
			controlplane.Must(t, c.Delete(ctx, a.cr))
		}
		controlplane.Must(t, c.Delete(ctx, fine))
		controlplane.Eventually(t, "deleted", func() bool { return !get(c, fine) && len(srv.Values("www2.example.test.", mdns.TypeA)) == 0 })

		// Through the platform's credentials a namespace may not take
		// over the platform's own (unowned) records, delegate a name, or
		// decide who issues certificates for the zone: refused by the
		// ClusterProviderConfig's default tenancy before the zone is
		// touched, and let go untouched when deleted.
		srv.NSUpdate(t, `update add mail.example.test. 300 A 192.0.2.25`)
		tenancy := map[string]struct {
			cr    *v1alpha1.DNSRecord
			want  string
			fqdn  string
			rtype uint16
			keep  []string
		}{
			"AdoptPlatformRecord": {func() *v1alpha1.DNSRecord {
				cr := shared(newRecord(other, "mail", "mail", v1alpha1.RecordA, "198.51.100.66"))
				cr.Spec.ForProvider.AdoptExisting = true
				return cr
			}(), "spec.forProvider.adoptExisting is not allowed", "mail.example.test.", mdns.TypeA, []string{"192.0.2.25"}},
			"Delegation":           {shared(newRecord(other, "delegate", "shop2", v1alpha1.RecordNS, "ns.evil.example.org.")), "spec.forProvider.type NS is not allowed", "shop2.example.test.", mdns.TypeNS, nil},
			"ApexCAA":              {shared(newRecord(other, "caa", "@", v1alpha1.RecordCAA, `0 issue "evil-ca.example"`)), `spec.forProvider.name "@" is not allowed`, "example.test.", mdns.TypeCAA, nil},
			"ZoneCertificate":      {shared(newRecord(other, "zonecert", "_acme-challenge", v1alpha1.RecordTXT, "stolen-token")), `spec.forProvider.name "_acme-challenge" is not allowed`, "_acme-challenge.example.test.", mdns.TypeTXT, nil},
			"BesidePlatformRecord": {shared(newRecord(other, "mail6", "mail", v1alpha1.RecordAAAA, "2001:db8::25")), "which no DNSRecord of this namespace owns", "mail.example.test.", mdns.TypeAAAA, nil},
		}
		for _, a := range tenancy {
			controlplane.Must(t, c.Create(ctx, a.cr))
		}
		for name, a := range tenancy {
			controlplane.Eventually(t, name+" refused", func() bool {
				return get(c, a.cr) && strings.Contains(a.cr.GetCondition(xpv2.TypeSynced).Message, a.want)
			})
			if v := srv.Values(a.fqdn, a.rtype); !slices.Equal(v, a.keep) {
				t.Errorf("%s: the zone was changed: %v", name, v)
			}
			controlplane.Must(t, c.Delete(ctx, a.cr))
			controlplane.Eventually(t, name+" let go", func() bool { return !get(c, a.cr) })
			if v := srv.Values(a.fqdn, a.rtype); !slices.Equal(v, a.keep) {
				t.Errorf("%s: deleting the refused resource changed the zone: %v", name, v)
			}
		}
	})

	// The provider crashed after writing a record set and before recording
	// that the create succeeded: the next reconcile finds it and goes on.
	t.Run("CrashAfterCreate", func(t *testing.T) {
		srv.NSUpdate(t, `update add crashed.example.test. 300 A 192.0.2.77
update add _devops-owner-a.crashed.example.test. 300 TXT "heritage=provider-devops,owner=cp1,resource=`+ns+`/crashed"`)
		crashed := newRecord(ns, "crashed", "crashed", v1alpha1.RecordA, "192.0.2.77")
		meta.SetExternalName(crashed, "crashed.example.test./A")
		meta.SetExternalCreatePending(crashed, time.Now().Add(-time.Minute))
		controlplane.Must(t, c.Create(ctx, crashed))
		controlplane.Eventually(t, "recovered without a hand on the annotations", func() bool { return get(c, crashed) && ready(crashed) })
		if v := srv.Values("crashed.example.test.", mdns.TypeA); len(v) != 1 || v[0] != "192.0.2.77" {
			t.Errorf("record set after recovery: %v", v)
		}
		controlplane.Must(t, c.Delete(ctx, crashed))
		controlplane.Eventually(t, "deleted", func() bool { return !get(c, crashed) && len(srv.Values("crashed.example.test.", mdns.TypeA)) == 0 })
	})

	t.Run("WrongKey", func(t *testing.T) {
		bad := newRecord(ns, "badkey", "badkey", v1alpha1.RecordA, "192.0.2.1")
		bad.Spec.ProviderConfigReference.Name = "wrong-key"
		controlplane.Must(t, c.Create(ctx, bad))
		controlplane.Eventually(t, "wrong key reported", func() bool {
			return get(c, bad) && strings.Contains(bad.GetCondition(xpv2.TypeSynced).Message, "rejected the TSIG key")
		})
		if strings.Contains(bad.GetCondition(xpv2.TypeSynced).Message, srv.Secret) {
			t.Error("the condition leaks the TSIG secret")
		}
	})

	t.Run("ZoneIsImmutable", func(t *testing.T) {
		// The controller writes the object too: a conflict is retried,
		// the refusal is what is tested.
		var err error
		for range 20 {
			get(c, www)
			www.Spec.ForProvider.Name = "elsewhere"
			if err = c.Update(ctx, www); !kerrors.IsConflict(err) {
				break
			}
		}
		if err == nil || !strings.Contains(err.Error(), "zone, name and type are immutable") {
			t.Errorf("moving a record set must be refused, got %v", err)
		}
	})

	// Deleting removes exactly this resource's values; a value someone else
	// added stays.
	srv.NSUpdate(t, "update add www.example.test. 300 A 198.51.100.7")
	get(c, www)
	deleted := time.Now()
	controlplane.Must(t, c.Delete(ctx, www))
	defer func() { t.Logf("deletion took %s", time.Since(deleted).Round(time.Millisecond)) }()
	controlplane.EventuallyWithin(t, 3*time.Minute, "own values deleted, foreign value kept", func() bool {
		v := srv.Values("www.example.test.", mdns.TypeA)
		return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(www), www)) && len(v) == 1 && v[0] == "198.51.100.7"
	})

	events := &corev1.EventList{}
	controlplane.Must(t, c.List(ctx, events, client.InNamespace(ns)))
	for _, e := range events.Items {
		if strings.Contains(e.Message, srv.Secret) {
			t.Errorf("event leaks the TSIG secret: %s", e.Message)
		}
	}
}

func newRecord(ns, name, host string, typ v1alpha1.RecordType, values ...string) *v1alpha1.DNSRecord {
	cr := &v1alpha1.DNSRecord{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	cr.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
	cr.Spec.ForProvider = v1alpha1.DNSRecordParameters{Zone: "example.test", Name: host, Type: typ, Values: values}
	return cr
}

func patch(t *testing.T, c client.Client, cr *v1alpha1.DNSRecord, fn func(*v1alpha1.DNSRecord)) {
	t.Helper()
	controlplane.Eventually(t, "patched", func() bool {
		if !get(c, cr) {
			return false
		}
		fn(cr)
		return c.Update(context.Background(), cr) == nil
	})
}

func sortedCopy(in []string) []string {
	return dns.NormalizeValues("A", in)
}

func ready(cr *v1alpha1.DNSRecord) bool {
	return cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue && cr.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue
}

func get(c client.Client, cr *v1alpha1.DNSRecord) bool {
	return c.Get(context.Background(), client.ObjectKeyFromObject(cr), cr) == nil
}

// TestDNSRecordAgainstGoDaddy runs a record set through the fake GoDaddy
// API: its 600 s minimum TTL is reported, not fought.
func TestDNSRecordAgainstGoDaddy(t *testing.T) {
	api := godaddyfake.New("key", "gd-secret-value", "example.test")
	defer api.Close()
	env := controlplane.Shared(t)
	c := env.Client
	ctx := context.Background()
	ns := "dns-godaddy"
	controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	controlplane.Must(t, c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "godaddy", Namespace: ns}, StringData: map[string]string{"key": "key:gd-secret-value"}}))
	controlplane.Must(t, c.Create(ctx, &pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: pcv1alpha1.ProviderConfigSpec{DNS: &pcv1alpha1.DNSConfig{
		Provider: pcv1alpha1.DNSProviderGoDaddy,
		GoDaddy:  &pcv1alpha1.GoDaddyOptions{URL: api.URL},
		Credentials: pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret,
			SecretRef: &pcv1alpha1.SecretKeySelector{Name: "godaddy", Key: "key"}},
	}}}))
	controlplane.StartManager(t, env, 2*time.Second, func(mgr ctrl.Manager, o controller.Options) error {
		return mrcontroller.Setup(mgr, o, dnsrecord.Descriptor, dnsrecord.NewConnector(mgr.GetClient(), controlplane.TenantGuard(), nil, ""))
	})

	www := newRecord(ns, "www", "www", v1alpha1.RecordA, "192.0.2.1", "192.0.2.2")
	controlplane.Must(t, c.Create(ctx, www))
	controlplane.Eventually(t, "A record set stored at GoDaddy and Ready", func() bool {
		return get(c, www) && ready(www) && len(api.Values("example.test", "A", "www")) == 2
	})
	if got := www.Status.AtProvider.TTL; got != 600 {
		t.Errorf("atProvider.ttl must report GoDaddy's 600 s minimum, got %d", got)
	}
	// Three polls later the controller has not tried to "fix" the TTL.
	api.ResetCounts()
	time.Sleep(7 * time.Second)
	// Reads: at most one zone read per dns.ZoneCacheTTL serves every poll
	// that finds the record set as wanted.
	if p, g := api.Count(http.MethodPut), api.Count(http.MethodGet); p != 0 || g > 1 {
		t.Errorf("steady state made %d PUTs and %d GETs; want no writes and at most one zone read", p, g)
	}
	t.Logf("steady state over 7s at a 2s poll: %d GETs, 0 writes", api.Count(http.MethodGet))

	controlplane.Must(t, c.Delete(ctx, www))
	controlplane.Eventually(t, "record set and ownership record deleted", func() bool {
		return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(www), www)) && len(api.Records("example.test")) == 0
	})
}

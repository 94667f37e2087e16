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

package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/freeleaps/provider-devops/apis/contract"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
)

// withIngress turns ingress on for the project (issuer letsencrypt, class
// nginx) with source type typ; env, when set, overrides pr-7's.
func withIngress(typ string, env map[string]any) xrOpt {
	return withSpec(func(s map[string]any) {
		s["source"] = map[string]any{"type": typ}
		s["ingress"] = map[string]any{"enabled": true, "className": "nginx", "issuer": map[string]any{"kind": "ClusterIssuer", "name": "letsencrypt"},
			"annotations": map[string]any{"nginx.ingress.kubernetes.io/proxy-body-size": "8m"}}
		if env != nil {
			s["environments"].([]any)[1].(map[string]any)["ingress"] = env
		}
	})
}

func TestIngressHelmValues(t *testing.T) {
	rsp := run(t, t0, newRequest(t, xr(withIngress("Helm", nil)), allObserved(true, "prod", "pr-7"), nil))
	fatal(t, rsp)
	values, _ := resourceField(t, rsp, "pr-7-app", "spec", "forProvider", "source", "helm", "values").(string)
	var got map[string]any
	if err := yaml.Unmarshal([]byte(values), &got); err != nil {
		t.Fatalf("helm values %q: %v", values, err)
	}
	want := map[string]any{"ingress": map[string]any{
		"enabled": true, "host": "pr-7.shop.example.com", "className": "nginx",
		"annotations": map[string]any{"cert-manager.io/cluster-issuer": "letsencrypt", "nginx.ingress.kubernetes.io/proxy-body-size": "8m"},
		"tls":         map[string]any{"secretName": "shop-pr-7-tls", "issuer": map[string]any{"kind": "ClusterIssuer", "name": "letsencrypt"}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("helm values -want +got:\n%s", diff)
	}
	if u := envStatus(t, rsp, "pr-7")["url"]; u != "https://pr-7.shop.example.com" {
		t.Errorf("url %v", u)
	}
	if u := resourceField(t, rsp, "pr-7-dns", "metadata", "annotations", "devops.freeleaps.io/url"); u != "https://pr-7.shop.example.com" {
		t.Errorf("DNSRecord url annotation %v", u)
	}
}

func TestIngressKustomizePatches(t *testing.T) {
	// pr-7 overrides: its own Issuer, another class, no extra annotation.
	env := map[string]any{"className": "internal", "issuer": map[string]any{"kind": "Issuer", "name": "team-ca"}, "annotations": map[string]any{"a.example.com/x": "y"}}
	rsp := run(t, t0, newRequest(t, xr(withIngress("Kustomize", env)), allObserved(true, "prod", "pr-7"), nil))
	fatal(t, rsp)
	patches, _ := resourceField(t, rsp, "pr-7-app", "spec", "forProvider", "source", "kustomize", "patches").([]any)
	if len(patches) != 2 {
		t.Fatalf("patches %v, want two", patches)
	}
	target := map[string]any{"group": "networking.k8s.io", "kind": "Ingress"}
	var ops []map[string]any
	var smp map[string]any
	p0, p1 := patches[0].(map[string]any), patches[1].(map[string]any)
	if err := yaml.Unmarshal([]byte(p0["patch"].(string)), &ops); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(p1["patch"].(string)), &smp); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]map[string]any{{"op": "add", "path": "/spec/rules/0/host", "value": "pr-7.shop.example.com"}}, ops); diff != "" {
		t.Errorf("host patch -want +got:\n%s", diff)
	}
	want := map[string]any{"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
		"metadata": map[string]any{"name": "ingress", "annotations": map[string]any{
			"cert-manager.io/issuer": "team-ca", "a.example.com/x": "y", "nginx.ingress.kubernetes.io/proxy-body-size": "8m"}},
		"spec": map[string]any{"ingressClassName": "internal", "tls": []any{map[string]any{"hosts": []any{"pr-7.shop.example.com"}, "secretName": "shop-pr-7-tls"}}}}
	if diff := cmp.Diff(want, smp); diff != "" {
		t.Errorf("ingress patch -want +got:\n%s", diff)
	}
	for i, p := range []map[string]any{p0, p1} {
		if diff := cmp.Diff(target, p["target"]); diff != "" {
			t.Errorf("patch %d target -want +got:\n%s", i, diff)
		}
	}
	// prod keeps the project's settings.
	if p := resourceField(t, rsp, "prod-app", "spec", "forProvider", "source", "kustomize", "patches"); !strings.Contains(p.([]any)[1].(map[string]any)["patch"].(string), "cert-manager.io/cluster-issuer: letsencrypt") {
		t.Errorf("prod's patches %v, want the project's ClusterIssuer", p)
	}
}

func TestIngressWithoutTLS(t *testing.T) {
	rsp := run(t, t0, newRequest(t, xr(withIngress("Kustomize", map[string]any{"tls": false})), allObserved(true, "prod", "pr-7"), nil))
	fatal(t, rsp)
	if u := envStatus(t, rsp, "pr-7")["url"]; u != "http://pr-7.shop.example.com" {
		t.Errorf("pr-7 url %v, want http:// without TLS", u)
	}
	if u := envStatus(t, rsp, "prod")["url"]; u != "https://shop.example.com" {
		t.Errorf("prod url %v", u)
	}
	p := resourceField(t, rsp, "pr-7-app", "spec", "forProvider", "source", "kustomize", "patches").([]any)[1].(map[string]any)["patch"].(string)
	if strings.Contains(p, "tls") || strings.Contains(p, "cert-manager.io") {
		t.Errorf("without TLS the patch carries no TLS and no issuer:\n%s", p)
	}
}

func TestIngressOffLeavesSourceAlone(t *testing.T) {
	rsp := run(t, t0, newRequest(t, xr(withIngress("Helm", map[string]any{"enabled": false})), allObserved(true, "prod", "pr-7"), nil))
	fatal(t, rsp)
	if h := resourceField(t, rsp, "pr-7-app", "spec", "forProvider", "source", "helm", "values"); h != nil {
		t.Errorf("pr-7 has ingress off: its source gets no values, got %v", h)
	}
	// The release keeps the name it had before applications gained the
	// namespace (a dotted one would make invalid object names).
	if r := resourceField(t, rsp, "pr-7-app", "spec", "forProvider", "source", "helm", "releaseName"); r != "shop-pr-7" {
		t.Errorf("pr-7's Helm release %v, want shop-pr-7", r)
	}
}

func TestDNSTargetFromInput(t *testing.T) {
	x := xr(withSpec(func(s map[string]any) { s["dns"] = map[string]any{"zone": "example.com"} }))
	rsp := run(t, t0, newRequest(t, x, allObserved(true, "prod", "pr-7"), map[string]any{"ingressAddress": "203.0.113.10"}))
	fatal(t, rsp)
	if got := resourceField(t, rsp, "pr-7-dns", "spec", "forProvider", "values"); !cmp.Equal(got, []any{"203.0.113.10"}) {
		t.Errorf("values %v", got)
	}
	if got := resourceField(t, rsp, "pr-7-dns", "spec", "forProvider", "type"); got != "A" {
		t.Errorf("type %v, want A for an address", got)
	}
	rsp = run(t, t0, newRequest(t, x, allObserved(true, "prod", "pr-7"), nil))
	if r := rsp.GetResults(); len(r) != 1 || !strings.Contains(r[0].GetMessage(), "spec.dns.target: is required") {
		t.Errorf("without target or ingressAddress: %v", r)
	}
}

func TestIngressBadInput(t *testing.T) {
	cases := map[string]struct {
		xr   map[string]any
		want string
	}{
		"DirectoryWithIngress": {xr(withIngress("Directory", nil)), "spec.environments[0].ingress.enabled: ingress is on but the environment's source type is Directory"},
		"TLSWithoutIssuer": {xr(withIngress("Helm", nil), withSpec(func(s map[string]any) {
			delete(s["ingress"].(map[string]any), "issuer")
		})), "spec.environments[0].ingress.issuer: TLS is on and needs a cert-manager issuer"},
		"IssuerKind":           {xr(withIngress("Helm", map[string]any{"issuer": map[string]any{"kind": "Vault", "name": "x"}})), `spec.environments[1].ingress.issuer.kind: "Vault" must be ClusterIssuer or Issuer`},
		"IssuerAnnotation":     {xr(withIngress("Helm", map[string]any{"annotations": map[string]any{"cert-manager.io/issuer": "x"}})), `spec.environments[1].ingress.annotations: "cert-manager.io/issuer" is cert-manager's`},
		"IssuerKindAnnotation": {xr(withIngress("Helm", map[string]any{"annotations": map[string]any{"cert-manager.io/issuer-kind": "ClusterIssuer"}})), `"cert-manager.io/issuer-kind" is cert-manager's`},
		"BadAnnotationKey":     {xr(withIngress("Helm", map[string]any{"annotations": map[string]any{"foo bar": "x"}})), `"foo bar" is not an annotation key`},
		"BadIssuerName":        {xr(withIngress("Helm", map[string]any{"issuer": map[string]any{"kind": "Issuer", "name": "a..b"}})), `spec.environments[1].ingress.issuer.name: "a..b"`},
		"BadClass":             {xr(withIngress("Helm", map[string]any{"className": "Nginx!"})), `spec.environments[1].ingress.className: "Nginx!" is not an IngressClass name`},
		"BadSourceType":        {xr(withSpec(func(s map[string]any) { s["source"] = map[string]any{"type": "Jsonnet"} })), `spec.source.type: "Jsonnet" must be Directory, Helm or Kustomize`},
		"EnvOnDirectory": {xr(withSpec(func(s map[string]any) {
			s["environments"].([]any)[1].(map[string]any)["ingress"] = map[string]any{"enabled": true, "tls": false}
		})), "spec.environments[1].ingress.enabled: ingress is on but the environment's source type is Directory"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, t0, newRequest(t, tc.xr, allObserved(true, "prod", "pr-7"), nil))
			r := rsp.GetResults()
			if len(r) != 1 || r[0].GetSeverity() != fnv1.Severity_SEVERITY_FATAL || !strings.Contains(r[0].GetMessage(), tc.want) {
				t.Fatalf("want one Fatal result containing %q, got %v", tc.want, r)
			}
		})
	}
}

// The platform's allow-lists in the Composition input, and the addresses
// an ingress cannot answer on.
func TestIngressInputLimits(t *testing.T) {
	limits := map[string]any{"ingressClasses": []any{"nginx"}, "clusterIssuers": []any{"letsencrypt"}}
	cases := map[string]struct {
		xr    map[string]any
		input map[string]any
		want  string // "" accepted
	}{
		"Allowed":         {xr(withIngress("Helm", nil)), limits, ""},
		"IssuerOfItsOwn":  {xr(withIngress("Helm", map[string]any{"issuer": map[string]any{"kind": "Issuer", "name": "team-ca"}})), limits, ""},
		"OtherClass":      {xr(withIngress("Helm", map[string]any{"className": "internal"})), limits, `spec.environments[1].ingress.className: "internal" is not one of the IngressClasses the platform allows (nginx)`},
		"OtherCluster":    {xr(withIngress("Helm", map[string]any{"issuer": map[string]any{"kind": "ClusterIssuer", "name": "internal-ca"}})), limits, `spec.environments[1].ingress.issuer: ClusterIssuer "internal-ca" is not one the platform allows`},
		"Loopback":        {xr(), map[string]any{"ingressAddress": "127.0.0.1"}, `input.ingressAddress: "127.0.0.1" is not an address an ingress answers on`},
		"Metadata":        {xr(), map[string]any{"ingressAddress": "169.254.169.254"}, `input.ingressAddress`},
		"MappedIPv4":      {xr(), map[string]any{"ingressAddress": "::ffff:10.0.0.1"}, `input.ingressAddress`},
		"Unspecified":     {xr(), map[string]any{"ingressAddress": "0.0.0.0"}, `input.ingressAddress`},
		"HostNameAddress": {xr(), map[string]any{"ingressAddress": "lb.example.net"}, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, t0, newRequest(t, tc.xr, allObserved(true, "prod", "pr-7"), tc.input))
			var fatals []string
			for _, r := range rsp.GetResults() {
				if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
					fatals = append(fatals, r.GetMessage())
				}
			}
			switch {
			case tc.want == "" && len(fatals) > 0:
				t.Errorf("want accepted, got %v", fatals)
			case tc.want != "" && (len(fatals) != 1 || !strings.Contains(fatals[0], tc.want)):
				t.Errorf("want one Fatal containing %q, got %v", tc.want, fatals)
			}
		})
	}
}

func fatal(t *testing.T, rsp *fnv1.RunFunctionResponse) {
	t.Helper()
	for _, r := range rsp.GetResults() {
		if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
			t.Fatalf("fatal: %s", r.GetMessage())
		}
	}
}

// A project may name any domain in any zone: its application is handed the
// host only once its DNSRecord, where ownership is proven, is Ready for
// that very name; once handed, the host stays. Until then the application
// and the environment are not Ready.
func TestIngressHostProven(t *testing.T) {
	const h = "pr-7.shop.example.com"
	dns := func(ready bool, fqdn string) map[string]any {
		o := observed(KindDNS, ready, nil)
		o["status"].(map[string]any)["atProvider"] = map[string]any{"fqdn": fqdn}
		return o
	}
	handed := func(host string) map[string]any {
		o := allObserved(true, "pr-7")["pr-7-app"]
		o["metadata"] = map[string]any{"name": "x", "annotations": map[string]any{contract.AnnotationIngressHost: host}}
		return o
	}
	cases := map[string]struct {
		reason    string
		dns       map[string]any
		app       map[string]any
		spec      xrOpt
		wantHost  bool
		wantReady bool // the application's readiness
		wantEnv   bool // the environment's (its DNS record's too)
	}{
		"RefusedAsAnothers": {
			reason: "The DNSRecord is refused (another team holds the name): never Ready, no host.",
			dns:    dns(false, ""),
		},
		"RenamedOntoAnothers": {
			reason: "The domain was changed to a name another team holds: the record's Ready and fqdn are still the old name's.",
			dns:    dns(true, "pr-6.shop.example.com."),
		},
		"Proven": {
			reason:   "The DNSRecord is Ready for the name: the host is handed; the application is not Ready until it carries it.",
			dns:      dns(true, h+"."),
			wantHost: true,
		},
		"ProvenFQDNCase": {
			reason: "The domain as written in capitals and with a trailing dot is the same name.",
			dns:    dns(true, h+"."),
			spec: withSpec(func(s map[string]any) {
				s["environments"].([]any)[1].(map[string]any)["domain"] = "PR-7.Shop.Example.com."
			}),
			wantHost: true,
		},
		"KeptOnceHanded": {
			reason:   "Handed before: kept when the record is not Ready (a DNS outage), and the application is Ready.",
			dns:      dns(false, ""),
			app:      handed(h),
			wantHost: true, wantReady: true,
		},
		"HandedAndProven": {
			reason:   "Handed and the record Ready: the application and the environment are Ready.",
			dns:      dns(true, h+"."),
			app:      handed(h),
			wantHost: true, wantReady: true, wantEnv: true,
		},
		"RenamedNotProven": {
			reason: "The domain changed from pr-6 and the new name is not proven: the new host is not handed (the old one is served meanwhile, below).",
			dns:    dns(true, "pr-6.shop.example.com."),
			app:    handed("pr-6.shop.example.com"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			obs := allObserved(true, "prod", "pr-7")
			obs["pr-7-dns"] = tc.dns
			if tc.app != nil {
				obs["pr-7-app"] = tc.app
			}
			opts := []xrOpt{withIngress("Helm", nil)}
			if tc.spec != nil {
				opts = append(opts, tc.spec)
			}
			rsp := run(t, t0, newRequest(t, xr(opts...), obs, nil))
			fatal(t, rsp)
			values, _ := resourceField(t, rsp, "pr-7-app", "spec", "forProvider", "source", "helm", "values").(string)
			annotation, _ := resourceField(t, rsp, "pr-7-app", "metadata", "annotations", contract.AnnotationIngressHost).(string)
			if got := strings.Contains(values, "host: "+h); got != tc.wantHost || (annotation == h) != tc.wantHost {
				t.Errorf("%s\nhost handed: got values %q annotation %q, want %v", tc.reason, values, annotation, tc.wantHost)
			}
			if !tc.wantHost && values != "" && tc.app == nil {
				t.Errorf("%s\nno host: want no values at all, got %q", tc.reason, values)
			}
			ready := rsp.GetDesired().GetResources()["pr-7-app"].GetReady() == fnv1.Ready_READY_TRUE
			phase := envStatus(t, rsp, "pr-7")["phase"]
			if ready != tc.wantReady || (phase == "Ready") != tc.wantEnv {
				t.Errorf("%s\napplication Ready %v, environment %v; want %v and environment Ready %v", tc.reason, ready, phase, tc.wantReady, tc.wantEnv)
			}
			// prod is proven (allObserved): handed its host.
			if v, _ := resourceField(t, rsp, "prod-app", "spec", "forProvider", "source", "helm", "values").(string); !strings.Contains(v, "host: shop.example.com") {
				t.Errorf("prod, proven: want its host handed, got %q", v)
			}
		})
	}

	// A new application (an environment added, or added back after it
	// was orphaned: Argo CD still serves its Ingress) is composed only
	// once its host is proven, and then with it: composed without, it
	// would take over the Argo CD application and strip its Ingress.
	t.Run("NewApplicationWaits", func(t *testing.T) {
		for _, proven := range []bool{false, true} {
			obs := allObserved(true, "prod", "pr-7")
			delete(obs, "pr-7-app")
			obs["pr-7-dns"] = dns(proven, map[bool]string{true: h + ".", false: ""}[proven])
			rsp := run(t, t0, newRequest(t, xr(withIngress("Helm", nil)), obs, nil))
			fatal(t, rsp)
			_, composed := rsp.GetDesired().GetResources()["pr-7-app"]
			if composed != proven {
				t.Errorf("host proven %v: application composed %v", proven, composed)
			}
			if !proven {
				if c := condition(rsp, ConditionEnvironments); !strings.Contains(c.GetMessage(), "host "+h+" waits for the DNSRecord to hold the name") {
					t.Errorf("the Environments condition does not say what pr-7 waits for: %q", c.GetMessage())
				}
				continue
			}
			values, _ := resourceField(t, rsp, "pr-7-app", "spec", "forProvider", "source", "helm", "values").(string)
			if !strings.Contains(values, "host: "+h) || resourceField(t, rsp, "pr-7-app", "metadata", "annotations", contract.AnnotationIngressHost) != h {
				t.Errorf("a new application is composed with its host, got values %q", values)
			}
		}
	})

	// Applications composed by the version before the annotation carry
	// their host in their source only: it is theirs, kept through an
	// upgrade whatever the DNS record says, and they stay Ready.
	// A changed domain: the DNSRecord's name cannot change in place, so
	// the new host is not proven; the application keeps serving the host
	// it was handed, is not Ready, and the condition says why.
	t.Run("RenamedServesOld", func(t *testing.T) {
		const old = "pr-6.shop.example.com"
		obs := allObserved(true, "prod", "pr-7")
		obs["pr-7-dns"] = dns(true, old+".")
		obs["pr-7-app"] = handed(old)
		rsp := run(t, t0, newRequest(t, xr(withIngress("Helm", nil)), obs, nil))
		fatal(t, rsp)
		values, _ := resourceField(t, rsp, "pr-7-app", "spec", "forProvider", "source", "helm", "values").(string)
		if !strings.Contains(values, "host: "+old) || resourceField(t, rsp, "pr-7-app", "metadata", "annotations", contract.AnnotationIngressHost) != old {
			t.Errorf("want the old host served until the new one is proven, got values %q", values)
		}
		if rsp.GetDesired().GetResources()["pr-7-app"].GetReady() == fnv1.Ready_READY_TRUE {
			t.Error("an application serving the old host is not Ready")
		}
		msg := condition(rsp, ConditionEnvironments).GetMessage()
		for _, want := range []string{"host " + h + " waits: the DNSRecord holds " + old, "cannot change in place", old + " is served until then"} {
			if !strings.Contains(msg, want) {
				t.Errorf("Environments condition %q, want it to say %q", msg, want)
			}
		}
	})

	// Applications composed by the version before the annotation carry
	// their host in their source only: kept without a Ready flap when it
	// is proven, dropped when it is not (a host another team holds, named
	// by mistake before the gate).
	t.Run("Upgrade", func(t *testing.T) {
		for _, typ := range []string{"Helm", "Kustomize"} {
			for _, proven := range []bool{true, false} {
				old := run(t, t0, newRequest(t, xr(withIngress(typ, nil)), allObserved(true, "prod", "pr-7"), nil))
				fatal(t, old)
				app := allObserved(true, "pr-7")["pr-7-app"]
				src := resourceField(t, old, "pr-7-app", "spec", "forProvider", "source").(map[string]any)
				app["spec"] = map[string]any{"forProvider": map[string]any{"source": src}}
				obs := allObserved(true, "prod", "pr-7")
				obs["pr-7-app"] = app
				if !proven {
					obs["pr-7-dns"] = dns(false, "")
				}
				rsp := run(t, t0, newRequest(t, xr(withIngress(typ, nil)), obs, nil))
				fatal(t, rsp)
				a := resourceField(t, rsp, "pr-7-app", "metadata", "annotations", contract.AnnotationIngressHost)
				ready := rsp.GetDesired().GetResources()["pr-7-app"].GetReady() == fnv1.Ready_READY_TRUE
				if proven && (a != h || !ready) {
					t.Errorf("%s, proven: want the host kept, annotated and the application still Ready; annotation %v, Ready %v", typ, a, ready)
				}
				if !proven && (a != nil || ready) {
					t.Errorf("%s, not proven: want the host dropped and the application not Ready; annotation %v, Ready %v", typ, a, ready)
				}
			}
		}
	})

	// sourceHost reads only what is small enough to be the function's.
	t.Run("SourceHostBounded", func(t *testing.T) {
		big := "ingress:\n  host: " + h + "\n# " + strings.Repeat("x", maxSourceHostParse) + "\n"
		app := st(t, map[string]any{"spec": map[string]any{"forProvider": map[string]any{"source": map[string]any{"helm": map[string]any{"values": big}}}}})
		if got := sourceHost(app); got != "" {
			t.Errorf("values larger than %d bytes: want them unread, got host %q", maxSourceHostParse, got)
		}
	})

	// Ingress off: nothing to hand, nothing waits.
	obs := allObserved(true, "prod", "pr-7")
	obs["pr-7-dns"] = dns(false, "")
	rsp := run(t, t0, newRequest(t, xr(withIngress("Helm", map[string]any{"enabled": false})), obs, nil))
	fatal(t, rsp)
	if rsp.GetDesired().GetResources()["pr-7-app"].GetReady() != fnv1.Ready_READY_TRUE {
		t.Error("ingress off: the application's readiness does not wait for its DNS record")
	}
	if a := resourceField(t, rsp, "pr-7-app", "metadata", "annotations", contract.AnnotationIngressHost); a != nil {
		t.Errorf("ingress off: no host annotation, got %v", a)
	}
}

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
	"maps"
	"net"
	"regexp"
	"slices"
	"strings"

	"google.golang.org/protobuf/types/known/structpb"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/crossplane/function-sdk-go/resource"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
)

// Source types of an environment's manifests.
const (
	SourceDirectory = "Directory"
	SourceHelm      = "Helm"
	SourceKustomize = "Kustomize"
)

// Issuer kinds of cert-manager and the Ingress annotation each one takes.
var issuerAnnotation = map[string]string{ //nolint:gochecknoglobals // read-only table
	"ClusterIssuer": "cert-manager.io/cluster-issuer",
	"Issuer":        "cert-manager.io/issuer",
}

// SourceSpec says how Argo CD renders the environments' manifests.
type SourceSpec struct {
	// Type: Directory (plain manifests, the default), Helm or Kustomize.
	Type string `json:"type"`
}

// IngressSpec is how an environment is reached: the project's, each field
// overridable per environment.
type IngressSpec struct {
	Enabled     *bool             `json:"enabled,omitempty"`
	ClassName   string            `json:"className,omitempty"`
	TLS         *bool             `json:"tls,omitempty"`
	Issuer      *IssuerRef        `json:"issuer,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// IssuerRef names a cert-manager Issuer (in the environment's namespace)
// or ClusterIssuer.
type IssuerRef struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// ingress is an environment's effective ingress.
type ingress struct {
	enabled     bool
	className   string
	tls         bool
	issuer      *IssuerRef
	annotations map[string]string
}

// ingressOf merges the project's ingress with the environment's: each
// field the environment sets wins; annotations merge, the environment's
// winning. TLS defaults to on.
func ingressOf(project, env *IngressSpec) ingress {
	in := ingress{tls: true}
	for _, s := range []*IngressSpec{project, env} {
		if s == nil {
			continue
		}
		if s.Enabled != nil {
			in.enabled = *s.Enabled
		}
		if s.ClassName != "" {
			in.className = s.ClassName
		}
		if s.TLS != nil {
			in.tls = *s.TLS
		}
		if s.Issuer != nil {
			in.issuer = s.Issuer
		}
		if len(s.Annotations) > 0 {
			if in.annotations == nil {
				in.annotations = map[string]string{}
			}
			maps.Copy(in.annotations, s.Annotations)
		}
	}
	return in
}

// sourceTypeOf is an environment's source type: its own, else the
// project's, else Directory.
func sourceTypeOf(project SourceSpec, e Environment) string {
	switch {
	case e.SourceType != "":
		return e.SourceType
	case project.Type != "":
		return project.Type
	}
	return SourceDirectory
}

// scheme is the URL scheme an environment answers on: https with TLS.
func (in ingress) scheme() string {
	if in.tls {
		return "https://"
	}
	return "http://"
}

// className is a DNS subdomain, as the XRD's pattern says.
var className = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// validateIngress checks one ingress spec (at path) on its own.
func validateIngress(path string, s *IngressSpec) error {
	if s == nil {
		return nil
	}
	if s.ClassName != "" && (len(s.ClassName) > 253 || !className.MatchString(s.ClassName)) {
		return fieldErr(path+".className", "%q is not an IngressClass name", s.ClassName)
	}
	if i := s.Issuer; i != nil {
		if _, ok := issuerAnnotation[i.Kind]; !ok {
			return fieldErr(path+".issuer.kind", "%q must be ClusterIssuer or Issuer", i.Kind)
		}
		if errs := validation.IsDNS1123Subdomain(i.Name); len(errs) > 0 || !className.MatchString(i.Name) {
			if len(errs) == 0 {
				errs = []string{"a DNS subdomain"}
			}
			return fieldErr(path+".issuer.name", "%q is not a cert-manager issuer name: %s", i.Name, errs[0])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Annotations)) {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return fieldErr(path+".annotations", "%q is not an annotation key: %s", k, errs[0])
		}
		// cert-manager's annotations choose the issuer and what the
		// certificate says: the platform's, through issuer.
		if strings.HasPrefix(k, "cert-manager.io/") || strings.HasPrefix(k, "acme.cert-manager.io/") {
			return fieldErr(path+".annotations", "%q is cert-manager's: name the issuer in issuer", k)
		}
	}
	return nil
}

// allowed holds an environment's ingress to the Composition input's
// allow-lists of IngressClasses and ClusterIssuers (empty: any).
func (s *settings) allowed(path string, in ingress) error {
	if !in.enabled {
		return nil
	}
	if len(s.ingressClasses) > 0 && in.className != "" && !slices.Contains(s.ingressClasses, in.className) {
		return fieldErr(path+".ingress.className", "%q is not one of the IngressClasses the platform allows (%s)", in.className, strings.Join(s.ingressClasses, ", "))
	}
	if len(s.ingressClasses) > 0 && in.className == "" {
		return fieldErr(path+".ingress.className", "is required: the platform allows the IngressClasses %s", strings.Join(s.ingressClasses, ", "))
	}
	if i := in.issuer; in.tls && i != nil && i.Kind == "ClusterIssuer" && len(s.clusterIssuers) > 0 && !slices.Contains(s.clusterIssuers, i.Name) {
		return fieldErr(path+".ingress.issuer", "ClusterIssuer %q is not one the platform allows (%s); or name an Issuer of the environment's namespace", i.Name, strings.Join(s.clusterIssuers, ", "))
	}
	return nil
}

// validateEnvIngress checks what an environment's effective ingress
// needs: a source that can take it, and an issuer for TLS.
func validateEnvIngress(path, source string, in ingress) error {
	if !in.enabled {
		return nil
	}
	switch source {
	case SourceHelm, SourceKustomize:
	case SourceDirectory:
		return fieldErr(path+".ingress.enabled", "ingress is on but the environment's source type is Directory: plain manifests cannot be handed a host and TLS; set sourceType (or spec.source.type) to Helm or Kustomize, or carry the Ingress in the manifests and turn ingress off")
	default:
		return fieldErr(path+".sourceType", "%q must be Directory, Helm or Kustomize", source)
	}
	if in.tls && in.issuer == nil {
		return fieldErr(path+".ingress.issuer", "TLS is on and needs a cert-manager issuer (kind ClusterIssuer or Issuer, and its name) to get a certificate; or set tls: false")
	}
	return nil
}

// tlsSecretName is the Secret holding an environment's certificate.
func (p *project) tlsSecretName(e Environment) string {
	return p.stable + "-" + e.Name + "-tls"
}

// ingressAnnotations are the Ingress's annotations: the spec's, and the
// issuer's for cert-manager when TLS is on.
func (in ingress) ingressAnnotations() map[string]string {
	out := maps.Clone(in.annotations)
	if in.tls && in.issuer != nil {
		if out == nil {
			out = map[string]string{}
		}
		out[issuerAnnotation[in.issuer.Kind]] = in.issuer.Name
	}
	return out
}

// helmValues is the values contract: what a chart reads to make the
// environment's Ingress (docs/ingress.md).
func (p *project) helmValues(e Environment, in ingress, h string) (string, error) {
	ing := map[string]any{"enabled": true, "host": h}
	if in.className != "" {
		ing["className"] = in.className
	}
	if a := in.ingressAnnotations(); len(a) > 0 {
		ing["annotations"] = a
	}
	if in.tls {
		ing["tls"] = map[string]any{"secretName": p.tlsSecretName(e), "issuer": map[string]string{"kind": in.issuer.Kind, "name": in.issuer.Name}}
	}
	b, err := yaml.Marshal(map[string]any{"ingress": ing})
	return string(b), err
}

// hostPatchPath is where the Kustomize patch sets an Ingress's host.
const hostPatchPath = "/spec/rules/0/host"

// ingressTarget selects every Ingress of a Kustomize source.
var ingressTarget = &argov1alpha1.KustomizeSelector{Group: "networking.k8s.io", Kind: "Ingress"} //nolint:gochecknoglobals // read-only selector, copied where used

// kustomizePatches set the host of the first rule of every Ingress, and
// its class, TLS and annotations (docs/ingress.md).
func (p *project) kustomizePatches(e Environment, in ingress, h string) ([]argov1alpha1.KustomizePatch, error) {
	hostOp, err := yaml.Marshal([]map[string]any{{"op": "add", "path": hostPatchPath, "value": h}})
	if err != nil {
		return nil, err
	}
	md := map[string]any{"name": "ingress"}
	if a := in.ingressAnnotations(); len(a) > 0 {
		md["annotations"] = a
	}
	spec := map[string]any{}
	if in.className != "" {
		spec["ingressClassName"] = in.className
	}
	if in.tls {
		spec["tls"] = []any{map[string]any{"hosts": []string{h}, "secretName": p.tlsSecretName(e)}}
	}
	smp, err := yaml.Marshal(map[string]any{"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": md, "spec": spec})
	if err != nil {
		return nil, err
	}
	return []argov1alpha1.KustomizePatch{{Patch: string(hostOp), Target: ingressTarget}, {Patch: string(smp), Target: ingressTarget}}, nil
}

// host is an environment's host name, without a trailing dot.
func host(e Environment) string { return strings.TrimSuffix(strings.ToLower(e.Domain), ".") }

// dnsTarget is what an environment's name points to, and the record type:
// spec.dns, else the Composition input's ingressAddress (an address gives
// an A or AAAA record, a name a CNAME).
func dnsTarget(spec DNSSpec, s *settings) (target, typ string) {
	target, typ = spec.Target, spec.Type
	if target == "" {
		target = s.ingressAddress
	}
	if typ == "" {
		typ = "CNAME"
		if ip := net.ParseIP(target); ip != nil {
			typ = "A"
			if ip.To4() == nil {
				typ = "AAAA"
			}
		}
	}
	return target, typ
}

// gateHosts decides which host, if any, each environment's application is
// handed. The domain is the project's own choice, inside a zone that is
// its own choice too, so a project could name another team's host (a
// copy-paste, a typo) and its Ingress would claim that host on a shared
// ingress controller. The environment's DNSRecord is where ownership is
// proven: the provider refuses a record set another resource owns. So:
//
//   - a host is proven once the DNSRecord is observed Ready for that very
//     name (its status.atProvider.fqdn, which a refused rename does not
//     change), and is then handed, and recorded on the application (the
//     annotation);
//   - with ingress on, a new application is composed only once it has a
//     host to be handed, and then with it: composed without, it would take
//     over an existing Argo CD application (an orphaned environment added
//     back) and strip the Ingress it serves;
//   - the host recorded on the application stays handed until another is
//     proven: a DNS outage does not take the Ingress away, and a changed
//     domain serves the old host until the new one is proven (a DNSRecord's
//     name cannot change in place, so that is after the environment is
//     removed and added back);
//   - an application composed before the annotation existed keeps its host
//     only if it is proven: one that named another team's host by mistake
//     loses it on upgrade;
//   - an application that does not carry the environment's host is not
//     Ready: the environment is Ready only when it answers at its URL.
func (rs *requestState) gateHosts() {
	p := rs.project
	rs.handHost = make(map[string]string, len(p.spec.Environments))
	rs.hostNote = map[string]string{}
	rs.hostAwaits = map[string]resource.Name{}
	for _, e := range p.spec.Environments {
		if ingressOf(p.spec.Ingress, e.Ingress).enabled {
			rs.gateHost(e)
		}
	}
}

// gateHost decides the host handed to an environment with ingress on,
// the note on its progress and whether its application is Ready.
func (rs *requestState) gateHost(e Environment) {
	h := host(e)
	app, ok := rs.observed[nameApp(e.Name)]
	recorded := pbAt(app, "metadata", "annotations", contract.AnnotationIngressHost).GetStringValue()
	fqdn := pbAt(rs.observed[nameDNS(e.Name)], "status", "atProvider", "fqdn").GetStringValue()
	proven := rs.ready[nameDNS(e.Name)] && fqdn == h+"."
	// An application composed before the annotation, whose source
	// carries the proven host, carries it already: no Ready flap.
	carries := ok && (recorded == h || recorded == "" && proven && sourceHost(app) == h)
	switch {
	case recorded == h || proven:
		rs.handHost[e.Name] = h
	case recorded != "":
		rs.handHost[e.Name] = recorded
	}
	if !carries {
		rs.hostNote[e.Name] = hostNote(h, fqdn, proven)
		rs.hostAwaits[e.Name] = hostProgress(e, h, fqdn, proven)
	}
	if n := rs.hostNote[e.Name]; n != "" && rs.handHost[e.Name] != "" && rs.handHost[e.Name] != h {
		rs.hostNote[e.Name] = n + "; " + rs.handHost[e.Name] + " is served until then"
	}
	if ok && !carries {
		rs.ready[nameApp(e.Name)] = false
	}
}

// hostNote is where handing host h stands, for an application that does
// not carry it yet, fqdn being the name its DNSRecord holds.
func hostNote(h, fqdn string, proven bool) string {
	switch {
	case proven:
		return "host " + h + " being handed to the ArgoApplication"
	case fqdn != "" && fqdn != h+".":
		return "host " + h + " waits: the DNSRecord holds " + strings.TrimSuffix(fqdn, ".") + " and a DNSRecord's name cannot change in place (remove the environment and add it back to move it)"
	default:
		return "host " + h + " waits for the DNSRecord to hold the name"
	}
}

// hostProgress names the resource being made while the host note is
// progress, said only once it takes long (waitingFor): the record being
// made, then the application being handed the host. A record that holds
// another name is a problem, said at once: "".
func hostProgress(e Environment, h, fqdn string, proven bool) resource.Name {
	switch {
	case proven:
		return nameApp(e.Name)
	case fqdn == "" || fqdn == h+".":
		return nameDNS(e.Name)
	default:
		return ""
	}
}

// maxSourceHostParse bounds what sourceHost parses: the values and patches
// the function writes are small, and anything larger is not read.
const maxSourceHostParse = 64 << 10

// sourceHost is the host an observed application's source hands its
// manifests: its Helm values' ingress.host, or its Kustomize host patch's.
// Applications composed before the ingress-host annotation carry their
// host only there; it is read only once the host is proven.
func sourceHost(app *structpb.Struct) string {
	src := pbAt(app, "spec", "forProvider", "source").GetStructValue()
	if v := pbAt(src, "helm", "values").GetStringValue(); v != "" && len(v) <= maxSourceHostParse {
		var values struct {
			Ingress struct {
				Host string `json:"host"`
			} `json:"ingress"`
		}
		if yaml.Unmarshal([]byte(v), &values) == nil {
			return values.Ingress.Host
		}
	}
	for _, x := range pbAt(src, "kustomize", "patches").GetListValue().GetValues() {
		var ops []struct {
			Op    string `json:"op"`
			Path  string `json:"path"`
			Value any    `json:"value"`
		}
		patch := pbAt(x.GetStructValue(), "patch").GetStringValue()
		if len(patch) > maxSourceHostParse || yaml.Unmarshal([]byte(patch), &ops) != nil {
			continue
		}
		for _, op := range ops {
			if h, ok := op.Value.(string); ok && op.Path == hostPatchPath {
				return h
			}
		}
	}
	return ""
}

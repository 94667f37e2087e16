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

package framework

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/freeleaps/provider-devops/internal/testing/argocdserver"
)

// IngressAddress is the ingress controller's load-balancer host name: what
// the environments' DNS records point to (a CNAME), and the address the
// scenario, playing the ingress controller, gives every Ingress.
const IngressAddress = "ingress.example.com"

// Source types of the scenario's environments (spec.source.type and
// environments[].sourceType).
const (
	sourceHelm      = "Helm"
	sourceKustomize = "Kustomize"
)

// envOrder is the environments in the order of the DevOpsProject's spec.
var envOrder = []string{"prod", "staging", deployEnv, previewEnv}

// envIngress is what the DevOpsProject asks of an environment's Ingress
// (spec.ingress with the environment's overrides; projectYAML), and so what
// the Ingress Argo CD creates from the environment's manifests must be.
type envIngress struct {
	// source is how deploy/<env> is rendered: Helm (a copy of the served
	// fixture chart) or Kustomize (an overlay of the fixture base with an
	// Ingress, deploy/base, and the environment's ConfigMap).
	source string
	class  string
	// tls: a TLS section with the secret <project>-<env>-tls, and the URL
	// https://; without, http:// and no cert-manager annotation.
	tls bool
	// issuerKind and issuerName are the cert-manager issuer.
	issuerKind, issuerName string
	// chartCertificate: the chart ships its own Certificate
	// (certificate.enabled in its values.yaml), so its Ingress carries no
	// issuer annotation (docs/ingress.md).
	chartCertificate bool
}

// ingresses are the environments' ingress settings: the project's
// (ClusterIssuer letsencrypt, class nginx, TLS on, Helm), dev a Kustomize
// source without TLS, pr-7 a Kustomize source with a namespaced Issuer, and
// staging a chart that ships its own Certificate.
var ingresses = map[string]envIngress{
	"prod":     {source: sourceHelm, class: "nginx", tls: true, issuerKind: "ClusterIssuer", issuerName: "letsencrypt"},
	"staging":  {source: sourceHelm, class: "nginx", tls: true, issuerKind: "ClusterIssuer", issuerName: "letsencrypt", chartCertificate: true},
	deployEnv:  {source: sourceKustomize, class: "nginx"},
	previewEnv: {source: sourceKustomize, class: "nginx", tls: true, issuerKind: "Issuer", issuerName: "preview-ca"},
}

// issuerAnnotations are cert-manager's ingress-shim annotations, by issuer
// kind.
var issuerAnnotations = map[string]string{
	"ClusterIssuer": "cert-manager.io/cluster-issuer",
	"Issuer":        "cert-manager.io/issuer",
}

// envNamespace is where an environment's application deploys: the
// function's default on a ClusterProviderConfig,
// <namespace>--<project>-<env>.
func envNamespace(env string) string { return ProjectNamespace + "--" + Project + "-" + env }

// appProjectName is the project's AppProject: "<namespace>.<name>".
func appProjectName() string { return ProjectNamespace + "." + Project }

// appName is an environment's Argo CD application: "<namespace>.<name>.<env>".
func appName(env string) string { return ProjectNamespace + "." + Project + "." + env }

// envURL is the URL the XR reports for an environment.
func envURL(env string) string {
	if ingresses[env].tls {
		return "https://" + Environments[env]
	}
	return "http://" + Environments[env]
}

// gitopsFiles are the GitOps repository's deploy/ tree, made of the
// fixtures the integration tests serve (argocdserver.SampleApps): for a
// Helm environment, deploy/<env> is a copy of the chart whose Ingress and
// Certificate templates follow the values contract; for a Kustomize one,
// deploy/<env> is an overlay of deploy/base, the fixture base with an
// Ingress, adding the environment's ConfigMap (manifestPath, which a build
// bumps).
func gitopsFiles() (map[string]string, error) {
	files := map[string]string{}
	for name, content := range argocdserver.SampleApps {
		if rest, ok := strings.CutPrefix(name, "kustomized-ingress/"); ok {
			files["deploy/base/"+rest] = content
		}
	}
	for env, want := range ingresses {
		dir := "deploy/" + env + "/"
		switch want.source {
		case sourceHelm:
			for name, content := range argocdserver.SampleApps {
				rest, ok := strings.CutPrefix(name, "chart/")
				if !ok {
					continue
				}
				if rest == "values.yaml" && want.chartCertificate {
					const off = "certificate:\n  enabled: false\n"
					if !strings.Contains(content, off) {
						return nil, fmt.Errorf("the fixture chart's values.yaml has no %q to turn on", off)
					}
					content = strings.Replace(content, off, "certificate:\n  enabled: true\n", 1)
				}
				files[dir+rest] = content
			}
		case sourceKustomize:
			files[dir+"kustomization.yaml"] = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - configmap.yaml\n  - ../base\n"
			files[strings.ReplaceAll(manifestPath, "{environment}", env)] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  environment: %s\n", Project, env)
		}
	}
	return files, nil
}

// appConfigMap is the ConfigMap an environment's application deploys: the
// chart's <release>-sample (the release is the application, <project>-<env>),
// or the overlay's <project>.
func appConfigMap(env string) string {
	if ingresses[env].source == sourceHelm {
		return Project + "-" + env + "-sample"
	}
	return Project
}

// playIngressControllers plays, until stop is called, the two controllers
// this control plane does not run (docs/ingress.md, Health): an ingress
// controller, which gives every Ingress the load-balancer address the DNS
// records point to (IngressAddress), and cert-manager, which makes every
// Certificate Ready. Argo CD reports an application Progressing until both
// have, as in a cluster; internal/controller/argoapplication's
// TestRealIngress does the same. Nothing issues a certificate or creates a
// Secret: ingress-shim's Certificates for the annotated Ingresses are not
// played, only the chart's own.
func (c *Cluster) playIngressControllers(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		last := ""
		for {
			err := c.serveIngresses(ctx)
			if msg := fmt.Sprint(err); err != nil && ctx.Err() == nil && msg != last {
				c.logf("  ingress controller and cert-manager (played): %v", err)
				last = msg
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// serveIngresses is one pass of the played controllers. A conflict or an
// object gone meanwhile is left for the next pass.
func (c *Cluster) serveIngresses(ctx context.Context) error {
	ings := &networkingv1.IngressList{}
	if err := c.Kube.List(ctx, ings); err != nil {
		return err
	}
	for i := range ings.Items {
		in := &ings.Items[i]
		if len(in.Status.LoadBalancer.Ingress) > 0 || in.DeletionTimestamp != nil {
			continue
		}
		in.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{Hostname: IngressAddress}}
		if err := c.Kube.Status().Update(ctx, in); err != nil && !kerrors.IsConflict(err) && !kerrors.IsNotFound(err) {
			return fmt.Errorf("Ingress %s/%s: %w", in.Namespace, in.Name, err)
		}
	}
	crts, err := c.List(ctx, "cert-manager.io/v1", "Certificate")
	if err != nil {
		return err
	}
	for i := range crts {
		crt := &crts[i]
		if st, _, _ := Condition(crt, "Ready"); st == "True" || crt.GetDeletionTimestamp() != nil {
			continue
		}
		if err := unstructured.SetNestedSlice(crt.Object, []any{map[string]any{
			"type": "Ready", "status": "True", "reason": "Ready", "message": "Certificate is up to date and has not expired",
			"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
		}}, "status", "conditions"); err != nil {
			return err
		}
		if err := c.Kube.Status().Update(ctx, crt); err != nil && !kerrors.IsConflict(err) && !kerrors.IsNotFound(err) {
			return fmt.Errorf("Certificate %s/%s: %w", crt.GetNamespace(), crt.GetName(), err)
		}
	}
	return nil
}

// envIngressOf reads the one Ingress in an environment's namespace; nil
// when there is none.
func (c *Cluster) envIngressOf(ctx context.Context, env string) (*networkingv1.Ingress, error) {
	l := &networkingv1.IngressList{}
	if err := c.Kube.List(ctx, l, client.InNamespace(envNamespace(env))); err != nil {
		return nil, err
	}
	switch len(l.Items) {
	case 0:
		return nil, nil
	case 1:
		return &l.Items[0], nil
	}
	names := []string{}
	for _, in := range l.Items {
		names = append(names, in.Name)
	}
	return nil, fmt.Errorf("namespace %s has %d Ingresses %v, want one", envNamespace(env), len(names), names)
}

// checkIngresses requires, for every environment, the Ingress Argo CD
// created from its manifests in its namespace with what the DevOpsProject
// asked: its domain as the host of every rule, the class, with TLS the
// secret <project>-<env>-tls for the domain and the issuer (the ingress-shim
// annotation, or the chart's own Certificate), without TLS neither; and
// the load-balancer address. It returns the table of them and the Ingresses'
// UIDs, by environment.
func (c *Cluster) checkIngresses(ctx context.Context) (string, map[string]types.UID, error) {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(w, "ENVIRONMENT\tSOURCE\tINGRESS\tHOST\tCLASS\tTLS SECRET\tISSUER\tADDRESS")
	uids := map[string]types.UID{}
	for _, env := range envOrder {
		want, ns, domain := ingresses[env], envNamespace(env), Environments[env]
		in, err := c.envIngressOf(ctx, env)
		if err != nil {
			return "", nil, err
		}
		if in == nil {
			return "", nil, fmt.Errorf("no Ingress in %s, environment %s's namespace", ns, env)
		}
		what := fmt.Sprintf("Ingress %s/%s (environment %s)", ns, in.Name, env)
		if len(in.Spec.Rules) == 0 {
			return "", nil, fmt.Errorf("%s has no rules", what)
		}
		for _, r := range in.Spec.Rules {
			if r.Host != domain {
				return "", nil, fmt.Errorf("%s has a rule for host %q, want %q", what, r.Host, domain)
			}
		}
		class := ""
		if in.Spec.IngressClassName != nil {
			class = *in.Spec.IngressClassName
		}
		if class != want.class {
			return "", nil, fmt.Errorf("%s has ingressClassName %q, want %q", what, class, want.class)
		}
		secret, issuer := "-", "-"
		switch {
		case want.tls:
			secret = Project + "-" + env + "-tls"
			if len(in.Spec.TLS) != 1 || in.Spec.TLS[0].SecretName != secret || !slices.Equal(in.Spec.TLS[0].Hosts, []string{domain}) {
				return "", nil, fmt.Errorf("%s has tls %+v, want secret %s for host %s", what, in.Spec.TLS, secret, domain)
			}
		case len(in.Spec.TLS) > 0:
			return "", nil, fmt.Errorf("%s has tls %+v, want none (tls: false)", what, in.Spec.TLS)
		}
		// The issuer annotation ingress-shim acts on: the issuer's kind's
		// alone, and none without TLS or when the chart ships a Certificate.
		wantAnn := map[string]string{}
		if want.tls && !want.chartCertificate {
			wantAnn[issuerAnnotations[want.issuerKind]] = want.issuerName
			issuer = want.issuerKind + " " + want.issuerName
		}
		gotAnn := map[string]string{}
		for _, k := range issuerAnnotations {
			if v, ok := in.Annotations[k]; ok {
				gotAnn[k] = v
			}
		}
		if !maps.Equal(gotAnn, wantAnn) {
			return "", nil, fmt.Errorf("%s has cert-manager annotations %v, want %v", what, gotAnn, wantAnn)
		}
		crt, err := c.checkCertificate(ctx, env, secret)
		if err != nil {
			return "", nil, err
		}
		if crt != "" {
			issuer = crt
		}
		addr := "-"
		if lb := in.Status.LoadBalancer.Ingress; len(lb) > 0 {
			addr = lb[0].Hostname + lb[0].IP
		}
		uids[env] = in.UID
		_, _ = fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", env, want.source, ns+"/"+in.Name, domain, class, secret, issuer, addr)
	}
	_ = w.Flush()
	return b.String(), uids, nil
}

// checkCertificate requires the chart's own Certificate where the chart
// ships one (for the domain, into the TLS secret, from the issuer) and no
// Certificate elsewhere (nothing plays ingress-shim). It describes the
// Certificate's issuer for the table.
func (c *Cluster) checkCertificate(ctx context.Context, env, secret string) (string, error) {
	want, ns := ingresses[env], envNamespace(env)
	crts, err := c.List(ctx, "cert-manager.io/v1", "Certificate", client.InNamespace(ns))
	if err != nil {
		return "", err
	}
	if !want.chartCertificate {
		if len(crts) != 0 {
			return "", fmt.Errorf("namespace %s (environment %s) has %d Certificates, want none: its chart ships none", ns, env, len(crts))
		}
		return "", nil
	}
	if len(crts) != 1 {
		return "", fmt.Errorf("namespace %s (environment %s) has %d Certificates, want the chart's one", ns, env, len(crts))
	}
	crt := crts[0]
	got := func(path ...string) string {
		v, _, _ := unstructured.NestedString(crt.Object, append([]string{"spec"}, path...)...)
		return v
	}
	dns, _, _ := unstructured.NestedStringSlice(crt.Object, "spec", "dnsNames")
	if got("secretName") != secret || !slices.Equal(dns, []string{Environments[env]}) ||
		got("issuerRef", "kind") != want.issuerKind || got("issuerRef", "name") != want.issuerName {
		return "", fmt.Errorf("Certificate %s/%s has spec %v, want secretName %s, dnsNames [%s], issuerRef %s %s",
			ns, crt.GetName(), crt.Object["spec"], secret, Environments[env], want.issuerKind, want.issuerName)
	}
	return fmt.Sprintf("%s %s (Certificate %s)", want.issuerKind, want.issuerName, crt.GetName()), nil
}

// waitIngressesGone waits until the environments' namespaces hold no
// Ingress and no Certificate: Argo CD's cascade deleted them with the
// applications.
func (c *Cluster) waitIngressesGone(ctx context.Context, envs ...string) error {
	return c.Wait(ctx, fmt.Sprintf("the Ingresses of %v to be deleted by Argo CD's cascade", envs), 2*time.Minute, func(ctx context.Context) (bool, string, error) {
		left := []string{}
		for _, env := range envs {
			in, err := c.envIngressOf(ctx, env)
			if err != nil {
				return false, err.Error(), nil
			}
			if in != nil {
				left = append(left, "Ingress "+in.Namespace+"/"+in.Name)
			}
			crts, err := c.List(ctx, "cert-manager.io/v1", "Certificate", client.InNamespace(envNamespace(env)))
			if err != nil {
				return false, err.Error(), nil
			}
			for _, crt := range crts {
				left = append(left, "Certificate "+crt.GetNamespace()+"/"+crt.GetName())
			}
		}
		return len(left) == 0, fmt.Sprintf("still there: %v", left), nil
	})
}

// checkIngressKept requires an environment's Ingress to be the one seen
// before (same UID), not being deleted.
func (c *Cluster) checkIngressKept(ctx context.Context, env string, uid types.UID) error {
	in, err := c.envIngressOf(ctx, env)
	if err != nil {
		return err
	}
	if in == nil || in.UID != uid || in.DeletionTimestamp != nil {
		return fmt.Errorf("environment %s's Ingress must stay (uid %s), got %v", env, uid, in)
	}
	return nil
}

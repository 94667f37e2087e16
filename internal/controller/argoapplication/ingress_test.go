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

package argoapplication_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/testing/argocdserver"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

// The platform's ingress settings as docs/ingress.md states them: Helm
// values, and Kustomize patches on every Ingress of the base.
const (
	ingressHost   = "pr-7.shop.example.com"
	ingressSecret = "shop-pr-7-tls"

	helmIngressValues = `ingress:
  enabled: true
  host: ` + ingressHost + `
  className: nginx
  annotations:
    cert-manager.io/cluster-issuer: letsencrypt
    example.com/team: shop
  tls:
    secretName: ` + ingressSecret + `
    issuer: {kind: ClusterIssuer, name: letsencrypt}
`
	kustomizeHostPatch = `[{"op": "add", "path": "/spec/rules/0/host", "value": "` + ingressHost + `"}]`
	// The name is a placeholder: with a target, Kustomize merges the patch
	// into every Ingress selected and keeps each one's name.
	kustomizeIngressPatch = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: ingress
  annotations:
    cert-manager.io/cluster-issuer: letsencrypt
spec:
  ingressClassName: nginx
  tls:
    - hosts: [` + ingressHost + `]
      secretName: ` + ingressSecret + `
`
)

// ingressView is what the contract decides of an Ingress.
type ingressView struct {
	Annotations map[string]string
	Class       string
	TLS         []networkingv1.IngressTLS
	Hosts       []string
}

// viewOf leaves out the annotations Argo CD and kubectl's apply add.
func viewOf(in *networkingv1.Ingress) ingressView {
	v := ingressView{Annotations: map[string]string{}, TLS: in.Spec.TLS}
	for k, a := range in.Annotations {
		if !strings.HasPrefix(k, "argocd.argoproj.io/") && k != corev1.LastAppliedConfigAnnotation {
			v.Annotations[k] = a
		}
	}
	if in.Spec.IngressClassName != nil {
		v.Class = *in.Spec.IngressClassName
	}
	for _, r := range in.Spec.Rules {
		v.Hosts = append(v.Hosts, r.Host)
	}
	return v
}

func certificate(namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("cert-manager.io/v1")
	u.SetKind("Certificate")
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

// TestRealIngress: an environment's ingress settings handed to its
// application reach the control plane through a real Argo CD, rendered by
// the repo server's helm and kustomize from the served fixtures
// (argocdserver.SampleApps): the Ingress with host, class, TLS secret and
// issuer annotation, the chart's own Certificate, and both gone with the
// application unless the resource may not delete (a retained environment).
func TestRealIngress(t *testing.T) {
	env := controlplane.Shared(t)
	s := argocdserver.Shared(t, env)
	ctx := context.Background()
	c := env.Client
	ns := "argo-ingress"
	startRealController(t, env, s, ns)

	helm := realMR(ns, "ing-helm", s, "chart")
	helm.Spec.ForProvider.Source.Helm = &v1alpha1.HelmSource{Values: helmIngressValues}
	// The chart that ships its own Certificate, issued by a namespaced Issuer.
	certValues := strings.NewReplacer(
		"cert-manager.io/cluster-issuer: letsencrypt", "cert-manager.io/issuer: team-ca",
		"kind: ClusterIssuer, name: letsencrypt", "kind: Issuer, name: team-ca",
	).Replace(helmIngressValues) + "certificate:\n  enabled: true\n"
	cert := realMR(ns, "ing-cert", s, "chart")
	cert.Spec.ForProvider.Source.Helm = &v1alpha1.HelmSource{Values: certValues}
	target := &v1alpha1.KustomizeSelector{Group: "networking.k8s.io", Kind: "Ingress"}
	kust := realMR(ns, "ing-kustomize", s, "kustomized-ingress")
	kust.Spec.ForProvider.Source.Kustomize = &v1alpha1.KustomizeSource{Patches: []v1alpha1.KustomizePatch{
		{Patch: kustomizeHostPatch, Target: target}, {Patch: kustomizeIngressPatch, Target: target},
	}}
	// What a retained environment's application gets: no Delete.
	kept := realMR(ns, "ing-kept", s, "chart")
	kept.Spec.ForProvider.Source.Helm = &v1alpha1.HelmSource{Values: certValues}
	kept.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize}
	t.Cleanup(func() {
		// The orphaned application would sync on for the rest of the binary.
		if app, err := s.Application(ctx, argocdserver.Namespace, kept.Name); err == nil && app != nil {
			_ = s.Kube.Delete(ctx, app)
		}
	})

	created := time.Now()
	for _, cr := range []*v1alpha1.ArgoApplication{helm, cert, kust, kept} {
		controlplane.Must(t, c.Create(ctx, cr))
	}
	ingress := func(namespace, name string) *networkingv1.Ingress {
		in := &networkingv1.Ingress{}
		controlplane.EventuallyWithin(t, 3*time.Minute, "Ingress "+namespace+"/"+name+" created by Argo CD", func() bool {
			return c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, in) == nil
		})
		return in
	}
	tls := []networkingv1.IngressTLS{{Hosts: []string{ingressHost}, SecretName: ingressSecret}}

	t.Run("Helm", func(t *testing.T) {
		want := ingressView{
			Annotations: map[string]string{"cert-manager.io/cluster-issuer": "letsencrypt", "example.com/team": "shop"},
			Class:       "nginx", TLS: tls, Hosts: []string{ingressHost},
		}
		if diff := cmp.Diff(want, viewOf(ingress("ing-helm", "ing-helm"))); diff != "" {
			t.Errorf("the Ingress from the Helm values contract, -want +got:\n%s", diff)
		}
		t.Logf("created -> Ingress in the control plane: %s", time.Since(created).Round(100*time.Millisecond))
		if err := c.Get(ctx, client.ObjectKeyFromObject(certificate("ing-helm", "ing-helm")), certificate("ing-helm", "ing-helm")); !kerrors.IsNotFound(err) {
			t.Errorf("a chart without certificate.enabled made a Certificate (or the read failed): %v", err)
		}
	})

	t.Run("HelmWithOwnCertificate", func(t *testing.T) {
		want := ingressView{
			// No issuer annotation: the chart's Certificate issues the Secret.
			Annotations: map[string]string{"example.com/team": "shop"},
			Class:       "nginx", TLS: tls, Hosts: []string{ingressHost},
		}
		if diff := cmp.Diff(want, viewOf(ingress("ing-cert", "ing-cert"))); diff != "" {
			t.Errorf("the Ingress of the chart shipping a Certificate, -want +got:\n%s", diff)
		}
		crt := certificate("ing-cert", "ing-cert")
		controlplane.EventuallyWithin(t, time.Minute, "the chart's Certificate created by Argo CD", func() bool {
			return c.Get(ctx, client.ObjectKeyFromObject(crt), crt) == nil
		})
		wantSpec := map[string]any{
			"secretName": ingressSecret, "dnsNames": []any{ingressHost},
			"issuerRef": map[string]any{"group": "cert-manager.io", "kind": "Issuer", "name": "team-ca"},
		}
		if diff := cmp.Diff(wantSpec, crt.Object["spec"]); diff != "" {
			t.Errorf("the Certificate's spec, -want +got:\n%s", diff)
		}
	})

	t.Run("Kustomize", func(t *testing.T) {
		want := ingressView{
			// The base's own annotation kept, the platform's merged in.
			Annotations: map[string]string{"cert-manager.io/cluster-issuer": "letsencrypt", "nginx.ingress.kubernetes.io/proxy-body-size": "8m"},
			Class:       "nginx", TLS: tls, Hosts: []string{ingressHost},
		}
		// "web", the base's name, not the patch's placeholder.
		if diff := cmp.Diff(want, viewOf(ingress("ing-kustomize", "web"))); diff != "" {
			t.Errorf("the Ingress from the Kustomize patches, -want +got:\n%s", diff)
		}
	})

	// No ingress controller or cert-manager runs here: Argo CD reports the
	// Ingress Progressing until it has a load-balancer address, and the
	// Certificate until it is Ready. The test plays both controllers, so the
	// application turns Healthy and the resource Ready as in a cluster.
	t.Run("HealthyOnceServed", func(t *testing.T) {
		controlplane.EventuallyWithin(t, 2*time.Minute, "ing-cert Progressing while nothing serves its Ingress", func() bool {
			return get(t, c, cert) && cert.Status.AtProvider.HealthStatus == "Progressing" && cert.GetCondition(xpv2.TypeReady).Status != corev1.ConditionTrue
		})
		for _, key := range []client.ObjectKey{{Namespace: "ing-cert", Name: "ing-cert"}, {Namespace: "ing-kustomize", Name: "web"}} {
			controlplane.Eventually(t, "Ingress "+key.String()+" given an address", func() bool {
				in := &networkingv1.Ingress{}
				if c.Get(ctx, key, in) != nil {
					return false
				}
				in.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.10"}}
				return c.Status().Update(ctx, in) == nil
			})
		}
		controlplane.Eventually(t, "Certificate ing-cert/ing-cert Ready", func() bool {
			crt := certificate("ing-cert", "ing-cert")
			if c.Get(ctx, client.ObjectKeyFromObject(crt), crt) != nil {
				return false
			}
			_ = unstructured.SetNestedSlice(crt.Object, []any{map[string]any{
				"type": "Ready", "status": "True", "reason": "Ready", "message": "Certificate is up to date and has not expired",
				"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
			}}, "status", "conditions")
			return c.Status().Update(ctx, crt) == nil
		})
		for _, cr := range []*v1alpha1.ArgoApplication{cert, kust} {
			controlplane.EventuallyWithin(t, 2*time.Minute, cr.Name+" Ready, Synced and Healthy", func() bool {
				return get(t, c, cr) && cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue &&
					cr.Status.AtProvider.SyncStatus == "Synced" && cr.Status.AtProvider.HealthStatus == "Healthy"
			})
		}
	})

	t.Run("DeleteRemovesIngressAndCertificate", func(t *testing.T) {
		deleted := []*v1alpha1.ArgoApplication{helm, cert, kust}
		for _, cr := range deleted {
			controlplane.Must(t, c.Delete(ctx, cr))
		}
		for _, cr := range deleted {
			controlplane.EventuallyWithin(t, 3*time.Minute, cr.Name+" gone from Kubernetes", func() bool {
				return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(cr), &v1alpha1.ArgoApplication{}))
			})
		}
		gone := map[string]client.Object{
			"Ingress ing-helm/ing-helm":       &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "ing-helm", Name: "ing-helm"}},
			"Ingress ing-cert/ing-cert":       &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "ing-cert", Name: "ing-cert"}},
			"Certificate ing-cert/ing-cert":   certificate("ing-cert", "ing-cert"),
			"Ingress ing-kustomize/web":       &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "ing-kustomize", Name: "web"}},
			"Service ing-kustomize/web (too)": &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ing-kustomize", Name: "web"}},
		}
		for what, o := range gone {
			controlplane.Eventually(t, what+" deleted by Argo CD's cascade", func() bool {
				return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(o), o))
			})
		}
	})

	t.Run("RetainedEnvironmentKeepsIngressAndCertificate", func(t *testing.T) {
		in := ingress("ing-kept", "ing-kept")
		crt := certificate("ing-kept", "ing-kept")
		controlplane.Must(t, c.Get(ctx, client.ObjectKeyFromObject(crt), crt))
		controlplane.Must(t, c.Delete(ctx, kept))
		controlplane.EventuallyWithin(t, 3*time.Minute, "ing-kept gone from Kubernetes", func() bool {
			return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(kept), &v1alpha1.ArgoApplication{}))
		})
		// A cascade would have begun with the application's deletion, which
		// the provider never asks for without the Delete policy.
		time.Sleep(3 * time.Second)
		app, err := s.Application(ctx, argocdserver.Namespace, kept.Name)
		if err != nil || app == nil || app.GetDeletionTimestamp() != nil {
			t.Fatalf("the retained environment's application was deleted: %v", err)
		}
		if err := c.Get(ctx, client.ObjectKeyFromObject(in), in); err != nil || in.GetDeletionTimestamp() != nil {
			t.Errorf("the retained environment's Ingress is gone or going: %v", err)
		}
		if err := c.Get(ctx, client.ObjectKeyFromObject(crt), crt); err != nil || crt.GetDeletionTimestamp() != nil {
			t.Errorf("the retained environment's Certificate is gone or going: %v", err)
		}
	})
}

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

package argocdserver

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// The fixtures rendered by the helm and kustomize Argo CD's repo server runs
// (hack/argocd.sh links them), with the platform's ingress values and patches
// as docs/ingress.md states them. Argo CD applying them is tested in
// internal/controller/argoapplication (ingress_test.go).

// renderer returns the directory of the repo server's helm and kustomize,
// skipping the test without them outside CI.
func renderer(t *testing.T) string {
	t.Helper()
	if Bin() == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("ARGOCD is not set to the directory hack/argocd.sh prints (make test sets it)")
		}
		t.Skip("ARGOCD is not set to the directory hack/argocd.sh prints; skipped outside CI")
	}
	return filepath.Join(Bin(), "bin")
}

// checkout writes SampleApps, plus extra files, into a directory.
func checkout(t *testing.T, extra map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{}
	for p, c := range SampleApps {
		files[p] = c
	}
	for p, c := range extra {
		files[p] = c
	}
	for p, c := range files {
		f := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(f), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// objects parses a multi-document YAML stream.
func objects(t *testing.T, out []byte) []unstructured.Unstructured {
	t.Helper()
	var objs []unstructured.Unstructured
	d := kyaml.NewYAMLOrJSONDecoder(bytes.NewReader(out), 4096)
	for {
		u := unstructured.Unstructured{}
		err := d.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			t.Fatalf("cannot parse the rendered manifests: %v\n%s", err, out)
		}
		if len(u.Object) > 0 {
			objs = append(objs, u)
		}
	}
}

// summary keeps what the contract decides of each object: "Kind/name" to
// the Ingress's annotations, class, TLS and hosts, or the Certificate's spec;
// other kinds map to nil (rendered, nothing checked).
func summary(objs []unstructured.Unstructured) map[string]any {
	out := map[string]any{}
	for _, u := range objs {
		key := u.GetKind() + "/" + u.GetName()
		switch u.GetKind() {
		case "Ingress":
			s := map[string]any{}
			if a := u.GetAnnotations(); len(a) > 0 {
				s["annotations"] = a
			}
			if c, ok, _ := unstructured.NestedString(u.Object, "spec", "ingressClassName"); ok {
				s["class"] = c
			}
			if tls, ok, _ := unstructured.NestedSlice(u.Object, "spec", "tls"); ok {
				s["tls"] = tls
			}
			rules, _, _ := unstructured.NestedSlice(u.Object, "spec", "rules")
			var hosts []any
			for _, r := range rules {
				hosts = append(hosts, r.(map[string]any)["host"])
			}
			s["hosts"] = hosts
			out[key] = s
		case "Certificate":
			out[key] = u.Object["spec"]
		default:
			out[key] = nil
		}
	}
	return out
}

const (
	host   = "pr-7.shop.example.com"
	secret = "shop-pr-7-tls"
)

func TestChartIngressValues(t *testing.T) {
	bin := renderer(t)
	dir := checkout(t, nil)
	base := map[string]any{"ConfigMap/shop-sample": nil, "Service/shop": nil}
	with := func(m map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	tlsOn := []any{map[string]any{"hosts": []any{host}, "secretName": secret}}
	cases := map[string]struct {
		reason string
		values string
		want   map[string]any
	}{
		"Off": {
			reason: "Without ingress values (the chart's defaults) there is neither Ingress nor Certificate.",
			want:   base,
		},
		"DisabledWithCertificate": {
			reason: "ingress.enabled false renders nothing, even with the chart's certificate.enabled.",
			values: "ingress: {enabled: false, host: " + host + "}\ncertificate: {enabled: true}\n",
			want:   base,
		},
		"PlainHTTP": {
			reason: "TLS off: the platform omits tls, and the Ingress has no TLS section; no className given, none set.",
			values: "ingress:\n  enabled: true\n  host: " + host + "\n",
			want:   with(map[string]any{"Ingress/shop": map[string]any{"hosts": []any{host}}}),
		},
		"TLSWithClusterIssuer": {
			reason: "The whole contract: host, class, the user's annotations plus the issuer's, and the TLS secret.",
			values: `ingress:
  enabled: true
  host: ` + host + `
  className: nginx
  annotations:
    cert-manager.io/cluster-issuer: letsencrypt
    nginx.ingress.kubernetes.io/ssl-redirect: "true"
  tls:
    secretName: ` + secret + `
    issuer: {kind: ClusterIssuer, name: letsencrypt}
`,
			want: with(map[string]any{"Ingress/shop": map[string]any{
				"annotations": map[string]string{"cert-manager.io/cluster-issuer": "letsencrypt", "nginx.ingress.kubernetes.io/ssl-redirect": "true"},
				"class":       "nginx", "tls": tlsOn, "hosts": []any{host},
			}}),
		},
		"OwnCertificateWithIssuer": {
			reason: "certificate.enabled: the chart's Certificate for the host with the namespaced Issuer, and the Ingress without the issuer annotation (ingress-shim would race the chart for the Secret).",
			values: `ingress:
  enabled: true
  host: ` + host + `
  className: nginx
  annotations:
    cert-manager.io/issuer: team-ca
    example.com/team: shop
  tls:
    secretName: ` + secret + `
    issuer: {kind: Issuer, name: team-ca}
certificate:
  enabled: true
`,
			want: with(map[string]any{
				"Ingress/shop": map[string]any{
					"annotations": map[string]string{"example.com/team": "shop"},
					"class":       "nginx", "tls": tlsOn, "hosts": []any{host},
				},
				"Certificate/shop": map[string]any{
					"secretName": secret, "dnsNames": []any{host},
					"issuerRef": map[string]any{"group": "cert-manager.io", "kind": "Issuer", "name": "team-ca"},
				},
			}),
		},
		"OwnCertificateWithoutTLS": {
			reason: "certificate.enabled with TLS off: nothing to certify, no Certificate.",
			values: "ingress: {enabled: true, host: " + host + "}\ncertificate: {enabled: true}\n",
			want:   with(map[string]any{"Ingress/shop": map[string]any{"hosts": []any{host}}}),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			args := []string{"template", "shop", filepath.Join(dir, "chart")}
			if tc.values != "" {
				f := filepath.Join(t.TempDir(), "values.yaml")
				if err := os.WriteFile(f, []byte(tc.values), 0o600); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--values", f)
			}
			out, err := exec.Command(filepath.Join(bin, "helm"), args...).CombinedOutput()
			if err != nil {
				t.Fatalf("helm template: %v\n%s", err, out)
			}
			if diff := cmp.Diff(tc.want, summary(objects(t, out))); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// kustomizeIngressPatches are the platform's two patches of the contract:
// the host set on each Ingress's first rule, and class, TLS and annotations
// merged in by a strategic-merge patch whose name is a placeholder.
func kustomizeIngressPatches(smp string) []map[string]any {
	target := map[string]any{"group": "networking.k8s.io", "kind": "Ingress"}
	return []map[string]any{
		{"patch": `[{"op": "add", "path": "/spec/rules/0/host", "value": "` + host + `"}]`, "target": target},
		{"patch": smp, "target": target},
	}
}

func TestKustomizeIngressPatches(t *testing.T) {
	bin := renderer(t)
	const smpTLS = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: ingress
  annotations:
    cert-manager.io/cluster-issuer: letsencrypt
spec:
  ingressClassName: nginx
  tls:
    - hosts: [` + host + `]
      secretName: ` + secret + `
`
	tlsOn := []any{map[string]any{"hosts": []any{host}, "secretName": secret}}
	patched := map[string]any{
		"annotations": map[string]string{"cert-manager.io/cluster-issuer": "letsencrypt", "nginx.ingress.kubernetes.io/proxy-body-size": "8m"},
		"class":       "nginx", "tls": tlsOn, "hosts": []any{host},
	}
	cases := map[string]struct {
		reason  string
		extra   map[string]string
		patches []map[string]any
		want    map[string]any
	}{
		"Unpatched": {
			reason: "The base alone: the placeholder host, the base's own annotation.",
			want: map[string]any{"Service/web": nil, "Ingress/web": map[string]any{
				"annotations": map[string]string{"nginx.ingress.kubernetes.io/proxy-body-size": "8m"}, "hosts": []any{"placeholder.invalid"},
			}},
		},
		"TLS": {
			reason:  "Both patches: the host on the first rule, class, TLS and the issuer annotation merged into the Ingress named web, whatever the patch's placeholder name; the Service untouched.",
			patches: kustomizeIngressPatches(smpTLS),
			want:    map[string]any{"Service/web": nil, "Ingress/web": patched},
		},
		"PlainHTTP": {
			reason: "TLS off: the strategic-merge patch carries the class only, and the Ingress gets no TLS section.",
			patches: kustomizeIngressPatches(`{"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "ingress"}, "spec": {"ingressClassName": "nginx"}}
`),
			want: map[string]any{"Service/web": nil, "Ingress/web": map[string]any{
				"annotations": map[string]string{"nginx.ingress.kubernetes.io/proxy-body-size": "8m"}, "class": "nginx", "hosts": []any{host},
			}},
		},
		"EveryIngressWhateverItsName": {
			reason: "A base with two Ingresses: the target selects both, each keeps its name and gets the same host, class and TLS.",
			extra: map[string]string{
				"kustomized-ingress/kustomization.yaml": SampleApps["kustomized-ingress/kustomization.yaml"] + "  - api.yaml\n",
				"kustomized-ingress/api.yaml": `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: api
spec:
  rules:
    - host: placeholder.invalid
      http:
        paths:
          - {path: /api, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}
`,
			},
			patches: kustomizeIngressPatches(smpTLS),
			want: map[string]any{"Service/web": nil, "Ingress/web": patched, "Ingress/api": map[string]any{
				"annotations": map[string]string{"cert-manager.io/cluster-issuer": "letsencrypt"}, "class": "nginx", "tls": tlsOn, "hosts": []any{host},
			}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(checkout(t, tc.extra), "kustomized-ingress")
			if len(tc.patches) > 0 {
				// As Argo CD's repo server does: the application's patches
				// appended to the kustomization's.
				k := map[string]any{}
				b, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
				if err != nil {
					t.Fatal(err)
				}
				if err := yaml.Unmarshal(b, &k); err != nil {
					t.Fatal(err)
				}
				k["patches"] = tc.patches
				if b, err = yaml.Marshal(k); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			out, err := exec.Command(filepath.Join(bin, "kustomize"), "build", dir).CombinedOutput()
			if err != nil {
				t.Fatalf("kustomize build: %v\n%s", err, out)
			}
			if diff := cmp.Diff(tc.want, summary(objects(t, out))); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestDocsShowTheFixtures: docs/ingress.md gives teams the templates and the
// base the tests apply, verbatim.
func TestDocsShowTheFixtures(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "..", "docs", "ingress.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"chart/templates/ingress.yaml", "chart/templates/certificate.yaml", "kustomized-ingress/kustomization.yaml", "kustomized-ingress/ingress.yaml"} {
		if !strings.Contains(string(b), SampleApps[p]) {
			t.Errorf("docs/ingress.md does not show %s as the tests serve it:\n%s", p, SampleApps[p])
		}
	}
}

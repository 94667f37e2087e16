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

// SampleApps are the files of the apps repository: plain YAML, a Helm chart
// (chart/) and Kustomize bases (kustomized/, kustomized-ingress/), all of
// kinds that turn Healthy without a kubelet (a ConfigMap has no health; a
// ClusterIP Service is Healthy once it exists) but for the Ingress and the
// Certificate, which Argo CD reports Progressing until an ingress controller
// gives the Ingress an address and cert-manager makes the Certificate Ready.
//
// The chart honours the platform's ingress values and the
// kustomized-ingress base takes its patches (docs/ingress.md): chart/ has an
// Ingress only when ingress.enabled is true, and a cert-manager Certificate
// when certificate.enabled is true too (the chart that ships its own).
var SampleApps = map[string]string{
	"guestbook/configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: guestbook
data:
  greeting: hello
`,
	"guestbook/service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: guestbook
spec:
  type: ClusterIP
  ports:
    - port: 80
      targetPort: 8080
  selector:
    app: guestbook
`,
	// breakable/ is an app tests break (invalid YAML) and fix again.
	"breakable/configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: breakable
data:
  greeting: hey
`,
	"other/configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: other
data:
  greeting: hi
`,
	"chart/Chart.yaml": `apiVersion: v2
name: sample
version: 0.1.0
`,
	"chart/values.yaml": `greeting: hello
replicas: 1
# Set by the platform for each environment (docs/ingress.md).
ingress:
  enabled: false
  host: ""
  className: ""
  annotations: {}
  # tls: {secretName: ..., issuer: {kind: ClusterIssuer, name: ...}} when TLS is on.
# The chart's own Certificate instead of cert-manager's ingress-shim.
certificate:
  enabled: false
`,
	"chart/values-prod.yaml": `greeting: hello from prod
`,
	"chart/templates/configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-sample
data:
  greeting: {{ .Values.greeting | quote }}
  replicas: {{ .Values.replicas | quote }}
`,
	"chart/templates/service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}
spec:
  type: ClusterIP
  ports:
    - name: http
      port: 80
      targetPort: 8080
  selector:
    app.kubernetes.io/instance: {{ .Release.Name }}
`,
	"chart/templates/ingress.yaml": ChartIngress,
	"chart/templates/certificate.yaml": `{{- if and .Values.certificate.enabled .Values.ingress.enabled .Values.ingress.tls }}
{{- $tls := .Values.ingress.tls }}
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: {{ .Release.Name }}
spec:
  secretName: {{ required "ingress.tls.secretName is required when TLS is on" $tls.secretName }}
  dnsNames:
    - {{ required "ingress.host is required when ingress.enabled is true" .Values.ingress.host | quote }}
  issuerRef:
    group: cert-manager.io
    kind: {{ required "ingress.tls.issuer.kind is required for the chart's Certificate" ($tls.issuer).kind }}
    name: {{ required "ingress.tls.issuer.name is required for the chart's Certificate" ($tls.issuer).name }}
{{- end }}
`,
	"kustomized/kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - configmap.yaml
`,
	"kustomized/configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: kustomized
data:
  image: registry.example.com/shop:1.0.0
`,
	// kustomized-ingress/ is a base the platform patches: the Ingress's
	// first rule gets the environment's host, and class, TLS and
	// annotations are merged in (docs/ingress.md).
	"kustomized-ingress/kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - service.yaml
  - ingress.yaml
`,
	"kustomized-ingress/service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  type: ClusterIP
  ports:
    - name: http
      port: 80
      targetPort: 8080
  selector:
    app: web
`,
	"kustomized-ingress/ingress.yaml": `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  annotations:
    nginx.ingress.kubernetes.io/proxy-body-size: 8m
spec:
  rules:
    # The platform sets this rule's host to the environment's.
    - host: placeholder.invalid
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service:
                name: web
                port:
                  name: http
`,
}

// ChartIngress is chart/templates/ingress.yaml: an Ingress that follows the
// platform's Helm values contract, the template docs/ingress.md gives teams
// to copy. A chart that ships its own Certificate (certificate.enabled)
// drops cert-manager's issuer annotations: with them cert-manager's
// ingress-shim would race the chart for a Certificate of the same Secret.
const ChartIngress = `{{- if .Values.ingress.enabled }}
{{- $host := required "ingress.host is required when ingress.enabled is true" .Values.ingress.host }}
{{- $annotations := .Values.ingress.annotations | default dict }}
{{- if .Values.certificate.enabled }}
{{- $annotations = omit $annotations "cert-manager.io/cluster-issuer" "cert-manager.io/issuer" }}
{{- end }}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ .Release.Name }}
  {{- with $annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- with .Values.ingress.className }}
  ingressClassName: {{ . }}
  {{- end }}
  {{- with .Values.ingress.tls }}
  tls:
    - hosts:
        - {{ $host | quote }}
      secretName: {{ required "ingress.tls.secretName is required when TLS is on" .secretName }}
  {{- end }}
  rules:
    - host: {{ $host | quote }}
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service:
                name: {{ .Release.Name }}
                port:
                  name: http
{{- end }}
`

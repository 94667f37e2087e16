package argocdserver

// SampleApps are the files of the apps repository: plain YAML, a Helm chart
// (chart/) and a Kustomize base (kustomized/), all of kinds that turn Healthy
// without a kubelet (a ConfigMap has no health; a ClusterIP Service is
// Healthy once it exists).
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
}

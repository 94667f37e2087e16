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

package argocdserver

// SampleApps are the files of the apps repository: plain YAML whose kinds
// turn Healthy without a kubelet (a ConfigMap has no health; a ClusterIP
// Service is Healthy once it exists).
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
}

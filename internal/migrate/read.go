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

package migrate

import (
	"bufio"
	"bytes"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// The operator's kinds, and their resources (plural) for a cluster read.
const (
	KindProject    = "DevOpsProject"
	KindArgo       = "ArgoSetting"
	KindJenkins    = "JenkinsSetting"
	KindRegistry   = "ContainerRegistry"
	KindGitCreds   = "GitCredentials"
	KindDeployment = "DeploymentRecord"
	KindIngress    = "IngressResource"
)

// Kinds maps each operator kind to its resource name, in the order
// objects are read and reported.
func Kinds() []struct{ Kind, Resource string } {
	return []struct{ Kind, Resource string }{
		{KindProject, "devopsprojects"}, {KindArgo, "argosettings"}, {KindJenkins, "jenkinssettings"},
		{KindRegistry, "containerregistries"}, {KindGitCreds, "gitcredentials"},
		{KindDeployment, "deploymentrecords"}, {KindIngress, "ingressresources"},
	}
}

const (
	errDecode   = "cannot decode the YAML document"
	errFmtGroup = "%s %s/%s is of group %q, not the operator's %q: pass --group if the operator used another"
)

// Read decodes objects from r: `kubectl get -o yaml` output (a List),
// multi-document YAML or JSON. Lists are flattened; empty documents are
// skipped.
func Read(r io.Reader) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bufio.NewReader(r), 4096)
	var out []*unstructured.Unstructured
	for {
		obj := map[string]any{}
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, errors.Wrap(err, errDecode)
		}
		if len(obj) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: obj}
		if u.IsList() {
			l, err := u.ToList()
			if err != nil {
				return nil, errors.Wrap(err, errDecode)
			}
			for i := range l.Items {
				out = append(out, &l.Items[i])
			}
			continue
		}
		out = append(out, u)
	}
}

// ReadBytes is Read on b.
func ReadBytes(b []byte) ([]*unstructured.Unstructured, error) { return Read(bytes.NewReader(b)) }

// Operator keeps the objects of the operator's kinds in group gv and
// refuses one of an operator kind in another group (a wrong --group would
// otherwise carry nothing over, silently). Objects of other kinds are
// dropped.
func Operator(objs []*unstructured.Unstructured, gv schema.GroupVersion) ([]*unstructured.Unstructured, error) {
	known := map[string]bool{}
	for _, k := range Kinds() {
		known[k.Kind] = true
	}
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if !known[o.GetKind()] {
			continue
		}
		if g := o.GroupVersionKind().Group; g != gv.Group {
			return nil, errors.Errorf(errFmtGroup, o.GetKind(), o.GetNamespace(), o.GetName(), g, gv.Group)
		}
		out = append(out, o)
	}
	return out, nil
}

// field returns the first non-empty string among paths in obj; a path is
// dot-separated (snake_case and camelCase spellings are listed both).
func field(obj map[string]any, paths ...string) string {
	for _, p := range paths {
		if v, ok := lookup(obj, p).(string); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// lookup is the value at the dot-separated path, or nil.
func lookup(obj map[string]any, path string) any {
	var v any = obj
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// list is the list at the first path that holds one.
func list(obj map[string]any, paths ...string) []any {
	for _, p := range paths {
		if l, ok := lookup(obj, p).([]any); ok {
			return l
		}
	}
	return nil
}

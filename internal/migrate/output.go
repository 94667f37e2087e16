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
	"bytes"
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

const errMarshal = "cannot write the DevOpsProject"

// YAML is the projects as multi-document YAML, for review and for
// `kubectl apply -f`.
func (r Result) YAML() ([]byte, error) {
	var b bytes.Buffer
	for i, p := range r.Projects {
		if i > 0 {
			b.WriteString("---\n")
		}
		y, err := yaml.Marshal(p)
		if err != nil {
			return nil, errors.Wrap(err, errMarshal)
		}
		b.Write(y)
	}
	return b.Bytes(), nil
}

// Unstructured is p as the dynamic client applies it.
func (p Project) Unstructured() (*unstructured.Unstructured, error) {
	j, err := json.Marshal(p)
	if err != nil {
		return nil, errors.Wrap(err, errMarshal)
	}
	u := &unstructured.Unstructured{}
	return u, errors.Wrap(u.UnmarshalJSON(j), errMarshal)
}

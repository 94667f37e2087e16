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

package projectrequest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const spec = `{"providerConfigName": "ci", "git": {"url": "https://git.example.com/shop.git"}, "registry": {"namespace": "team", "name": "shop"}, "dns": {"zone": "example.com", "target": "ingress.example.com."}, "environments": [{"name": "prod", "domain": "shop.example.com"}]}`

func TestParse(t *testing.T) {
	at := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	type want struct {
		Namespace, Project, ProviderConfigName, ID string
		RequestedAt                                *time.Time
	}
	cases := map[string]struct {
		reason string
		body   string
		want   *want
		err    string
	}{
		"Plain": {reason: "a plain message names its project and carries its spec",
			body: `{"namespace": "team", "project": "shop", "id": "init-1", "requestedAt": "2026-11-23T08:00:00Z", "spec": ` + spec + `}`,
			want: &want{Namespace: "team", Project: "shop", ProviderConfigName: "ci", ID: "init-1", RequestedAt: &at}},
		"DefaultProviderConfig": {reason: "a spec without providerConfigName leaves the name to the project or the XRD's default",
			body: `{"namespace": "team", "project": "shop", "spec": {"git": {"url": "https://git.example.com/shop.git"}}}`,
			want: &want{Namespace: "team", Project: "shop"}},
		"CloudEvent": {reason: "a structured CloudEvent carries the message as data, its time standing in for requestedAt",
			body: `{"specversion": "1.0", "type": "io.freeleaps.devops.DevOpsInitialize", "id": "1", "source": "ci", "time": "2026-11-23T08:00:00Z", "data": {"namespace": "team", "project": "shop", "spec": ` + spec + `}}`,
			want: &want{Namespace: "team", Project: "shop", ProviderConfigName: "ci", RequestedAt: &at}},
		"WrongEventType": {reason: "a CloudEvent of another type is not an initialize message",
			body: `{"specversion": "1.0", "type": "io.freeleaps.devops.DevOpsReconcile", "data": {}}`, err: `CloudEvent type "io.freeleaps.devops.DevOpsReconcile", want "io.freeleaps.devops.DevOpsInitialize"`},
		"NotJSON": {reason: "a body that is not JSON says so",
			body: `initialize shop`, err: "malformed message: not a JSON object"},
		"UnknownField": {reason: "an unknown top-level field is refused and the fields listed",
			body: `{"namespace": "team", "project": "shop", "enviroments": [], "spec": {}}`, err: `unknown field "enviroments" (fields: id, namespace, project, spec, requestedAt)`}, //nolint:misspell // the misspelt field is the test
		"NoNamespace": {reason: "the namespace is required: it is what authorisation is about",
			body: `{"project": "shop", "spec": {}}`, err: "namespace is required"},
		"BadNamespace": {reason: "a namespace is a DNS-1123 label",
			body: `{"namespace": "Team_A", "project": "shop", "spec": {}}`, err: `namespace "Team_A"`},
		"NoProject": {reason: "the project is required",
			body: `{"namespace": "team", "spec": {}}`, err: "project is required"},
		"LongProject": {reason: "a project's name is a label value on its resources: at most 63 characters",
			body: `{"namespace": "team", "project": "` + strings.Repeat("a", 64) + `", "spec": {}}`, err: "must be no more than 63 characters"},
		"ProjectPath": {reason: "a project name cannot walk out of its namespace",
			body: `{"namespace": "team", "project": "../other", "spec": {}}`, err: `project "../other"`},
		"NoSpec": {reason: "a message without a spec has nothing to apply",
			body: `{"namespace": "team", "project": "shop"}`, err: "spec is required"},
		"NullSpec": {reason: "a null spec is no spec",
			body: `{"namespace": "team", "project": "shop", "spec": null}`, err: "spec is required"},
		"SpecArray": {reason: "a spec is an object",
			body: `{"namespace": "team", "project": "shop", "spec": []}`, err: "spec is not a JSON object"},
		"SpecCrossplane": {reason: "spec.crossplane chooses the Composition: the platform's, not a message's",
			body: `{"namespace": "team", "project": "shop", "spec": {"crossplane": {"compositionRef": {"name": "other"}}}}`, err: "spec.crossplane is not a field a message may set: it chooses the Composition"},
		"ProviderConfigNumber": {reason: "providerConfigName is a string",
			body: `{"namespace": "team", "project": "shop", "spec": {"providerConfigName": 1}}`, err: "spec.providerConfigName is not a string"},
		"ProviderConfigBad": {reason: "providerConfigName is a name, read before the API server sees it",
			body: `{"namespace": "team", "project": "shop", "spec": {"providerConfigName": "../x"}}`, err: `providerConfigName "../x"`},
		"ProviderConfigRef": {reason: "a providerConfigRef of kind ProviderConfig names the ProviderConfig that authorises",
			body: `{"namespace": "team", "project": "shop", "spec": {"providerConfigRef": {"kind": "ProviderConfig", "name": "ci"}}}`,
			want: &want{Namespace: "team", Project: "shop", ProviderConfigName: "ci"}},
		"ClusterProviderConfigRef": {reason: "a ClusterProviderConfig never authorises: the namespace's default ProviderConfig does",
			body: `{"namespace": "team", "project": "shop", "spec": {"providerConfigRef": {"kind": "ClusterProviderConfig", "name": "ci"}}}`,
			want: &want{Namespace: "team", Project: "shop"}},
		"ProviderConfigRefNotObject": {reason: "providerConfigRef is an object",
			body: `{"namespace": "team", "project": "shop", "spec": {"providerConfigRef": "ci"}}`, err: "spec.providerConfigRef is not an object"},
		"ProviderConfigRefBadName": {reason: "its name is read before the API server sees it",
			body: `{"namespace": "team", "project": "shop", "spec": {"providerConfigRef": {"kind": "ProviderConfig", "name": "../x"}}}`, err: `"../x"`},
		"BadID": {reason: "an id is recorded in an annotation: a bounded set of characters",
			body: `{"namespace": "team", "project": "shop", "id": "a b", "spec": {}}`, err: `id "a b"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, err := Parse([]byte(tc.body))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("%s: error %v, want it to contain %q", tc.reason, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			got := &want{Namespace: r.Namespace, Project: r.Project, ProviderConfigName: r.ProviderConfigName, ID: r.ID, RequestedAt: r.RequestedAt}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
			if !json.Valid(r.Spec) {
				t.Errorf("%s: spec %q is not the JSON sent", tc.reason, r.Spec)
			}
		})
	}
}

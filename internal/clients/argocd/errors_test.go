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

package argocd

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

func TestDecodeError(t *testing.T) {
	type want struct {
		transient, terminal, notFound, exists bool
	}
	cases := map[string]struct {
		reason string
		status int
		body   string
		want   want
	}{
		"RepoServerDown": {
			reason: "A spec refused because the repo server is down is an outage to wait out.",
			status: 400, body: `{"code":3,"message":"application spec for x is invalid: InvalidSpecError: rpc error: code = Unavailable desc = connection refused"}`,
			want: want{transient: true},
		},
		"ProjectStillReferenced": {
			reason: "A project delete while its applications are being deleted passes by itself.",
			status: 400, body: `{"code":3,"message":"project is referenced by 1 applications"}`,
			want: want{transient: true},
		},
		"BadSpec": {
			reason: "A spec Argo CD refuses is terminal until the spec changes.",
			status: 400, body: `{"code":3,"message":"application spec for x is invalid: InvalidSpecError: Unable to generate manifests in no/such/path: app path does not exist"}`,
			want: want{terminal: true},
		},
		"Exists": {
			reason: "A create of an existing application is recognised as such.",
			status: 400, body: `{"code":3,"message":"existing application spec is different, use upsert flag to force update"}`,
			want: want{terminal: true, exists: true},
		},
		"NotFound": {
			reason: "Argo CD's NotFound code.",
			status: 404, body: `{"code":5,"message":"applications.argoproj.io \"x\" not found"}`,
			want: want{notFound: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := decodeError(&http.Response{StatusCode: tc.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tc.body))})
			got := want{transient: httpapi.IsTransient(err), terminal: httpapi.IsTerminal(err), notFound: IsNotFound(err), exists: IsAlreadyExists(err)}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

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

package argoaccess

import "testing"

func TestWithoutUserinfo(t *testing.T) {
	cases := map[string]struct {
		reason string
		in     string
		want   string
	}{
		"Plain":    {reason: "a URL without credentials stays", in: "https://argocd.example.com/", want: "https://argocd.example.com/"},
		"Userinfo": {reason: "user and password never reach status", in: "https://admin:s3cret@argocd.example.com", want: "https://argocd.example.com"},
		"Bad":      {reason: "an unparsable URL shows nothing", in: "https://a b\x7f", want: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := withoutUserinfo(tc.in); got != tc.want {
				t.Errorf("%s: got %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}

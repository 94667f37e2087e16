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
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWithoutPassword(t *testing.T) {
	type want struct {
		url string
		had bool
	}
	cases := map[string]struct {
		reason string
		raw    string
		want   want
	}{
		"HTTPSUserPassword": {
			reason: "An https URL loses its user and token.",
			raw:    "https://ci:hunter2@git.example.com/team/shop.git",
			want:   want{"https://git.example.com/team/shop.git", true},
		},
		"HTTPSUserOnly": {
			reason: "An https user is dropped too: the function refuses any user part.",
			raw:    "https://ci@git.example.com/team/shop.git",
			want:   want{"https://git.example.com/team/shop.git", true},
		},
		"PasswordWithAt": {
			reason: "A password holding '@' or a bad escape is cut at the authority's last '@', never kept.",
			raw:    "HTTPS://ci:p@ss%zz@git.example.com:8443/x?y=1",
			want:   want{"HTTPS://git.example.com:8443/x?y=1", true},
		},
		"SSHPassword": {
			reason: "An ssh:// URL keeps its user and loses its password.",
			raw:    "ssh://git:hunter2@git.example.com:22/team/shop.git",
			want:   want{"ssh://git@git.example.com:22/team/shop.git", true},
		},
		"SSHUser": {
			reason: "An ssh:// user without a password is no credential.",
			raw:    "ssh://git@git.example.com/team/shop.git",
			want:   want{"ssh://git@git.example.com/team/shop.git", false},
		},
		"SCPLike": {
			reason: "scp-like git@host:path holds a user only.",
			raw:    "git@git.example.com:team/shop.git",
			want:   want{"git@git.example.com:team/shop.git", false},
		},
		"AtInPath": {
			reason: "An '@' after the authority is part of the path, not a user.",
			raw:    "https://git.example.com/team/shop@v1.git",
			want:   want{"https://git.example.com/team/shop@v1.git", false},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			url, had := withoutPassword(tc.raw)
			if diff := cmp.Diff(tc.want, want{url, had}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nwithoutPassword(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

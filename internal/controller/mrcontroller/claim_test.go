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

package mrcontroller

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClaimOf(t *testing.T) {
	cases := map[string]struct {
		reason string
		got    string
		adopt  bool
		want   Claim
	}{
		"Ours":           {reason: "The marker naming this resource is its own, adoption or not.", got: "team-a/shop", want: ClaimOurs},
		"OursAdopting":   {reason: "adoptExisting changes nothing about an object already ours.", got: "team-a/shop", adopt: true, want: ClaimOurs},
		"Unowned":        {reason: "No marker and no adoption asked: refused.", want: ClaimUnowned},
		"Adopt":          {reason: "No marker and adoptExisting: taken over.", adopt: true, want: ClaimAdopt},
		"Others":         {reason: "Another owner's marker is another's.", got: "team-b/shop", want: ClaimOthers},
		"OthersAdopting": {reason: "adoptExisting never takes over an object another owner's marker names.", got: "team-b/shop", adopt: true, want: ClaimOthers},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ClaimOf(tc.got, "team-a/shop", tc.adopt)); diff != "" {
				t.Errorf("%s\nClaimOf(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

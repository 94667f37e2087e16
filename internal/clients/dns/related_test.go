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

package dns

import "testing"

func TestRelated(t *testing.T) {
	cases := map[string]struct {
		reason string
		a, b   string
		want   bool
	}{
		"Same":          {reason: "one name", a: "www", b: "WWW.", want: true},
		"Below":         {reason: "a child name", a: "_acme-challenge.www", b: "www", want: true},
		"Above":         {reason: "a parent name (an NS there would delegate the child)", a: "shop", b: "api.shop", want: true},
		"Sibling":       {reason: "siblings are unrelated", a: "api.shop", b: "web.shop"},
		"SuffixNoLabel": {reason: "a name ending in another's text is not below it", a: "myshop", b: "shop"},
		"Apex":          {reason: "the apex is nobody's parent", a: "@", b: "www"},
		"ApexSelf":      {reason: "but is itself", a: "@", b: "@", want: true},
		"Wildcard":      {reason: "*.preview covers a name below preview", a: "pr-1.preview", b: "*.preview", want: true},
		"WildcardBase":  {reason: "and preview itself", a: "preview", b: "*.preview", want: true},
		"ZoneWildcard":  {reason: "the zone's wildcard is like the apex", a: "www", b: "*"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Related(tc.a, tc.b); got != tc.want {
				t.Errorf("%s: Related(%q, %q) = %v, want %v", tc.reason, tc.a, tc.b, got, tc.want)
			}
		})
	}
}

func TestOwnedBy(t *testing.T) {
	for name, want := range map[string][2]string{
		"_devops-owner-a.www":                {"www", "A"},
		"_devops-owner-cname":                {"@", "CNAME"},
		"_devops-owner-a-wildcard":           {"*", "A"},
		"_devops-owner-txt-wildcard.preview": {"*.preview", "TXT"},
		"_devops-owner-aaaa._acme.www.shop":  {"_acme.www.shop", "AAAA"},
	} {
		n, typ, ok := ownedBy(name)
		if !ok || n != want[0] || typ != want[1] {
			t.Errorf("ownedBy(%q) = %q, %q, %v; want %q, %q", name, n, typ, ok, want[0], want[1])
		}
		if back := OwnerName(n, typ); back != name {
			t.Errorf("OwnerName(%q, %q) = %q, want %q", n, typ, back, name)
		}
	}
	if _, _, ok := ownedBy("_devops-ownerx.www"); ok {
		t.Errorf("a name that is not an ownership record was read as one")
	}
}

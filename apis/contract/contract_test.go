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

package contract

import "testing"

func TestGitRepositoryURLConsented(t *testing.T) {
	with := func(list string) map[string]string { return map[string]string{AnnotationGitRepositoryURLs: list} }
	cases := map[string]struct {
		reason      string
		annotations map[string]string
		url         string
		want        bool
	}{
		"NoAnnotation":    {"Without the annotation the label alone consents.", nil, "https://evil.example.net/x.git", true},
		"Empty":           {"An empty list consents to nothing.", with(""), "https://git.example.com/team/shop.git", false},
		"Exact":           {"A listed repository is admitted.", with("https://git.example.com/team/shop.git"), "https://git.example.com/team/shop.git", true},
		"ExactOnly":       {"A URL without a trailing slash admits itself only.", with("https://git.example.com/team/shop"), "https://git.example.com/team/shop/other.git", false},
		"Folder":          {"A URL ending in / admits the repositories below it.", with("https://git.example.com/team/"), "https://git.example.com/team/shop.git", true},
		"FolderSibling":   {"A folder does not admit a sibling sharing its prefix.", with("https://git.example.com/team/"), "https://git.example.com/team-b/shop.git", false},
		"Climbs":          {"A URL climbing out of the folder is refused.", with("https://git.example.com/team/"), "https://git.example.com/team/../admin/x.git", false},
		"OtherHost":       {"Another host is refused.", with("https://git.example.com/"), "https://evil.example.net/team/shop.git", false},
		"UserInfoTrick":   {"A user part naming the allowed host does not change the host.", with("https://git.example.com/"), "https://git.example.com@evil.example.net/x.git", false},
		"HostSuffix":      {"A host that only starts like the allowed one is refused.", with("https://git.example.com/"), "https://git.example.com.evil.example.net/x.git", false},
		"Port":            {"Another port is another host.", with("https://git.example.com/"), "https://git.example.com:8443/x.git", false},
		"Scheme":          {"Another scheme is refused.", with("https://git.example.com/"), "http://git.example.com/x.git", false},
		"CaseOfHost":      {"Host names compare without case.", with("https://Git.Example.com/team/"), "https://git.example.COM/team/shop.git", true},
		"CaseOfPath":      {"Paths compare with case.", with("https://git.example.com/team/"), "https://git.example.com/Team/shop.git", false},
		"Several":         {"Entries are separated by commas or white space.", with("https://a.example.com/x.git, https://git.example.com/team/\nssh://git@b.example.com/y.git"), "https://git.example.com/team/shop.git", true},
		"SCPLike":         {"An scp-like SSH URL compares as ssh://.", with("ssh://git@git.example.com/team/"), "git@git.example.com:team/shop.git", true},
		"SCPLikeEntry":    {"An entry may be scp-like too.", with("git@git.example.com:team/shop.git"), "ssh://git@git.example.com/team/shop.git", true},
		"SSHNotHTTPS":     {"An SSH entry does not admit the https URL.", with("git@git.example.com:team/"), "https://git.example.com/team/shop.git", false},
		"Query":           {"A URL with a query is not compared.", with("https://git.example.com/team/"), "https://git.example.com/team/shop.git?x=1", false},
		"Unparseable":     {"An unparseable URL is refused.", with("https://git.example.com/"), "https://git.example.com:bad port/x", false},
		"LookAlikeHost":   {"A host with a letter strings.ToLower folds into ASCII (U+0130) is another host to every client.", with("https://github.com/"), "https://g\u0130thub.com/acme/x.git", false},
		"NonASCIIPath":    {"Any byte outside printable ASCII is not compared.", with("https://git.example.com/"), "https://git.example.com/t\u00e9am/x.git", false},
		"EscapedUser":     {"A percent escape before the host is refused: git decodes it and dials another host.", with("ssh://git@git.example.com/team/"), "ssh://git@evil.example.net%2F@git.example.com/team/x.git", false},
		"TwoAts":          {"A second @ before the host is refused.", with("ssh://git@git.example.com/team/"), "ssh://a@b@git.example.com/team/x.git", false},
		"Backslash":       {"A backslash before the host is refused.", with("https://git.example.com/"), "https://evil.example.net\\@git.example.com/x.git", false},
		"UnparseableItem": {"An unparseable entry admits nothing.", with("::::"), "https://git.example.com/x.git", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := GitRepositoryURLConsented(tc.annotations, tc.url); got != tc.want {
				t.Errorf("%s\nGitRepositoryURLConsented(%q, %q) = %t, want %t", tc.reason, tc.annotations[AnnotationGitRepositoryURLs], tc.url, got, tc.want)
			}
		})
	}
}

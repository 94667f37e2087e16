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

package backendconfig

import (
	"fmt"
	"path"
	"strings"
)

// ExpandNamespace returns patterns, or def when there are none, with
// "{namespace}" replaced by ns: how every tenancy pattern of a
// ClusterProviderConfig names the tenant.
func ExpandNamespace(patterns, def []string, ns string) []string {
	if len(patterns) == 0 {
		patterns = def
	}
	out := make([]string, len(patterns))
	for i, p := range patterns {
		out[i] = strings.ReplaceAll(p, "{namespace}", ns)
	}
	return out
}

// MatchPath is true when one shell glob matches s, "*" matching "/" too
// (repository paths, URLs).
func MatchPath(globs []string, s string) bool {
	const sep = "\x00"
	for _, g := range globs {
		if ok, _ := path.Match(strings.ReplaceAll(g, "/", sep), strings.ReplaceAll(s, "/", sep)); ok {
			return true
		}
	}
	return false
}

// QuoteAll quotes patterns for a message; "none" for none.
func QuoteAll(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

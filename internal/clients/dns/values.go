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

import (
	"net/netip"
	"strconv"
	"strings"
)

// NormalizeValues puts record data in one canonical form, sorted and
// without duplicates, so that what a user wrote and what a server returns
// compare equal exactly when they mean the same: IP addresses in canonical
// form, host names lower case and fully qualified (a target without a
// trailing dot would otherwise be read relative to the zone), numbers
// without padding, runs of blanks collapsed.
func NormalizeValues(typ string, values []string) []string {
	out := make([]string, 0, len(values))
	for _, v := range values {
		out = append(out, normalizeValue(strings.ToUpper(typ), v))
	}
	return sortedUnique(out)
}

func normalizeValue(typ, v string) string {
	v = strings.TrimSpace(v)
	switch typ {
	case "A", "AAAA":
		if a, err := netip.ParseAddr(v); err == nil {
			return a.String()
		}
	case "CNAME", "NS":
		return host(v)
	case "MX":
		if f := strings.Fields(v); len(f) == 2 {
			return number(f[0]) + " " + host(f[1])
		}
	case "SRV":
		if f := strings.Fields(v); len(f) == 4 {
			return number(f[0]) + " " + number(f[1]) + " " + number(f[2]) + " " + host(f[3])
		}
	case typeTXT:
		return v
	}
	return strings.Join(strings.Fields(v), " ")
}

func host(h string) string {
	h = strings.ToLower(h)
	if h == "." || strings.HasSuffix(h, ".") {
		return h
	}
	return h + "."
}

func number(s string) string {
	if n, err := strconv.ParseUint(s, 10, 32); err == nil {
		return strconv.FormatUint(n, 10)
	}
	return s
}

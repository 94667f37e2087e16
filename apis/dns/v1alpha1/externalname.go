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

package v1alpha1

import "strings"

// DefaultExternalName is the external name the provider gives a DNSRecord
// that has none, "<fqdn>/<TYPE>". The DevOpsProject function composes
// records with it, so the provider need not write it before the create.
func (mg *DNSRecord) DefaultExternalName() string {
	p := mg.Spec.ForProvider
	return FQDN(p.Name, p.Zone) + "/" + strings.ToUpper(string(p.Type))
}

// FQDN is the fully qualified name, with its final dot, of the record set
// name (relative to zone, "@" or "" for the apex) in zone.
func FQDN(name, zone string) string {
	zone = strings.TrimSuffix(strings.ToLower(zone), ".") + "."
	n := strings.ToLower(strings.TrimSuffix(name, "."))
	if n == "" || n == "@" {
		return zone
	}
	return n + "." + zone
}

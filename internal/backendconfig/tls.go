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
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

// TLS is a section's insecureSkipTLSVerify and caBundle, as the clients take
// them (every section has the same two fields), and whether the config is a
// namespace's: the clients then check every address they dial.
func (c *Config) TLS(t v1alpha1.TLSConfig) httpapi.TLS {
	h := httpapi.TLS{InsecureSkipVerify: t.InsecureSkipTLSVerify, Tenant: c.Namespace != "", Guard: c.guard}
	if t.CABundle != "" {
		h.CABundle = []byte(t.CABundle)
	}
	return h
}

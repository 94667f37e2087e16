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

// Endpoint is the backend URL or host:port a section points the provider
// at, so the platform's limit on the hosts namespaced ProviderConfigs may
// name is checked in one place. "" means the backend's public default.

// Endpoint of the Jenkins controller.
func (c *JenkinsConfig) Endpoint() string { return c.URL }

// Endpoint of the Argo CD API server.
func (c *ArgoCDConfig) Endpoint() string { return c.URL }

// Endpoint of the DNS provider's API or name server.
func (c *DNSConfig) Endpoint() string {
	switch {
	case c.Provider == DNSProviderRFC2136 && c.RFC2136 != nil:
		return c.RFC2136.Server
	case c.GoDaddy != nil:
		return c.GoDaddy.URL
	}
	return ""
}

// Endpoint of the registry API.
func (c *RegistryConfig) Endpoint() string { return c.URL }

// Endpoint of the forge.
func (c *ForgeConfig) Endpoint() string { return c.URL }

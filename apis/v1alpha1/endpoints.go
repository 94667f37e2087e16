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

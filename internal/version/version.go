// Package version holds the provider's version, set at build time with
// -ldflags "-X github.com/freeleaps/provider-devops/internal/version.Version=...".
package version

// Version of the provider build.
var Version = "v0.0.0-dev"

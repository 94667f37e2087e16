//go:build !generate

package v1alpha1

import "github.com/crossplane/crossplane-runtime/v2/pkg/resource"

// Compile-time checks: crossplane-runtime's usage tracker and ProviderConfig
// reconciler only work with types that satisfy these. Excluded while angryjet
// type-checks the package, since it generates the methods these need.
var (
	_ resource.ProviderConfig           = &ProviderConfig{}
	_ resource.ProviderConfig           = &ClusterProviderConfig{}
	_ resource.TypedProviderConfigUsage = &ProviderConfigUsage{}
	_ resource.TypedProviderConfigUsage = &ClusterProviderConfigUsage{}
	_ resource.ProviderConfigUsageList  = &ProviderConfigUsageList{}
	_ resource.ProviderConfigUsageList  = &ClusterProviderConfigUsageList{}
)

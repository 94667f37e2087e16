//go:build !generate

package v1alpha1

import "github.com/crossplane/crossplane-runtime/v2/pkg/resource"

// Compile-time checks that the generated method sets make ArgoApplication a
// crossplane-runtime v2 namespaced managed resource. Excluded while angryjet
// type-checks the package, since it generates the methods these need.
var (
	_ resource.ModernManaged = &ArgoApplication{}
	_ resource.ManagedList   = &ArgoApplicationList{}
	_ resource.ModernManaged = &ArgoProject{}
	_ resource.ManagedList   = &ArgoProjectList{}
	_ resource.ModernManaged = &ArgoRepository{}
	_ resource.ManagedList   = &ArgoRepositoryList{}
)

// Package apis contains the provider's API groups and adds them all to a scheme.
package apis

import (
	"k8s.io/apimachinery/pkg/runtime"

	argocdv1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	dnsv1alpha1 "github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	registryv1alpha1 "github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
	devopsv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
)

// AddToSchemes registers every API group of the provider.
var AddToSchemes = runtime.SchemeBuilder{
	devopsv1alpha1.SchemeBuilder.AddToScheme,
	jenkinsv1alpha1.SchemeBuilder.AddToScheme,
	argocdv1alpha1.SchemeBuilder.AddToScheme,
	dnsv1alpha1.SchemeBuilder.AddToScheme,
	registryv1alpha1.SchemeBuilder.AddToScheme,
}

// AddToScheme adds all the provider's kinds to s.
func AddToScheme(s *runtime.Scheme) error {
	return AddToSchemes.AddToScheme(s)
}

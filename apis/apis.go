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

// Package apis contains the provider's API groups and adds them all to a scheme.
package apis

import (
	"k8s.io/apimachinery/pkg/runtime"

	argocdv1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	dnsv1alpha1 "github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	forgev1alpha1 "github.com/freeleaps/provider-devops/apis/forge/v1alpha1"
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
	forgev1alpha1.SchemeBuilder.AddToScheme,
}

// AddToScheme adds all the provider's kinds to s.
func AddToScheme(s *runtime.Scheme) error {
	return AddToSchemes.AddToScheme(s)
}

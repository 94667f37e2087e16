// Package v1alpha1 contains the RegistryRepo managed resource of the registry.devops.freeleaps.io API group.
// +kubebuilder:object:generate=true
// +groupName=registry.devops.freeleaps.io
// +versionName=v1alpha1
package v1alpha1

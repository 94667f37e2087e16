// Package v1alpha1 contains the provider's configuration kinds: ProviderConfig,
// ClusterProviderConfig and the usage kinds crossplane-runtime tracks them with.
// +kubebuilder:object:generate=true
// +groupName=devops.freeleaps.io
// +versionName=v1alpha1
package v1alpha1

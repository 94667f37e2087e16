// Package v1alpha1 contains the ArgoApplication managed resource of the argocd.devops.freeleaps.io API group.
// +kubebuilder:object:generate=true
// +groupName=argocd.devops.freeleaps.io
// +versionName=v1alpha1
package v1alpha1

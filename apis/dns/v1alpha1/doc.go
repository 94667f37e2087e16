// Package v1alpha1 contains the DNSRecord managed resource of the dns.devops.freeleaps.io API group.
// +kubebuilder:object:generate=true
// +groupName=dns.devops.freeleaps.io
// +versionName=v1alpha1
package v1alpha1

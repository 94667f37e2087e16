// Package v1alpha1 contains the JenkinsPipeline managed resource of the jenkins.devops.freeleaps.io API group.
// +kubebuilder:object:generate=true
// +groupName=jenkins.devops.freeleaps.io
// +versionName=v1alpha1
package v1alpha1

package v1alpha1

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// Package type metadata.
const (
	Group   = "jenkins.devops.freeleaps.io"
	Version = "v1alpha1"
)

var (
	// SchemeGroupVersion is the group version these kinds are registered under.
	SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}

	// SchemeBuilder adds the kinds of this package to a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: SchemeGroupVersion}
)

// JenkinsPipeline type metadata.
var (
	JenkinsPipelineKind             = reflect.TypeOf(JenkinsPipeline{}).Name()
	JenkinsPipelineGroupKind        = schema.GroupKind{Group: Group, Kind: JenkinsPipelineKind}.String()
	JenkinsPipelineKindAPIVersion   = JenkinsPipelineKind + "." + SchemeGroupVersion.String()
	JenkinsPipelineGroupVersionKind = SchemeGroupVersion.WithKind(JenkinsPipelineKind)
)

func init() {
	SchemeBuilder.Register(&JenkinsPipeline{}, &JenkinsPipelineList{})
}

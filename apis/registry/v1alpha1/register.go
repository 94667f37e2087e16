package v1alpha1

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// Package type metadata.
const (
	Group   = "registry.devops.freeleaps.io"
	Version = "v1alpha1"
)

var (
	// SchemeGroupVersion is the group version these kinds are registered under.
	SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}

	// SchemeBuilder adds the kinds of this package to a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: SchemeGroupVersion}
)

// RegistryRepo type metadata.
var (
	RegistryRepoKind             = reflect.TypeOf(RegistryRepo{}).Name()
	RegistryRepoGroupKind        = schema.GroupKind{Group: Group, Kind: RegistryRepoKind}.String()
	RegistryRepoKindAPIVersion   = RegistryRepoKind + "." + SchemeGroupVersion.String()
	RegistryRepoGroupVersionKind = SchemeGroupVersion.WithKind(RegistryRepoKind)
)

func init() {
	SchemeBuilder.Register(&RegistryRepo{}, &RegistryRepoList{})
}

package v1alpha1

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// Package type metadata.
const (
	Group   = "argocd.devops.freeleaps.io"
	Version = "v1alpha1"
)

var (
	// SchemeGroupVersion is the group version these kinds are registered under.
	SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}

	// SchemeBuilder adds the kinds of this package to a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: SchemeGroupVersion}
)

// ArgoApplication type metadata.
var (
	ArgoApplicationKind             = reflect.TypeOf(ArgoApplication{}).Name()
	ArgoApplicationGroupKind        = schema.GroupKind{Group: Group, Kind: ArgoApplicationKind}.String()
	ArgoApplicationKindAPIVersion   = ArgoApplicationKind + "." + SchemeGroupVersion.String()
	ArgoApplicationGroupVersionKind = SchemeGroupVersion.WithKind(ArgoApplicationKind)
)

// ArgoProject type metadata.
var (
	ArgoProjectKind             = reflect.TypeOf(ArgoProject{}).Name()
	ArgoProjectGroupKind        = schema.GroupKind{Group: Group, Kind: ArgoProjectKind}.String()
	ArgoProjectKindAPIVersion   = ArgoProjectKind + "." + SchemeGroupVersion.String()
	ArgoProjectGroupVersionKind = SchemeGroupVersion.WithKind(ArgoProjectKind)
)

// ArgoRepository type metadata.
var (
	ArgoRepositoryKind             = reflect.TypeOf(ArgoRepository{}).Name()
	ArgoRepositoryGroupKind        = schema.GroupKind{Group: Group, Kind: ArgoRepositoryKind}.String()
	ArgoRepositoryKindAPIVersion   = ArgoRepositoryKind + "." + SchemeGroupVersion.String()
	ArgoRepositoryGroupVersionKind = SchemeGroupVersion.WithKind(ArgoRepositoryKind)
)

func init() {
	SchemeBuilder.Register(&ArgoApplication{}, &ArgoApplicationList{})
	SchemeBuilder.Register(&ArgoProject{}, &ArgoProjectList{})
	SchemeBuilder.Register(&ArgoRepository{}, &ArgoRepositoryList{})
}

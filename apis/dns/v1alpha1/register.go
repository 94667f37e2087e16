package v1alpha1

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// Package type metadata.
const (
	Group   = "dns.devops.freeleaps.io"
	Version = "v1alpha1"
)

var (
	// SchemeGroupVersion is the group version these kinds are registered under.
	SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}

	// SchemeBuilder adds the kinds of this package to a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: SchemeGroupVersion}
)

// DNSRecord type metadata.
var (
	DNSRecordKind             = reflect.TypeOf(DNSRecord{}).Name()
	DNSRecordGroupKind        = schema.GroupKind{Group: Group, Kind: DNSRecordKind}.String()
	DNSRecordKindAPIVersion   = DNSRecordKind + "." + SchemeGroupVersion.String()
	DNSRecordGroupVersionKind = SchemeGroupVersion.WithKind(DNSRecordKind)
)

func init() {
	SchemeBuilder.Register(&DNSRecord{}, &DNSRecordList{})
}

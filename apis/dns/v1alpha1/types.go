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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// RecordType is a DNS resource record type.
// +kubebuilder:validation:Enum=A;AAAA;CNAME;TXT;MX;NS;SRV;CAA
type RecordType string

// Record types.
const (
	RecordA     RecordType = "A"
	RecordAAAA  RecordType = "AAAA"
	RecordCNAME RecordType = "CNAME"
	RecordTXT   RecordType = "TXT"
	RecordMX    RecordType = "MX"
	RecordNS    RecordType = "NS"
	RecordSRV   RecordType = "SRV"
	RecordCAA   RecordType = "CAA"
)

// DNSRecordParameters describe one record set (all values of one name and
// type) in a zone.
// +kubebuilder:validation:XValidation:rule="self.type != 'CNAME' || size(self.values) == 1",message="a CNAME record set has exactly one value",fieldPath=".values"
// +kubebuilder:validation:XValidation:rule="self.type != 'CNAME' || self.name != '@'",message="a CNAME cannot be placed at the zone apex (@)",fieldPath=".name"
// +kubebuilder:validation:XValidation:rule="self.type != 'A' || self.values.all(v, isIP(v) && ip(v).family() == 4)",message="every value of an A record must be an IPv4 address",fieldPath=".values"
// +kubebuilder:validation:XValidation:rule="self.type != 'AAAA' || self.values.all(v, isIP(v) && ip(v).family() == 6)",message="every value of an AAAA record must be an IPv6 address",fieldPath=".values"
// +kubebuilder:validation:XValidation:rule="!(self.type in ['CNAME', 'NS']) || self.values.all(v, v.matches('^([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?\\\\.)*[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?\\\\.?$'))",message="CNAME and NS values must be host names",fieldPath=".values"
// +kubebuilder:validation:XValidation:rule="self.type != 'MX' || self.values.all(v, v.matches('^[0-9]{1,5} [A-Za-z0-9_.-]+$'))",message="MX values are 'PRIORITY HOST', e.g. '10 mail.example.com.'",fieldPath=".values"
// +kubebuilder:validation:XValidation:rule="!self.name.matches('(^|\\\\.)_devops-owner')",message="names with a label starting with _devops-owner are refused: they are the provider's ownership records, and writing one could take over another resource's record set",fieldPath=".name"
// +kubebuilder:validation:XValidation:rule="self.zone == oldSelf.zone && self.name == oldSelf.name && self.type == oldSelf.type",message="zone, name and type are immutable: they identify the record set; create a new DNSRecord for another one"
type DNSRecordParameters struct {
	// Zone the record lives in, e.g. example.com.
	// +kubebuilder:validation:Pattern=`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?\.?$`
	// +kubebuilder:validation:MaxLength=253
	Zone string `json:"zone"`

	// Name relative to the zone: "@" for the apex, "www", "_acme-challenge.api"
	// or "*.preview". Lower case DNS labels.
	// +kubebuilder:validation:Pattern=`^(@|(\*\.)?[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?)*|\*)$`
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Type of the record set.
	Type RecordType `json:"type"`

	// Values of the record set (a set: order does not matter).
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=1024
	// +listType=set
	Values []string `json:"values"`

	// TTL in seconds. Some providers impose a minimum (GoDaddy: 600); the
	// value the provider applied is reported in status.atProvider.ttl.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=2147483647
	// +kubebuilder:default=300
	// +optional
	TTL *int64 `json:"ttl,omitempty"`

	// AdoptExisting lets this resource take over a record set that already
	// exists and is not owned by any DNSRecord. Without it such a record set is
	// left alone and the resource reports the conflict.
	// +optional
	AdoptExisting bool `json:"adoptExisting,omitempty"`
}

// DNSRecordObservation is what the DNS provider reports.
type DNSRecordObservation struct {
	// FQDN of the record set.
	FQDN string `json:"fqdn,omitempty"`
	// Values observed, normalised and sorted.
	// +listType=atomic
	Values []string `json:"values,omitempty"`
	// TTL the provider applied.
	TTL int64 `json:"ttl,omitempty"`
}

// A DNSRecordSpec defines the desired state of a DNSRecord.
type DNSRecordSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	ForProvider              DNSRecordParameters `json:"forProvider"`
}

// A DNSRecordStatus represents the observed state of a DNSRecord.
type DNSRecordStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 DNSRecordObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// A DNSRecord is one record set in a DNS zone, managed through libdns. Its
// external name is "<name>.<zone>./<TYPE>".
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXTERNAL-NAME",type="string",JSONPath=".metadata.annotations.crossplane\\.io/external-name"
// +kubebuilder:printcolumn:name="FQDN",type="string",JSONPath=".status.atProvider.fqdn"
// +kubebuilder:printcolumn:name="TYPE",type="string",JSONPath=".spec.forProvider.type"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,devops}
type DNSRecord struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DNSRecordSpec   `json:"spec"`
	Status DNSRecordStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// DNSRecordList contains a list of DNSRecord.
type DNSRecordList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DNSRecord `json:"items"`
}

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

package main

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/randfill"

	protectionv1beta1 "github.com/crossplane/crossplane/apis/v2/protection/v1beta1"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	dnsv1alpha1 "github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	registryv1alpha1 "github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
)

// TestEncodeLikeConverter holds the encoder to what the SDK's way makes of
// the same typed object: runtime.DefaultUnstructuredConverter (reflection
// written by Kubernetes, not by us) and then structpb.NewStruct. Every
// kind the function composes, and the status it writes, is filled at
// random 200 times, with nil and empty values, so a json tag, an
// omitempty, an embedded struct or a marshaler the encoder got wrong shows
// as a difference.
func TestEncodeLikeConverter(t *testing.T) {
	kinds := map[string]func() any{
		"JenkinsPipeline": func() any { return &jenkinsv1alpha1.JenkinsPipeline{} },
		"ArgoApplication": func() any { return &argov1alpha1.ArgoApplication{} },
		"ArgoProject":     func() any { return &argov1alpha1.ArgoProject{} },
		"ArgoRepository":  func() any { return &argov1alpha1.ArgoRepository{} },
		"DNSRecord":       func() any { return &dnsv1alpha1.DNSRecord{} },
		"RegistryRepo":    func() any { return &registryv1alpha1.RegistryRepo{} },
		"Usage":           func() any { return &protectionv1beta1.Usage{} },
		"EnvStatus":       func() any { return &EnvStatus{} },
		"Orphaned":        func() any { return &OrphanedEnvironment{} },
	}
	for kind, newObj := range kinds {
		t.Run(kind, func(t *testing.T) {
			f := randfill.NewWithSeed(int64(len(kind))).NilChance(0.3).NumElements(0, 3)
			for i := range 200 {
				o := newObj()
				f.Fill(o)
				if m, ok := o.(metav1.Object); ok {
					// Managed fields hold raw JSON, which random bytes are not.
					m.SetManagedFields(nil)
				}
				m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
				if err != nil {
					t.Fatal(err)
				}
				want, err := structpb.NewStruct(m)
				if err != nil {
					t.Fatal(err)
				}
				got, err := pbValue(o)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got.GetStructValue(), protocmp.Transform()); diff != "" {
					t.Fatalf("fill %d: -converter +encoder:\n%s", i, diff)
				}
				if _, ok := o.(runtime.Object); !ok {
					continue
				}
				// As a composed resource: without status, and without
				// the creationTimestamp when it is null.
				delete(want.Fields, "status")
				md := want.Fields["metadata"].GetStructValue()
				if _, null := md.GetFields()["creationTimestamp"].GetKind().(*structpb.Value_NullValue); null {
					delete(md.Fields, "creationTimestamp")
				}
				res, err := (&encoder{}).resource(o)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, res, protocmp.Transform()); diff != "" {
					t.Fatalf("fill %d as a resource: -converter +encoder:\n%s", i, diff)
				}
			}
		})
	}
}

// TestDecodeLikeJSON holds the decoder to encoding/json reading the same
// value as JSON (protojson), for the spec and status the function reads:
// filled at random, and then each with one leaf swapped for a value of
// another kind, so a type error one reports and the other not shows too.
func TestDecodeLikeJSON(t *testing.T) {
	types := map[string]func() any{
		"ProjectSpec": func() any { return &ProjectSpec{} },
		"EnvStatus":   func() any { return &[]EnvStatus{} },
		"Orphaned":    func() any { return &[]OrphanedEnvironment{} },
		"Usage":       func() any { return &protectionv1beta1.Usage{} },
	}
	for name, newObj := range types {
		t.Run(name, func(t *testing.T) {
			// Whole numbers beyond 2^53 lose digits in JSON and protobuf
			// alike (both are float64), differently rounded.
			f := randfill.NewWithSeed(int64(len(name))).NilChance(0.3).NumElements(0, 3).Funcs(
				func(n *int64, c randfill.Continue) { *n = c.Int63n(1<<53) - 1<<52 })
			r := rand.New(rand.NewPCG(1, uint64(len(name))))
			for i := range 300 {
				o := newObj()
				f.Fill(o)
				if m, ok := o.(metav1.Object); ok {
					m.SetManagedFields(nil)
				}
				b, err := json.Marshal(o)
				if err != nil {
					t.Fatal(err)
				}
				v := &structpb.Value{}
				if err := protojson.Unmarshal(b, v); err != nil {
					t.Fatal(err)
				}
				if i%2 == 1 {
					swapLeaf(r, v)
				}
				js, err := protojson.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				want, got := newObj(), newObj()
				werr := json.Unmarshal(js, want)
				gerr := pbDecode(v, got)
				if (werr == nil) != (gerr == nil) {
					t.Fatalf("value %d %s: encoding/json says %v, the decoder %v", i, js, werr, gerr)
				}
				if werr == nil && !reflect.DeepEqual(want, got) {
					t.Fatalf("value %d %s: -json +decoder:\n%s", i, js, cmp.Diff(want, got))
				}
			}
		})
	}
}

// TestDecodeLikeJSONCases are what random values do not make: names in
// another case, nulls, fractions and unknown fields.
func TestDecodeLikeJSONCases(t *testing.T) {
	for _, js := range []string{
		`{"Name":"prod","DOMAIN":"shop.example.com","name":"exact"}`,
		`{"name":null,"retain":null,"ingress":null,"unknown":{"a":[1,2]}}`,
		`{"ingress":{"enabled":true,"annotations":{"a":"b"}},"retain":["DNSRecord"]}`,
		`{"ingress":{"enabled":"yes"}}`,
		`{"retain":"DNSRecord"}`,
		`{"retain":[1]}`,
		`[]`,
	} {
		v := &structpb.Value{}
		if err := protojson.Unmarshal([]byte(js), v); err != nil {
			t.Fatal(err)
		}
		want, got := &Environment{}, &Environment{}
		werr := json.Unmarshal([]byte(js), want)
		gerr := pbDecode(v, got)
		if (werr == nil) != (gerr == nil) {
			t.Errorf("%s: encoding/json says %v, the decoder %v", js, werr, gerr)
		}
		if werr == nil && !reflect.DeepEqual(want, got) {
			t.Errorf("%s: -json +decoder:\n%s", js, cmp.Diff(want, got))
		}
	}
}

// swapLeaf replaces one leaf of v, picked at random, with a value of
// another kind.
func swapLeaf(r *rand.Rand, v *structpb.Value) {
	var leaves []*structpb.Value
	var walk func(v *structpb.Value)
	walk = func(v *structpb.Value) {
		switch k := v.GetKind().(type) {
		case *structpb.Value_StructValue:
			for _, x := range k.StructValue.GetFields() {
				walk(x)
			}
		case *structpb.Value_ListValue:
			for _, x := range k.ListValue.GetValues() {
				walk(x)
			}
		default:
			leaves = append(leaves, v)
		}
	}
	walk(v)
	if len(leaves) == 0 {
		return
	}
	l := leaves[r.IntN(len(leaves))]
	switch l.GetKind().(type) {
	case *structpb.Value_StringValue:
		l.Kind = &structpb.Value_NumberValue{NumberValue: 1.5}
	case *structpb.Value_NumberValue:
		l.Kind = &structpb.Value_StringValue{StringValue: "7"}
	case *structpb.Value_BoolValue:
		l.Kind = &structpb.Value_StringValue{StringValue: "true"}
	default:
		l.Kind = &structpb.Value_ListValue{ListValue: &structpb.ListValue{}}
	}
}

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

// Package pbcodectest holds package pbcodec to code nobody here wrote, on
// randomly filled values of a caller's types: the encoder to Kubernetes'
// runtime.DefaultUnstructuredConverter and structpb.NewStruct, the
// decoder to encoding/json reading the same value as JSON.
package pbcodectest

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

	"github.com/freeleaps/provider-devops/internal/pbcodec"
)

// CheckEncode fills n values of newObj's type at random, with nil and
// empty values, and requires the encoder to write what the converter
// makes of each, so a json tag, an omitempty, an embedded struct or a
// marshaler the encoder got wrong shows as a difference. An API object
// (a runtime.Object) is also written as a composed resource: without
// status, and without a null creationTimestamp.
func CheckEncode(t *testing.T, name string, newObj func() any, n int) {
	t.Helper()
	f := randfill.NewWithSeed(int64(len(name))).NilChance(0.3).NumElements(0, 3)
	for i := range n {
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
		got, err := pbcodec.Encode(o)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got.GetStructValue(), protocmp.Transform()); diff != "" {
			t.Fatalf("%s, fill %d: -converter +encoder:\n%s", name, i, diff)
		}
		if _, ok := o.(runtime.Object); !ok {
			continue
		}
		delete(want.Fields, "status")
		md := want.Fields["metadata"].GetStructValue()
		if _, null := md.GetFields()["creationTimestamp"].GetKind().(*structpb.Value_NullValue); null {
			delete(md.Fields, "creationTimestamp")
		}
		res, err := (&pbcodec.Encoder{}).Resource(o)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, res, protocmp.Transform()); diff != "" {
			t.Fatalf("%s, fill %d as a resource: -converter +encoder:\n%s", name, i, diff)
		}
	}
}

// CheckDecode fills n values of newObj's type at random, every other one
// with one leaf swapped for a value of another kind, and requires the
// decoder to read each as encoding/json reads its JSON: the same value, or
// an error where encoding/json has one.
func CheckDecode(t *testing.T, name string, newObj func() any, n int) {
	t.Helper()
	// Whole numbers beyond 2^53 lose digits in JSON and protobuf alike
	// (both are float64), differently rounded.
	f := randfill.NewWithSeed(int64(len(name))).NilChance(0.3).NumElements(0, 3).Funcs(
		func(n *int64, c randfill.Continue) { *n = c.Int63n(1<<53) - 1<<52 },
		func(n *int, c randfill.Continue) { *n = int(c.Int63n(1<<53) - 1<<52) },
		func(n *uint64, c randfill.Continue) { *n = uint64(c.Int63n(1 << 53)) }, //nolint:gosec // 0 to 2^53, never negative
		func(n *uint, c randfill.Continue) { *n = uint(c.Int63n(1 << 53)) })     //nolint:gosec // 0 to 2^53, never negative
	r := rand.New(rand.NewPCG(1, uint64(len(name)))) //nolint:gosec // reproducible test values, not secrets
	for i := range n {
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
		CheckDecodeJSON(t, v, js, newObj)
	}
}

// CheckDecodeJSON requires the decoder to read v, whose JSON is js, into a
// new value of newObj's type as encoding/json reads js.
func CheckDecodeJSON(t *testing.T, v *structpb.Value, js []byte, newObj func() any) {
	t.Helper()
	want, got := newObj(), newObj()
	werr := json.Unmarshal(js, want)
	gerr := pbcodec.Decode(v, got)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s: encoding/json says %v, the decoder %v", js, werr, gerr)
	}
	if werr == nil && !reflect.DeepEqual(want, got) {
		t.Fatalf("%s: -json +decoder:\n%s", js, cmp.Diff(want, got))
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

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

// Package pbcodec writes typed Go values into protobuf Struct Values and
// reads them back, as encoding/json would write and read the same JSON,
// without the JSON or an intermediate map: the composition function's
// answer to every run is its whole desired state, so this decides its
// speed. Package pbcodectest holds it to Kubernetes' converter and to
// encoding/json on randomly filled values.
package pbcodec

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/crossplane/function-sdk-go/errors"
)

// The function answers every run with its whole desired state, so how its
// typed resources become protobuf decides its speed. The SDK's way converts
// a typed object to a map by reflection (runtime.DefaultUnstructuredConverter)
// and the map into a protobuf Struct; writing status goes through JSON. The
// encoder here writes a typed value straight into protobuf Values, as
// encoding/json would write it (json tags, omitempty, embedded structs
// flattened, json.Marshaler and encoding.TextMarshaler honoured), with the
// reflection done once per type. pbcodectest.CheckEncode holds it to the
// converter on randomly filled objects.

// encodeFunc writes one value of a type.
type encodeFunc func(*Encoder, reflect.Value) (*structpb.Value, error)

// The encoders of each type, memoized as encoding/json does: built once
// from the type alone, so every caller gets the same ones.
//
//nolint:gochecknoglobals // memos: what one caller stores, another would build the same
var (
	encoders       sync.Map // reflect.Type → encodeFunc
	objectEncoders sync.Map // reflect.Type → encodeFunc, less status
)

// Encoder writes the values of one response (its zero value is ready). The Values, their kinds and
// Structs are taken from slabs it allocates a few hundred at a time
// rather than one by one: a response is a few thousand of them, all
// alive and dropped together, and their allocation was the cost of a run.
type Encoder struct {
	values  []structpb.Value
	strings []structpb.Value_StringValue
	structs []structpb.Struct
	wraps   []structpb.Value_StructValue
}

const slab = 256

// take hands out the next element of a slab, making a new slab when it
// is used up.
func take[T any](s *[]T) *T {
	if len(*s) == 0 {
		*s = make([]T, slab)
	}
	x := &(*s)[0]
	*s = (*s)[1:]
	return x
}

func (e *Encoder) str(s string) *structpb.Value {
	w := take(&e.strings)
	w.StringValue = s
	v := take(&e.values)
	v.Kind = w
	return v
}

func (e *Encoder) object(fields map[string]*structpb.Value) *structpb.Value {
	st := take(&e.structs)
	st.Fields = fields
	w := take(&e.wraps)
	w.StructValue = st
	v := take(&e.values)
	v.Kind = w
	return v
}

// Value is v as a protobuf Value.
func (e *Encoder) Value(v any) (*structpb.Value, error) {
	if v == nil {
		return structpb.NewNullValue(), nil
	}
	rv := reflect.ValueOf(v)
	return encoderOf(rv.Type())(e, rv)
}

// Encode is v as a protobuf Value, written by an encoder of its own.
func Encode(v any) (*structpb.Value, error) { return (&Encoder{}).Value(v) }

// Resource is a typed API object as the Struct Crossplane takes: without
// its (empty) status and the null creationTimestamp every ObjectMeta
// writes.
func (e *Encoder) Resource(o any) (*structpb.Struct, error) {
	rv := reflect.Indirect(reflect.ValueOf(o))
	if rv.Kind() != reflect.Struct {
		return nil, errors.Errorf("%T is not an object", o)
	}
	enc, ok := objectEncoders.Load(rv.Type())
	if !ok {
		enc, _ = objectEncoders.LoadOrStore(rv.Type(), structEncoder(rv.Type(), "status"))
	}
	v, err := enc.(encodeFunc)(e, rv)
	if err != nil {
		return nil, err
	}
	s := v.GetStructValue()
	if m := s.Fields["metadata"].GetStructValue(); m != nil {
		if _, null := m.Fields["creationTimestamp"].GetKind().(*structpb.Value_NullValue); null {
			delete(m.Fields, "creationTimestamp")
		}
	}
	return s, nil
}

func encoderOf(t reflect.Type) encodeFunc {
	if f, ok := encoders.Load(t); ok {
		return f.(encodeFunc)
	}
	// A type that contains itself finds this placeholder, which waits for
	// the real encoder (as encoding/json does).
	var (
		wg sync.WaitGroup
		f  encodeFunc
	)
	wg.Add(1)
	placeholder := encodeFunc(func(e *Encoder, v reflect.Value) (*structpb.Value, error) { wg.Wait(); return f(e, v) })
	if got, loaded := encoders.LoadOrStore(t, placeholder); loaded {
		return got.(encodeFunc)
	}
	f = newEncoder(t)
	wg.Done()
	encoders.Store(t, f)
	return f
}

//nolint:gochecknoglobals // read-only types
var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

func newEncoder(t reflect.Type) encodeFunc {
	if f := selfEncoder(t); f != nil {
		return f
	}
	switch t.Kind() {
	case reflect.Bool:
		return boolEncoder
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intEncoder
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return uintEncoder
	case reflect.Float32, reflect.Float64:
		return floatEncoder
	case reflect.String:
		return stringEncoder
	case reflect.Interface:
		return interfaceEncoder
	case reflect.Pointer:
		return pointerEncoder(t)
	case reflect.Slice:
		return sliceEncoder(t)
	case reflect.Array:
		return listEncoder(t)
	case reflect.Map:
		return mapEncoder(t)
	case reflect.Struct:
		return structEncoder(t, "")
	case reflect.Invalid, reflect.Complex64, reflect.Complex128,
		reflect.Chan, reflect.Func, reflect.UnsafePointer:
		// JSON has no such value.
	}
	return func(*Encoder, reflect.Value) (*structpb.Value, error) {
		return nil, errors.Errorf("cannot encode a %s", t)
	}
}

// selfEncoder is the encoder of a (non-pointer) type that writes itself,
// as JSON or else as text, or nil.
func selfEncoder(t reflect.Type) encodeFunc {
	switch {
	case t.Kind() == reflect.Pointer:
		return nil
	case t.Implements(jsonMarshaler):
		return marshalerEncoder
	case t.Implements(textMarshaler):
		return textEncoder
	}
	return nil
}

func boolEncoder(_ *Encoder, v reflect.Value) (*structpb.Value, error) {
	return structpb.NewBoolValue(v.Bool()), nil
}

func intEncoder(_ *Encoder, v reflect.Value) (*structpb.Value, error) {
	return structpb.NewNumberValue(float64(v.Int())), nil
}

func uintEncoder(_ *Encoder, v reflect.Value) (*structpb.Value, error) {
	return structpb.NewNumberValue(float64(v.Uint())), nil
}

func floatEncoder(_ *Encoder, v reflect.Value) (*structpb.Value, error) {
	return structpb.NewNumberValue(v.Float()), nil
}

func stringEncoder(e *Encoder, v reflect.Value) (*structpb.Value, error) {
	return e.stringValue(v.String())
}

// interfaceEncoder writes what the interface holds, by its own type.
func interfaceEncoder(e *Encoder, v reflect.Value) (*structpb.Value, error) {
	if v.IsNil() {
		return structpb.NewNullValue(), nil
	}
	el := v.Elem()
	return encoderOf(el.Type())(e, el)
}

func pointerEncoder(t reflect.Type) encodeFunc {
	elem := encoderOf(t.Elem())
	return func(e *Encoder, v reflect.Value) (*structpb.Value, error) {
		if v.IsNil() {
			return structpb.NewNullValue(), nil
		}
		return elem(e, v.Elem())
	}
}

// sliceEncoder writes a nil slice as null, bytes (that do not write
// themselves) as base64 and any other slice as a list, as encoding/json
// does.
func sliceEncoder(t reflect.Type) encodeFunc {
	if t.Elem().Kind() == reflect.Uint8 && !reflect.PointerTo(t.Elem()).Implements(jsonMarshaler) && !reflect.PointerTo(t.Elem()).Implements(textMarshaler) {
		return func(e *Encoder, v reflect.Value) (*structpb.Value, error) {
			if v.IsNil() {
				return structpb.NewNullValue(), nil
			}
			return structpb.NewStringValue(base64.StdEncoding.EncodeToString(v.Bytes())), nil
		}
	}
	list := listEncoder(t)
	return func(e *Encoder, v reflect.Value) (*structpb.Value, error) {
		if v.IsNil() {
			return structpb.NewNullValue(), nil
		}
		return list(e, v)
	}
}

func (e *Encoder) stringValue(s string) (*structpb.Value, error) {
	if !utf8.ValidString(s) {
		return nil, errors.Errorf("invalid UTF-8 in string: %q", s)
	}
	return e.str(s), nil
}

// marshalerEncoder takes the JSON the type writes itself (metav1.Time,
// resource.Quantity, ...).
func marshalerEncoder(_ *Encoder, v reflect.Value) (*structpb.Value, error) {
	if v.Kind() == reflect.Interface && v.IsNil() {
		return structpb.NewNullValue(), nil
	}
	b, err := v.Interface().(json.Marshaler).MarshalJSON()
	if err != nil {
		return nil, err
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return nil, errors.Wrapf(err, "cannot decode the JSON %s wrote", v.Type())
	}
	return structpb.NewValue(x)
}

func textEncoder(e *Encoder, v reflect.Value) (*structpb.Value, error) {
	b, err := v.Interface().(encoding.TextMarshaler).MarshalText()
	if err != nil {
		return nil, err
	}
	return e.stringValue(string(b))
}

func listEncoder(t reflect.Type) encodeFunc {
	elem := encoderOf(t.Elem())
	return func(e *Encoder, v reflect.Value) (*structpb.Value, error) {
		n := v.Len()
		values := make([]*structpb.Value, n)
		for i := range n {
			x, err := elem(e, v.Index(i))
			if err != nil {
				return nil, err
			}
			values[i] = x
		}
		return structpb.NewListValue(&structpb.ListValue{Values: values}), nil
	}
}

func mapEncoder(t reflect.Type) encodeFunc {
	if t.Key().Kind() != reflect.String {
		return func(*Encoder, reflect.Value) (*structpb.Value, error) {
			return nil, errors.Errorf("cannot encode %s: keys are not strings", t)
		}
	}
	if t == reflect.TypeFor[map[string]string]() {
		// Labels and annotations: without reflection's copy of each value.
		return func(e *Encoder, v reflect.Value) (*structpb.Value, error) {
			if v.IsNil() {
				return structpb.NewNullValue(), nil
			}
			in := v.Interface().(map[string]string)
			fields := make(map[string]*structpb.Value, len(in))
			for k, s := range in {
				if !utf8.ValidString(k) {
					return nil, errors.Errorf("invalid UTF-8 in key: %q", k)
				}
				x, err := e.stringValue(s)
				if err != nil {
					return nil, err
				}
				fields[k] = x
			}
			return e.object(fields), nil
		}
	}
	elem := encoderOf(t.Elem())
	return func(e *Encoder, v reflect.Value) (*structpb.Value, error) {
		if v.IsNil() {
			return structpb.NewNullValue(), nil
		}
		fields := make(map[string]*structpb.Value, v.Len())
		for it := v.MapRange(); it.Next(); {
			k := it.Key().String()
			if !utf8.ValidString(k) {
				return nil, errors.Errorf("invalid UTF-8 in key: %q", k)
			}
			x, err := elem(e, it.Value())
			if err != nil {
				return nil, err
			}
			fields[k] = x
		}
		return e.object(fields), nil
	}
}

// field is one JSON field of a struct: where it is (through embedded
// structs) and how it is written and read.
type field struct {
	name      string
	index     []int
	omitEmpty bool
	omitZero  bool
	enc       encodeFunc
	dec       decodeFunc
}

// structEncoder writes t's fields but skip.
func structEncoder(t reflect.Type, skip string) encodeFunc {
	fields := slices.DeleteFunc(typeFields(t), func(f field) bool { return f.name == skip })
	for i := range fields {
		fields[i].enc = encoderOf(t.FieldByIndex(fields[i].index).Type)
	}
	return func(e *Encoder, v reflect.Value) (*structpb.Value, error) {
		// Most fields of API types are empty and omitted: gather the
		// written ones first, so the map is made at its size.
		var buf [16]named
		out := buf[:0]
	next:
		for i := range fields {
			f := &fields[i]
			fv := v
			for _, x := range f.index {
				if fv.Kind() == reflect.Pointer {
					if fv.IsNil() { // a nil embedded struct has no fields
						continue next
					}
					fv = fv.Elem()
				}
				fv = fv.Field(x)
			}
			if f.omitEmpty && isEmpty(fv) || f.omitZero && fv.IsZero() {
				continue
			}
			x, err := f.enc(e, fv)
			if err != nil {
				return nil, errors.Wrapf(err, "%s", f.name)
			}
			out = append(out, named{f.name, x})
		}
		m := make(map[string]*structpb.Value, len(out))
		for _, n := range out {
			m[n.name] = n.value
		}
		return e.object(m), nil
	}
}

type named struct {
	name  string
	value *structpb.Value
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	case reflect.Invalid, reflect.Complex64, reflect.Complex128, reflect.Chan,
		reflect.Func, reflect.Struct, reflect.UnsafePointer:
		// Never empty, as for encoding/json.
	}
	return false
}

// typeFields are t's JSON fields by encoding/json's rules: the fields of
// an embedded struct without a JSON name (or tagged inline) are t's own;
// of two of one name the shallower wins, and two at one depth both go.
func typeFields(t reflect.Type) []field {
	all := appendCandidates(nil, t, nil, 0)
	byName := map[string][]candidate{}
	var order []string
	for _, c := range all {
		if _, ok := byName[c.name]; !ok {
			order = append(order, c.name)
		}
		byName[c.name] = append(byName[c.name], c)
	}
	var out []field
	for _, name := range order {
		if f, ok := dominant(byName[name]); ok {
			out = append(out, f)
		}
	}
	return out
}

// candidate is a field that one of the same name may hide.
type candidate struct {
	field
	depth  int
	tagged bool
}

// appendCandidates appends the fields of t, found at index and depth,
// and those of its untagged embedded structs, in their order.
func appendCandidates(all []candidate, t reflect.Type, index []int, depth int) []candidate {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		idx := append(append([]int(nil), index...), i)
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if sf.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			all = appendCandidates(all, ft, idx, depth+1)
			continue
		}
		if !sf.IsExported() {
			continue
		}
		c := candidate{field: field{name: name, index: idx}, depth: depth, tagged: name != ""}
		if c.name == "" {
			c.name = sf.Name
		}
		for o := range strings.SplitSeq(opts, ",") {
			c.omitEmpty = c.omitEmpty || o == "omitempty"
			c.omitZero = c.omitZero || o == "omitzero"
		}
		all = append(all, c)
	}
	return all
}

// dominant is the one of fields of one name that is written: the
// shallowest, a tagged one before an untagged one at its depth; none if
// two tie.
func dominant(cs []candidate) (field, bool) {
	best, n := cs[0], 0
	for _, c := range cs {
		switch {
		case c.depth < best.depth || c.depth == best.depth && c.tagged && !best.tagged:
			best, n = c, 1
		case c.depth == best.depth && c.tagged == best.tagged:
			n++
		}
	}
	return best.field, n == 1
}

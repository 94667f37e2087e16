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

package pbcodec

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"sync"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/crossplane/function-sdk-go/errors"
)

// The decoder reads a protobuf Value into a typed value as encoding/json
// reads the same JSON (json tags, embedded structs, json.Unmarshaler,
// unknown fields ignored, a field name matched exactly or else without
// regard to case), without the JSON: the SDK's GetValueInto converts the
// XR to a map and then marshals and unmarshals JSON to read spec and
// status. pbcodectest.CheckDecode holds it to encoding/json on randomly
// filled values.

type decodeFunc func(v *structpb.Value, dst reflect.Value) error

// decoders memoizes each type's decoder, as encoding/json does: built
// once from the type alone, so every caller gets the same one.
var decoders sync.Map //nolint:gochecknoglobals // a memo: what one caller stores, another would build the same (reflect.Type → decodeFunc)

// Decode reads v into the value into points to.
func Decode(v *structpb.Value, into any) error {
	rv := reflect.ValueOf(into)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errors.Errorf("cannot decode into %T: not a pointer", into)
	}
	return decoderOf(rv.Type().Elem())(v, rv.Elem())
}

func decoderOf(t reflect.Type) decodeFunc {
	if f, ok := decoders.Load(t); ok {
		return f.(decodeFunc)
	}
	var (
		wg sync.WaitGroup
		f  decodeFunc
	)
	wg.Add(1)
	placeholder := decodeFunc(func(v *structpb.Value, dst reflect.Value) error { wg.Wait(); return f(v, dst) })
	if got, loaded := decoders.LoadOrStore(t, placeholder); loaded {
		return got.(decodeFunc)
	}
	f = newDecoder(t)
	wg.Done()
	decoders.Store(t, f)
	return f
}

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]() //nolint:gochecknoglobals // read-only type

// typeErr is encoding/json's complaint about a value of the wrong type.
func typeErr(v *structpb.Value, t reflect.Type) error {
	kind := "object"
	switch v.GetKind().(type) {
	case *structpb.Value_StringValue:
		kind = "string"
	case *structpb.Value_NumberValue:
		kind = "number"
	case *structpb.Value_BoolValue:
		kind = "bool"
	case *structpb.Value_ListValue:
		kind = "array"
	}
	return errors.Errorf("cannot read a %s into a Go value of type %s", kind, t)
}

func isNull(v *structpb.Value) bool {
	_, null := v.GetKind().(*structpb.Value_NullValue)
	return v == nil || v.GetKind() == nil || null
}

func newDecoder(t reflect.Type) decodeFunc {
	if t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		return unmarshalerDecoder
	}
	switch t.Kind() {
	case reflect.Bool:
		return nullable(boolDecoder(t))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return nullable(intDecoder(t))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return nullable(uintDecoder(t))
	case reflect.Float32, reflect.Float64:
		return nullable(floatDecoder(t))
	case reflect.String:
		return nullable(stringDecoder(t))
	case reflect.Interface:
		return interfaceDecoder(t)
	case reflect.Pointer:
		return pointerDecoder(t)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return bytesDecoder(t)
		}
		return sliceDecoder(t)
	case reflect.Map:
		return mapDecoder(t)
	case reflect.Struct:
		return nullable(structDecoder(t))
	case reflect.Invalid, reflect.Complex64, reflect.Complex128, reflect.Array,
		reflect.Chan, reflect.Func, reflect.UnsafePointer:
		// Not read: any value is the wrong type for these.
	}
	return func(v *structpb.Value, _ reflect.Value) error { return typeErr(v, t) }
}

// unmarshalerDecoder hands a type that reads itself (metav1.Time,
// resource.Quantity, ...) its JSON.
func unmarshalerDecoder(v *structpb.Value, dst reflect.Value) error {
	b, err := protojson.Marshal(v)
	if err != nil {
		return err
	}
	return dst.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(b)
}

// nullable leaves the value alone on a null, as encoding/json does, and
// reads anything else with d.
func nullable(d decodeFunc) decodeFunc {
	return func(v *structpb.Value, dst reflect.Value) error {
		if isNull(v) { // as encoding/json: null leaves a value alone
			return nil
		}
		return d(v, dst)
	}
}

func boolDecoder(t reflect.Type) decodeFunc {
	return func(v *structpb.Value, dst reflect.Value) error {
		b, ok := v.GetKind().(*structpb.Value_BoolValue)
		if !ok {
			return typeErr(v, t)
		}
		dst.SetBool(b.BoolValue)
		return nil
	}
}

func intDecoder(t reflect.Type) decodeFunc {
	return func(v *structpb.Value, dst reflect.Value) error {
		n, ok := v.GetKind().(*structpb.Value_NumberValue)
		if !ok || n.NumberValue != math.Trunc(n.NumberValue) || n.NumberValue < math.MinInt64 || n.NumberValue >= math.MaxInt64 || dst.OverflowInt(int64(n.NumberValue)) {
			return typeErr(v, t)
		}
		dst.SetInt(int64(n.NumberValue))
		return nil
	}
}

func uintDecoder(t reflect.Type) decodeFunc {
	return func(v *structpb.Value, dst reflect.Value) error {
		n, ok := v.GetKind().(*structpb.Value_NumberValue)
		if !ok || n.NumberValue != math.Trunc(n.NumberValue) || n.NumberValue < 0 || n.NumberValue >= math.MaxUint64 || dst.OverflowUint(uint64(n.NumberValue)) {
			return typeErr(v, t)
		}
		dst.SetUint(uint64(n.NumberValue))
		return nil
	}
}

func floatDecoder(t reflect.Type) decodeFunc {
	return func(v *structpb.Value, dst reflect.Value) error {
		n, ok := v.GetKind().(*structpb.Value_NumberValue)
		if !ok || dst.OverflowFloat(n.NumberValue) {
			return typeErr(v, t)
		}
		dst.SetFloat(n.NumberValue)
		return nil
	}
}

func stringDecoder(t reflect.Type) decodeFunc {
	return func(v *structpb.Value, dst reflect.Value) error {
		s, ok := v.GetKind().(*structpb.Value_StringValue)
		if !ok {
			return typeErr(v, t)
		}
		dst.SetString(s.StringValue)
		return nil
	}
}

func interfaceDecoder(t reflect.Type) decodeFunc {
	if t.NumMethod() > 0 {
		return func(v *structpb.Value, _ reflect.Value) error { return typeErr(v, t) }
	}
	return func(v *structpb.Value, dst reflect.Value) error {
		if isNull(v) {
			dst.SetZero()
			return nil
		}
		dst.Set(reflect.ValueOf(v.AsInterface()))
		return nil
	}
}

func pointerDecoder(t reflect.Type) decodeFunc {
	elem := decoderOf(t.Elem())
	return func(v *structpb.Value, dst reflect.Value) error {
		if isNull(v) {
			dst.SetZero()
			return nil
		}
		if dst.IsNil() {
			dst.Set(reflect.New(t.Elem()))
		}
		return elem(v, dst.Elem())
	}
}

// bytesDecoder reads a []byte from base64, as encoding/json does.
func bytesDecoder(t reflect.Type) decodeFunc {
	return func(v *structpb.Value, dst reflect.Value) error {
		if isNull(v) {
			dst.SetZero()
			return nil
		}
		s, ok := v.GetKind().(*structpb.Value_StringValue)
		if !ok {
			return typeErr(v, t)
		}
		b, err := base64.StdEncoding.DecodeString(s.StringValue)
		if err != nil {
			return err
		}
		dst.SetBytes(b)
		return nil
	}
}

func sliceDecoder(t reflect.Type) decodeFunc {
	elem := decoderOf(t.Elem())
	return func(v *structpb.Value, dst reflect.Value) error {
		if isNull(v) {
			dst.SetZero()
			return nil
		}
		l, ok := v.GetKind().(*structpb.Value_ListValue)
		if !ok {
			return typeErr(v, t)
		}
		values := l.ListValue.GetValues()
		s := reflect.MakeSlice(t, len(values), len(values))
		for i, x := range values {
			if err := elem(x, s.Index(i)); err != nil {
				return err
			}
		}
		dst.Set(s)
		return nil
	}
}

func mapDecoder(t reflect.Type) decodeFunc {
	if t.Key().Kind() != reflect.String {
		return func(v *structpb.Value, _ reflect.Value) error { return typeErr(v, t) }
	}
	elem := decoderOf(t.Elem())
	return func(v *structpb.Value, dst reflect.Value) error {
		if isNull(v) {
			dst.SetZero()
			return nil
		}
		s, ok := v.GetKind().(*structpb.Value_StructValue)
		if !ok {
			return typeErr(v, t)
		}
		if dst.IsNil() {
			dst.Set(reflect.MakeMapWithSize(t, len(s.StructValue.GetFields())))
		}
		for k, x := range s.StructValue.GetFields() {
			e := reflect.New(t.Elem()).Elem()
			if err := elem(x, e); err != nil {
				return err
			}
			dst.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), e)
		}
		return nil
	}
}

func structDecoder(t reflect.Type) decodeFunc {
	fields := typeFields(t)
	byName := make(map[string]*field, len(fields))
	for i := range fields {
		fields[i].dec = decoderOf(t.FieldByIndex(fields[i].index).Type)
		byName[fields[i].name] = &fields[i]
	}
	return func(v *structpb.Value, dst reflect.Value) error {
		s, ok := v.GetKind().(*structpb.Value_StructValue)
		if !ok {
			return typeErr(v, t)
		}
		for k, x := range s.StructValue.GetFields() {
			f := byName[k]
			if f == nil {
				// encoding/json takes a field whose name matches but
				// for case. Where JSON has both, the last one wins; a
				// Struct has no order, so the exact name does.
				for i := range fields {
					if _, exact := s.StructValue.GetFields()[fields[i].name]; !exact && strings.EqualFold(fields[i].name, k) {
						f = &fields[i]
						break
					}
				}
				if f == nil {
					continue
				}
			}
			fv := dst
			for _, i := range f.index {
				if fv.Kind() == reflect.Pointer {
					if fv.IsNil() {
						fv.Set(reflect.New(fv.Type().Elem()))
					}
					fv = fv.Elem()
				}
				fv = fv.Field(i)
			}
			if err := f.dec(x, fv); err != nil {
				return errors.Wrapf(err, "%s", f.name)
			}
		}
		return nil
	}
}

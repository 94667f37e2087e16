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
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/freeleaps/provider-devops/internal/pbcodec/pbcodectest"
)

// The codec on the function's own types (the composed kinds are
// internal/pbcodec's): the status it writes, and the spec and status it
// reads.
func TestCodecOnFunctionTypes(t *testing.T) {
	encoded := map[string]func() any{
		"EnvStatus": func() any { return &EnvStatus{} },
		"Orphaned":  func() any { return &OrphanedEnvironment{} },
	}
	for name, newObj := range encoded {
		t.Run("Encode"+name, func(t *testing.T) { pbcodectest.CheckEncode(t, name, newObj, 200) })
	}
	decoded := map[string]func() any{
		"ProjectSpec": func() any { return &ProjectSpec{} },
		"EnvStatus":   func() any { return &[]EnvStatus{} },
		"Orphaned":    func() any { return &[]OrphanedEnvironment{} },
	}
	for name, newObj := range decoded {
		t.Run("Decode"+name, func(t *testing.T) { pbcodectest.CheckDecode(t, name, newObj, 300) })
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
		pbcodectest.CheckDecodeJSON(t, v, []byte(js), func() any { return &Environment{} })
	}
}

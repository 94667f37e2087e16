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

package bind

import (
	"testing"

	"github.com/miekg/dns"
)

func TestSmoke(t *testing.T) {
	s := Start(t)
	s.NSUpdate(t, "update add www.example.test. 300 A 192.0.2.7")
	if v := s.Values("www.example.test.", dns.TypeA); len(v) != 1 || v[0] != "192.0.2.7" {
		t.Fatalf("got %v", v)
	}
}

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

package dns

import (
	"context"
	"testing"
	"time"

	"github.com/libdns/libdns"
)

// panicking panics on its first zone read, like a provider meeting an
// answer it cannot parse; controller-runtime recovers reconcile panics.
type panicking struct {
	zone
	panicked bool
}

func (p *panicking) GetRecords(ctx context.Context, z string) ([]libdns.Record, error) {
	if !p.panicked {
		p.panicked = true
		panic("malformed answer")
	}
	return p.zone.GetRecords(ctx, z)
}

// TestReadFreshAfterPanic: a read that panicked ends its flight, so the
// next reconcile of the zone reads it again instead of waiting for a
// flight that never lands.
func TestReadFreshAfterPanic(t *testing.T) {
	p := &panicking{}
	c := &Client{p: p, b: backends["rfc2136"], id: identity(Config{Provider: "rfc2136", Server: "127.0.0.1:53", Secret: "panic"}), now: time.Now, cache: NewZoneCache()}
	func() {
		defer func() { _ = recover() }()
		_, _ = c.Get(context.Background(), "panic.example.com", "www", "A")
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := c.Get(ctx, "panic.example.com", "www", "A"); err != nil {
		t.Fatalf("the read after a panicked one: %v, want a read", err)
	}
	if p.reads != 1 {
		t.Errorf("%d zone reads after the panic, want 1", p.reads)
	}
}

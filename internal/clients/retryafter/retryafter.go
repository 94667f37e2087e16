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

// Package retryafter remembers, per server, until when the server asked
// clients to stay away (429/503 with Retry-After), so an HTTP client can
// refuse to call it before then.
package retryafter

import (
	"sync"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"net/http"
	"strconv"
	"strings"
)

// Gate holds the waits servers asked for. The managed reconciler backs off
// on its own, starting at about a second; without a Gate, a busy server that
// asked for a minute would be asked again within seconds by every resource
// using it.
type Gate struct {
	mu    sync.Mutex
	until map[string]time.Time
	now   func() time.Time
}

// New returns an empty Gate. now is the clock; nil means time.Now.
func New(now func() time.Time) *Gate {
	if now == nil {
		now = time.Now
	}
	return &Gate{until: map[string]time.Time{}, now: now}
}

// Check returns an error while the server at endpoint asked to wait. A nil
// Gate never holds.
func (r *Gate) Check(backend, endpoint string) error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	u, ok := r.until[endpoint]
	if !ok {
		return nil
	}
	if !r.now().Before(u) {
		delete(r.until, endpoint)
		return nil
	}
	return errors.Errorf("%s asked clients to retry after %s (Retry-After); not calling it before then", backend, u.UTC().Format(time.RFC3339))
}

// Note records that the server at endpoint asked for a wait of d (none
// when d is not positive).
func (r *Gate) Note(endpoint string, d time.Duration) {
	if r == nil || d <= 0 {
		return
	}
	// A server asking for hours is misconfigured; never wait longer than
	// a poll would.
	d = min(d, MaxWait)
	r.mu.Lock()
	defer r.mu.Unlock()
	// Forget the waits that are over: keys carry credential digests, and
	// one that is never checked again would otherwise stay for good.
	now := r.now()
	for k, u := range r.until {
		if !now.Before(u) {
			delete(r.until, k)
		}
	}
	if u := now.Add(d); u.After(r.until[endpoint]) {
		r.until[endpoint] = u
	}
}

// MaxWait is the longest wait a server's Retry-After is taken for.
const MaxWait = 10 * time.Minute

// Parse reads a Retry-After header in either of its forms (RFC 9110
// 10.2.3): delay-seconds ("120") or an HTTP-date ("Wed, 21 Oct 2026
// 07:28:00 GMT"), relative to now. Zero when absent, malformed or past.
func Parse(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		return max(time.Duration(s)*time.Second, 0)
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

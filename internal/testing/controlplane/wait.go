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

package controlplane

import (
	"math/rand/v2"
	"testing"
	"time"
)

// Eventually polls fn every 200ms for up to 60s and fails the test, naming
// what it waited for, if fn never returns true. Generous on purpose: a
// loaded 2-core CI machine is slow, and a condition that holds is seen at
// once.
func Eventually(t *testing.T, what string, fn func() bool) {
	t.Helper()
	EventuallyWithin(t, 60*time.Second, what, fn)
}

// EventuallyWithin is Eventually with its own limit, for waits that include
// a fixed delay of the reconciler: deleting a resource created less than 30s
// ago waits out crossplane-runtime's creation grace period first.
func EventuallyWithin(t *testing.T, limit time.Duration, what string, fn func() bool) {
	t.Helper()
	EventuallyExplained(t, limit, what, fn, nil)
}

// EventuallyExplained is EventuallyWithin that, when it times out, also
// prints what explain returns (nil: nothing): the controllers' log lines
// about the resource waited for, say.
func EventuallyExplained(t *testing.T, limit time.Duration, what string, fn func() bool, explain func() string) {
	t.Helper()
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if fn() {
			return
		}
	}
	if explain != nil {
		t.Fatalf("timed out waiting for: %s\n%s", what, explain())
	}
	t.Fatalf("timed out waiting for: %s", what)
}

// Must fails the test on err.
func Must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Unique returns prefix followed by a dash and five random lowercase
// letters and digits: a name (a namespace, a broker user) no earlier run in
// the same process or the same API server holds, so a test run twice
// (-count=2) or after an interrupted one starts from nothing.
func Unique(prefix string) string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 5)
	for i := range b {
		b[i] = chars[rand.IntN(len(chars))]
	}
	return prefix + "-" + string(b)
}

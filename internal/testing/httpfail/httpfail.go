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

// Package httpfail holds what the fake HTTP servers share: failures on
// command (tests queue a status and an optional Retry-After that the next
// requests receive, in the fake's own error format) and request counts.
package httpfail

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Injector holds queued failures. Embed it in a fake server; its zero value
// is ready to use.
type Injector struct {
	mu       sync.Mutex
	queue    []failure
	failedAt time.Time
}

type failure struct {
	status     int
	retryAfter int
}

// FailNext makes the next n requests fail with status (and a Retry-After of
// retryAfter seconds when > 0).
func (i *Injector) FailNext(n, status, retryAfter int) {
	i.mu.Lock()
	defer i.mu.Unlock()
	for range n {
		i.queue = append(i.queue, failure{status: status, retryAfter: retryAfter})
	}
}

// PendingFailures is how many queued failures are still to be served.
func (i *Injector) PendingFailures() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	return len(i.queue)
}

// LastFailureAt is when the last queued failure was served.
func (i *Injector) LastFailureAt() time.Time {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.failedAt
}

// Serve answers with the next queued failure, written by write in the fake's
// error format, and reports whether it did.
func (i *Injector) Serve(w http.ResponseWriter, write func(w http.ResponseWriter, status int)) bool {
	i.mu.Lock()
	if len(i.queue) == 0 {
		i.mu.Unlock()
		return false
	}
	f := i.queue[0]
	i.queue = i.queue[1:]
	i.failedAt = time.Now()
	i.mu.Unlock()
	if f.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(f.retryAfter))
	}
	write(w, f.status)
	return true
}

// Counter counts the requests a fake served, by method. Embed it; its zero
// value is ready to use.
type Counter struct {
	mu     sync.Mutex
	counts map[string]int
}

// Counted records one request with method.
func (c *Counter) Counted(method string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = map[string]int{}
	}
	c.counts[method]++
}

// Count is how many requests with method were counted.
func (c *Counter) Count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[method]
}

// ResetCounts zeroes the counters.
func (c *Counter) ResetCounts() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts = nil
}

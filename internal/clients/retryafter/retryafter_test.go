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

package retryafter

import (
	"strings"
	"testing"
	"time"
)

func TestGate(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	r := New(func() time.Time { return now })

	if err := r.Check("Jenkins", "https://a"); err != nil {
		t.Fatalf("nothing noted: want no error, got %v", err)
	}
	r.Note("https://a", 0)
	if err := r.Check("Jenkins", "https://a"); err != nil {
		t.Errorf("no wait asked: want no error, got %v", err)
	}
	r.Note("https://a", 30*time.Second)
	if err := r.Check("Jenkins", "https://a"); err == nil || !strings.Contains(err.Error(), "2026-11-22T10:00:30Z") {
		t.Errorf("within the wait: want an error naming the time, got %v", err)
	}
	if err := r.Check("Jenkins", "https://b"); err != nil {
		t.Errorf("another endpoint is not held, got %v", err)
	}
	r.Note("https://a", time.Second)
	now = now.Add(10 * time.Second)
	if err := r.Check("Jenkins", "https://a"); err == nil {
		t.Error("a shorter later wait must not shorten the longer one")
	}
	now = now.Add(21 * time.Second)
	if err := r.Check("Jenkins", "https://a"); err != nil {
		t.Errorf("after the wait: want no error, got %v", err)
	}
	r.Note("https://a", 24*time.Hour)
	now = now.Add(11 * time.Minute)
	if err := r.Check("Jenkins", "https://a"); err != nil {
		t.Errorf("waits are capped at 10 minutes, got %v", err)
	}
}

func TestParse(t *testing.T) {
	now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		v    string
		want time.Duration
	}{
		"Seconds":    {"120", 2 * time.Minute},
		"HTTPDate":   {"Tue, 24 Nov 2026 09:01:30 GMT", 90 * time.Second},
		"PastDate":   {"Tue, 24 Nov 2026 08:00:00 GMT", 0},
		"Negative":   {"-5", 0},
		"Absent":     {"", 0},
		"Malformed":  {"soon", 0},
		"Whitespace": {" 7 ", 7 * time.Second},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Parse(tc.v, now); got != tc.want {
				t.Errorf("Parse(%q) = %s, want %s", tc.v, got, tc.want)
			}
		})
	}
}

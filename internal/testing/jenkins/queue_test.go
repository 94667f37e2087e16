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

package jenkins

import (
	"net/url"
	"testing"
	"time"
)

// TestDelayOf holds delayOf to Jenkins' TimeDuration.fromString (its
// TimeDurationTest): a bare number is milliseconds, "sec" and "secs"
// seconds, spaces allowed, truncated to the whole seconds the queue uses;
// what does not parse is no delay, so the default quiet period.
func TestDelayOf(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"":           quietPeriod,
		"0sec":       0,
		"1":          0,
		"1500":       time.Second,
		"1sec":       time.Second,
		"1secs":      time.Second,
		"1 secs ":    time.Second,
		" 21  secs ": 21 * time.Second,
		"soon":       quietPeriod,
	} {
		form := url.Values{}
		if in != "" {
			form.Set("delay", in)
		}
		if got := delayOf(form); got != want {
			t.Errorf("delay %q: got %s, want %s", in, got, want)
		}
	}
}

// TestQuietPeriod: an item waits out its quiet period before an executor
// (RunBuildable) takes it; a merged request with a shorter one pulls it in.
func TestQuietPeriod(t *testing.T) {
	s := New("ci", "token")
	defer s.Close()
	s.mu.Lock()
	s.items["job"] = &item{class: "org.jenkinsci.plugins.workflow.job.WorkflowJob", config: "<flow-definition/>", nextBuild: 1}
	s.mu.Unlock()
	s.mu.Lock()
	q, _ := s.schedule("job", url.Values{}, nil, quietPeriod)
	s.mu.Unlock()
	s.RunBuildable()
	if s.Buildable("job") != 0 || q.build != nil {
		t.Fatal("an item in its quiet period was started")
	}
	s.mu.Lock()
	again, created := s.schedule("job", url.Values{}, nil, 0)
	s.mu.Unlock()
	if created || again != q {
		t.Fatal("the same request was not merged into the queued item")
	}
	if s.Buildable("job") != 1 {
		t.Fatal("delay=0sec did not end the merged item's quiet period")
	}
	s.RunBuildable()
	if q.build == nil {
		t.Fatal("a buildable item was not started")
	}
}

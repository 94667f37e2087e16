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

package framework

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/freeleaps/provider-devops/apis/contract"
)

// teardownOrder is the function's default input.teardownOrder.
var teardownOrder = []string{"DNSRecord", "ArgoApplication", "JenkinsPipeline"}

// teardown records, from successive listings of a project's managed
// resources while it is deleted, when each resource was first seen gone
// and whether one was seen waiting for another (its Ready condition).
type teardown struct {
	start time.Time
	// present: resources in the last listing; gone: when each was first
	// missing; env: each resource's environment.
	present map[string]bool
	gone    map[string]time.Time
	env     map[string]string
	waited  map[string]string
}

func newTeardown() *teardown {
	return &teardown{start: time.Now(), present: map[string]bool{}, gone: map[string]time.Time{}, env: map[string]string{}, waited: map[string]string{}}
}

// saw records a listing made at now.
func (t *teardown) saw(items []unstructured.Unstructured, now time.Time) {
	listed := map[string]bool{}
	for i := range items {
		u := &items[i]
		k := u.GetKind() + "/" + u.GetName()
		listed[k] = true
		t.env[k] = u.GetLabels()[contract.LabelEnvironment]
		if _, _, msg := Condition(u, "Ready"); strings.Contains(msg, "to be deleted first") {
			t.waited[k] = msg
		}
	}
	for k := range t.present {
		if !listed[k] {
			if _, ok := t.gone[k]; !ok {
				t.gone[k] = now
			}
		}
	}
	t.present = listed
}

// check fails if, in an environment, a resource went before the one it
// is deleted after was gone, and if any resource seen is still there.
func (t *teardown) check() error {
	byEnv := map[string]map[string]time.Time{}
	for k, at := range t.gone {
		kind, _, _ := strings.Cut(k, "/")
		if e := t.env[k]; e != "" {
			if byEnv[e] == nil {
				byEnv[e] = map[string]time.Time{}
			}
			byEnv[e][kind] = at
		}
	}
	var bad []string
	for e, kinds := range byEnv {
		for i := 1; i < len(teardownOrder); i++ {
			before, after := teardownOrder[i-1], teardownOrder[i]
			b, okB := kinds[before]
			a, okA := kinds[after]
			if okB && okA && a.Before(b) {
				bad = append(bad, fmt.Sprintf("%s's %s went %s before its %s", e, after, b.Sub(a).Round(100*time.Millisecond), before))
			}
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("teardown out of order: %s", strings.Join(bad, "; "))
	}
	return nil
}

// String says when each resource went, by environment, and which were
// seen waiting.
func (t *teardown) String() string {
	var lines []string
	for k, at := range t.gone {
		lines = append(lines, fmt.Sprintf("%s %s at +%s", t.env[k], k, at.Sub(t.start).Round(100*time.Millisecond)))
	}
	sort.Strings(lines)
	waited := make([]string, 0, len(t.waited))
	for k := range t.waited {
		waited = append(waited, k)
	}
	sort.Strings(waited)
	return fmt.Sprintf("teardown order held: %s; seen waiting: %s", strings.Join(lines, ", "), strings.Join(waited, ", "))
}

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
	// keeps: resources whose management policies keep their external
	// objects (an orphaned environment's): their deletion touches no
	// backend, so they wait for nothing.
	keeps map[string]bool
}

func newTeardown() *teardown {
	return &teardown{start: time.Now(), present: map[string]bool{}, gone: map[string]time.Time{}, env: map[string]string{}, waited: map[string]string{}, keeps: map[string]bool{}}
}

// saw records a listing made at now.
func (t *teardown) saw(items []unstructured.Unstructured, now time.Time) {
	listed := map[string]bool{}
	for i := range items {
		u := &items[i]
		k := u.GetKind() + "/" + u.GetName()
		listed[k] = true
		t.env[k] = u.GetLabels()[contract.LabelEnvironment]
		t.keeps[k] = keepsExternal(u)
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

// check fails if, in an environment, a resource that deletes its
// external object went before the one it is deleted after was gone.
func (t *teardown) check() error {
	byEnv := map[string]map[string]string{} // environment, kind: resource
	for k := range t.gone {
		kind, _, _ := strings.Cut(k, "/")
		if e := t.env[k]; e != "" {
			if byEnv[e] == nil {
				byEnv[e] = map[string]string{}
			}
			byEnv[e][kind] = k
		}
	}
	var bad []string
	for e, kinds := range byEnv {
		for i := 1; i < len(teardownOrder); i++ {
			before, after := kinds[teardownOrder[i-1]], kinds[teardownOrder[i]]
			if before == "" || after == "" || t.keeps[after] {
				continue
			}
			if b, a := t.gone[before], t.gone[after]; a.Before(b) {
				bad = append(bad, fmt.Sprintf("%s's %s went %s before its %s", e, teardownOrder[i], b.Sub(a).Round(100*time.Millisecond), teardownOrder[i-1]))
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

// keepsExternal is true when u's management policies leave out Delete.
func keepsExternal(u *unstructured.Unstructured) bool {
	pols, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "managementPolicies")
	for _, p := range pols {
		if p == "*" || p == "Delete" {
			return false
		}
	}
	return len(pols) > 0
}

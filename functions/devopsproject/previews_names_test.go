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
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
)

// TestPreviewNamesFitAnyNumber: through a ClusterProviderConfig a
// preview's default namespace is <namespace>--<project>-pr-<number>. A
// project whose name fits pr-1 but not pr-12 used to compose nothing at
// all (Fatal, prod too) once pull request #12 was opened. The template is
// now held to the longest name, pr-999999, before any pull request, and
// a pull request numbered higher is not previewed.
func TestPreviewNamesFitAnyNumber(t *testing.T) {
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	named := func(n int) xrOpt {
		return func(x map[string]any) {
			x["metadata"].(map[string]any)["name"] = strings.Repeat("s", n)
			delete(x["spec"].(map[string]any), "providerConfigName")
		}
	}
	fatal := func(rsp *fnv1.RunFunctionResponse) string {
		for _, r := range rsp.GetResults() {
			if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
				return r.GetMessage()
			}
		}
		return ""
	}
	// Fits pr-1, not pr-999999: refused with no pull request open.
	long := 63 - len("team-shop--") - len("-pr-1")
	rsp := run(t, now, newRequest(t, xr(withPreviews(2), named(long)), previewObserved(forgeObserved(true, nil)), platform()))
	if msg := fatal(rsp); !strings.Contains(msg, "spec.previews.pullRequests.template (pr-<number>).namespace") {
		t.Errorf("a template whose pr-999999 does not fit: %q, want it refused", msg)
	}
	// Fits pr-999999: #12 and #999999 previewed, #1000000 not.
	fits := 63 - len("team-shop--") - len("-pr-999999")
	forge := forgeObserved(true, []pull{{12, shaA, "a", false}, {999999, shaA, "b", false}, {1000000, shaA, "c", false}})
	rsp = run(t, now, newRequest(t, xr(withPreviews(3), named(fits)), previewObserved(forge), platform()))
	if msg := fatal(rsp); msg != "" {
		t.Fatal(msg)
	}
	for n, want := range map[int]bool{12: true, 999999: true, 1000000: false} {
		if got := slices.Contains(names(rsp), "pr-"+strconv.Itoa(n)+"-pipeline"); got != want {
			t.Errorf("pull request #%d previewed: %v, want %v", n, got, want)
		}
	}
}

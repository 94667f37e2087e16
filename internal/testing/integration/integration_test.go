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

package integration

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that records how a test ended instead of
// ending it.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Fatalf(f string, args ...any) { r.fatal = fmt.Sprintf(f, args...) }
func (r *recorder) Skipf(f string, args ...any)  { r.skip = fmt.Sprintf(f, args...) }

func TestTool(t *testing.T) {
	cases := map[string]struct {
		reason    string
		ci        string
		name      string
		wantPath  bool
		wantFatal string
		wantSkip  string
	}{
		"Installed":      {reason: "An installed program is found.", name: "sh", wantPath: true},
		"MissingInCI":    {reason: "CI must not pass by running nothing.", ci: "true", name: "no-such-tool-here", wantFatal: "no-such-tool-here is not installed (Debian package pkg"},
		"MissingLocally": {reason: "Elsewhere the test skips, saying what to install.", name: "no-such-tool-here", wantSkip: "skipped outside CI"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			r := &recorder{TB: t}
			got := Tool(r, tc.name, "pkg")
			if (got != "") != tc.wantPath {
				t.Errorf("%s\nTool() = %q", tc.reason, got)
			}
			if !strings.Contains(r.fatal, tc.wantFatal) || (tc.wantFatal == "") != (r.fatal == "") {
				t.Errorf("%s\nfatal: want %q, got %q", tc.reason, tc.wantFatal, r.fatal)
			}
			if !strings.Contains(r.skip, tc.wantSkip) || (tc.wantSkip == "") != (r.skip == "") {
				t.Errorf("%s\nskip: want %q, got %q", tc.reason, tc.wantSkip, r.skip)
			}
		})
	}
}

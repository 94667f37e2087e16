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

package declarative_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins/declarative"
)

// ran is what Jenkins does to a job's config.xml when its Declarative
// script runs: it saves the file in XML 1.1 and writes the properties the
// script's options and blocks declare. props are those properties.
func ran(t *testing.T, config []byte, props string) []byte {
	t.Helper()
	s := strings.Replace(string(config), "<?xml version='1.0' encoding='UTF-8'?>", "<?xml version='1.1' encoding='UTF-8'?>", 1)
	switch {
	case strings.Contains(s, "<properties>"):
		s = strings.Replace(s, "<properties>", "<properties>"+props, 1)
	case strings.Contains(s, "<properties></properties>"):
		s = strings.Replace(s, "<properties></properties>", "<properties>"+props+"</properties>", 1)
	default:
		t.Fatalf("no <properties> in\n%s", s)
	}
	return []byte(s)
}

// optionProps are what options { buildDiscarder(...);
// disableConcurrentBuilds() } write.
const optionProps = `<jenkins.model.BuildDiscarderProperty><strategy class="hudson.tasks.LogRotator"><daysToKeep>-1</daysToKeep><numToKeep>10</numToKeep><artifactDaysToKeep>-1</artifactDaysToKeep><artifactNumToKeep>-1</artifactNumToKeep></strategy></jenkins.model.BuildDiscarderProperty><org.jenkinsci.plugins.workflow.job.properties.DisableConcurrentBuildsJobProperty/>`

// triggerProps are what a script's triggers { cron('H 3 * * *') } would
// write over the job's own triggers.
const triggerProps = `<org.jenkinsci.plugins.workflow.job.properties.PipelineTriggersJobProperty><triggers><hudson.triggers.TimerTrigger><spec>H 3 * * *</spec></hudson.triggers.TimerTrigger></triggers></org.jenkinsci.plugins.workflow.job.properties.PipelineTriggersJobProperty>`

// TestGeneratedJobIsStable: a job written from a declared build, after
// Jenkins ran its script and rewrote config.xml, still compares equal to
// what the resource asks for, and correcting drift elsewhere keeps what
// the run added. Had the script declared triggers {} (or parameters {}),
// Jenkins's rewrite would differ from the job's own and every reconcile
// would write it back: the last case shows that difference, which is why
// the generator leaves those blocks out.
func TestGeneratedJobIsStable(t *testing.T) {
	script, err := declarative.Script(full())
	if err != nil {
		t.Fatal(err)
	}
	want := jenkins.Pipeline{
		Owner: "team/shop", Description: "Builds the shop", Script: script, Cron: "H 2 * * *",
		Parameters: []jenkins.Parameter{{Name: "REVISION", Type: jenkins.ParamString, Description: "Revision to build"}},
	}
	rendered, err := jenkins.Render(want)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		reason    string
		props     string
		wantDrift bool
	}{
		"OptionsRan": {reason: "The properties the script's options write are not managed fields: no drift.", props: optionProps},
		"TriggersInScript": {
			reason: "A triggers {} block in the script would replace the job's cron: drift on every reconcile.",
			props:  triggerProps, wantDrift: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			observed := ran(t, rendered, tc.props)
			if tc.wantDrift {
				// The job's own trigger property is replaced by the run's.
				observed = []byte(regexp.MustCompile(`(?s)<org\.jenkinsci\.plugins\.workflow\.job\.properties\.PipelineTriggersJobProperty>.*?</org\.jenkinsci\.plugins\.workflow\.job\.properties\.PipelineTriggersJobProperty>\s*`).ReplaceAllString(string(observed), ""))
				observed = ran(t, observed, tc.props)
			}
			got, err := jenkins.Parse(observed)
			if err != nil {
				t.Fatal(err)
			}
			diff := cmp.Diff(jenkins.Normalize(want), jenkins.Normalize(*got), cmpopts.EquateEmpty())
			if (diff != "") != tc.wantDrift {
				t.Fatalf("%s\nwant drift %v, got diff:\n%s", tc.reason, tc.wantDrift, diff)
			}
			if tc.wantDrift {
				return
			}
			merged, err := jenkins.Merge(observed, want)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{"jenkins.model.BuildDiscarderProperty", "DisableConcurrentBuildsJobProperty"} {
				if !strings.Contains(string(merged), p) {
					t.Errorf("%s\nMerge dropped %s, which the script's run wrote:\n%s", tc.reason, p, merged)
				}
			}
		})
	}
}

// TestScriptsDeclareNoParametersOrTriggers: no generated script writes
// the job properties the provider manages from spec.forProvider.
func TestScriptsDeclareNoParametersOrTriggers(t *testing.T) {
	for name, b := range scripts() {
		s, err := declarative.Script(b)
		if err != nil {
			t.Fatalf("Script(%s): %v", name, err)
		}
		for _, block := range []string{"\n  parameters {", "\n  triggers {", "\n  properties("} {
			if strings.Contains(s, block) {
				t.Errorf("the script of %s declares %q, which would fight spec.forProvider:\n%s", name, strings.TrimSpace(block), s)
			}
		}
	}
}

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
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins/declarative"
	"github.com/freeleaps/provider-devops/internal/testing/integration"
)

// jjbMarker is what Jenkins Job Builder appends to every description.
const jjbMarker = "<!-- Managed by Jenkins Job Builder -->"

// jjbJob is a pipeline job in Jenkins Job Builder's YAML: the same job as
// p, written by a tool nobody here wrote.
func jjbJob(name string, p jenkins.Pipeline) map[string]any {
	params := []any{}
	for _, prm := range p.Parameters {
		switch prm.Type {
		case jenkins.ParamChoice:
			params = append(params, map[string]any{"choice": map[string]any{"name": prm.Name, "description": prm.Description, "choices": prm.Choices}})
		case jenkins.ParamBoolean:
			params = append(params, map[string]any{"bool": map[string]any{"name": prm.Name, "description": prm.Description, "default": prm.Default == "true"}})
		case jenkins.ParamText:
			params = append(params, map[string]any{"text": map[string]any{"name": prm.Name, "description": prm.Description, "default": prm.Default}})
		default:
			params = append(params, map[string]any{"string": map[string]any{"name": prm.Name, "description": prm.Description, "default": prm.Default}})
		}
	}
	triggers := []any{}
	if p.Cron != "" {
		triggers = append(triggers, map[string]any{"timed": p.Cron})
	}
	if p.PollSCM != "" {
		triggers = append(triggers, map[string]any{"pollscm": map[string]any{"cron": p.PollSCM, "ignore-post-commit-hooks": false}})
	}
	if len(p.Upstream) > 0 {
		jobs := []string{}
		for _, u := range p.Upstream {
			jobs = append(jobs, "/"+u)
		}
		triggers = append(triggers, map[string]any{"reverse": map[string]any{"jobs": jobs, "result": "success"}})
	}
	return map[string]any{"job": map[string]any{
		"name": name, "project-type": "pipeline", "sandbox": true, "dsl": p.Script,
		"description": p.Description + "\n\n" + jenkins.OwnerLine(p.Owner),
		"disabled":    p.Disabled, "parameters": params, "triggers": triggers,
	}}
}

// definitionOf is the pipeline definition's class and sandbox flag, which
// jenkins.Parse does not report.
func definitionOf(t *testing.T, config []byte) (string, string) {
	t.Helper()
	var doc struct {
		Definition struct {
			Class   string `xml:"class,attr"`
			Sandbox string `xml:"sandbox"`
		} `xml:"definition"`
	}
	if err := xml.Unmarshal([]byte(strings.Replace(string(config), `encoding="utf-8"`, `encoding="UTF-8"`, 1)), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Definition.Class, doc.Definition.Sandbox
}

// TestConfigMatchesJenkinsJobBuilder holds the config.xml the provider
// writes for a declared build to what Debian's jenkins-jobs (Jenkins Job
// Builder) writes for the same pipeline job: after both are read back and
// normalised, every field the provider manages must agree, and both must
// define an inline script run in the sandbox.
func TestConfigMatchesJenkinsJobBuilder(t *testing.T) {
	bin := integration.Tool(t, "jenkins-jobs", "jenkins-job-builder")
	jobs := map[string]jenkins.Pipeline{}
	for name, b := range scripts() {
		s, err := declarative.Script(b)
		if err != nil {
			t.Fatalf("Script(%s): %v", name, err)
		}
		jobs[name] = jenkins.Pipeline{Owner: "team/" + name, Description: "Builds " + name, Script: s}
	}
	full := jobs["Full"]
	full.Cron, full.PollSCM, full.Disabled = "H 2 * * *", "H/5 * * * *", true
	full.Upstream = []string{"team/lib", "team/base-image"}
	full.Parameters = []jenkins.Parameter{
		{Name: "REVISION", Type: jenkins.ParamString, Default: "main", Description: "Revision to build"},
		{Name: "NOTES", Type: jenkins.ParamText, Default: "a\nb"},
		{Name: "DRY_RUN", Type: jenkins.ParamBoolean, Default: "true"},
		{Name: "TARGET", Type: jenkins.ParamChoice, Choices: []string{"dev", "prod"}},
	}
	jobs["Full"] = full

	names := make([]string, 0, len(jobs))
	var yaml []any
	for name, p := range jobs {
		names = append(names, name)
		yaml = append(yaml, jjbJob(name, p))
	}
	sort.Strings(names)
	dir := t.TempDir()
	// YAML reads JSON, whose strings escape everything.
	text, err := json.Marshal(yaml)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "jobs.yaml"), text, 0o600); err != nil {
		t.Fatal(err)
	}
	ini := filepath.Join(dir, "jjb.ini")
	if err := os.WriteFile(ini, []byte("[job_builder]\nallow_empty_variables = True\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	cmd := exec.Command(bin, "--conf", ini, "test", "--config-xml", "-o", out, filepath.Join(dir, "jobs.yaml"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("jenkins-jobs test: %v\n%s", err, b)
	}

	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			theirs, err := os.ReadFile(filepath.Join(out, name, "config.xml"))
			if err != nil {
				t.Fatal(err)
			}
			ours, err := jenkins.Render(jobs[name])
			if err != nil {
				t.Fatal(err)
			}
			theirs = []byte(strings.Replace(string(theirs), xmlEscape(jjbMarker), "", 1))
			want, err := jenkins.Parse(theirs)
			if err != nil {
				t.Fatalf("cannot read what jenkins-jobs wrote: %v\n%s", err, theirs)
			}
			got, err := jenkins.Parse(ours)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(jenkins.Normalize(*want), jenkins.Normalize(*got), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("the managed fields differ from jenkins-jobs': -jenkins-jobs +provider:\n%s", diff)
			}
			wc, ws := definitionOf(t, theirs)
			gc, gs := definitionOf(t, ours)
			if diff := cmp.Diff([]string{wc, ws}, []string{gc, gs}); diff != "" {
				t.Errorf("the definition's class or sandbox differ: -jenkins-jobs +provider:\n%s", diff)
			}
		})
	}
}

func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func scmPipeline() Pipeline {
	return Pipeline{
		Owner:       "team-shop/shop-alpha",
		Description: "Builds shop",
		SCM:         &SCM{URL: "https://git.example.com/team/shop.git", Branch: "main", ScriptPath: "ci/Jenkinsfile", CredentialsID: "git-ro", Lightweight: true},
		Parameters: []Parameter{
			{Name: "ENV", Type: ParamChoice, Choices: []string{"alpha", "prod"}, Description: "target"},
			{Name: "DRY_RUN", Type: ParamBoolean, Default: "true"},
			{Name: "TAG", Default: "latest"},
			{Name: "NOTES", Type: ParamText, Default: "line1\nline2"},
		},
		Cron:    "H 2 * * *",
		PollSCM: "H/5 * * * *",
	}
}

func TestRenderParseRoundTrip(t *testing.T) {
	cases := map[string]struct {
		reason string
		in     Pipeline
	}{
		"SCM": {
			reason: "every managed field of an SCM pipeline survives render and parse",
			in:     scmPipeline(),
		},
		"InlineScript": {
			reason: "an inline script survives byte for byte, Groovy interpolation included",
			in:     Pipeline{Script: "pipeline { agent any; stages { stage('x') { steps { echo \"${env.X}\" } } } }", Disabled: true},
		},
		"Hostile": {
			reason: "values full of XML syntax stay values",
			in: Pipeline{
				Description: `</description><disabled>true</disabled><![CDATA[ ]]> & "quoted" 'single' <!-- c -->`,
				Script:      "]]><script>evil</script>\x00\x1b",
				Parameters:  []Parameter{{Name: "P", Default: "</defaultValue></hudson.model.StringParameterDefinition><x>", Description: "&amp;"}},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := Render(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Parse(out)
			if err != nil {
				t.Fatalf("%s: Parse: %v\n%s", tc.reason, err, out)
			}
			if diff := cmp.Diff(Normalize(tc.in), Normalize(*got)); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// jenkinsRewritten is config.xml as Jenkins saves it after a POST of ours:
// XML 1.1, plugin versions, extra defaults, other element order and a
// property another plugin added.
const jenkinsRewritten = `<?xml version='1.1' encoding='UTF-8'?>
<flow-definition plugin="workflow-job@1436.vfa_244484591f">
  <actions>
    <org.jenkinsci.plugins.pipeline.modeldefinition.actions.DeclarativeJobAction plugin="pipeline-model-definition@2.2214.vb_b_34b_2ea_9b_83"/>
  </actions>
  <description>Builds shop

(Managed by Crossplane provider-devops as JenkinsPipeline team-shop/shop-alpha; changes made in Jenkins are overwritten.)</description>
  <keepDependencies>false</keepDependencies>
  <properties>
    <org.jenkinsci.plugins.workflow.job.properties.PipelineTriggersJobProperty>
      <triggers>
        <hudson.triggers.SCMTrigger>
          <spec>H/5 * * * *</spec>
          <ignorePostCommitHooks>false</ignorePostCommitHooks>
        </hudson.triggers.SCMTrigger>
        <hudson.triggers.TimerTrigger>
          <spec>H 2 * * *</spec>
        </hudson.triggers.TimerTrigger>
      </triggers>
    </org.jenkinsci.plugins.workflow.job.properties.PipelineTriggersJobProperty>
    <jenkins.model.BuildDiscarderProperty>
      <strategy class="hudson.tasks.LogRotator"><daysToKeep>-1</daysToKeep></strategy>
    </jenkins.model.BuildDiscarderProperty>
    <hudson.model.ParametersDefinitionProperty>
      <parameterDefinitions>
        <hudson.model.ChoiceParameterDefinition>
          <name>ENV</name>
          <description>target</description>
          <choices>
            <string>alpha</string>
            <string>prod</string>
          </choices>
        </hudson.model.ChoiceParameterDefinition>
        <hudson.model.BooleanParameterDefinition>
          <name>DRY_RUN</name>
          <defaultValue>true</defaultValue>
        </hudson.model.BooleanParameterDefinition>
        <hudson.model.StringParameterDefinition>
          <name>TAG</name>
          <defaultValue>latest</defaultValue>
          <trim>false</trim>
        </hudson.model.StringParameterDefinition>
        <hudson.model.TextParameterDefinition>
          <name>NOTES</name>
          <defaultValue>line1
line2</defaultValue>
          <trim>false</trim>
        </hudson.model.TextParameterDefinition>
      </parameterDefinitions>
    </hudson.model.ParametersDefinitionProperty>
  </properties>
  <definition class="org.jenkinsci.plugins.workflow.cps.CpsScmFlowDefinition" plugin="workflow-cps@3969.vdc9d3a_efcc6a_">
    <scm class="hudson.plugins.git.GitSCM" plugin="git@5.2.2">
      <configVersion>2</configVersion>
      <userRemoteConfigs>
        <hudson.plugins.git.UserRemoteConfig>
          <url>https://git.example.com/team/shop.git</url>
          <credentialsId>git-ro</credentialsId>
        </hudson.plugins.git.UserRemoteConfig>
      </userRemoteConfigs>
      <branches>
        <hudson.plugins.git.BranchSpec>
          <name>refs/heads/main</name>
        </hudson.plugins.git.BranchSpec>
      </branches>
      <doGenerateSubmoduleConfigurations>false</doGenerateSubmoduleConfigurations>
      <submoduleCfg class="empty-list"/>
      <extensions/>
    </scm>
    <scriptPath>ci/Jenkinsfile</scriptPath>
    <lightweight>true</lightweight>
  </definition>
  <triggers/>
  <disabled>false</disabled>
</flow-definition>
`

func TestParseJenkinsRewrite(t *testing.T) {
	got, err := Parse([]byte(jenkinsRewritten))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Normalize(scmPipeline()), Normalize(*got)); diff != "" {
		t.Errorf("a file Jenkins rewrote must compare equal to what we sent: -want +got:\n%s", diff)
	}
}

func TestNormalizeDetectsDrift(t *testing.T) {
	cases := map[string]struct {
		reason string
		change func(*Pipeline)
	}{
		"URL":         {"a changed repository", func(p *Pipeline) { p.SCM.URL = "https://evil.example.com/x.git" }},
		"Branch":      {"a changed branch", func(p *Pipeline) { p.SCM.Branch = "dev" }},
		"Lightweight": {"heavyweight checkout", func(p *Pipeline) { p.SCM.Lightweight = false }},
		"Disabled":    {"a disabled job", func(p *Pipeline) { p.Disabled = true }},
		"Cron":        {"a changed schedule", func(p *Pipeline) { p.Cron = "H 3 * * *" }},
		"ParamOrder":  {"reordered parameters change the build form", func(p *Pipeline) { p.Parameters[0], p.Parameters[1] = p.Parameters[1], p.Parameters[0] }},
		"Choice":      {"a removed choice", func(p *Pipeline) { p.Parameters[0].Choices = []string{"alpha"} }},
		"ToScript":    {"an SCM job turned inline", func(p *Pipeline) { p.SCM = nil; p.Script = "node {}" }},
		"Owner":       {"another owner", func(p *Pipeline) { p.Owner = "other/job" }},
		"NoOwner":     {"a job nobody claims", func(p *Pipeline) { p.Owner = "" }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			want := scmPipeline()
			got := scmPipeline()
			got.Parameters = append([]Parameter(nil), want.Parameters...)
			s := *want.SCM
			got.SCM = &s
			tc.change(&got)
			if cmp.Equal(Normalize(want), Normalize(got)) {
				t.Errorf("%s: must be seen as drift", tc.reason)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := map[string]struct {
		reason string
		xml    string
		want   string
	}{
		"Freestyle": {
			reason: "a freestyle job is not ours to manage",
			xml:    "<?xml version='1.1' encoding='UTF-8'?><project><description/></project>",
			want:   "flow-definition",
		},
		"OtherDefinition": {
			reason: "a pipeline from another definition type is reported, not overwritten silently",
			xml:    `<flow-definition><definition class="org.example.Other"/></flow-definition>`,
			want:   `"org.example.Other"`,
		},
		"Garbage": {
			reason: "an HTML error page is not a config",
			xml:    "<html><body>oops",
			want:   "cannot parse",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(tc.xml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: want error containing %q, got %v", tc.reason, tc.want, err)
			}
		})
	}
}

// FuzzRenderParse: whatever the values, the rendered file parses back to
// the same managed fields, so no value can change the job's structure.
func FuzzRenderParse(f *testing.F) {
	f.Add("desc", "node {}", "https://g/x.git", "main", "Jenkinsfile", "v", "c", false)
	f.Add("]]>", "<script>", "&amp;", "\"'", "${x}", "</name>", "<a/>", true)
	f.Add("\x00\r\n\t", "\xff\xfe", "", "*/x", "", "\r", "\u2028", true)
	f.Fuzz(func(t *testing.T, desc, script, url, branch, path, def, choice string, useSCM bool) {
		in := Pipeline{
			Owner:       "ns/name",
			Description: desc,
			Parameters: []Parameter{
				{Name: "A", Default: def, Description: desc},
				{Name: "B", Type: ParamChoice, Choices: []string{choice, def}},
				{Name: "C", Type: ParamText, Default: script},
			},
			Cron: "H * * * *",
		}
		if useSCM {
			in.SCM = &SCM{URL: url, Branch: branch, ScriptPath: path, CredentialsID: choice}
		} else {
			in.Script = script
		}
		out, err := Render(in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse(out)
		if err != nil {
			t.Fatalf("rendered config does not parse: %v\n%s", err, out)
		}
		if diff := cmp.Diff(Normalize(in), Normalize(*got)); diff != "" {
			t.Fatalf("a value changed the job's structure: -want +got:\n%s\n%s", diff, out)
		}
	})
}

// jobOf reads a queue item's task URL back into the job's full path, only
// below this client's Jenkins.
func TestJobOf(t *testing.T) {
	c := &Client{base: "https://ci.example.com/jenkins/"}
	for url, want := range map[string]string{
		"https://ci.example.com/jenkins/job/teams/job/a/job/shop/": "teams/a/shop",
		"https://ci.example.com/jenkins/job/alpha":                 "alpha",
		"https://ci.example.com/other/job/alpha/":                  "",
		"https://ci.example.com/jenkins/job/a/view/x/":             "",
		"https://ci.example.com/jenkins/":                          "",
		"https://ci.example.com/jenkins/job//":                     "",
	} {
		if got := c.jobOf(url); got != want {
			t.Errorf("jobOf(%q) = %q, want %q", url, got, want)
		}
	}
}

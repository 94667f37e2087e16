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
	"github.com/google/go-cmp/cmp/cmpopts"
)

// realConfig is a Pipeline job's config.xml as Jenkins 2.4xx writes it
// after a person configured it in the UI: XML 1.1, plugin versions, matrix
// authorization, a build discarder, disableConcurrentBuilds, a GitHub push
// trigger beside the timer, and the provider's own fields.
const realConfig = `<?xml version='1.1' encoding='UTF-8'?>
<flow-definition plugin="workflow-job@1400.v7fd111b_ec82f">
  <actions>
    <org.jenkinsci.plugins.pipeline.modeldefinition.actions.DeclarativeJobAction plugin="pipeline-model-definition@2.2214.vb_b_34b_2ea_9b_83"/>
  </actions>
  <description>Builds shop.
(Managed by Crossplane provider-devops as JenkinsPipeline team/shop; edit the resource, not this job.)</description>
  <keepDependencies>false</keepDependencies>
  <properties>
    <hudson.security.AuthorizationMatrixProperty>
      <inheritanceStrategy class="org.jenkinsci.plugins.matrixauth.inheritance.InheritParentStrategy"/>
      <permission>USER:hudson.model.Item.Build:alice</permission>
      <permission>GROUP:hudson.model.Item.Read:shop-team</permission>
    </hudson.security.AuthorizationMatrixProperty>
    <jenkins.model.BuildDiscarderProperty>
      <strategy class="hudson.tasks.LogRotator">
        <daysToKeep>-1</daysToKeep>
        <numToKeep>10</numToKeep>
        <artifactDaysToKeep>-1</artifactDaysToKeep>
        <artifactNumToKeep>-1</artifactNumToKeep>
      </strategy>
    </jenkins.model.BuildDiscarderProperty>
    <org.jenkinsci.plugins.workflow.job.properties.DisableConcurrentBuildsJobProperty>
      <abortPrevious>false</abortPrevious>
    </org.jenkinsci.plugins.workflow.job.properties.DisableConcurrentBuildsJobProperty>
    <hudson.model.ParametersDefinitionProperty>
      <parameterDefinitions>
        <hudson.model.StringParameterDefinition>
          <name>REVISION</name>
          <defaultValue></defaultValue>
          <trim>false</trim>
        </hudson.model.StringParameterDefinition>
      </parameterDefinitions>
    </hudson.model.ParametersDefinitionProperty>
    <org.jenkinsci.plugins.workflow.job.properties.PipelineTriggersJobProperty>
      <triggers>
        <com.cloudbees.jenkins.GitHubPushTrigger plugin="github@1.40.0">
          <spec></spec>
        </com.cloudbees.jenkins.GitHubPushTrigger>
        <hudson.triggers.TimerTrigger>
          <spec>H 2 * * *</spec>
        </hudson.triggers.TimerTrigger>
      </triggers>
    </org.jenkinsci.plugins.workflow.job.properties.PipelineTriggersJobProperty>
  </properties>
  <definition class="org.jenkinsci.plugins.workflow.cps.CpsScmFlowDefinition" plugin="workflow-cps@4046.v90b_1b_9edec67">
    <scm class="hudson.plugins.git.GitSCM" plugin="git@5.7.0">
      <configVersion>2</configVersion>
      <userRemoteConfigs>
        <hudson.plugins.git.UserRemoteConfig>
          <url>https://evil.example.com/shop.git</url>
          <credentialsId>git-readonly</credentialsId>
        </hudson.plugins.git.UserRemoteConfig>
      </userRemoteConfigs>
      <branches>
        <hudson.plugins.git.BranchSpec>
          <name>*/main</name>
        </hudson.plugins.git.BranchSpec>
      </branches>
      <doGenerateSubmoduleConfigurations>false</doGenerateSubmoduleConfigurations>
      <submoduleCfg class="empty-list"/>
      <extensions/>
    </scm>
    <scriptPath>Jenkinsfile</scriptPath>
    <lightweight>true</lightweight>
  </definition>
  <triggers/>
  <disabled>true</disabled>
</flow-definition>`

// kept are what a person configured in Jenkins that the resource does not
// manage: every one must survive a drift correction.
var kept = []string{
	"<permission>USER:hudson.model.Item.Build:alice</permission>",
	"<permission>GROUP:hudson.model.Item.Read:shop-team</permission>",
	`<inheritanceStrategy class="org.jenkinsci.plugins.matrixauth.inheritance.InheritParentStrategy">`,
	"<numToKeep>10</numToKeep>",
	"<org.jenkinsci.plugins.workflow.job.properties.DisableConcurrentBuildsJobProperty>",
	`<com.cloudbees.jenkins.GitHubPushTrigger plugin="github@1.40.0">`,
	`<org.jenkinsci.plugins.pipeline.modeldefinition.actions.DeclarativeJobAction plugin="pipeline-model-definition@2.2214.vb_b_34b_2ea_9b_83">`,
}

func TestMerge(t *testing.T) {
	base := Pipeline{
		Owner: "team/shop", Description: "Builds shop.",
		SCM:        &SCM{URL: "https://git.example.com/team/shop.git", Branch: "main", ScriptPath: "Jenkinsfile", CredentialsID: "git-readonly", Lightweight: true},
		Parameters: []Parameter{{Name: "REVISION", Type: ParamString}, {Name: "ENVIRONMENT", Type: ParamString, Default: "prod"}},
		Cron:       "H 4 * * *",
	}
	// withScriptParameter is realConfig after a run of a Jenkinsfile
	// declaring parameters { booleanParam(name: 'FOO') } before REVISION.
	withScriptParameter := strings.Replace(realConfig, "<parameterDefinitions>",
		"<parameterDefinitions>\n        <hudson.model.BooleanParameterDefinition>\n          <name>FOO</name>\n          <defaultValue>true</defaultValue>\n        </hudson.model.BooleanParameterDefinition>", 1)
	cases := map[string]struct {
		reason  string
		config  string
		p       func(Pipeline) Pipeline
		present []string
		absent  []string
	}{
		"SharedParametersByName": {
			reason:  "With a Jenkinsfile's parameters, the declared ones are written by name and the script's own stay where Jenkins put them.",
			config:  withScriptParameter,
			p:       func(p Pipeline) Pipeline { p.SharedParameters = true; return p },
			present: append([]string{"<name>FOO</name>", "<defaultValue>true</defaultValue>", "<name>REVISION</name>", "<name>ENVIRONMENT</name>"}, kept...),
		},
		"SharedParametersNoneDeclared": {
			reason:  "With a Jenkinsfile and no declared parameters, the parameters property is the script's: left whole.",
			config:  withScriptParameter,
			p:       func(p Pipeline) Pipeline { p.SharedParameters, p.Parameters = true, nil; return p },
			present: append([]string{"<name>FOO</name>", "<name>REVISION</name>", "hudson.model.ParametersDefinitionProperty"}, kept...),
			absent:  []string{"<name>ENVIRONMENT</name>"},
		},
		"OwnedParametersReplaced": {
			reason:  "With the provider's own script, the parameters property is replaced whole: a parameter nobody declares goes.",
			config:  withScriptParameter,
			p:       func(p Pipeline) Pipeline { return p },
			present: append([]string{"<name>REVISION</name>", "<name>ENVIRONMENT</name>"}, kept...),
			absent:  []string{"<name>FOO</name>"},
		},
		"DriftCorrected": {
			reason:  "The managed fields take the resource's values; the rest of the file stays.",
			p:       func(p Pipeline) Pipeline { return p },
			present: append([]string{"<spec>H 4 * * *</spec>", "https://git.example.com/team/shop.git", "<name>ENVIRONMENT</name>", "<disabled>false</disabled>"}, kept...),
			absent:  []string{"H 2 * * *", "evil.example.com"},
		},
		"TriggersRemoved": {
			reason:  "Without cron or pollSCM only the timer goes; the GitHub trigger and its property stay.",
			p:       func(p Pipeline) Pipeline { p.Cron = ""; return p },
			present: kept,
			absent:  []string{"hudson.triggers.TimerTrigger", "hudson.triggers.SCMTrigger"},
		},
		"ParametersRemoved": {
			reason:  "Without parameters the parameters property goes, nothing else.",
			p:       func(p Pipeline) Pipeline { p.Parameters = nil; return p },
			present: kept,
			absent:  []string{"hudson.model.ParametersDefinitionProperty"},
		},
		"UpstreamAdded": {
			reason:  "Upstream jobs become a reverse build trigger beside the others, written as absolute paths.",
			p:       func(p Pipeline) Pipeline { p.Upstream = []string{"team/lib", "team/base"}; return p },
			present: append([]string{"<upstreamProjects>/team/lib, /team/base</upstreamProjects>", "<name>SUCCESS</name>"}, kept...),
		},
		"InlineScript": {
			reason:  "Switching to an inline script replaces the definition whole.",
			p:       func(p Pipeline) Pipeline { p.SCM = nil; p.Script = "echo 'hi' && <done>"; return p },
			present: append([]string{"CpsFlowDefinition"}, kept...),
			absent:  []string{"CpsScmFlowDefinition", "userRemoteConfigs"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			want := tc.p(base)
			config := realConfig
			if tc.config != "" {
				config = tc.config
			}
			out, err := Merge([]byte(config), want)
			if err != nil {
				t.Fatalf("%s\nMerge(...): %v", tc.reason, err)
			}
			got, err := Parse(out)
			if err != nil {
				t.Fatalf("%s\nthe merged file does not parse: %v\n%s", tc.reason, err, out)
			}
			if diff := cmp.Diff(Normalize(want), Normalize(Managed(*got, want)), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nmanaged fields -want +got:\n%s", tc.reason, diff)
			}
			for _, s := range tc.present {
				if !strings.Contains(string(out), s) {
					t.Errorf("%s\nlost %q:\n%s", tc.reason, s, out)
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(string(out), s) {
					t.Errorf("%s\nstill has %q:\n%s", tc.reason, s, out)
				}
			}
		})
	}
}

func TestMergeRefusesOtherJobs(t *testing.T) {
	if _, err := Merge([]byte(`<?xml version='1.1' encoding='UTF-8'?><project><builders/></project>`), Pipeline{Script: "x"}); err == nil || !strings.Contains(err.Error(), "not a Pipeline job") {
		t.Errorf("a freestyle job's config must not be rewritten as a pipeline: %v", err)
	}
}

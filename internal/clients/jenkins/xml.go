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

import "encoding/xml"

// The structs below mirror the elements of a Pipeline job's config.xml that
// the provider writes or reads. Unknown elements Jenkins adds are ignored on
// parse; nothing here is compared as raw XML.

type flowDefinition struct {
	XMLName          xml.Name   `xml:"flow-definition"`
	Plugin           string     `xml:"plugin,attr,omitempty"`
	Actions          *struct{}  `xml:"actions"`
	Description      string     `xml:"description"`
	KeepDependencies bool       `xml:"keepDependencies"`
	Properties       properties `xml:"properties"`
	Definition       definition `xml:"definition"`
	Triggers         *struct{}  `xml:"triggers"`
	Disabled         bool       `xml:"disabled"`
}

type properties struct {
	Parameters *parametersProperty `xml:"hudson.model.ParametersDefinitionProperty"`
	Triggers   *triggersProperty   `xml:"org.jenkinsci.plugins.workflow.job.properties.PipelineTriggersJobProperty"`
}

type parametersProperty struct {
	Definitions struct {
		Items []paramDef `xml:",any"`
	} `xml:"parameterDefinitions"`
}

type paramDef struct {
	XMLName      xml.Name
	Name         string   `xml:"name"`
	Description  string   `xml:"description,omitempty"`
	DefaultValue *string  `xml:"defaultValue"`
	Choices      *choices `xml:"choices"`
	Trim         *bool    `xml:"trim"`
}

// choices is written the way Jenkins writes it (an Arrays$ArrayList over a
// string-array); older files list <string> elements directly.
type choices struct {
	Class string `xml:"class,attr,omitempty"`
	Array *struct {
		Class   string   `xml:"class,attr,omitempty"`
		Strings []string `xml:"string"`
	} `xml:"a"`
	Strings []string `xml:"string"`
}

type triggersProperty struct {
	Triggers struct {
		Timer   *trigger        `xml:"hudson.triggers.TimerTrigger"`
		SCM     *trigger        `xml:"hudson.triggers.SCMTrigger"`
		Reverse *reverseTrigger `xml:"jenkins.triggers.ReverseBuildTrigger"`
	} `xml:"triggers"`
}

// reverseTrigger starts a build when an upstream job's build ends with at
// least Threshold, written as Jenkins writes Result.SUCCESS.
type reverseTrigger struct {
	Spec             string     `xml:"spec"`
	UpstreamProjects string     `xml:"upstreamProjects"`
	Threshold        *threshold `xml:"threshold"`
}

type threshold struct {
	Name          string `xml:"name"`
	Ordinal       int    `xml:"ordinal"`
	Color         string `xml:"color"`
	CompleteBuild bool   `xml:"completeBuild"`
}

func successThreshold() *threshold {
	return &threshold{Name: "SUCCESS", Ordinal: 0, Color: "BLUE", CompleteBuild: true}
}

type trigger struct {
	Spec                  string `xml:"spec"`
	IgnorePostCommitHooks *bool  `xml:"ignorePostCommitHooks"`
}

type definition struct {
	Class       string  `xml:"class,attr"`
	Plugin      string  `xml:"plugin,attr,omitempty"`
	SCM         *gitSCM `xml:"scm"`
	ScriptPath  string  `xml:"scriptPath,omitempty"`
	Lightweight *bool   `xml:"lightweight"`
	Script      *string `xml:"script"`
	Sandbox     *bool   `xml:"sandbox"`
}

type gitSCM struct {
	Class         string             `xml:"class,attr"`
	Plugin        string             `xml:"plugin,attr,omitempty"`
	ConfigVersion string             `xml:"configVersion"`
	Remotes       []userRemoteConfig `xml:"userRemoteConfigs>hudson.plugins.git.UserRemoteConfig"`
	Branches      []branchSpecXML    `xml:"branches>hudson.plugins.git.BranchSpec"`
	DoGenerate    bool               `xml:"doGenerateSubmoduleConfigurations"`
	Submodule     *emptyList         `xml:"submoduleCfg"`
	Extensions    *struct{}          `xml:"extensions"`
}

type userRemoteConfig struct {
	URL           string `xml:"url"`
	CredentialsID string `xml:"credentialsId,omitempty"`
}

type branchSpecXML struct {
	Name string `xml:"name"`
}

type emptyList struct {
	Class string `xml:"class,attr"`
}

// Jenkins' element names for each parameter type.
var paramClasses = map[string]string{ //nolint:gochecknoglobals // read-only table
	ParamString:  "hudson.model.StringParameterDefinition",
	ParamText:    "hudson.model.TextParameterDefinition",
	ParamBoolean: "hudson.model.BooleanParameterDefinition",
	ParamChoice:  "hudson.model.ChoiceParameterDefinition",
}

func renderParameter(p Parameter) paramDef {
	t := p.Type
	if t == "" {
		t = ParamString
	}
	d := paramDef{XMLName: xml.Name{Local: paramClasses[t]}, Name: p.Name, Description: p.Description}
	switch t {
	case ParamChoice:
		d.Choices = &choices{Class: "java.util.Arrays$ArrayList", Array: &struct {
			Class   string   `xml:"class,attr,omitempty"`
			Strings []string `xml:"string"`
		}{Class: "string-array", Strings: p.Choices}}
	case ParamBoolean:
		d.DefaultValue = ptr("false")
		if p.Default == "true" {
			d.DefaultValue = ptr("true")
		}
	default:
		d.DefaultValue = ptr(p.Default)
		d.Trim = ptr(false)
	}
	return d
}

func parseParameter(d paramDef) Parameter {
	p := Parameter{Name: d.Name, Description: d.Description, Type: d.XMLName.Local}
	for t, class := range paramClasses {
		if class == d.XMLName.Local {
			p.Type = t
		}
	}
	if d.DefaultValue != nil {
		p.Default = *d.DefaultValue
	}
	if c := d.Choices; c != nil {
		p.Choices = c.Strings
		if c.Array != nil {
			p.Choices = c.Array.Strings
		}
	}
	return p
}

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
	"encoding/xml"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// Class names Jenkins uses in a Pipeline job's config.xml.
const (
	classSCMDefinition    = "org.jenkinsci.plugins.workflow.cps.CpsScmFlowDefinition"
	classScriptDefinition = "org.jenkinsci.plugins.workflow.cps.CpsFlowDefinition"
	classGitSCM           = "hudson.plugins.git.GitSCM"
	classFolder           = "com.cloudbees.hudson.plugins.folder.Folder"
)

// Parameter types as the provider's API names them.
const (
	ParamString  = "string"
	ParamText    = "text"
	ParamBoolean = "boolean"
	ParamChoice  = "choice"
)

// Pipeline is the part of a Pipeline job's config.xml the provider manages.
// Everything else Jenkins or its plugins add to the file is left out of the
// comparison, because Jenkins rewrites config.xml (plugin versions, element
// order, whitespace, extra defaults) every time it saves a job.
type Pipeline struct {
	// Owner names the resource that manages the job ("namespace/name"). It
	// is kept as the last line of the job's description, the one free-text
	// field core Jenkins stores, so people browsing Jenkins see it and a job
	// someone else made is never taken over.
	Owner       string
	Description string
	Disabled    bool
	// Exactly one of SCM and Script is set.
	SCM        *SCM
	Script     string
	Parameters []Parameter
	Cron       string
	PollSCM    string
	// Upstream are the full paths of jobs whose successful builds start
	// this one (ReverseBuildTrigger).
	Upstream []string
	// SharedParameters is set when the job's script is not the
	// provider's (a Jenkinsfile, an inline script): it may declare
	// parameters {} of its own, which Jenkins writes into the job at every
	// run. Then only Parameters are managed, by name and in any order;
	// the job's other parameters are the script's and left alone.
	// Otherwise the provider owns the whole parameters property.
	SharedParameters bool
}

// Managed is observed as far as want manages it: with SharedParameters,
// only the parameters want declares, in want's order (a parameter want
// declares and the job lacks stays missing), so a script's own parameters,
// and the order Jenkins stored them in, never show as drift.
func Managed(observed, want Pipeline) Pipeline {
	if !want.SharedParameters {
		return observed
	}
	byName := make(map[string]Parameter, len(observed.Parameters))
	for _, prm := range observed.Parameters {
		byName[prm.Name] = prm
	}
	observed.Parameters = nil
	for _, prm := range want.Parameters {
		if o, ok := byName[prm.Name]; ok {
			observed.Parameters = append(observed.Parameters, o)
		}
	}
	return observed
}

// SCM is a Jenkinsfile read from Git.
type SCM struct {
	URL           string
	Branch        string
	ScriptPath    string
	CredentialsID string
	Lightweight   bool
}

// Parameter is a build parameter definition.
type Parameter struct {
	Name        string
	Type        string
	Default     string
	Description string
	Choices     []string
}

// Render returns the job's config.xml. Every user value goes through the XML
// encoder as character data, so no value can add, close or change an element.
func Render(p Pipeline) ([]byte, error) {
	doc := flowDefinition{
		Plugin:      "workflow-job",
		Actions:     &struct{}{},
		Description: withOwner(p.Description, p.Owner),
		Disabled:    p.Disabled,
	}
	if len(p.Parameters) > 0 {
		pd := &parametersProperty{}
		for _, prm := range p.Parameters {
			pd.Definitions.Items = append(pd.Definitions.Items, renderParameter(prm))
		}
		doc.Properties.Parameters = pd
	}
	if p.Cron != "" || p.PollSCM != "" || len(p.Upstream) > 0 {
		tp := &triggersProperty{}
		if len(p.Upstream) > 0 {
			tp.Triggers.Reverse = &reverseTrigger{UpstreamProjects: upstreamProjects(p.Upstream), Threshold: successThreshold()}
		}
		if p.Cron != "" {
			tp.Triggers.Timer = &trigger{Spec: p.Cron}
		}
		if p.PollSCM != "" {
			tp.Triggers.SCM = &trigger{Spec: p.PollSCM, IgnorePostCommitHooks: ptr(false)}
		}
		doc.Properties.Triggers = tp
	}
	switch {
	case p.SCM != nil:
		doc.Definition = definition{
			Class: classSCMDefinition, Plugin: "workflow-cps",
			SCM: &gitSCM{
				Class: classGitSCM, Plugin: "git", ConfigVersion: "2",
				Remotes:   []userRemoteConfig{{URL: p.SCM.URL, CredentialsID: p.SCM.CredentialsID}},
				Branches:  []branchSpecXML{{Name: branchSpec(p.SCM.Branch)}},
				Submodule: &emptyList{Class: "empty-list"}, Extensions: &struct{}{},
			},
			ScriptPath:  p.SCM.ScriptPath,
			Lightweight: ptr(p.SCM.Lightweight),
		}
	default:
		doc.Definition = definition{Class: classScriptDefinition, Plugin: "workflow-cps", Script: ptr(p.Script), Sandbox: ptr(true)}
	}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, errors.Wrap(err, "cannot render the job's config.xml")
	}
	return append([]byte(xmlDecl), out...), nil
}

// Parse reads the managed fields back from a config.xml Jenkins serves.
func Parse(data []byte) (*Pipeline, error) {
	var doc flowDefinition
	// A job that is not a Pipeline fails here: "expected element type
	// <flow-definition> but have <project>".
	if err := xml.Unmarshal(asXML10(data), &doc); err != nil {
		return nil, errors.Wrap(err, "cannot parse the job's config.xml")
	}
	p := &Pipeline{Disabled: doc.Disabled}
	p.Description, p.Owner = splitOwner(doc.Description)
	if pd := doc.Properties.Parameters; pd != nil {
		for _, it := range pd.Definitions.Items {
			p.Parameters = append(p.Parameters, parseParameter(it))
		}
	}
	if tp := doc.Properties.Triggers; tp != nil {
		if tp.Triggers.Timer != nil {
			p.Cron = tp.Triggers.Timer.Spec
		}
		if tp.Triggers.SCM != nil {
			p.PollSCM = tp.Triggers.SCM.Spec
		}
		if tp.Triggers.Reverse != nil {
			p.Upstream = parseUpstream(tp.Triggers.Reverse.UpstreamProjects)
		}
	}
	switch def := doc.Definition; def.Class {
	case classSCMDefinition:
		s := &SCM{ScriptPath: def.ScriptPath, Lightweight: def.Lightweight != nil && *def.Lightweight}
		if def.SCM != nil {
			if len(def.SCM.Remotes) > 0 {
				s.URL, s.CredentialsID = def.SCM.Remotes[0].URL, def.SCM.Remotes[0].CredentialsID
			}
			if len(def.SCM.Branches) > 0 {
				s.Branch = def.SCM.Branches[0].Name
			}
		}
		p.SCM = s
	case classScriptDefinition:
		if def.Script != nil {
			p.Script = *def.Script
		}
	default:
		return nil, errors.Errorf("the job's pipeline definition is %q, which this provider does not manage", def.Class)
	}
	return p, nil
}

// Normalize puts a Pipeline in the form Jenkins would store it, so desired
// and observed compare equal exactly when Jenkins runs the same job.
func Normalize(p Pipeline) Pipeline {
	out := Pipeline{
		Owner:       p.Owner,
		Description: xmlText(p.Description),
		Disabled:    p.Disabled,
		Script:      xmlText(p.Script),
		Cron:        xmlText(p.Cron),
		PollSCM:     xmlText(p.PollSCM),
	}
	if p.SCM != nil {
		out.Script = ""
		out.SCM = &SCM{
			URL:           xmlText(p.SCM.URL),
			Branch:        branchName(xmlText(p.SCM.Branch)),
			ScriptPath:    xmlText(p.SCM.ScriptPath),
			CredentialsID: xmlText(p.SCM.CredentialsID),
			Lightweight:   p.SCM.Lightweight,
		}
	}
	for _, u := range p.Upstream {
		out.Upstream = append(out.Upstream, xmlText(strings.Trim(u, "/")))
	}
	for _, prm := range p.Parameters {
		n := Parameter{Name: xmlText(prm.Name), Type: prm.Type, Default: xmlText(prm.Default), Description: xmlText(prm.Description)}
		if n.Type == "" {
			n.Type = ParamString
		}
		switch n.Type {
		case ParamChoice:
			// Jenkins has no default for a choice: the first choice is it.
			n.Default = ""
			for _, c := range prm.Choices {
				n.Choices = append(n.Choices, xmlText(c))
			}
		case ParamBoolean:
			if n.Default != "true" {
				n.Default = "false"
			}
		}
		out.Parameters = append(out.Parameters, n)
	}
	return out
}

// upstreamProjects is a ReverseBuildTrigger's list: absolute paths (a
// leading "/", so Jenkins does not read them from the job's own folder),
// comma-separated.
func upstreamProjects(jobs []string) string {
	out := make([]string, 0, len(jobs))
	for _, j := range jobs {
		out = append(out, "/"+strings.Trim(j, "/"))
	}
	return strings.Join(out, ", ")
}

// parseUpstream reads a ReverseBuildTrigger's list back as full paths.
func parseUpstream(s string) []string {
	var out []string
	for _, j := range strings.Split(s, ",") {
		if j = strings.Trim(strings.TrimSpace(j), "/"); j != "" {
			out = append(out, j)
		}
	}
	return out
}

// branchSpec is the GitSCM branch specifier for a branch name: "*/main"
// builds main from any remote; a full ref or an explicit pattern is kept.
func branchSpec(b string) string {
	if strings.HasPrefix(b, "*/") || strings.HasPrefix(b, "refs/") {
		return b
	}
	return "*/" + b
}

// branchName strips the prefixes Jenkins' GitSCM accepts for one branch.
func branchName(b string) string {
	b = strings.TrimPrefix(b, "*/")
	return strings.TrimPrefix(b, "refs/heads/")
}

const xmlDecl = "<?xml version='1.0' encoding='UTF-8'?>\n"

// asXML10 rewrites the XML 1.1 declaration Jenkins writes: Go's decoder
// refuses any version but 1.0, and Jenkins' files use only the 1.0 subset
// for the values this provider writes.
func asXML10(data []byte) []byte {
	s := string(data)
	for _, q := range []string{"'", `"`} {
		decl := "<?xml version=" + q + "1.1" + q
		if strings.HasPrefix(strings.TrimLeft(s, " \t\r\n\ufeff"), decl) {
			i := strings.Index(s, decl) + len("<?xml version=") + 1
			return []byte(s[:i] + "1.0" + s[i+3:])
		}
	}
	return data
}

// xmlText is what a string becomes after an XML round trip: the encoder
// replaces characters XML cannot carry (NUL, most controls, bad UTF-8).
func xmlText(s string) string {
	ok := true
	for _, r := range s {
		if r == utf8.RuneError || !isXMLChar(r) {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r == utf8.RuneError || !isXMLChar(r) {
			r = '\uFFFD'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isXMLChar is the XML 1.0 Char production.
func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		(r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}

func ptr[T any](v T) *T { return &v }

// ownerLine is the description's last line on a job this provider manages.
var ownerLine = regexp.MustCompile(`(?:\n\n)?\(Managed by Crossplane provider-devops as JenkinsPipeline ([^\s;()]+); changes made in Jenkins are overwritten\.\)$`)

// OwnerLine is the description line that marks a job as managed by owner.
func OwnerLine(owner string) string {
	return "(Managed by Crossplane provider-devops as JenkinsPipeline " + owner + "; changes made in Jenkins are overwritten.)"
}

func withOwner(desc, owner string) string {
	if owner == "" {
		return desc
	}
	line := OwnerLine(owner)
	if desc == "" {
		return line
	}
	return desc + "\n\n" + line
}

func splitOwner(desc string) (string, string) {
	m := ownerLine.FindStringSubmatchIndex(desc)
	if m == nil {
		return desc, ""
	}
	return desc[:m[0]], desc[m[2]:m[3]]
}

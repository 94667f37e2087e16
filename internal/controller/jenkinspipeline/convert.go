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

package jenkinspipeline

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins/declarative"
)

const errBuild = "cannot write the pipeline script of spec.forProvider.source.build"

// JobPath is the job's full path in Jenkins, e.g. team/shop/alpha: the
// folder, then spec.forProvider.name or else the resource's name. It becomes
// the external name when the resource is first reconciled.
func JobPath(cr *v1alpha1.JenkinsPipeline) string {
	return cr.DefaultExternalName()
}

// Owner is how a job names the resource that manages it.
func Owner(cr *v1alpha1.JenkinsPipeline) string {
	return cr.GetNamespace() + "/" + cr.GetName()
}

// Desired is the pipeline cr asks for, with the CRD's defaults applied (the
// API server applies them too; this keeps unit tests and old objects right).
// A declared build becomes the job's inline script: drift correction
// compares it as it compares any inline script.
func Desired(cr *v1alpha1.JenkinsPipeline) (jenkins.Pipeline, error) {
	p := cr.Spec.ForProvider
	out := jenkins.Pipeline{Owner: Owner(cr), Description: p.Description, Disabled: p.Disabled}
	switch {
	case p.Source.SCM != nil:
		s := p.Source.SCM
		out.SCM = &jenkins.SCM{URL: s.URL, Branch: s.Branch, ScriptPath: s.ScriptPath, CredentialsID: s.CredentialsID, Lightweight: s.Lightweight == nil || *s.Lightweight}
		if out.SCM.Branch == "" {
			out.SCM.Branch = "main"
		}
		if out.SCM.ScriptPath == "" {
			out.SCM.ScriptPath = "Jenkinsfile"
		}
	case p.Source.Script != nil:
		out.Script = *p.Source.Script
	case p.Source.Build != nil:
		script, err := declarative.Script(*p.Source.Build)
		if err != nil {
			return jenkins.Pipeline{}, errors.Wrap(err, errBuild)
		}
		out.Script = script
	}
	// A script the provider did not write may declare parameters {} of
	// its own, which Jenkins writes into the job at every run: then only
	// the declared parameters are managed, by name (jenkins.Managed).
	out.SharedParameters = p.Source.SCM != nil || p.Source.Script != nil
	for _, prm := range p.Parameters {
		n := jenkins.Parameter{Name: prm.Name, Type: string(prm.Type), Description: prm.Description, Choices: prm.Choices}
		if prm.Default != nil {
			n.Default = *prm.Default
		}
		out.Parameters = append(out.Parameters, n)
	}
	if t := p.Triggers; t != nil {
		out.Cron, out.PollSCM, out.Upstream = t.Cron, t.PollSCM, t.Upstream
	}
	return out, nil
}

// Observation is the status a user acts on. What the controller itself
// recorded (handled build request, created folders) is carried over.
func Observation(job *jenkins.Job, prev v1alpha1.JenkinsPipelineObservation) v1alpha1.JenkinsPipelineObservation {
	out := v1alpha1.JenkinsPipelineObservation{
		URL:                   job.Status.URL,
		InQueue:               job.Status.InQueue,
		HandledBuildRequest:   prev.HandledBuildRequest,
		HandledBuildQueueItem: prev.HandledBuildQueueItem,
		HandledBuildNumber:    prev.HandledBuildNumber,
		UnconfirmedBuild:      prev.UnconfirmedBuild,
		CreatedFolders:        prev.CreatedFolders,
		BuildFileCommit:       prev.BuildFileCommit,
	}
	if b := job.Status.LastBuild; b != nil {
		out.LastBuild = &v1alpha1.BuildObservation{Number: b.Number, Result: b.Result, Building: b.Building, URL: b.URL}
		if !b.Timestamp.IsZero() {
			t := metav1.NewTime(b.Timestamp.Truncate(1e9))
			out.LastBuild.Timestamp = &t
		}
	}
	return out
}

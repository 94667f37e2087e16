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
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins/declarative"
)

func TestJobPath(t *testing.T) {
	cases := map[string]struct {
		reason, folder, name, want string
	}{
		"Root":         {reason: "no folder: the job is at the root", want: "res"},
		"Folder":       {reason: "folder then the resource's name", folder: "team/shop", want: "team/shop/res"},
		"ExplicitName": {reason: "spec name wins over the resource's name", folder: "team", name: "alpha", want: "team/alpha"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := &v1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "res", Namespace: "ns"}}
			cr.Spec.ForProvider.Folder, cr.Spec.ForProvider.Name = tc.folder, tc.name
			if got := JobPath(cr); got != tc.want {
				t.Errorf("%s: got %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}

func TestDesired(t *testing.T) {
	def := "x"
	script := "node {}"
	build := v1alpha1.PipelineBuild{Stages: []v1alpha1.BuildStage{{Name: "Test", Sh: []string{"make test"}}}}
	buildScript := declarative.Header + "\npipeline {\n  agent any\n  stages {\n    stage('Test') {\n      steps {\n        sh 'make test'\n      }\n    }\n  }\n}\n"
	cases := map[string]struct {
		reason  string
		params  v1alpha1.JenkinsPipelineParameters
		want    jenkins.Pipeline
		wantErr string
	}{
		"SCMDefaults": {
			reason: "branch, script path and lightweight default as the CRD defaults them; a Jenkinsfile shares the parameters property",
			params: v1alpha1.JenkinsPipelineParameters{Source: v1alpha1.PipelineSource{SCM: &v1alpha1.SCMSource{URL: "https://g/x.git"}}},
			want:   jenkins.Pipeline{Owner: "ns/res", SCM: &jenkins.SCM{URL: "https://g/x.git", Branch: "main", ScriptPath: "Jenkinsfile", Lightweight: true}, SharedParameters: true},
		},
		"InlineWithParamsAndTriggers": {
			reason: "script, parameters and triggers carry over; a user's script shares the parameters property",
			params: v1alpha1.JenkinsPipelineParameters{
				Source:     v1alpha1.PipelineSource{Script: &script},
				Parameters: []v1alpha1.Parameter{{Name: "A", Type: v1alpha1.ParameterString, Default: &def}},
				Triggers:   &v1alpha1.Triggers{Cron: "H 2 * * *"},
				Disabled:   true,
			},
			want: jenkins.Pipeline{Owner: "ns/res", Script: "node {}", Disabled: true, Parameters: []jenkins.Parameter{{Name: "A", Type: "string", Default: "x"}}, Cron: "H 2 * * *", SharedParameters: true},
		},
		"Build": {
			reason: "a declared build becomes the job's inline script; parameters and triggers stay on the job, the whole parameters property the provider's",
			params: v1alpha1.JenkinsPipelineParameters{
				Source:     v1alpha1.PipelineSource{Build: &build},
				Parameters: []v1alpha1.Parameter{{Name: "A", Type: v1alpha1.ParameterString, Default: &def}},
				Triggers:   &v1alpha1.Triggers{PollSCM: "H/5 * * * *", Upstream: []string{"team/lib"}},
			},
			want: jenkins.Pipeline{Owner: "ns/res", Script: buildScript, Parameters: []jenkins.Parameter{{Name: "A", Type: "string", Default: "x"}}, PollSCM: "H/5 * * * *", Upstream: []string{"team/lib"}},
		},
		"BadBuild": {
			reason:  "a build the generator refuses is an error naming the field, not an empty script",
			params:  v1alpha1.JenkinsPipelineParameters{Source: v1alpha1.PipelineSource{Build: &v1alpha1.PipelineBuild{}}},
			wantErr: errBuild,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := &v1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "res", Namespace: "ns"}}
			cr.Spec.ForProvider = tc.params
			got, err := Desired(cr)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("%s: want an error containing %q, got %v", tc.reason, tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestObservation(t *testing.T) {
	ts := time.Date(2026, 11, 22, 10, 0, 0, 123e6, time.UTC)
	prev := v1alpha1.JenkinsPipelineObservation{HandledBuildRequest: "r1", CreatedFolders: []string{"team"}, URL: "old"}
	got := Observation(&jenkins.Job{Status: jenkins.Status{URL: "u", InQueue: true, LastBuild: &jenkins.Build{Number: 3, Result: "FAILURE", URL: "u/3/", Timestamp: ts}}}, prev)
	want := v1alpha1.JenkinsPipelineObservation{
		URL: "u", InQueue: true, HandledBuildRequest: "r1", CreatedFolders: []string{"team"},
		LastBuild: &v1alpha1.BuildObservation{Number: 3, Result: "FAILURE", URL: "u/3/", Timestamp: &metav1.Time{Time: ts.Truncate(time.Second)}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the controller's own records carry over and the build is shown: -want +got:\n%s", diff)
	}
}

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
	"testing"

	"github.com/google/go-cmp/cmp"

	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
)

func TestDeclaredBuild(t *testing.T) {
	projectBuild := &jenkinsv1alpha1.PipelineBuild{Stages: []jenkinsv1alpha1.BuildStage{
		{Name: "Checkout", Checkout: &jenkinsv1alpha1.CheckoutStage{}},
		{Name: "Test", Sh: []string{"make test"}},
		{Name: "Image", Image: &jenkinsv1alpha1.ImageStage{Tag: "${BUILD_NUMBER}"}},
	}}
	envBuild := &jenkinsv1alpha1.PipelineBuild{Stages: []jenkinsv1alpha1.BuildStage{
		{Name: "Checkout", Checkout: &jenkinsv1alpha1.CheckoutStage{URL: "https://git.example.com/other.git", Branch: "dev"}},
		{Name: "Image", Image: &jenkinsv1alpha1.ImageStage{Registry: "mirror.example.com", Repository: "x/y"}},
	}}
	filled := func(host, repo string) *jenkinsv1alpha1.PipelineBuild {
		return &jenkinsv1alpha1.PipelineBuild{Stages: []jenkinsv1alpha1.BuildStage{
			{Name: "Checkout", Checkout: &jenkinsv1alpha1.CheckoutStage{URL: "https://git.example.com/team/shop.git", Branch: "release", CredentialsID: "git-shop"}},
			{Name: "Test", Sh: []string{"make test"}},
			{Name: "Image", Image: &jenkinsv1alpha1.ImageStage{Registry: host, Repository: repo, Tag: "${BUILD_NUMBER}"}},
		}}
	}
	cases := map[string]struct {
		reason      string
		build       *jenkinsv1alpha1.PipelineBuild
		env         Environment
		registryURL string
		kept        string
		want        *jenkinsv1alpha1.PipelineBuild
		wantWait    bool
	}{
		"Jenkinsfile": {reason: "No build: the job reads the Jenkinsfile.", env: Environment{Name: "prod"}},
		"FromProject": {
			reason: "The project's repository and the RegistryRepo's reported host and repository fill the stages.",
			build:  projectBuild, env: Environment{Name: "prod"}, registryURL: "harbor.example.com/team/shop",
			want: filled("harbor.example.com", "team/shop"),
		},
		"RegistryNotYetKnown": {
			reason: "A new job waits until the RegistryRepo reports its host.",
			build:  projectBuild, env: Environment{Name: "prod"},
			want: filled("", "team/shop"), wantWait: true,
		},
		"KeptHost": {
			reason: "An existing job keeps the host it pushes to while the RegistryRepo reports none.",
			build:  projectBuild, env: Environment{Name: "prod"}, kept: "harbor.example.com",
			want: filled("harbor.example.com", "team/shop"),
		},
		"EnvironmentOverride": {
			reason: "An environment's build replaces the project's whole; what it names is kept.",
			build:  projectBuild, env: Environment{Name: "dev", Pipeline: &EnvironmentPipeline{Build: envBuild}},
			want: envBuild,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := &ProjectSpec{
				Git:      GitSpec{URL: "https://git.example.com/team/shop.git", Branch: "release", JenkinsCredentialsID: "git-shop"},
				Registry: RegistrySpec{Namespace: "team", Name: "shop"},
				Pipeline: PipelineSpec{Build: tc.build},
			}
			p := &project{spec: spec, registryURL: tc.registryURL, keptRegistry: map[string]string{"prod": tc.kept}}
			if diff := cmp.Diff(tc.want, p.build(tc.env)); diff != "" {
				t.Errorf("%s\nbuild(): -want +got:\n%s", tc.reason, diff)
			}
			if got := p.waitsForRegistry(tc.env); got != tc.wantWait {
				t.Errorf("%s\nwaitsForRegistry(): want %v, got %v", tc.reason, tc.wantWait, got)
			}
			if tc.build != nil && tc.build.Stages[0].Checkout.URL != "" {
				t.Errorf("build() changed the spec it was given")
			}
		})
	}
}

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
	"sort"
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
		"OwnCredential": {
			reason: "A checkout of the project's repository with its own credential keeps it.",
			build:  &jenkinsv1alpha1.PipelineBuild{Stages: []jenkinsv1alpha1.BuildStage{{Name: "Checkout", Checkout: &jenkinsv1alpha1.CheckoutStage{CredentialsID: "git-deploy-key"}}}},
			env:    Environment{Name: "prod"},
			want: &jenkinsv1alpha1.PipelineBuild{Stages: []jenkinsv1alpha1.BuildStage{{Name: "Checkout", Checkout: &jenkinsv1alpha1.CheckoutStage{
				URL: "https://git.example.com/team/shop.git", Branch: "release", CredentialsID: "git-deploy-key",
			}}}},
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

// TestDeclaredBuildComposition: with a declared build pushing to the
// project's registry, a new environment's job waits for the RegistryRepo
// to report its host, then is composed with the build, filled in.
func TestDeclaredBuildComposition(t *testing.T) {
	withBuild := withSpec(func(s map[string]any) {
		s["pipeline"] = map[string]any{"folder": "team/shop", "build": map[string]any{"stages": []any{
			map[string]any{"name": "Checkout", "checkout": map[string]any{}},
			map[string]any{"name": "Image", "image": map[string]any{"tag": "${BUILD_NUMBER}"}},
		}}}
	})
	registryAt := func(url string) map[string]map[string]any {
		obs := projectReady()
		obs["registry"] = observed(KindRegistry, true, map[string]any{"status": map[string]any{
			"conditions": []any{map[string]any{"type": "Ready", "status": "True"}},
			"atProvider": map[string]any{"url": url},
		}})
		return obs
	}
	wantStages := []any{
		map[string]any{"name": "Checkout", "checkout": map[string]any{"url": "https://git.example.com/team/shop.git", "branch": "main"}},
		map[string]any{"name": "Image", "image": map[string]any{"registry": "harbor.example.com", "repository": "team/shop", "tag": "${BUILD_NUMBER}"}},
	}
	cases := map[string]struct {
		reason     string
		obs        map[string]map[string]any
		wantNames  []string
		wantStages any
	}{
		"RegistryHostUnknown": {
			reason: "No job until the RegistryRepo reports its host.",
			obs:    projectReady(),
			wantNames: func() []string {
				out := []string{"argo-project", "registry"}
				for _, e := range []string{"pr-7", "prod"} {
					out = append(out, e+"-app", e+"-dns")
				}
				sort.Strings(out)
				return out
			}(),
		},
		"RegistryHostKnown": {
			reason:    "The jobs are composed with the build, the repository and host filled in.",
			obs:       registryAt("harbor.example.com/team/shop"),
			wantNames: want("pr-7", "prod"), wantStages: wantStages,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, t0, newRequest(t, xr(withBuild), tc.obs, nil))
			if diff := cmp.Diff(tc.wantNames, names(rsp)); diff != "" {
				t.Fatalf("%s\ndesired resources -want +got:\n%s", tc.reason, diff)
			}
			if tc.wantStages == nil {
				return
			}
			if diff := cmp.Diff(tc.wantStages, resourceField(t, rsp, "prod-pipeline", "spec", "forProvider", "source", "build", "stages")); diff != "" {
				t.Errorf("%s\nstages -want +got:\n%s", tc.reason, diff)
			}
			if got := resourceField(t, rsp, "prod-pipeline", "spec", "forProvider", "source", "scm"); got != nil {
				t.Errorf("%s\na job with a declared build must not also read a Jenkinsfile: %v", tc.reason, got)
			}
		})
	}
}

func TestBuildFileSource(t *testing.T) {
	file := &jenkinsv1alpha1.BuildFileSource{URL: "https://git.example.com/team/shop.git", Branch: "release", Path: ".devops/pipeline.yaml",
		CredentialsSecretRef: &jenkinsv1alpha1.CredentialSecretRef{Name: "shop-git"},
		Defaults: &jenkinsv1alpha1.BuildFileDefaults{
			Checkout: &jenkinsv1alpha1.CheckoutStage{URL: "https://git.example.com/team/shop.git", Branch: "release", CredentialsID: "team--shop-git"},
			Image:    &jenkinsv1alpha1.ImageTarget{Registry: "harbor.example.com", Repository: "team/shop"},
		}}
	own := &jenkinsv1alpha1.PipelineBuild{Stages: []jenkinsv1alpha1.BuildStage{{Name: "Test", Sh: []string{"make test"}}}}
	cases := map[string]struct {
		reason     string
		buildFile  string
		env        Environment
		wantSource jenkinsv1alpha1.PipelineSource
	}{
		"FromFile": {
			reason:    "The job reads the build file from the project's repository and branch, with its Secret; what the project fills in on an inline build are the file's defaults.",
			buildFile: ".devops/pipeline.yaml", env: Environment{Name: "prod"},
			wantSource: jenkinsv1alpha1.PipelineSource{BuildFile: file},
		},
		"EnvironmentBuildWins": {
			reason:    "An environment's own build overrides the project's build file.",
			buildFile: ".devops/pipeline.yaml", env: Environment{Name: "prod", Pipeline: &EnvironmentPipeline{Build: own}},
			wantSource: jenkinsv1alpha1.PipelineSource{Build: own},
		},
		"NoFile": {
			reason: "Without a build file the job reads the Jenkinsfile.",
			env:    Environment{Name: "prod"},
			wantSource: jenkinsv1alpha1.PipelineSource{SCM: &jenkinsv1alpha1.SCMSource{
				URL: "https://git.example.com/team/shop.git", Branch: "release", ScriptPath: "Jenkinsfile", CredentialsID: "team--shop-git",
			}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := &ProjectSpec{
				Git:      GitSpec{URL: "https://git.example.com/team/shop.git", Branch: "release", CredentialsSecretRef: &SecretRef{Name: "shop-git"}},
				Registry: RegistrySpec{Namespace: "team", Name: "shop"},
				Pipeline: PipelineSpec{BuildFile: tc.buildFile, Folder: "team/shop"},
			}
			p := &project{spec: spec, name: "shop", tenant: "team", stable: "shop", in: &settings{}, registryURL: "harbor.example.com/team/shop"}
			if diff := cmp.Diff(tc.wantSource, p.pipeline(tc.env, false).Spec.ForProvider.Source); diff != "" {
				t.Errorf("%s\npipeline().source: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

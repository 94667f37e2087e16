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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
)

// One ClusterProviderConfig with rootFolder "teams/{namespace}" gives each
// namespace its own root: team-b cannot put a job in team-a's folder,
// where it would inherit team-a's folder credentials.
func TestAllowedPerNamespace(t *testing.T) {
	shared := &pcv1alpha1.JenkinsConfig{RootFolder: "teams/{namespace}", AllowedCredentialIDs: []string{"{namespace}-*"}}
	pipeline := func(ns, folder, cred string) *v1alpha1.JenkinsPipeline {
		cr := &v1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: ns}}
		cr.Spec.ForProvider.Folder = folder
		cr.Spec.ForProvider.Source.SCM = &v1alpha1.SCMSource{URL: "https://git.example.com/x.git", CredentialsID: cred}
		return cr
	}
	cases := map[string]struct {
		reason string
		cr     *v1alpha1.JenkinsPipeline
		want   string
	}{
		"Own":             {reason: "Its own root and credential prefix.", cr: pipeline("team-a", "teams/team-a/shop", "team-a-git")},
		"OtherRoot":       {reason: "Another namespace's root folder.", cr: pipeline("team-b", "teams/team-a", "team-b-git"), want: `outside the root folder "teams/team-b"`},
		"OtherCredential": {reason: "Another namespace's credential id.", cr: pipeline("team-b", "teams/team-b", "team-a-git"), want: `credentials id "team-a-git"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := allowed(tc.cr, ForNamespace(shared, tc.cr.GetNamespace()))
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("%s\nallowed: want an error containing %q, got %v", tc.reason, tc.want, err)
			}
		})
	}
	build := func(ns string, stages ...v1alpha1.BuildStage) *v1alpha1.JenkinsPipeline {
		cr := &v1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: ns}}
		cr.Spec.ForProvider.Folder = "teams/" + ns
		cr.Spec.ForProvider.Source.Build = &v1alpha1.PipelineBuild{Stages: stages}
		return cr
	}
	checkout := func(cred string) v1alpha1.BuildStage {
		return v1alpha1.BuildStage{Name: "checkout", Checkout: &v1alpha1.CheckoutStage{URL: "https://git.example.com/x.git", CredentialsID: cred}}
	}
	image := func(cred string) v1alpha1.BuildStage {
		return v1alpha1.BuildStage{Name: "image", Image: &v1alpha1.ImageStage{Registry: "r.example.com", Repository: "x", CredentialsID: cred}}
	}
	deploy := func(job string) v1alpha1.BuildStage {
		return v1alpha1.BuildStage{Name: "deploy", Deploy: &v1alpha1.DeployStage{Job: job}}
	}
	builds := map[string]struct {
		reason string
		cr     *v1alpha1.JenkinsPipeline
		want   string
	}{
		"BuildOwn":             {reason: "A declared build with its own credentials and a deploy job in its own root.", cr: build("team-a", checkout("team-a-git"), image("team-a-harbor"), deploy("teams/team-a/deploy"))},
		"BuildOtherCheckout":   {reason: "A checkout stage naming another namespace's credential.", cr: build("team-b", checkout("team-a-git")), want: `credentials id "team-a-git" in spec.forProvider.source.build.stages[0].checkout.credentialsId`},
		"BuildOtherImage":      {reason: "An image stage pushing with another namespace's credential.", cr: build("team-b", checkout("team-b-git"), image("team-a-harbor")), want: `credentials id "team-a-harbor" in spec.forProvider.source.build.stages[1].image.credentialsId`},
		"BuildOtherDeployJob":  {reason: "A deploy stage starting another namespace's job.", cr: build("team-b", deploy("teams/team-a/deploy")), want: `deploy.job "teams/team-a/deploy" is outside the root folder "teams/team-b"`},
		"BuildRootLevelDeploy": {reason: "A deploy stage starting a job above the root folder.", cr: build("team-b", deploy("deploy")), want: "outside the root folder"},
		"UpstreamOwn": {reason: "An upstream job in its own root.", cr: func() *v1alpha1.JenkinsPipeline {
			cr := build("team-a", deploy("teams/team-a/deploy"))
			cr.Spec.ForProvider.Triggers = &v1alpha1.Triggers{Upstream: []string{"teams/team-a/lib"}}
			return cr
		}()},
		"UpstreamOther": {reason: "Following another namespace's job.", cr: func() *v1alpha1.JenkinsPipeline {
			cr := build("team-b", deploy("teams/team-b/deploy"))
			cr.Spec.ForProvider.Triggers = &v1alpha1.Triggers{Upstream: []string{"teams/team-a/lib"}}
			return cr
		}(), want: `triggers.upstream[0] "teams/team-a/lib" is outside the root folder "teams/team-b"`},
	}
	for name, tc := range builds {
		t.Run(name, func(t *testing.T) {
			err := allowed(tc.cr, ForNamespace(shared, tc.cr.GetNamespace()))
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("%s\nallowed: want an error containing %q, got %v", tc.reason, tc.want, err)
			}
		})
	}
	if shared.RootFolder != "teams/{namespace}" {
		t.Error("ForNamespace changed the config it was given")
	}
}

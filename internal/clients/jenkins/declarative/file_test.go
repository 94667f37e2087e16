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

package declarative

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
)

func TestParseFile(t *testing.T) {
	cases := map[string]struct {
		reason   string
		file     string
		defaults *v1alpha1.BuildFileDefaults
		want     *v1alpha1.PipelineBuild
		wantErr  []string
	}{
		"Valid": {
			reason: "A build file decodes, with the CRD's defaults filled in (a checkout's branch).",
			file:   "stages:\n- name: Checkout\n  checkout:\n    url: https://git.example.com/team/shop.git\n- name: Test\n  sh: [make test]\n",
			want: &v1alpha1.PipelineBuild{Stages: []v1alpha1.BuildStage{
				{Name: "Checkout", Checkout: &v1alpha1.CheckoutStage{URL: "https://git.example.com/team/shop.git", Branch: "main"}},
				{Name: "Test", Sh: []string{"make test"}},
			}},
		},
		"Defaults": {
			reason: "What the defaults fill in is set where a stage leaves it out, and only there, before validation.",
			file:   "stages:\n- name: Checkout\n  checkout: {}\n- name: Other\n  checkout: {url: https://git.example.com/other.git}\n- name: Image\n  image: {repository: team/own}\n",
			defaults: &v1alpha1.BuildFileDefaults{
				Checkout: &v1alpha1.CheckoutStage{URL: "https://git.example.com/shop.git", Branch: "release", CredentialsID: "git-shop"},
				Image:    &v1alpha1.ImageTarget{Registry: "harbor.example.com", Repository: "team/shop"},
			},
			want: &v1alpha1.PipelineBuild{Stages: []v1alpha1.BuildStage{
				{Name: "Checkout", Checkout: &v1alpha1.CheckoutStage{URL: "https://git.example.com/shop.git", Branch: "release", CredentialsID: "git-shop"}},
				{Name: "Other", Checkout: &v1alpha1.CheckoutStage{URL: "https://git.example.com/other.git", Branch: "main"}},
				{Name: "Image", Image: &v1alpha1.ImageStage{Registry: "harbor.example.com", Repository: "team/own", Tag: "${BUILD_NUMBER}", Dockerfile: "Dockerfile", Context: "."}},
			}},
		},
		"ManyProblems": {
			reason:  "A file with many problems names the first ten and counts the rest: a condition is read, not searched.",
			file:    "stages:\n" + strings.Repeat("- name: Test\n  sh: [make]\n  deploy: {}\n", 15),
			wantErr: []string{"invalid build", "stages[9]", "and 5 more"},
		},
		"NoDefaults": {
			reason:  "Without defaults, a checkout without url is refused as the CRD refuses it.",
			file:    "stages:\n- name: Checkout\n  checkout: {}\n",
			wantErr: []string{"stages[0].checkout.url: Required value"},
		},
		"NotYAML": {
			reason:  "Broken YAML is refused as such.",
			file:    "stages: [\n",
			wantErr: []string{"not YAML"},
		},
		"NotAMapping": {
			reason:  "A list is no build.",
			file:    "- a\n",
			wantErr: []string{"not a build"},
		},
		"UnknownField": {
			reason:  "An unknown field is refused, not dropped: a typo must not silently change the build.",
			file:    "stages:\n- name: Test\n  shell: [make]\n",
			wantErr: []string{"not a build", `unknown field "shell"`},
		},
		"SchemaRule": {
			reason:  "The CRD's OpenAPI rules hold (a stage name's pattern, required stages' items).",
			file:    "stages:\n- name: \"bad'name\"\n  sh: [make]\n",
			wantErr: []string{"invalid build", "stages[0].name"},
		},
		"CELRule": {
			reason:  "The CRD's CEL rules hold (a stage sets exactly one step).",
			file:    "stages:\n- name: Test\n  sh: [make]\n  deploy: {}\n",
			wantErr: []string{"invalid build", "a stage sets exactly one of checkout, sh, image and deploy"},
		},
		"TooLarge": {
			reason:  "A file above the bound is refused before it is parsed.",
			file:    "# " + strings.Repeat("x", MaxFileSize),
			wantErr: []string{"more than the 256 KiB"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseFile([]byte(tc.file), tc.defaults)
			if len(tc.wantErr) > 0 {
				for _, w := range tc.wantErr {
					if err == nil || !strings.Contains(err.Error(), w) {
						t.Errorf("%s\nParseFile(...): want error containing %q, got %v", tc.reason, w, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nParseFile(...): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nParseFile(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

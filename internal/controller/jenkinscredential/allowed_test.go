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

package jenkinscredential

import (
	"strings"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/controller/jenkinspipeline"
)

func TestAllowed(t *testing.T) {
	teams := &pcv1alpha1.JenkinsConfig{RootFolder: "teams/{namespace}", AllowedCredentialIDs: []string{"{namespace}-*"}}
	global := &pcv1alpha1.JenkinsConfig{AllowGlobalCredentials: true}
	in := func(folder, id string) *v1alpha1.JenkinsCredential {
		return credential(func(cr *v1alpha1.JenkinsCredential) {
			cr.Spec.ForProvider.Folder = folder
			meta.SetExternalName(cr, id)
		})
	}
	cases := map[string]struct {
		reason  string
		cr      *v1alpha1.JenkinsCredential
		s       *pcv1alpha1.JenkinsConfig
		cluster bool
		// errHas is part of the refusal; "" for none.
		errHas string
	}{
		"InRoot": {
			reason: "A credential in the namespace's root folder with an allowed id is allowed.",
			cr:     in("teams/team-a", "team-a-git"), s: teams, cluster: true,
		},
		"BelowRoot": {
			reason: "A folder below the root is allowed.",
			cr:     in("teams/team-a/shop", "team-a-git"), s: teams,
		},
		"OtherTeamsRoot": {
			reason: "Another namespace's root folder is refused.",
			cr:     in("teams/team-b", "team-a-git"), s: teams, cluster: true,
			errHas: `folder "teams/team-b" is outside the root folder "teams/team-a"`,
		},
		"RootPrefix": {
			reason: "A folder whose name only starts like the root is outside it.",
			cr:     in("teams/team-a2", "team-a-git"), s: teams,
			errHas: "outside the root folder",
		},
		"IDNotAllowed": {
			reason: "An id outside allowedCredentialIds is refused: a team names only its own credentials.",
			cr:     in("teams/team-a", "team-b-git"), s: teams,
			errHas: `credentials id "team-b-git" in the external name (spec.forProvider.id) is not allowed`,
		},
		"BadExternalName": {
			reason: "An external name Jenkins would not take as an id is refused.",
			cr:     in("teams/team-a", "../x"), s: teams,
			errHas: "must be letters",
		},
		"DotDotID": {
			reason: "An id of '..' would climb out of the credential's URL to the store's domain: refused whatever the allowed ids.",
			cr:     in("teams/team-a", ".."), s: &pcv1alpha1.JenkinsConfig{RootFolder: "teams/{namespace}"},
			errHas: "must be letters",
		},
		"DotID": {
			reason: "An id of '.' is the store's own URL segment: refused whatever the allowed ids.",
			cr:     in("teams/team-a", "."), s: &pcv1alpha1.JenkinsConfig{RootFolder: "teams/{namespace}"},
			errHas: "must be letters",
		},
		"GlobalFromProviderConfig": {
			reason: "A namespaced ProviderConfig never reaches the global store, even when it says it may.",
			cr:     in("", "git"), s: global,
			errHas: "a namespaced ProviderConfig never allows it",
		},
		"GlobalNotAllowed": {
			reason: "A ClusterProviderConfig without allowGlobalCredentials keeps credentials in folders.",
			cr:     in("", "git"), s: &pcv1alpha1.JenkinsConfig{}, cluster: true,
			errHas: "this ClusterProviderConfig does not allow it",
		},
		"GlobalWithRoot": {
			reason: "A root folder pins credentials below it, whatever allowGlobalCredentials says.",
			cr:     in("", "team-a-git"), s: &pcv1alpha1.JenkinsConfig{RootFolder: "teams/{namespace}", AllowGlobalCredentials: true}, cluster: true,
			errHas: "global store",
		},
		"GlobalAllowed": {
			reason: "A ClusterProviderConfig with allowGlobalCredentials and no root allows the global store.",
			cr:     in("", "git"), s: global, cluster: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := allowed(tc.cr, jenkinspipeline.ForNamespace(tc.s, tc.cr.GetNamespace()), tc.cluster)
			if tc.errHas == "" && err != nil || tc.errHas != "" && (err == nil || !strings.Contains(err.Error(), tc.errHas)) {
				t.Errorf("%s\nallowed(...): %v, want an error with %q", tc.reason, err, tc.errHas)
			}
		})
	}
}

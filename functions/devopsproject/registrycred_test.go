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
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
)

// TestRegistryCredential: spec.registry.credentialsSecretRef becomes a
// usernamePassword JenkinsCredential in the pipelines' folder, composed as
// the checkout's is (once a pipeline is Ready), and the id of every image
// stage of a declared build that names no credential of its own.
func TestRegistryCredential(t *testing.T) {
	project := func(secret any, image map[string]any) xrOpt {
		return withSpec(func(s map[string]any) {
			if secret != nil {
				s["registry"].(map[string]any)["credentialsSecretRef"] = secret
			}
			s["pipeline"] = map[string]any{"folder": "team/shop", "build": map[string]any{"stages": []any{
				map[string]any{"name": "Image", "image": image},
			}}}
		})
	}
	observedWith := func(pipelineReady bool) map[string]map[string]any {
		obs := projectReady()
		obs["registry"] = observed(KindRegistry, true, map[string]any{"status": map[string]any{
			"conditions": []any{map[string]any{"type": "Ready", "status": "True"}},
			"atProvider": map[string]any{"url": "harbor.example.com/team/shop"},
		}})
		if pipelineReady {
			obs["prod-pipeline"] = observed(KindPipeline, true, nil)
		}
		return obs
	}
	secret := map[string]any{"name": "registry-push"}
	composed := map[string]any{
		"folder": "team/shop", "id": "team-shop--shop-registry", "type": "usernamePassword",
		"description": "Pushes the images of shop (DevOpsProject).", "secretRef": map[string]any{"name": "registry-push"},
	}
	cases := map[string]struct {
		reason string
		x      map[string]any
		obs    map[string]map[string]any
		// want is the registry credential's spec.forProvider; nil for none.
		want map[string]any
		// image is the prod job's image stage's credentialsId.
		image any
	}{
		"None": {
			reason: "Without the Secret no credential is composed and an image stage names none.",
			x:      xr(project(nil, map[string]any{"tag": "v1"})), obs: observedWith(true),
		},
		"WaitsForFolder": {
			reason: "The credential waits until a pipeline, which creates the folder, is Ready; the image stage already names it.",
			x:      xr(project(secret, map[string]any{"tag": "v1"})), obs: observedWith(false),
			image: "team-shop--shop-registry",
		},
		"Composed": {
			reason: "The Secret's username and password go into the pipelines' folder under a deterministic id the image stage pushes with.",
			x:      xr(project(secret, map[string]any{"tag": "v1"})), obs: observedWith(true),
			want: composed, image: "team-shop--shop-registry",
		},
		"StageNamesItsOwn": {
			reason: "An image stage naming its own credential keeps it; the credential is still composed for the others.",
			x:      xr(project(secret, map[string]any{"tag": "v1", "credentialsId": "team-shop--mirror"})), obs: observedWith(true),
			want: composed, image: "team-shop--mirror",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, t0, newRequest(t, tc.x, tc.obs, nil))
			res := rsp.GetDesired().GetResources()
			if _, ok := res["registry-credential"]; ok != (tc.want != nil) {
				t.Fatalf("%s\nregistry-credential composed: %v, want %v (results %v)", tc.reason, ok, tc.want != nil, results(rsp))
			}
			if _, ok := res["jenkins-credential"]; ok {
				t.Errorf("%s\na public repository's project composed a checkout credential", tc.reason)
			}
			if tc.want != nil {
				if diff := cmp.Diff(tc.want, resourceField(t, rsp, "registry-credential", "spec", "forProvider")); diff != "" {
					t.Errorf("%s\nspec.forProvider -want +got:\n%s", tc.reason, diff)
				}
			}
			stages := resourceField(t, rsp, "prod-pipeline", "spec", "forProvider", "source", "build", "stages").([]any)
			if got := stages[0].(map[string]any)["image"].(map[string]any)["credentialsId"]; got != tc.image {
				t.Errorf("%s\nthe image stage's credentialsId: %v, want %v", tc.reason, got, tc.image)
			}
		})
	}
}

func TestRegistryCredentialNameRequired(t *testing.T) {
	rsp := run(t, t0, newRequest(t, xr(withSpec(func(s map[string]any) {
		s["registry"].(map[string]any)["credentialsSecretRef"] = map[string]any{"name": ""}
	})), nil, nil))
	r := rsp.GetResults()
	if len(r) != 1 || r[0].GetSeverity() != fnv1.Severity_SEVERITY_FATAL || !strings.Contains(r[0].GetMessage(), "spec.registry.credentialsSecretRef.name: is required") {
		t.Fatalf("want one fatal result naming spec.registry.credentialsSecretRef.name, got %v", r)
	}
}

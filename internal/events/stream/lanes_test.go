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

package stream

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
)

// TestLaneUsers: the platform's users first (a ClusterProviderConfig's,
// for the namespaces it allows whose pipelines use it), then each
// namespace's own, at most MaxLanesPerNamespace each.
func TestLaneUsers(t *testing.T) {
	s := runtime.NewScheme()
	if err := apis.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	pipeline := func(ns, kind, name string) *jenkinsv1alpha1.JenkinsPipeline {
		p := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: ns}}
		p.SetProviderConfigReference(&xpv2.ProviderConfigReference{Kind: kind, Name: name})
		return p
	}
	many := []string{}
	for i := range 20 {
		many = append(many, fmt.Sprintf("z-%02d", i))
	}
	objs := []client.Object{
		&v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "platform"}, Spec: v1alpha1.ProviderConfigSpec{
			AllowedNamespaces: []string{"team-*"},
			Jenkins:           &v1alpha1.JenkinsConfig{DeployUsers: []string{"ci-{namespace}", "release-bot"}},
		}},
		pipeline("team-a", v1alpha1.ClusterProviderConfigKind, "platform"),
		pipeline("team-b", v1alpha1.ClusterProviderConfigKind, "platform"),
		pipeline("outsider", v1alpha1.ClusterProviderConfigKind, "platform"),
		pipeline("noisy", "ProviderConfig", "default"),
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "noisy"}, Spec: v1alpha1.ProviderConfigSpec{
			Jenkins:         &v1alpha1.JenkinsConfig{DeployUsers: many},
			InitializeUsers: []string{"a-init-{namespace}"},
		}},
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "quiet"}, Spec: v1alpha1.ProviderConfigSpec{
			Jenkins: &v1alpha1.JenkinsConfig{DeployUsers: []string{"ci-quiet", "release-bot"}},
		}},
	}
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).Build()
	got, err := LaneUsers(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ci-team-a", "ci-team-b", "release-bot", "a-init-noisy"}
	want = append(want, many[:MaxLanesPerNamespace-1]...)
	want = append(want, "ci-quiet")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LaneUsers (-want +got):\n%s", diff)
	}
}

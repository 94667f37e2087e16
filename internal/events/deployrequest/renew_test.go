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

package deployrequest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/contract"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/events"
)

// project is team's DevOpsProject shop whose environment pr-7 is in phase,
// with renewOnDeploy set or not, its status recording ref (nil: none).
func project(phase string, renew bool, ref map[string]any, annotations map[string]string) *unstructured.Unstructured {
	st := map[string]any{"name": "pr-7", "phase": phase, "expiresAt": "2026-11-22T14:00:00Z"}
	if ref != nil {
		st["providerConfigRef"] = ref
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{"environments": []any{
			map[string]any{"name": "prod", "domain": "shop.example.com"},
			map[string]any{"name": "pr-7", "domain": "pr-7.shop.example.com", "ttl": "2h", "renewOnDeploy": renew},
		}},
		"status": map[string]any{"environments": []any{map[string]any{"name": "prod", "phase": "Ready"}, st}},
	}}
	u.SetGroupVersionKind(ProjectKind)
	u.SetNamespace("team")
	u.SetName("shop")
	u.SetAnnotations(annotations)
	return u
}

// TestRenewOnDeploy: a deploy request for an expired environment renews it
// when its project lets it and the user may deploy with the config the
// project records, and the DeployRun created waits for it; otherwise the
// refusal says how to allow it, and nothing is written.
func TestRenewOnDeploy(t *testing.T) {
	local := map[string]any{"kind": "ProviderConfig", "name": "default"}
	platform := map[string]any{"kind": "ClusterProviderConfig", "name": "platform"}
	pastExpiry := func() client.Object {
		p := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "shop-pr-7", Namespace: "team",
			Labels:      map[string]string{contract.LabelProject: "shop", contract.LabelEnvironment: "pr-7"},
			Annotations: map[string]string{contract.AnnotationExpiresAt: time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)}}}
		p.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
		return p
	}
	type want struct {
		reject string // a refusal starting so; "" none
		renews string // the run's renews annotation; "" no run
		// annotation is the project's renew annotation after the request.
		annotation string
	}
	cases := map[string]struct {
		reason string
		objs   []client.Object
		user   string
		want   want
	}{
		"Renews": {
			reason: "an expired environment with renewOnDeploy is renewed with a value naming the request, and the run waits for it",
			objs:   []client.Object{project("Expired", true, local, nil)}, user: "ci",
			want: want{renews: "deploy:amqp-m-1", annotation: "deploy:amqp-m-1"},
		},
		"RenewsFromExpiring": {
			reason: "a pipeline past its environment's expiry is about to go: the request renews rather than deploys to it",
			objs:   []client.Object{project("Expiring", true, local, nil), pastExpiry()}, user: "ci",
			want: want{renews: "deploy:amqp-m-1", annotation: "deploy:amqp-m-1"},
		},
		"ByTheClusterConfig": {
			reason: "a project on the platform's ClusterProviderConfig is renewed by its deployUsers for the namespace",
			objs:   []client.Object{project("Expired", true, platform, nil)}, user: "ci-team",
			want: want{renews: "deploy:amqp-m-1", annotation: "deploy:amqp-m-1"},
		},
		"ComingBack": {
			reason: "an environment coming back (Provisioning) is not renewed again: the run waits for the renewal under way",
			objs:   []client.Object{project("Provisioning", true, local, map[string]string{"renew.devops.freeleaps.io/pr-7": "deploy:amqp-m-0"})}, user: "ci",
			want: want{renews: "deploy:amqp-m-0", annotation: "deploy:amqp-m-0"},
		},
		"NotAllowed": {
			reason: "without renewOnDeploy the refusal says how to allow it",
			objs:   []client.Object{project("Expired", false, local, nil)}, user: "ci",
			want: want{reject: "environment pr-7 of DevOpsProject team/shop expired at 2026-11-22T14:00:00Z, and deploying does not renew it: set renewOnDeploy: true on the environment in the project's spec.environments, or renew it by hand (kubectl annotate devopsproject -n team shop renew.devops.freeleaps.io/pr-7=<a new value>)"},
		},
		"Unauthorised": {
			reason: "a user the recorded config does not list renews nothing",
			objs:   []client.Object{project("Expired", true, local, nil)}, user: "ci-other",
			want: want{reject: `unauthorised: broker user "ci-other" may not renew and deploy environment pr-7 of DevOpsProject team/shop: it is not in spec.jenkins.deployUsers of ProviderConfig team/default`},
		},
		"UnauthorisedLearnsNothing": {
			reason: "a user the recorded config does not list is refused as unauthorised before it learns the environment's expiry or renewal setting",
			objs:   []client.Object{project("Expired", false, local, nil)}, user: "ci-other",
			want: want{reject: `unauthorised: broker user "ci-other" may not renew and deploy environment pr-7 of DevOpsProject team/shop`},
		},
		"NoRecordedConfig": {
			reason: "without the config the function records, nobody can be authorised",
			objs:   []client.Object{project("Expired", true, nil, nil)}, user: "ci",
			want: want{reject: "environment pr-7 of DevOpsProject team/shop has renewOnDeploy, but its status records no providerConfigRef"},
		},
		"NoProject": {
			reason: "no pipeline and no project: an unknown target, as before",
			user:   "ci",
			want:   want{reject: "unknown target: no JenkinsPipeline is labelled devops.freeleaps.io/project=shop, devops.freeleaps.io/environment=pr-7 in namespace team"},
		},
		"NotExpired": {
			reason: "a Ready environment without a pipeline is not renewed",
			objs:   []client.Object{project("Ready", true, local, nil)}, user: "ci",
			want: want{reject: "unknown target:"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := runtime.NewScheme()
			for _, add := range []func(*runtime.Scheme) error{pcv1alpha1.SchemeBuilder.AddToScheme, jenkinsv1alpha1.SchemeBuilder.AddToScheme} {
				if err := add(s); err != nil {
					t.Fatal(err)
				}
			}
			objs := append([]client.Object{
				&pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "team"},
					Spec: pcv1alpha1.ProviderConfigSpec{Jenkins: &pcv1alpha1.JenkinsConfig{URL: "https://jenkins.example.com", DeployUsers: []string{"ci"}}}},
				&pcv1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "platform"},
					Spec: pcv1alpha1.ProviderConfigSpec{AllowedNamespaces: []string{"team"}, Jenkins: &pcv1alpha1.JenkinsConfig{URL: "https://jenkins.example.com", DeployUsers: []string{"ci-{namespace}"}}}},
			}, tc.objs...)
			kube := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).Build()
			req, err := Parse([]byte(`{"project": "shop", "environment": "pr-7", "namespace": "team", "revision": "main", "requestedAt": "2026-11-24T10:00:00Z"}`))
			if err != nil {
				t.Fatal(err)
			}
			err = Apply(context.Background(), kube, req, Delivery{Token: "amqp-m-1", User: tc.user})
			var r *events.RejectError
			switch {
			case tc.want.reject == "" && err != nil:
				t.Fatalf("%s: %v", tc.reason, err)
			case tc.want.reject != "" && (!errors.As(err, &r) || len(r.Reason) < len(tc.want.reject) || r.Reason[:len(tc.want.reject)] != tc.want.reject):
				t.Fatalf("%s: want a refusal starting %q, got %v", tc.reason, tc.want.reject, err)
			}
			runs := &pcv1alpha1.DeployRunList{}
			if err := kube.List(context.Background(), runs); err != nil {
				t.Fatal(err)
			}
			var renews []string
			for _, run := range runs.Items {
				renews = append(renews, run.GetAnnotations()[contract.AnnotationRenews])
				if run.Spec.Revision != "main" {
					t.Errorf("%s: run revision %q, want main", tc.reason, run.Spec.Revision)
				}
			}
			var wantRenews []string
			if tc.want.renews != "" {
				wantRenews = []string{tc.want.renews}
			}
			if diff := cmp.Diff(wantRenews, renews); diff != "" {
				t.Errorf("%s: DeployRuns' renews annotations -want +got:\n%s", tc.reason, diff)
			}
			p := project("", false, nil, nil)
			if err := kube.Get(context.Background(), client.ObjectKey{Namespace: "team", Name: "shop"}, p); err == nil {
				if got := p.GetAnnotations()[contract.AnnotationRenewPrefix+"pr-7"]; got != tc.want.annotation {
					t.Errorf("%s: project renew annotation %q, want %q", tc.reason, got, tc.want.annotation)
				}
			}
		})
	}
}

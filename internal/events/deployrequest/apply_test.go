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
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
)

// A broker request's parameters.REVISION is the DeployRun's revision (the
// old UI sends it that way), the other parameters stay parameters.
func TestApplyRevisionParameter(t *testing.T) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{pcv1alpha1.SchemeBuilder.AddToScheme, v1alpha1.SchemeBuilder.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	p := &v1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "shop-dev", Namespace: "team",
		Labels: map[string]string{contract.LabelProject: "shop", contract.LabelEnvironment: "dev"}}}
	p.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
	p.Spec.ForProvider.Parameters = []v1alpha1.Parameter{{Name: RevisionParameter, Type: v1alpha1.ParameterString}, {Name: "DEBUG", Type: v1alpha1.ParameterString}}
	kube := fake.NewClientBuilder().WithScheme(s).WithObjects(p, &pcv1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "team"},
		Spec:       pcv1alpha1.ProviderConfigSpec{Jenkins: &pcv1alpha1.JenkinsConfig{URL: "https://jenkins.example.com", DeployUsers: []string{"ci"}}},
	}).Build()
	req, err := Parse([]byte(`{"project": "shop", "environment": "dev", "namespace": "team", "parameters": {"REVISION": "refs/tags/v2.0", "DEBUG": "1"}, "requestedAt": "2026-11-24T10:00:00Z"}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(context.Background(), kube, req, Delivery{Token: "m-1", User: "ci"}); err != nil {
		t.Fatal(err)
	}
	runs := &pcv1alpha1.DeployRunList{}
	if err := kube.List(context.Background(), runs, client.InNamespace("team")); err != nil || len(runs.Items) != 1 {
		t.Fatalf("%d DeployRuns (%v), want 1", len(runs.Items), err)
	}
	d := runs.Items[0]
	if d.Spec.Revision != "refs/tags/v2.0" {
		t.Errorf("spec.revision %q, want parameters.REVISION's refs/tags/v2.0", d.Spec.Revision)
	}
	if diff := cmp.Diff(map[string]string{"DEBUG": "1"}, d.Spec.Parameters); diff != "" {
		t.Errorf("spec.parameters -want +got:\n%s", diff)
	}
	if d.Spec.RequestedBy != "amqp:ci" {
		t.Errorf("requestedBy %q", d.Spec.RequestedBy)
	}
	if tp, ok := d.Annotations[contract.AnnotationTraceParent]; ok {
		t.Errorf("a request without a trace made a DeployRun with traceparent %q", tp)
	}

	// Another namespace's deployment id: the legacy heartbeats carry no
	// namespace, so it is refused.
	if err := kube.Create(context.Background(), &pcv1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: "theirs", Namespace: "other"},
		Spec: pcv1alpha1.DeployRunSpec{Project: "shop", Environment: "dev", RequestID: "ui-1234"}}); err != nil {
		t.Fatal(err)
	}
	req, err = Parse([]byte(`{"id": "ui-1234", "project": "shop", "environment": "dev", "namespace": "team", "requestedAt": "2026-11-24T10:01:00Z"}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(context.Background(), kube, req, Delivery{Token: "m-2", User: "ci"}); err == nil || !strings.Contains(err.Error(), `deployment id "ui-1234" is already another namespace's`) {
		t.Errorf("another namespace's id: want refused, got %v", err)
	}
	// Without an id, the message id stands in, prefixed with the
	// namespace: another namespace's explicit id equal to it (taken
	// first, to squat) neither refuses it nor is mixed up with it.
	req, err = Parse([]byte(`{"project": "shop", "environment": "dev", "namespace": "team", "requestedAt": "2026-11-24T10:01:00Z"}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(context.Background(), kube, req, Delivery{Token: "amqp-ui-1234", User: "ci"}); err != nil {
		t.Errorf("a message id another namespace used as its explicit id: %v", err)
	}
	runs = &pcv1alpha1.DeployRunList{}
	if err := kube.List(context.Background(), runs, client.InNamespace("team")); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(runs.Items, func(d pcv1alpha1.DeployRun) bool { return d.Spec.RequestID == "team/ui-1234" }) {
		t.Errorf("no DeployRun with the request id team/ui-1234: %v", runs.Items)
	}

	// A request time in 2099, by hand on a kubectl-made run or from a
	// broker run's clock, never supersedes later broker requests.
	for i, by := range []string{"alice", "amqp:ci"} {
		if err := kube.Create(context.Background(), &pcv1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("future-%d", i), Namespace: "team",
			Labels:      map[string]string{contract.LabelProject: "shop", contract.LabelEnvironment: "dev"},
			Annotations: map[string]string{contract.AnnotationDeployRequestTime: "2099-01-01T00:00:00Z"}},
			Spec: pcv1alpha1.DeployRunSpec{Project: "shop", Environment: "dev", RequestedBy: by}}); err != nil {
			t.Fatal(err)
		}
	}
	req, err = Parse([]byte(`{"project": "shop", "environment": "dev", "namespace": "team", "requestedAt": "2026-11-24T10:02:00Z"}`))
	if err != nil {
		t.Fatal(err)
	}
	const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	if err := Apply(context.Background(), kube, req, Delivery{Token: "m-3", User: "ci", TraceParent: tp}); err != nil {
		t.Errorf("a request after runs stamped in 2099: want applied, got %v", err)
	}
	// The request's span is the deployment's trace's parent.
	traced := &pcv1alpha1.DeployRun{}
	if err := kube.Get(context.Background(), client.ObjectKey{Namespace: "team", Name: RunName("shop", "dev", "m-3")}, traced); err != nil {
		t.Fatal(err)
	}
	if got := traced.Annotations[contract.AnnotationTraceParent]; got != tp {
		t.Errorf("traceparent %q, want the request span's %s", got, tp)
	}
}

// A redelivery of an older request, after a newer one of the same
// environment was applied, is acknowledged as done, not dead-lettered as
// superseded, whichever order the DeployRuns are listed in.
func TestApplyRedeliveryAfterNewer(t *testing.T) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{pcv1alpha1.SchemeBuilder.AddToScheme, v1alpha1.SchemeBuilder.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	orders := map[bool]bool{}
	for i := 0; i < 8; i++ {
		older, newer := fmt.Sprintf("old-%d", i), fmt.Sprintf("new-%d", i)
		// The fake client lists by name: cover the newer run listed first.
		orders[RunName("shop", "dev", newer) < RunName("shop", "dev", older)] = true
		p := &v1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "shop-dev", Namespace: "team",
			Labels: map[string]string{contract.LabelProject: "shop", contract.LabelEnvironment: "dev"}}}
		p.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
		kube := fake.NewClientBuilder().WithScheme(s).WithObjects(p, &pcv1alpha1.ProviderConfig{
			ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "team"},
			Spec:       pcv1alpha1.ProviderConfigSpec{Jenkins: &pcv1alpha1.JenkinsConfig{URL: "https://jenkins.example.com", DeployUsers: []string{"ci"}}},
		}).Build()
		apply := func(token, at string) error {
			req, err := Parse([]byte(`{"project": "shop", "environment": "dev", "namespace": "team", "requestedAt": "` + at + `"}`))
			if err != nil {
				t.Fatal(err)
			}
			return Apply(context.Background(), kube, req, Delivery{Token: token, User: "ci"})
		}
		if err := apply(older, "2026-11-24T10:00:00Z"); err != nil {
			t.Fatal(err)
		}
		if err := apply(newer, "2026-11-24T10:05:00Z"); err != nil {
			t.Fatal(err)
		}
		if err := apply(older, "2026-11-24T10:00:00Z"); err != nil {
			t.Errorf("%s redelivered after %s: want acknowledged, got %v", older, newer, err)
		}
		// A new request as old as the first is still superseded.
		if err := apply(fmt.Sprintf("late-%d", i), "2026-11-24T10:00:00Z"); err == nil || !strings.Contains(err.Error(), "superseded") {
			t.Errorf("a new request older than %s: want superseded, got %v", newer, err)
		}
		runs := &pcv1alpha1.DeployRunList{}
		if err := kube.List(context.Background(), runs); err != nil || len(runs.Items) != 2 {
			t.Errorf("%d DeployRuns (%v), want 2", len(runs.Items), err)
		}
	}
	if !orders[true] || !orders[false] {
		t.Fatalf("the tokens cover only one listing order: %v", orders)
	}
}

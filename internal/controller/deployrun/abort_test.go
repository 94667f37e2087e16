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

package deployrun

import (
	"context"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
)

// builds records what a deployment asks of Jenkins; queue maps an item to
// the job it builds.
type builds struct {
	queue map[int64]*jenkins.QueueItem
	calls []string
}

func (b *builds) QueueItem(_ context.Context, id int64) (*jenkins.QueueItem, error) {
	if q, ok := b.queue[id]; ok {
		return q, nil
	}
	return nil, fmt.Errorf("queue item %d not in this test", id)
}

func (b *builds) GetBuild(context.Context, string, int64) (*jenkins.BuildInfo, error) {
	return nil, fmt.Errorf("not used")
}

func (b *builds) StopBuild(_ context.Context, path string, n int64) error {
	b.calls = append(b.calls, fmt.Sprintf("stop %s #%d", path, n))
	return nil
}

func (b *builds) CancelQueueItem(_ context.Context, id int64) error {
	b.calls = append(b.calls, fmt.Sprintf("cancel %d", id))
	return nil
}

func (b *builds) FindBuild(context.Context, string, map[string]string, int64) (string, error) {
	return "", nil
}

// Cancelling acts only on the pipeline's own job, whatever a status says:
// status is writable by whoever may write it, queue ids are global to a
// Jenkins, and the client carries the platform's Jenkins account.
func TestAbortOnlyOwnJob(t *testing.T) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{v1alpha1.SchemeBuilder.AddToScheme, jenkinsv1alpha1.SchemeBuilder.AddToScheme, argov1alpha1.SchemeBuilder.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	const own, other = "teams/team-a/shop/dev", "teams/team-b/shop/prod"
	p := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "shop-dev", Namespace: "team-a",
		Labels: map[string]string{contract.LabelProject: "shop", contract.LabelEnvironment: "dev"}}}
	meta.SetExternalName(p, own)
	p.Status.AtProvider.HandledBuildRequest = "deployrun-1"
	kube := fake.NewClientBuilder().WithScheme(s).WithObjects(p).WithStatusSubresource(p).Build()
	if err := kube.Status().Update(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		build v1alpha1.DeployBuild
		want  string
	}{
		"OwnBuild":        {v1alpha1.DeployBuild{Request: "deployrun-1", Job: own, Number: 7}, "[stop " + own + " #7]"},
		"OwnQueued":       {v1alpha1.DeployBuild{Request: "deployrun-1", Job: own, QueueItem: 11}, "[cancel 11]"},
		"OwnStarted":      {v1alpha1.DeployBuild{Request: "deployrun-1", QueueItem: 12}, "[stop " + own + " #3]"},
		"OtherJob":        {v1alpha1.DeployBuild{Request: "deployrun-1", Job: other, Number: 42}, "[]"},
		"OtherQueueItem":  {v1alpha1.DeployBuild{Request: "deployrun-1", Job: own, QueueItem: 9001}, "[]"},
		"OtherStartedJob": {v1alpha1.DeployBuild{Request: "deployrun-1", QueueItem: 9002}, "[]"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			jc := &builds{queue: map[int64]*jenkins.QueueItem{
				11: {Job: own}, 12: {Job: own, Number: 3},
				9001: {Job: other}, 9002: {Job: other, Number: 42},
			}}
			r := NewReconciler(kube, record.NewFakeRecorder(10), Options{NewBuilds: func(context.Context, *jenkinsv1alpha1.JenkinsPipeline) (Builds, error) { return jc, nil }})
			d := &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: "forged", Namespace: "team-a"},
				Spec:   v1alpha1.DeployRunSpec{Project: "shop", Environment: "dev"},
				Status: v1alpha1.DeployRunStatus{Phase: v1alpha1.DeployBuilding, Build: &tc.build}}
			if err := r.abort(context.Background(), d); err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(jc.calls); got != tc.want {
				t.Errorf("Jenkins was asked %s, want %s", got, tc.want)
			}
		})
	}
}

// An observe-only pipeline may name any job, another team's included: a
// forged status never makes a cancel act on it, and a deployment of it is
// refused before anything is asked.
func TestObserveOnlyPipelineIsNeverActedOn(t *testing.T) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{v1alpha1.SchemeBuilder.AddToScheme, jenkinsv1alpha1.SchemeBuilder.AddToScheme, argov1alpha1.SchemeBuilder.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	const theirs = "teams/team-b/shop/prod"
	p := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "watch-b", Namespace: "team-a",
		Labels: map[string]string{contract.LabelProject: "shop", contract.LabelEnvironment: "dev"}}}
	p.SetManagementPolicies(xpv2.ManagementPolicies{xpv2.ManagementActionObserve})
	meta.SetExternalName(p, theirs)
	p.Status.AtProvider.HandledBuildRequest = "deployrun-1"
	p.Status.AtProvider.HandledBuildNumber = 42
	kube := fake.NewClientBuilder().WithScheme(s).WithObjects(p).WithStatusSubresource(p).Build()
	if err := kube.Status().Update(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	jc := &builds{}
	r := NewReconciler(kube, record.NewFakeRecorder(10), Options{NewBuilds: func(context.Context, *jenkinsv1alpha1.JenkinsPipeline) (Builds, error) { return jc, nil }})
	d := &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: "forged", Namespace: "team-a"},
		Spec:   v1alpha1.DeployRunSpec{Project: "shop", Environment: "dev"},
		Status: v1alpha1.DeployRunStatus{Phase: v1alpha1.DeployBuilding, Build: &v1alpha1.DeployBuild{Request: "deployrun-1", Job: theirs, Number: 42}}}
	if err := r.abort(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	if len(jc.calls) != 0 {
		t.Errorf("Jenkins was asked %v for an observe-only pipeline's job", jc.calls)
	}
	if msg := checkRequest(d, p); !strings.Contains(msg, "only observes its job") {
		t.Errorf("checkRequest: %q, want the deployment refused", msg)
	}
}

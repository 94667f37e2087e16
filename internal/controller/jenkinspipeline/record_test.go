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
	"context"
	"testing"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

// The handled-request record is optimistic-locked: written from a stale
// read, it fails instead of overwriting a request handled meanwhile, so a
// build is never queued twice for one request.
func TestRecordIsOptimisticLocked(t *testing.T) {
	ctx := context.Background()
	cr := &v1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team"}}
	kube := fake.NewClientBuilder().WithScheme(controlplane.Scheme()).WithObjects(cr).WithStatusSubresource(cr).Build()
	stale := &v1alpha1.JenkinsPipeline{}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(cr), stale); err != nil {
		t.Fatal(err)
	}
	fresh := stale.DeepCopy()
	e := &external{kube: kube}
	if err := e.record(ctx, fresh, func(o *v1alpha1.JenkinsPipelineObservation) { o.HandledBuildRequest = "r2" }); err != nil {
		t.Fatalf("a record from a fresh read: %v", err)
	}
	err := e.record(ctx, stale, func(o *v1alpha1.JenkinsPipelineObservation) { o.HandledBuildRequest = "r1" })
	if !kerrors.IsConflict(err) {
		t.Errorf("a record from a stale read must conflict, got %v", err)
	}
	got := &v1alpha1.JenkinsPipeline{}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(cr), got); err != nil {
		t.Fatal(err)
	}
	if got.Status.AtProvider.HandledBuildRequest != "r2" {
		t.Errorf("the newer record was overwritten: %q", got.Status.AtProvider.HandledBuildRequest)
	}
}

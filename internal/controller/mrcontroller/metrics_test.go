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

package mrcontroller

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
)

// TestDeleting: the gauge says, per namespace and kind, the longest any
// managed resource has been deleting, 0 where none is, and nothing on a
// standby (its manager not elected).
func TestDeleting(t *testing.T) {
	s := runtime.NewScheme()
	if err := jenkinsv1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	pipeline := func(ns, name string, deletingFor time.Duration) *jenkinsv1alpha1.JenkinsPipeline {
		p := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
		if deletingFor > 0 {
			p.DeletionTimestamp = &metav1.Time{Time: now.Add(-deletingFor)}
			p.Finalizers = []string{"finalizer.managedresource.crossplane.io"}
		}
		return p
	}
	kube := fake.NewClientBuilder().WithScheme(s).WithObjects(
		pipeline("team-a", "stuck", 20*time.Minute), pipeline("team-a", "fresh", time.Minute), pipeline("team-a", "fine", 0),
		pipeline("team-b", "fine", 0)).Build()
	elected := make(chan struct{})
	d := &deletingCollector{desc: deleting.desc, kinds: map[string]kindList{}, now: func() time.Time { return now }}
	d.add("JenkinsPipeline", kube, func() resource.ManagedList { return &jenkinsv1alpha1.JenkinsPipelineList{} }, elected)
	if n := testutil.CollectAndCount(d); n != 0 {
		t.Errorf("a standby reported %d series, want none", n)
	}
	close(elected)
	want := `
# HELP provider_devops_managed_deleting_seconds The longest any managed resource of the kind in the namespace has been deleting (deletion requested, still there), by namespace and kind; 0 when none is.
# TYPE provider_devops_managed_deleting_seconds gauge
provider_devops_managed_deleting_seconds{kind="JenkinsPipeline",namespace="team-a"} 1200
provider_devops_managed_deleting_seconds{kind="JenkinsPipeline",namespace="team-b"} 0
`
	if err := testutil.CollectAndCompare(d, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}

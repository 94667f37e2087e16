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
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/contract"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/events/vocab"
)

// TestPersistInitialized: an Observe that finds the external object writes
// the resource only when its finalizer or external name is missing.
func TestPersistInitialized(t *testing.T) {
	s := runtime.NewScheme()
	if err := jenkinsv1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		stored    func(p *jenkinsv1alpha1.JenkinsPipeline)
		wantWrite bool
	}{
		"Initialized":     {stored: func(*jenkinsv1alpha1.JenkinsPipeline) {}},
		"NoFinalizer":     {stored: func(p *jenkinsv1alpha1.JenkinsPipeline) { p.SetFinalizers(nil) }, wantWrite: true},
		"NoExternalName":  {stored: func(p *jenkinsv1alpha1.JenkinsPipeline) { p.SetAnnotations(nil) }, wantWrite: true},
		"AnotherExternal": {stored: func(p *jenkinsv1alpha1.JenkinsPipeline) { meta.SetExternalName(p, "elsewhere") }, wantWrite: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "shop-dev", Namespace: "team"}}
			meta.SetExternalName(p, "teams/team/shop/dev")
			meta.AddFinalizer(p, managed.FinalizerName)
			tc.stored(p)
			kube := fake.NewClientBuilder().WithScheme(s).WithObjects(p).WithStatusSubresource(p).Build()
			cr := &jenkinsv1alpha1.JenkinsPipeline{}
			if err := kube.Get(context.Background(), client.ObjectKeyFromObject(p), cr); err != nil {
				t.Fatal(err)
			}
			meta.AddFinalizer(cr, managed.FinalizerName)
			meta.SetExternalName(cr, "teams/team/shop/dev")
			rv := cr.GetResourceVersion()
			if err := persistInitialized(context.Background(), kube, cr); err != nil {
				t.Fatal(err)
			}
			got := &jenkinsv1alpha1.JenkinsPipeline{}
			if err := kube.Get(context.Background(), client.ObjectKeyFromObject(p), got); err != nil {
				t.Fatal(err)
			}
			if wrote := got.GetResourceVersion() != rv; wrote != tc.wantWrite {
				t.Errorf("wrote %t, want %t", wrote, tc.wantWrite)
			}
			if !meta.FinalizerExists(got, managed.FinalizerName) || meta.GetExternalName(got) != "teams/team/shop/dev" {
				t.Errorf("finalizers %v, external name %q stored", got.GetFinalizers(), meta.GetExternalName(got))
			}
		})
	}
}

// TestCreateCutShort covers when a look that finds the external object,
// with no create of this replica's to record, records one a provider
// stopped before recording.
func TestCreateCutShort(t *testing.T) {
	now := time.Now()
	observed := func(p *jenkinsv1alpha1.JenkinsPipeline) { p.SetConditions(xpv2.ReconcileSuccess()) }
	cases := map[string]struct {
		mg      func(p *jenkinsv1alpha1.JenkinsPipeline)
		earlier bool
		want    bool
	}{
		// An earlier reconcile connected, wrote no status, and the object
		// is there: it created it and stopped.
		"Stopped":        {mg: func(*jenkinsv1alpha1.JenkinsPipeline) {}, earlier: true, want: true},
		"FirstReconcile": {mg: func(*jenkinsv1alpha1.JenkinsPipeline) {}},
		"Observed":       {mg: observed, earlier: true},
		"Recorded": {earlier: true, mg: func(p *jenkinsv1alpha1.JenkinsPipeline) {
			p.SetConditions(vocab.Created(now.Add(-time.Minute)))
		}},
		"ObserveOnly": {earlier: true, mg: func(p *jenkinsv1alpha1.JenkinsPipeline) {
			p.SetManagementPolicies(xpv2.ManagementPolicies{xpv2.ManagementActionObserve})
		}},
		// An earlier version's annotations.
		"PendingOfAnEarlierVersion": {want: true, mg: func(p *jenkinsv1alpha1.JenkinsPipeline) {
			observed(p)
			meta.SetExternalCreatePending(p, now.Add(-time.Minute))
		}},
		"SucceededOfAnEarlierVersion": {mg: func(p *jenkinsv1alpha1.JenkinsPipeline) {
			observed(p)
			meta.SetExternalCreatePending(p, now.Add(-time.Minute))
			meta.SetExternalCreateSucceeded(p, now.Add(-time.Minute+time.Second))
		}},
		// A pending time to come is no create of this provider's (anyone
		// who may edit the resource can write it): recording it would
		// write again on every poll.
		"PendingInTheFuture": {mg: func(p *jenkinsv1alpha1.JenkinsPipeline) {
			observed(p)
			meta.SetExternalCreatePending(p, now.Add(time.Hour))
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "shop-dev", Namespace: "team"}}
			tc.mg(p)
			if got := createCutShort(p, tc.earlier, now); got != tc.want {
				t.Errorf("createCutShort: %t, want %t", got, tc.want)
			}
		})
	}
}

// TestFinalizerManaged: the function's copy of crossplane-runtime's
// finalizer is the one the managed reconciler removes.
func TestFinalizerManaged(t *testing.T) {
	if contract.FinalizerManaged != managed.FinalizerName {
		t.Errorf("contract.FinalizerManaged %q, crossplane-runtime's %q", contract.FinalizerManaged, managed.FinalizerName)
	}
}

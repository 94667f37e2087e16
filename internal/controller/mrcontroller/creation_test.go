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

// TestPersistInitialized covers what an Observe that finds the external
// object writes: nothing when all is recorded; the finalizer and external
// name when missing; and, in the status the reconcile writes, the Created
// condition when a create began (the provider's pending annotation, or
// crossplane-runtime's from a version before it) and was not recorded.
func TestPersistInitialized(t *testing.T) {
	s := runtime.NewScheme()
	if err := jenkinsv1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	pending := time.Now().Add(-time.Minute)
	at := func(t time.Time) string { return t.Format(time.RFC3339) }
	cases := map[string]struct {
		stored      func(p *jenkinsv1alpha1.JenkinsPipeline)
		wantWrite   bool
		wantCreated bool
	}{
		"Recorded": {
			stored: func(p *jenkinsv1alpha1.JenkinsPipeline) {
				meta.AddAnnotations(p, map[string]string{contract.AnnotationCreatePending: at(pending)})
				p.SetConditions(vocab.Created(pending.Add(time.Second)))
			},
		},
		"RecordedByAnEarlierVersion": {
			stored: func(p *jenkinsv1alpha1.JenkinsPipeline) {
				meta.SetExternalCreatePending(p, pending)
				meta.SetExternalCreateSucceeded(p, pending.Add(time.Second))
			},
		},
		"NeverCreated": {stored: func(*jenkinsv1alpha1.JenkinsPipeline) {}},
		"Uninitialized": {
			stored:    func(p *jenkinsv1alpha1.JenkinsPipeline) { p.SetFinalizers(nil) },
			wantWrite: true,
		},
		"CrashedMidCreate": {
			stored: func(p *jenkinsv1alpha1.JenkinsPipeline) {
				meta.AddAnnotations(p, map[string]string{contract.AnnotationCreatePending: at(pending)})
			},
			wantCreated: true,
		},
		"CrashedMidCreateOfAnEarlierVersion": {
			stored:      func(p *jenkinsv1alpha1.JenkinsPipeline) { meta.SetExternalCreatePending(p, pending) },
			wantCreated: true,
		},
		// Created again (its external object was deleted behind its
		// back): recorded again.
		"CreatedAgain": {
			stored: func(p *jenkinsv1alpha1.JenkinsPipeline) {
				meta.AddAnnotations(p, map[string]string{contract.AnnotationCreatePending: at(pending)})
				p.SetConditions(vocab.Created(pending.Add(-time.Hour)))
			},
			wantCreated: true,
		},
		// A pending time to come is no create of this provider's (anyone
		// who may edit the resource can write it): recording it would
		// write again on every poll.
		"PendingInTheFuture": {
			stored: func(p *jenkinsv1alpha1.JenkinsPipeline) {
				meta.AddAnnotations(p, map[string]string{contract.AnnotationCreatePending: at(time.Now().Add(time.Hour))})
			},
		},
		// An observe-only resource creates nothing.
		"ObserveOnly": {
			stored: func(p *jenkinsv1alpha1.JenkinsPipeline) {
				meta.AddAnnotations(p, map[string]string{contract.AnnotationCreatePending: at(pending)})
				p.SetManagementPolicies(xpv2.ManagementPolicies{xpv2.ManagementActionObserve})
			},
		},
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
			before := vocab.CreatedAt(cr)
			meta.AddFinalizer(cr, managed.FinalizerName)
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
			if recorded := !vocab.CreatedAt(cr).Equal(before); recorded != tc.wantCreated {
				t.Errorf("create recorded %t, want %t: conditions %+v", recorded, tc.wantCreated, cr.Status.Conditions)
			}
			if !meta.FinalizerExists(got, managed.FinalizerName) {
				t.Error("finalizer not stored")
			}
		})
	}
}

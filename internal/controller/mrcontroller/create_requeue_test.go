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
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/contract"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/events/vocab"
)

type fakeManager struct {
	manager.Manager
	c client.Client
	s *runtime.Scheme
}

func (m fakeManager) GetClient() client.Client   { return m.c }
func (m fakeManager) GetScheme() *runtime.Scheme { return m.s }

// backend holds one external object once it is created.
type backend struct {
	managed.TypedExternalClient[*jenkinsv1alpha1.JenkinsPipeline]
	exists bool
}

func (b *backend) Observe(context.Context, *jenkinsv1alpha1.JenkinsPipeline) (managed.ExternalObservation, error) {
	return managed.ExternalObservation{ResourceExists: b.exists, ResourceUpToDate: true}, nil
}
func (b *backend) Create(context.Context, *jenkinsv1alpha1.JenkinsPipeline) (managed.ExternalCreation, error) {
	b.exists = true
	return managed.ExternalCreation{}, nil
}
func (b *backend) Disconnect(context.Context) error { return nil }

// TestCreateWritesOnceBeforeItsStatus runs the managed reconciler as Setup
// wires it over a resource nobody initialized, on the API server's fake:
// the reconcile that creates the external object writes the resource once,
// before the create (finalizer, external name, the provider's pending
// annotation, none of crossplane-runtime's), whose watch event is the next
// look, so it asks for no requeue; the next reconcile records
// the create as the Created condition in the status it writes, and
// writes the object no more. A provider stopped between the two records
// it on its first look after (TestPersistInitialized).
func TestCreateWritesOnceBeforeItsStatus(t *testing.T) {
	s := runtime.NewScheme()
	if err := jenkinsv1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	p := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team"}}
	var updates, statuses int
	kube := fake.NewClientBuilder().WithScheme(s).WithObjects(p).WithStatusSubresource(p).WithInterceptorFuncs(interceptor.Funcs{
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			updates++
			return c.Update(ctx, obj, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			statuses++
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
	}).Build()
	w := newWritten()
	ts := &terminals{w: w}
	be := &backend{}
	r := managed.NewReconciler(skipNoopStatus{Manager: fakeManager{c: kube, s: s}, w: w}, resource.ManagedKind(jenkinsv1alpha1.JenkinsPipelineGroupVersionKind),
		managed.WithTypedExternalConnector[*jenkinsv1alpha1.JenkinsPipeline](persistConnector[*jenkinsv1alpha1.JenkinsPipeline]{
			TypedExternalConnector: classifyConnector[*jenkinsv1alpha1.JenkinsPipeline]{TypedExternalConnector: connectorOf(be), t: ts, kind: "JenkinsPipeline"},
			kube:                   writtenClient{Client: kube, w: w},
		}),
		managed.WithDeterministicExternalName(true),
		managed.WithInitializers(initializer[*jenkinsv1alpha1.JenkinsPipeline]{}),
		managed.WithCriticalAnnotationUpdater(noCriticalAnnotations),
	)
	req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(p)}
	get := func() *jenkinsv1alpha1.JenkinsPipeline {
		got := &jenkinsv1alpha1.JenkinsPipeline{}
		if err := kube.Get(context.Background(), req.NamespacedName, got); err != nil {
			t.Fatal(err)
		}
		return got
	}

	pending := &jenkinsv1alpha1.JenkinsPipeline{}
	_ = kube.Get(context.Background(), req.NamespacedName, pending)
	res, err := (backOffTerminal{Reconciler: r, t: ts}).Reconcile(context.Background(), req)
	got := get()
	// The Update's watch event passes the controller's filter.
	if err != nil || (res != reconcile.Result{}) || !resource.DesiredStateChanged().Update(event.UpdateEvent{ObjectOld: pending, ObjectNew: got}) {
		t.Fatalf("create: got %+v, %v; want no requeue, and a write that wakes the resource", res, err)
	}
	if !be.exists || updates != 1 || statuses != 0 {
		t.Errorf("create: created %t with %d updates and %d status writes, want one update and no status", be.exists, updates, statuses)
	}
	a := got.GetAnnotations()
	if a[contract.AnnotationCreatePending] == "" || a[meta.AnnotationKeyExternalCreatePending] != "" || a[meta.AnnotationKeyExternalCreateSucceeded] != "" {
		t.Errorf("create: annotations %v, want the provider's pending one alone", a)
	}
	if !meta.FinalizerExists(got, managed.FinalizerName) || meta.GetExternalName(got) != "shop" {
		t.Errorf("create: finalizer %v, external name %q", got.GetFinalizers(), meta.GetExternalName(got))
	}
	if !vocab.CreatedAt(got).IsZero() {
		t.Error("create: recorded before the create was observed")
	}

	if _, err := (backOffTerminal{Reconciler: r, t: ts}).Reconcile(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	got = get()
	if updates != 1 || statuses != 1 {
		t.Errorf("observe: %d updates and %d status writes in all, want 1 and 1", updates, statuses)
	}
	if at := vocab.CreatedAt(got); at.IsZero() || time.Since(at) > time.Minute {
		t.Errorf("observe: created at %v, conditions %+v", at, got.Status.Conditions)
	}

	// Polls after it write nothing, and keep the record.
	if _, err := (backOffTerminal{Reconciler: r, t: ts}).Reconcile(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if updates != 1 || statuses != 1 || vocab.CreatedAt(get()).IsZero() {
		t.Errorf("poll: %d updates, %d status writes in all, want 1 and 1", updates, statuses)
	}
}

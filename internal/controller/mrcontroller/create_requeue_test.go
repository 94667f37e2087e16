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

	"k8s.io/apimachinery/pkg/api/equality"
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
// wires it, on the API server's fake, over a resource nobody initialized
// and over one composed with its finalizer and external name. The
// reconcile that creates the external object writes the first once (its
// finalizer and external name, no create annotation), whose watch event is
// the next look, so it asks for no requeue; the second not at all (the
// Update before the create changes nothing, and the API server makes no
// write of that), so it asks for the look itself. The next reconcile
// records the create as the Created condition in the status it writes,
// and writes the object no more; polls after it write nothing.
func TestCreateWritesOnceBeforeItsStatus(t *testing.T) {
	s := runtime.NewScheme()
	if err := jenkinsv1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	for name, composed := range map[string]bool{"HandWritten": false, "Composed": true} {
		t.Run(name, func(t *testing.T) {
			p := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team", UID: "uid-1"}}
			wantUpdates, wantResult := 1, reconcile.Result{}
			if composed {
				meta.AddFinalizer(p, managed.FinalizerName)
				meta.SetExternalName(p, "shop")
				wantUpdates, wantResult = 0, reconcile.Result{RequeueAfter: followCreate}
			}
			var updates, statuses int
			kube := fake.NewClientBuilder().WithScheme(s).WithObjects(p).WithStatusSubresource(p).WithInterceptorFuncs(interceptor.Funcs{
				Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
					stored := &jenkinsv1alpha1.JenkinsPipeline{}
					if err := c.Get(ctx, client.ObjectKeyFromObject(obj), stored); err == nil && stored.GetResourceVersion() == obj.GetResourceVersion() &&
						equality.Semantic.DeepEqual(stored.GetAnnotations(), obj.GetAnnotations()) && equality.Semantic.DeepEqual(stored.GetFinalizers(), obj.GetFinalizers()) {
						// The API server makes no write of an Update
						// that changes nothing (and refuses one from a
						// stale version, as the fake does).
						return nil
					}
					updates++
					return c.Update(ctx, obj, opts...)
				},
				SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
					statuses++
					return c.SubResource(sub).Update(ctx, obj, opts...)
				},
			}).Build()
			w, ts := newTracking()
			be := &backend{}
			r := managed.NewReconciler(skipNoopStatus{Manager: fakeManager{c: kube, s: s}, w: w}, resource.ManagedKind(jenkinsv1alpha1.JenkinsPipelineGroupVersionKind),
				managed.WithTypedExternalConnector[*jenkinsv1alpha1.JenkinsPipeline](persistConnector[*jenkinsv1alpha1.JenkinsPipeline]{
					TypedExternalConnector: classifyConnector[*jenkinsv1alpha1.JenkinsPipeline]{TypedExternalConnector: connectorOf(be), t: ts, kind: "JenkinsPipeline"},
					kube:                   writtenClient{Client: kube, w: w},
					accepted:               newCreates(),
				}),
				managed.WithDeterministicExternalName(true),
				managed.WithInitializers(initializer[*jenkinsv1alpha1.JenkinsPipeline]{}),
				managed.WithCriticalAnnotationUpdater(managed.CriticalAnnotationUpdateFn(noCriticalAnnotations)),
			)
			req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(p)}
			get := func() *jenkinsv1alpha1.JenkinsPipeline {
				got := &jenkinsv1alpha1.JenkinsPipeline{}
				if err := kube.Get(context.Background(), req.NamespacedName, got); err != nil {
					t.Fatal(err)
				}
				return got
			}

			before := get()
			res, err := (backOffTerminal{Reconciler: r, t: ts}).Reconcile(context.Background(), req)
			got := get()
			if err != nil || res != wantResult {
				t.Fatalf("create: got %+v, %v; want %+v", res, err, wantResult)
			}
			if woken := resource.DesiredStateChanged().Update(event.UpdateEvent{ObjectOld: before, ObjectNew: got}); woken != !composed {
				t.Errorf("create: its write wakes the resource %t, want %t", woken, !composed)
			}
			if !be.exists || updates != wantUpdates || statuses != 0 {
				t.Errorf("create: created %t with %d updates and %d status writes, want %d and none", be.exists, updates, statuses, wantUpdates)
			}
			if a := got.GetAnnotations(); a[meta.AnnotationKeyExternalCreatePending] != "" || a[meta.AnnotationKeyExternalCreateSucceeded] != "" {
				t.Errorf("create: annotations %v, want none of crossplane-runtime's create annotations", a)
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
			if updates != wantUpdates || statuses != 1 {
				t.Errorf("observe: %d updates and %d status writes in all, want %d and 1", updates, statuses, wantUpdates)
			}
			if at := vocab.CreatedAt(got); at.IsZero() || time.Since(at) > time.Minute {
				t.Errorf("observe: created at %v, conditions %+v", at, got.Status.Conditions)
			}

			if _, err := (backOffTerminal{Reconciler: r, t: ts}).Reconcile(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			if updates != wantUpdates || statuses != 1 || vocab.CreatedAt(get()).IsZero() {
				t.Errorf("poll: %d updates, %d status writes in all, want %d and 1", updates, statuses, wantUpdates)
			}
		})
	}
}

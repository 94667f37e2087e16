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

	kerrors "k8s.io/apimachinery/pkg/api/errors"
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
)

type fakeManager struct {
	manager.Manager
	c client.Client
	s *runtime.Scheme
}

func (m fakeManager) GetClient() client.Client   { return m.c }
func (m fakeManager) GetScheme() *runtime.Scheme { return m.s }

// absentThenAccepting: Observe finds nothing, Create is accepted.
type absentThenAccepting struct {
	managed.TypedExternalClient[*jenkinsv1alpha1.JenkinsPipeline]
}

func (absentThenAccepting) Observe(context.Context, *jenkinsv1alpha1.JenkinsPipeline) (managed.ExternalObservation, error) {
	return managed.ExternalObservation{ResourceExists: false}, nil
}
func (absentThenAccepting) Create(context.Context, *jenkinsv1alpha1.JenkinsPipeline) (managed.ExternalCreation, error) {
	return managed.ExternalCreation{}, nil
}
func (absentThenAccepting) Disconnect(context.Context) error { return nil }

// TestNoRequeueOnlyAfterCreateSucceededWrite runs the managed reconciler:
// the backend accepts the Create. When the create-succeeded annotation is
// written, its watch event (which passes DesiredStateChanged) is the next
// look, and nothing is requeued. When that write fails with a transient
// error (every retry: an API server shedding load) and the status write
// that follows succeeds, that status write's event does not pass the
// filter: the reconcile must requeue, or nothing ever looks again.
func TestNoRequeueOnlyAfterCreateSucceededWrite(t *testing.T) {
	s := runtime.NewScheme()
	if err := jenkinsv1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	for name, annotationFails := range map[string]bool{"Annotated": false, "AnnotationWriteFailed": true} {
		t.Run(name, func(t *testing.T) {
			p := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team", Finalizers: []string{managed.FinalizerName}}}
			meta.SetExternalName(p, "shop")
			kube := fake.NewClientBuilder().WithScheme(s).WithObjects(p).WithStatusSubresource(p).WithInterceptorFuncs(interceptor.Funcs{
				Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
					if _, ok := obj.GetAnnotations()[meta.AnnotationKeyExternalCreateSucceeded]; ok && annotationFails {
						return kerrors.NewTooManyRequests("the API server is busy", 1)
					}
					return c.Update(ctx, obj, opts...)
				},
			}).Build()
			w := newWritten()
			ts := &terminals{w: w}
			r := managed.NewReconciler(skipNoopStatus{Manager: fakeManager{c: kube, s: s}, w: w}, resource.ManagedKind(jenkinsv1alpha1.JenkinsPipelineGroupVersionKind),
				managed.WithTypedExternalConnector[*jenkinsv1alpha1.JenkinsPipeline](classifyConnector[*jenkinsv1alpha1.JenkinsPipeline]{TypedExternalConnector: connectorOf(absentThenAccepting{}), t: ts, kind: "JenkinsPipeline"}),
				managed.WithDeterministicExternalName(true),
				managed.WithInitializers(),
			)
			req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(p)}
			pending := &jenkinsv1alpha1.JenkinsPipeline{}
			_ = kube.Get(context.Background(), req.NamespacedName, pending)
			res, err := backOffTerminal{Reconciler: r, t: ts}.Reconcile(context.Background(), req)
			after := &jenkinsv1alpha1.JenkinsPipeline{}
			_ = kube.Get(context.Background(), req.NamespacedName, after)
			// Whether the writes this reconcile made wake the resource.
			woken := resource.DesiredStateChanged().Update(event.UpdateEvent{ObjectOld: pending, ObjectNew: after})
			if err != nil || (res == reconcile.Result{}) && !woken {
				t.Errorf("nothing looks at the resource again: result %+v, %v; its writes pass the filter: %t (annotations %v)", res, err, woken, after.GetAnnotations())
			}
			if want := !annotationFails; (res == reconcile.Result{}) != want {
				t.Errorf("requeue %+v, want none: %t", res, want)
			}
		})
	}
}

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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

func TestNoopStatusUpdatesAreSkipped(t *testing.T) {
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}
	writes := 0
	kube := fake.NewClientBuilder().WithObjects(ns).WithStatusSubresource(ns).WithInterceptorFuncs(interceptor.Funcs{
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			writes++
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
	}).Build()
	c := noopStatusClient{Client: kube}

	got := &corev1.Namespace{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(ns), got); err != nil {
		t.Fatal(err)
	}
	if err := c.Status().Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	if writes != 0 {
		t.Fatalf("an unchanged status was written %d times", writes)
	}
	got.Status.Phase = corev1.NamespaceTerminating
	if err := c.Status().Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	if writes != 1 {
		t.Fatalf("a changed status must be written once, got %d writes", writes)
	}
}

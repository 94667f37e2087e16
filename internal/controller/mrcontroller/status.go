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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// skipNoopStatus gives the managed reconciler a client whose status writes
// are skipped when they would change nothing. crossplane-runtime writes the
// status at the end of every reconcile, also when a poll found the resource
// up to date; each such write is an API request (a PUT the API server then
// discards as a no-op). Skipping it is safe: the object compared with is the
// cached one the reconcile started from, so an update would either change
// nothing or, against a newer version, fail with a conflict.
type skipNoopStatus struct {
	manager.Manager
	w *written
}

// GetClient returns the filtering client, which notes what it writes.
func (m skipNoopStatus) GetClient() client.Client {
	return noopStatusClient{Client: pendingClient{writtenClient{Client: m.Manager.GetClient(), w: m.w}}}
}

type noopStatusClient struct {
	client.Client
}

func (c noopStatusClient) Status() client.SubResourceWriter {
	return noopStatusWriter{SubResourceWriter: c.Client.Status(), reader: c.Client}
}

type noopStatusWriter struct {
	client.SubResourceWriter
	reader client.Reader
}

// Update skips the write when the cached object is identical, and the
// Creating status crossplane-runtime writes right after an external create
// (see creation.go): the reconcile that observes the new object follows at
// once and writes what it found.
func (w noopStatusWriter) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	if len(opts) == 0 {
		cached, ok := obj.DeepCopyObject().(client.Object)
		if ok && w.reader.Get(ctx, client.ObjectKeyFromObject(obj), cached) == nil && (equality.Semantic.DeepEqual(cached, obj) || justCreated(cached, obj)) {
			return nil
		}
	}
	return w.SubResourceWriter.Update(ctx, obj, opts...)
}

// justCreated is true for the status crossplane-runtime writes after
// creating the external object of a resource that has none yet: Creating
// and ReconcileSuccess, where the stored object has no conditions.
func justCreated(cached, obj client.Object) bool {
	was, okc := cached.(resource.Managed)
	mg, ok := obj.(resource.Managed)
	if !ok || !okc || was.GetCondition(xpv2.TypeSynced).Status != corev1.ConditionUnknown || was.GetCondition(xpv2.TypeReady).Status != corev1.ConditionUnknown {
		return false
	}
	return mg.GetCondition(xpv2.TypeReady).Reason == xpv2.ReasonCreating && mg.GetCondition(xpv2.TypeSynced).Reason == xpv2.ReasonReconcileSuccess
}

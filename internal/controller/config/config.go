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

// Package config runs the ProviderConfig and ClusterProviderConfig
// controllers: they count the managed resources using each config (status
// users) and keep a config that is in use from being deleted.
package config

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	xpevent "github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/providerconfig"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/controller/fairrate"
)

// Setup adds both config controllers.
func Setup(mgr ctrl.Manager, o controller.Options) error {
	if err := setup(mgr, o, v1alpha1.ProviderConfigGroupKind, v1alpha1.ProviderConfigGroupVersionKind, v1alpha1.ProviderConfigKind, &v1alpha1.ProviderConfig{}); err != nil {
		return err
	}
	return setup(mgr, o, v1alpha1.ClusterProviderConfigGroupKind, v1alpha1.ClusterProviderConfigGroupVersionKind, v1alpha1.ClusterProviderConfigKind, &v1alpha1.ClusterProviderConfig{})
}

// setup adds one config controller. Both kinds count namespaced
// ProviderConfigUsages: a namespaced managed resource records its usage in its
// own namespace whichever config kind it references (labelled with that kind),
// since a cluster-scoped usage could not be owned by a namespaced resource.
func setup(mgr ctrl.Manager, o controller.Options, groupKind string, gvk schema.GroupVersionKind, kind string, obj resource.ProviderConfig) error {
	name := providerconfig.ControllerName(groupKind)
	of := resource.ProviderConfigKinds{
		Config:    gvk,
		Usage:     v1alpha1.ProviderConfigUsageGroupVersionKind,
		UsageList: v1alpha1.ProviderConfigUsageListGroupVersionKind,
	}
	r := providerconfig.NewReconciler(quiet{mgr}, of,
		providerconfig.WithLogger(o.Logger.WithValues("controller", name)),
		providerconfig.WithRecorder(xpevent.NewAPIRecorder(mgr.GetEventRecorderFor(name)))) //nolint:staticcheck // crossplane-runtime still takes the old recorder.

	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		For(obj).
		Watches(&v1alpha1.ProviderConfigUsage{}, batched{&resource.EnqueueRequestForProviderConfig{Kind: kind}}).
		Complete(fairrate.Limit(name, r, o.GlobalRateLimiter))
}

// usageBatch is how long a config waits after a usage changes before it
// counts its users again: the usages of a burst of new resources (a project,
// a migration) are counted once, not once each.
const usageBatch = 2 * time.Second

// batched enqueues its config usageBatch after a usage event; the queue
// merges the requests for one config made meanwhile.
type batched struct {
	handler.TypedEventHandler[client.Object, reconcile.Request]
}

func (b batched) Create(ctx context.Context, e event.TypedCreateEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	b.TypedEventHandler.Create(ctx, e, later{q})
}

func (b batched) Update(ctx context.Context, e event.TypedUpdateEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	b.TypedEventHandler.Update(ctx, e, later{q})
}

func (b batched) Delete(ctx context.Context, e event.TypedDeleteEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	b.TypedEventHandler.Delete(ctx, e, later{q})
}

func (b batched) Generic(ctx context.Context, e event.TypedGenericEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	b.TypedEventHandler.Generic(ctx, e, later{q})
}

// later turns the handler's Add into an AddAfter of usageBatch.
type later struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
}

func (l later) Add(r reconcile.Request) { l.AddAfter(r, usageBatch) }

// quiet gives the config reconciler a client that skips writes changing
// nothing: crossplane-runtime's reconciler writes the config (its finalizer)
// and its status (users) on every count, also when both are as stored.
// Compared with the cached object of the same resource version, so a write
// against a newer version is still made (and fails with a conflict).
type quiet struct {
	manager.Manager
}

func (q quiet) GetClient() client.Client { return quietClient{q.Manager.GetClient()} }

type quietClient struct {
	client.Client
}

// List counts only the usages managed resources really hold (realUsages).
func (c quietClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if err := c.Client.List(ctx, list, opts...); err != nil {
		return err
	}
	if l, ok := list.(*v1alpha1.ProviderConfigUsageList); ok {
		l.Items = realUsages(ctx, c.Client, c.Scheme(), l.Items)
	}
	return nil
}

func (c quietClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	if len(opts) == 0 && unchanged(ctx, c.Client, obj) {
		return nil
	}
	return c.Client.Update(ctx, obj, opts...)
}

func (c quietClient) Status() client.SubResourceWriter {
	return quietStatus{SubResourceWriter: c.Client.Status(), reader: c.Client}
}

type quietStatus struct {
	client.SubResourceWriter
	reader client.Reader
}

func (w quietStatus) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	if len(opts) == 0 && unchanged(ctx, w.reader, obj) {
		return nil
	}
	return w.SubResourceWriter.Update(ctx, obj, opts...)
}

// unchanged is true when the cached object is obj, resource version
// included.
func unchanged(ctx context.Context, r client.Reader, obj client.Object) bool {
	cached, ok := obj.DeepCopyObject().(client.Object)
	return ok && r.Get(ctx, client.ObjectKeyFromObject(obj), cached) == nil && equality.Semantic.DeepEqual(cached, obj)
}

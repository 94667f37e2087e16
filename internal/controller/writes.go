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

package controller

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// Writes counts the writes the controllers make to the API server, by
// kind and verb, whether the API server accepted them or not: what client-go's rest_client_requests_total cannot tell
// apart from leader election's lease renewals (a PUT every two seconds).
// Kinds are the provider's own and the few core kinds it writes, so the
// labels stay bounded.
type Writes struct{ *prometheus.CounterVec }

// NewWrites returns the counter provider_devops_kube_writes_total; register
// it with the metrics registry.
func NewWrites() *Writes {
	return &Writes{prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "provider_devops_kube_writes_total",
		Help: "Writes the provider's controllers sent to the API server, accepted or not, by kind and verb (create, update, patch, delete, deleteallof, and status- prefixed for the status subresource).",
	}, []string{"kind", "verb"})}
}

// NewClient is a manager's NewClient (ctrl.Options.NewClient) whose clients
// count their writes. The provider makes no dry-run writes; Events (their
// own recorder's client) and lease renewals are not counted.
func (w *Writes) NewClient(cfg *rest.Config, o client.Options) (client.Client, error) {
	c, err := client.NewWithWatch(cfg, o)
	if err != nil {
		return nil, err
	}
	// Attempts are counted, refused ones too: a write retried on
	// conflict in a loop is what this counter is for.
	count := func(obj runtime.Object, verb string, err error) error {
		kind := "unknown"
		if gvk, gerr := apiutil.GVKForObject(obj, c.Scheme()); gerr == nil {
			kind = gvk.Kind
		}
		w.WithLabelValues(kind, verb).Inc()
		return err
	}
	return interceptor.NewClient(c, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return count(obj, "create", c.Create(ctx, obj, opts...))
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return count(obj, "update", c.Update(ctx, obj, opts...))
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			return count(obj, "patch", c.Patch(ctx, obj, p, opts...))
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			// An apply configuration has no Go type of a kind.
			w.WithLabelValues("unknown", "apply").Inc()
			return c.Apply(ctx, obj, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			return count(obj, "delete", c.Delete(ctx, obj, opts...))
		},
		DeleteAllOf: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteAllOfOption) error {
			return count(obj, "deleteallof", c.DeleteAllOf(ctx, obj, opts...))
		},
		SubResourceCreate: func(ctx context.Context, c client.Client, sub string, obj, subObj client.Object, opts ...client.SubResourceCreateOption) error {
			return count(obj, sub+"-create", c.SubResource(sub).Create(ctx, obj, subObj, opts...))
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			return count(obj, sub+"-update", c.SubResource(sub).Update(ctx, obj, opts...))
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			return count(obj, sub+"-patch", c.SubResource(sub).Patch(ctx, obj, p, opts...))
		},
	}), nil
}

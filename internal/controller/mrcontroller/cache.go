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
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CacheOptions is how the manager running these controllers caches:
// Secrets only by their metadata (a kind's Watch of Secrets), with their
// annotations dropped, since kubectl's last-applied-configuration
// annotation holds a Secret's data; every object without its managed
// fields, which nothing here reads and which are about a third of a
// managed resource's size. syncPeriod may be nil.
func CacheOptions(syncPeriod *time.Duration) cache.Options {
	return cache.Options{
		SyncPeriod:       syncPeriod,
		DefaultTransform: cache.TransformStripManagedFields(),
		ByObject:         map[client.Object]cache.ByObject{&corev1.Secret{}: {Transform: withoutAnnotations}},
	}
}

// ClientOptions is how the manager's client reads: Secrets straight from
// the API server. A cache would list and watch every Secret in the
// cluster, holding all tenants' secrets in the provider's memory and
// needing list/watch on all of them. It also keeps a controller that is
// woken by a Secret's metadata from reading the Secret's old data from a
// second, slower cache, and finding nothing to do.
func ClientOptions() client.Options {
	return client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}}
}

// withoutAnnotations drops an object's annotations and managed fields
// before it is cached.
func withoutAnnotations(o any) (any, error) {
	if m, ok := o.(metav1.Object); ok {
		m.SetAnnotations(nil)
		m.SetManagedFields(nil)
	}
	return o, nil
}

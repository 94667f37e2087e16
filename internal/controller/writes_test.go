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
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

// TestWritesCounted: a client from Writes.NewClient counts its writes by
// kind and verb, status writes apart, refused ones too, and no read.
func TestWritesCounted(t *testing.T) {
	env := controlplane.Shared(t)
	w := NewWrites()
	c, err := w.NewClient(env.Config, client.Options{Scheme: env.Scheme})
	controlplane.Must(t, err)
	ctx := context.Background()
	ns := controlplane.Unique("writes")
	controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: ns}}
	controlplane.Must(t, c.Create(ctx, cm))
	if err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: ns}}); err == nil {
		t.Fatal("a second create of the same name succeeded")
	}
	controlplane.Must(t, c.Get(ctx, client.ObjectKeyFromObject(cm), cm))
	cm.Data = map[string]string{"k": "v"}
	controlplane.Must(t, c.Update(ctx, cm))
	ns2 := &corev1.Namespace{}
	controlplane.Must(t, c.Get(ctx, client.ObjectKey{Name: ns}, ns2))
	controlplane.Must(t, c.Status().Update(ctx, ns2))
	controlplane.Must(t, c.Delete(ctx, cm))
	for _, x := range []struct {
		kind, verb string
		want       float64
	}{
		{"Namespace", "create", 1}, {"ConfigMap", "create", 2}, {"ConfigMap", "update", 1},
		{"Namespace", "status-update", 1}, {"ConfigMap", "delete", 1}, {"ConfigMap", "patch", 0},
	} {
		if got := testutil.ToFloat64(w.WithLabelValues(x.kind, x.verb)); got != x.want {
			t.Errorf("%s %s: %v writes, want %v", x.kind, x.verb, got, x.want)
		}
	}
}

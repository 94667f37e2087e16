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

package controller_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/gate"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/customresourcesgate"

	"github.com/freeleaps/provider-devops/apis/contract"
	devops "github.com/freeleaps/provider-devops/internal/controller"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

// holdFinalizer keeps a deleted DNSRecord in the API server for as long
// as the test wants (the managed reconciler deletes the external record
// only once the other finalizers are gone).
const holdFinalizer = "test.devops.freeleaps.io/hold"

// TestDeleteAfter: an application whose delete-after annotation names
// DNSRecord keeps its Argo CD application, and says why, while its
// environment's DNS record exists; a record of another namespace with the
// same labels holds nothing. Once the record is gone the application is
// deleted from Argo CD within seconds, not at the next poll (a minute
// here).
func TestDeleteAfter(t *testing.T) {
	env := controlplane.Shared(t)
	f := startFakes(t)
	logs := &controlplane.Logs{}
	controlplane.StartManagerLogging(t, env, time.Minute, logs, func(mgr ctrl.Manager, o controller.Options) error {
		o.Gate = new(gate.Gate[schema.GroupVersionKind])
		if err := customresourcesgate.Setup(mgr, o); err != nil {
			return err
		}
		return devops.SetupGated(mgr, o, devops.Config{Guard: controlplane.TenantGuard()})
	})
	defer func() {
		if t.Failed() {
			t.Log(logs.Lines(40, "argoapplication"))
		}
	}()
	c := env.Client
	ctx := context.Background()
	ns, other := controlplane.Unique("delete-after"), controlplane.Unique("delete-after-other")
	create(t, c, f.objects(ns)...)
	create(t, c, f.objects(other)...)
	labels := map[string]string{contract.LabelProject: "shop", contract.LabelEnvironment: "prod"}
	mr := func(file, ns string, annotations map[string]string, finalizers ...string) *unstructured.Unstructured {
		u := loadExample(t, file)[0]
		u.SetNamespace(ns)
		u.SetLabels(labels)
		u.SetAnnotations(annotations)
		u.SetFinalizers(finalizers)
		return u
	}
	dns := mr("dns/dnsrecord.yaml", ns, nil, holdFinalizer)
	theirs := mr("dns/dnsrecord.yaml", other, nil, holdFinalizer)
	controlplane.Must(t, unstructured.SetNestedField(theirs.Object, "beta", "spec", "forProvider", "name"))
	app := mr("argocd/argoapplication.yaml", ns, map[string]string{contract.AnnotationDeleteAfter: "DNSRecord"})
	create(t, c, dns, theirs, app)
	release := func(u *unstructured.Unstructured) {
		p := []byte(`{"metadata":{"finalizers":null}}`)
		if err := c.Patch(ctx, u, client.RawPatch(types.MergePatchType, p)); client.IgnoreNotFound(err) != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { release(dns); release(theirs) })
	controlplane.Eventually(t, "the application in Argo CD", func() bool { return len(f.argo.Apps()) == 1 })

	// The record is deleted first, but stays (holdFinalizer): the
	// application waits for it, saying so, and stays in Argo CD.
	for _, u := range []*unstructured.Unstructured{dns, theirs, app} {
		controlplane.Must(t, c.Delete(ctx, u))
	}
	message := func(u *unstructured.Unstructured) string {
		if err := c.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
			return err.Error()
		}
		b, _ := json.Marshal(u.Object["status"])
		return string(b)
	}
	controlplane.Eventually(t, "the application waits for the record", func() bool {
		return strings.Contains(message(app), "waiting for DNSRecord/"+dns.GetName()+" to be deleted first")
	})
	if strings.Contains(message(app), other) || len(f.argo.Apps()) != 1 {
		t.Fatalf("the application did not wait for its own record alone: %s; applications in Argo CD: %v", message(app), f.argo.Apps())
	}
	start := time.Now()
	release(dns)
	controlplane.EventuallyWithin(t, 15*time.Second, "the application deleted from Argo CD once the record is gone", func() bool {
		return len(f.argo.Apps()) == 0
	})
	t.Logf("application deleted from Argo CD %s after the record was let go", time.Since(start).Round(100*time.Millisecond))
	// Created less than 30 s ago, the resource itself waits out the
	// managed reconciler's creation grace period.
	controlplane.Eventually(t, "the application's resource gone", func() bool { return c.Get(ctx, client.ObjectKeyFromObject(app), app) != nil })
}

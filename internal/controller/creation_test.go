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
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/customresourcesgate"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	dnsv1alpha1 "github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	registryv1alpha1 "github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	devops "github.com/freeleaps/provider-devops/internal/controller"
	"github.com/freeleaps/provider-devops/internal/controller/dnsrecord"
	"github.com/freeleaps/provider-devops/internal/controller/jenkinspipeline"
	"github.com/freeleaps/provider-devops/internal/controller/registryrepo"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

// TestCreationWrites holds a new managed resource of each kind to the
// writes of its creation: one Update before the external create (external
// name, finalizer), none after it, its ProviderConfigUsage, and no
// Creating status (its first status is the observed one, which records
// the create as the Created condition); no CreatedExternalResource event, and the
// ProviderConfig's own bookkeeping batched (one count for the burst). Then an Observe-only
// resource of an existing object (nothing created, so no Update before a
// create) still gets its finalizer and external name written.
func TestCreationWrites(t *testing.T) {
	f, counter, c, ns := startCounted(t, "creation-writes")
	ctx := context.Background()

	var mrs []*unstructured.Unstructured
	for _, file := range []string{"jenkins/jenkinspipeline.yaml", "dns/dnsrecord.yaml", "registry/registryrepo.yaml", "argocd/argoapplication.yaml"} {
		u := loadExample(t, file)[0]
		unstructured.RemoveNestedField(u.Object, "spec", "forProvider", "buildRequest")
		u.SetNamespace(ns)
		mrs = append(mrs, u)
	}
	// Let the provider see the ProviderConfig first: its controller's
	// finalizer and first count are not the resources'.
	time.Sleep(3 * time.Second)
	by0, ok0, creating0 := counter.snapshot(), counter.accepted(), counter.creating.Load()
	for _, u := range mrs {
		if err := c.Create(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	waitAll := func(mrs []*unstructured.Unstructured, ready func(*unstructured.Unstructured) bool) {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for {
			done := 0
			for _, u := range mrs {
				for _, name := range f.argo.Apps() {
					if app := f.argo.App(name); !strings.Contains(fmt.Sprint(app["status"]), "Synced") {
						f.argo.SetStatus(name, "Synced", "4f2a9c1", "Healthy", "", "Succeeded")
					}
				}
				if err := c.Get(ctx, client.ObjectKeyFromObject(u), u); err == nil && ready(u) {
					done++
				}
			}
			if done == len(mrs) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("only %d of %d managed resources as expected after 90s", done, len(mrs))
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	waitAll(mrs, func(u *unstructured.Unstructured) bool { return condition(u, "Ready") == "True" })
	// Writes that come after Ready (none should) are counted too.
	time.Sleep(3 * time.Second)
	by, ok := counter.snapshot(), counter.accepted()
	t.Logf("API requests of %d new managed resources until Ready:\n%s", len(mrs), breakdown(by0, by, float64(len(mrs))))
	// Writes the API server accepted: a status write that conflicts with
	// one made meanwhile (the pipeline records the folder it created at
	// once) and is made again counts once.
	grew := func(k string) int64 { return ok[k] - ok0[k] }
	for _, u := range mrs {
		plural := strings.ToLower(u.GetKind()) + "s"
		// The Update before the create, and none after it.
		if n := grew("PUT " + plural); n > 1 {
			t.Errorf("%s: %d Updates until Ready, want at most 1", u.GetKind(), n)
		}
	}
	// No Creating status is written: the first status is the observed
	// one. (How many statuses follow depends on the backend: an
	// application's sync, a transient error on a loaded machine.)
	if n := counter.creating.Load() - creating0; n > 0 {
		t.Errorf("%d status writes with Ready reason Creating, want none", n)
	}
	for k, want := range map[string]int64{
		"POST providerconfigusages": int64(len(mrs)),
		// Crossplane's CreatedExternalResource event is not sent.
		"POST events": 0,
		// The ProviderConfig counts its users once for the burst.
		"PUT providerconfigs":        1,
		"PUT providerconfigs/status": 1,
		// The Jenkins folder the pipeline created, recorded at once.
		"PATCH jenkinspipelines/status": 1,
	} {
		if n := grew(k); n > want {
			t.Errorf("%s: %d requests, want at most %d", k, n, want)
		}
	}
	for _, u := range mrs {
		if !meta.FinalizerExists(u, managed.FinalizerName) || meta.GetExternalName(u) == "" || condition(u, contract.ConditionCreated) != "True" {
			t.Errorf("%s %s: want its finalizer, external name and Created condition stored, got finalizers %v, annotations %v, status %v", u.GetKind(), u.GetName(), u.GetFinalizers(), u.GetAnnotations(), u.Object["status"])
		}
		if a := u.GetAnnotations(); a[meta.AnnotationKeyExternalCreatePending] != "" || a[meta.AnnotationKeyExternalCreateSucceeded] != "" {
			t.Errorf("%s %s: crossplane-runtime's create annotations written: %v", u.GetKind(), u.GetName(), a)
		}
	}
	evs := &corev1.EventList{}
	if err := c.List(ctx, evs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, e := range evs.Items {
		if e.Reason == "CreatedExternalResource" {
			t.Errorf("event %s %s on %s: the create is recorded by its Created condition and the event stream", e.Reason, e.Message, e.InvolvedObject.Name)
		}
		if t.Failed() || e.Type != corev1.EventTypeNormal {
			t.Logf("event on %s %s: %s %s (%d times)", e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, e.Message, e.Count)
		}
	}

	// The batched count is right: every resource counted.
	deadline := time.Now().Add(30 * time.Second)
	for {
		pc := &v1alpha1.ProviderConfig{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "default"}, pc); err != nil {
			t.Fatal(err)
		}
		if pc.Status.Users == int64(len(mrs)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ProviderConfig status.users %d, want %d", pc.Status.Users, len(mrs))
		}
		time.Sleep(200 * time.Millisecond)
	}

	// An Observe-only resource of the pipeline's job: it exists, so no
	// create, and the finalizer and external name are written anyway.
	observer := mrs[0].DeepCopy()
	observer.SetName(observer.GetName() + "-observer")
	observer.SetResourceVersion("")
	observer.SetAnnotations(map[string]string{meta.AnnotationKeyExternalName: meta.GetExternalName(mrs[0])})
	observer.SetFinalizers(nil)
	unstructured.RemoveNestedField(observer.Object, "status")
	controlplane.Must(t, unstructured.SetNestedStringSlice(observer.Object, []string{"Observe"}, "spec", "managementPolicies"))
	if err := c.Create(ctx, observer); err != nil {
		t.Fatal(err)
	}
	waitAll([]*unstructured.Unstructured{observer}, func(u *unstructured.Unstructured) bool {
		return condition(u, "Synced") == "True" && meta.FinalizerExists(u, managed.FinalizerName)
	})
}

// TestComposedCreationWrites: a resource created with its finalizer and
// external name, as the DevOpsProject function composes them, is not
// written before its first status: the Update before its create changes
// nothing, and the API server makes no write of it. Its composite's
// controller then sees it added and its status writes, nothing else.
func TestComposedCreationWrites(t *testing.T) {
	f, counter, c, ns := startCounted(t, "composed-writes")
	ctx := context.Background()

	var mrs []*unstructured.Unstructured
	for _, file := range []string{"jenkins/jenkinspipeline.yaml", "dns/dnsrecord.yaml", "registry/registryrepo.yaml", "argocd/argoapplication.yaml"} {
		u := asComposed(t, loadExample(t, file)[0])
		u.SetNamespace(ns)
		mrs = append(mrs, u)
	}
	time.Sleep(3 * time.Second)
	ok0 := counter.accepted()
	for _, u := range mrs {
		if err := c.Create(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(90 * time.Second)
	for _, u := range mrs {
		for {
			for _, name := range f.argo.Apps() {
				if app := f.argo.App(name); !strings.Contains(fmt.Sprint(app["status"]), "Synced") {
					f.argo.SetStatus(name, "Synced", "4f2a9c1", "Healthy", "", "Succeeded")
				}
			}
			if err := c.Get(ctx, client.ObjectKeyFromObject(u), u); err == nil && condition(u, "Ready") == "True" && condition(u, contract.ConditionCreated) == "True" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s %s not Ready and Created after 90s: %v", u.GetKind(), u.GetName(), u.Object["status"])
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	time.Sleep(3 * time.Second)
	ok := counter.accepted()
	for _, u := range mrs {
		plural := strings.ToLower(u.GetKind()) + "s"
		if n := ok["PUT "+plural] - ok0["PUT "+plural]; n > 0 {
			t.Errorf("%s: written %d times besides its status, want none", u.GetKind(), n)
		}
		if u.GetGeneration() != 1 {
			t.Errorf("%s: generation %d, want 1", u.GetKind(), u.GetGeneration())
		}
	}
}

// asComposed is u as the DevOpsProject function composes it: sent from its
// Go type, with its finalizer and the external name the provider gives it.
func asComposed(t *testing.T, u *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	unstructured.RemoveNestedField(u.Object, "spec", "forProvider", "buildRequest")
	var name string
	var typed resource.Managed
	conv := func(into resource.Managed) {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into); err != nil {
			t.Fatal(err)
		}
		typed = into
	}
	switch u.GetKind() {
	case "JenkinsPipeline":
		p := &jenkinsv1alpha1.JenkinsPipeline{}
		conv(p)
		name = jenkinspipeline.Descriptor.ExternalName(p)
	case "DNSRecord":
		r := &dnsv1alpha1.DNSRecord{}
		conv(r)
		name = dnsrecord.Descriptor.ExternalName(r)
	case "RegistryRepo":
		r := &registryv1alpha1.RegistryRepo{}
		conv(r)
		name = registryrepo.Descriptor.ExternalName(r)
	case "ArgoApplication":
		conv(&argov1alpha1.ArgoApplication{})
		name = u.GetName()
	default:
		t.Fatalf("no composed form of %s", u.GetKind())
	}
	meta.AddFinalizer(typed, managed.FinalizerName)
	meta.SetExternalName(typed, name)
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		t.Fatal(err)
	}
	out := &unstructured.Unstructured{Object: obj}
	out.SetGroupVersionKind(u.GroupVersionKind())
	return out
}

// startCounted starts the provider at its defaults against the shared API
// server, its requests counted, and the fakes, with a namespace (named
// from prefix) whose ProviderConfig points at them.
func startCounted(t *testing.T, prefix string) (fakes, *countingTransport, client.Client, string) {
	t.Helper()
	env := controlplane.Shared(t)
	f := startFakes(t)
	counter := &countingTransport{}
	cfg := devops.RESTConfig(env.Config, devops.DefaultMaxReconcileRate)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { counter.rt = rt; return counter })
	o := devops.Options(logging.NewNopLogger(), devops.DefaultMaxReconcileRate, time.Minute, true)
	controlplane.StartManagerWith(t, cfg, env, o, func(mgr ctrl.Manager, o controller.Options) error {
		if err := customresourcesgate.Setup(mgr, o); err != nil {
			return err
		}
		return devops.SetupGated(mgr, o, devops.Config{Guard: controlplane.TenantGuard()})
	})
	ns := fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1e6)
	create(t, env.Client, f.objects(ns)...)
	return f, counter, env.Client, ns
}

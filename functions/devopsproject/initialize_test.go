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

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	dnsv1alpha1 "github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	forgev1alpha1 "github.com/freeleaps/provider-devops/apis/forge/v1alpha1"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	registryv1alpha1 "github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/controller/argorepository"
	"github.com/freeleaps/provider-devops/internal/controller/dnsrecord"
	"github.com/freeleaps/provider-devops/internal/controller/forgerepository"
	"github.com/freeleaps/provider-devops/internal/controller/jenkinscredential"
	"github.com/freeleaps/provider-devops/internal/controller/jenkinspipeline"
	"github.com/freeleaps/provider-devops/internal/controller/registryrepo"
)

// TestComposedAsInitialized holds every managed resource in the render
// goldens to what the provider would write before creating its external
// object: crossplane-runtime's finalizer, and the external name the
// provider's own kind gives it (an application or AppProject: the one the
// function names). With both, the provider writes nothing before the
// create. A DeployRun, which is no managed resource, has no finalizer.
func TestComposedAsInitialized(t *testing.T) {
	derive := map[string]func(u *unstructured.Unstructured) (string, error){
		KindPipeline:  typed(&jenkinsv1alpha1.JenkinsPipeline{}, jenkinspipeline.Descriptor.ExternalName),
		KindCred:      typed(&jenkinsv1alpha1.JenkinsCredential{}, jenkinscredential.Descriptor.ExternalName),
		KindDNS:       typed(&dnsv1alpha1.DNSRecord{}, dnsrecord.Descriptor.ExternalName),
		KindRegistry:  typed(&registryv1alpha1.RegistryRepo{}, registryrepo.Descriptor.ExternalName),
		KindRepo:      typed(&argov1alpha1.ArgoRepository{}, argorepository.Descriptor.ExternalName),
		KindForgeRepo: typed(&forgev1alpha1.ForgeRepository{}, forgerepository.Descriptor.ExternalName),
		KindApp:       nil,
		KindProject:   nil,
	}
	// The goldens hold no ArgoRepository (it waits for the AppProject to
	// be observed Ready): one composed here joins them.
	x := xr(withSpec(func(s map[string]any) {
		s["git"].(map[string]any)["credentialsSecretRef"] = map[string]any{"name": "git-credentials"}
	}))
	repo := run(t, t0, newRequest(t, x, projectReady(), nil)).GetDesired().GetResources()[string(nameArgoRepo)].GetResource()
	if repo == nil {
		t.Fatal("no ArgoRepository composed for a private repository")
	}
	extra := &unstructured.Unstructured{Object: repo.AsMap()}
	meta.AddAnnotations(extra, map[string]string{"crossplane.io/composition-resource-name": string(nameArgoRepo)})
	files, err := filepath.Glob("testdata/render/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no render goldens: %v", err)
	}
	var all []*unstructured.Unstructured
	var from []string
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
		for {
			u := &unstructured.Unstructured{}
			if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			all, from = append(all, u), append(from, file)
		}
	}
	all, from = append(all, extra), append(from, "a private repository")
	seen := map[string]int{}
	for i, u := range all {
		if u.GetAnnotations()["crossplane.io/composition-resource-name"] == "" {
			continue // the XR
		}
		kind, at := u.GetKind(), from[i]+": "+u.GetKind()+" "+u.GetName()
		d, isMR := derive[kind]
		if !isMR {
			if len(u.GetFinalizers()) > 0 {
				t.Errorf("%s: finalizers %v on a resource no managed reconciler removes them from", at, u.GetFinalizers())
			}
			continue
		}
		seen[kind]++
		if !meta.FinalizerExists(u, managed.FinalizerName) {
			t.Errorf("%s: no %s finalizer", at, managed.FinalizerName)
		}
		got := meta.GetExternalName(u)
		if got == "" {
			t.Errorf("%s: no external name", at)
			continue
		}
		if d == nil {
			continue
		}
		want, err := d(u)
		if err != nil {
			t.Fatalf("%s: %v", at, err)
		}
		if got != want {
			t.Errorf("%s: external name %q, the provider's %q", at, got, want)
		}
	}
	for _, k := range []string{KindPipeline, KindCred, KindDNS, KindRegistry, KindRepo, KindForgeRepo, KindApp, KindProject} {
		if seen[k] == 0 {
			t.Errorf("no %s in the render goldens: the test holds it to nothing", k)
		}
	}
}

// typed derives an unstructured resource's external name through its
// kind's Go type.
func typed[T resource.Managed](into T, name func(T) string) func(*unstructured.Unstructured) (string, error) {
	return func(u *unstructured.Unstructured) (string, error) {
		cr := into.DeepCopyObject().(T) //nolint:forcetypeassert // a copy of its own type
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, cr); err != nil {
			return "", err
		}
		return name(cr), nil
	}
}

// TestInitializeKeepsWhatExists: an existing resource keeps the external
// name it has, even where its spec would now derive another (the provider
// never changes one either); a new one gets the derived name; and one
// being deleted that no longer has the finalizer does not get it again,
// which the API server would refuse.
func TestInitializeKeepsWhatExists(t *testing.T) {
	obs := projectReady()
	obs["prod-pipeline"] = observed(KindPipeline, true, map[string]any{"metadata": map[string]any{
		"name": "shop-prod", "annotations": map[string]any{meta.AnnotationKeyExternalName: "old/folder/prod"},
		"finalizers": []any{managed.FinalizerName},
	}})
	obs["prod-dns"] = observed(KindDNS, false, map[string]any{"metadata": map[string]any{
		"name": "shop-prod-dns", "deletionTimestamp": "2026-11-22T11:00:00Z",
		"annotations": map[string]any{meta.AnnotationKeyExternalName: "shop.example.com./CNAME"},
	}})
	desired := run(t, t0, newRequest(t, xr(), obs, nil)).GetDesired().GetResources()
	get := func(name string) *unstructured.Unstructured {
		r := desired[name].GetResource()
		if r == nil {
			t.Fatalf("%s not composed", name)
		}
		return &unstructured.Unstructured{Object: r.AsMap()}
	}
	if got := meta.GetExternalName(get("prod-pipeline")); got != "old/folder/prod" {
		t.Errorf("an existing pipeline's external name: %q, want the one it has", got)
	}
	staging := get("pr-7-dns")
	if want, _ := typed(&dnsv1alpha1.DNSRecord{}, dnsrecord.Descriptor.ExternalName)(staging); meta.GetExternalName(staging) != want || want == "" {
		t.Errorf("a new record's external name: %q, want %q", meta.GetExternalName(staging), want)
	}
	if dns := get("prod-dns"); meta.FinalizerExists(dns, managed.FinalizerName) {
		t.Errorf("the finalizer composed again on a record being deleted without it: %v", dns.GetFinalizers())
	}
	if !meta.FinalizerExists(get("pr-7-dns"), managed.FinalizerName) {
		t.Error("a new record composed without the finalizer")
	}
}

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

package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/freeleaps/provider-devops/internal/testing/argocdserver"
)

// ExampleGitHost is the git host the shipped DevOpsProject examples name.
// Argo CD's repo server reaches it over HTTPS through the git server's
// proxy and trusts its certificate, as a platform behind a proxy
// configures it; over SSH it cannot be reached by that name (neither git's
// ssh nor go-git take a host name mapping from the environment), so the
// SSH example's URL is the served one (exampleSSHURL).
const ExampleGitHost = "git.example.com"

// exampleSSHURL is the SSH URL claim.yaml and xr-legacy.yaml name.
const exampleSSHURL = "git@" + ExampleGitHost + ":team/shop.git"

// exampleRepos are the repositories the examples name, with what their
// environments deploy: team/shop's environments are directories of
// manifests (deploy/<env>, and preview-login's deploy/preview); team/web's
// are the fixture chart (deploy/chart) and a Kustomize overlay of the
// fixture base with an Ingress (deploy/overlays/preview).
func exampleRepos() map[string]map[string]string {
	shop := map[string]string{}
	for _, dir := range []string{"prod", "staging", "pr-42", "preview"} {
		shop["deploy/"+dir+"/configmap.yaml"] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop\ndata:\n  environment: %s\n", dir)
	}
	web := map[string]string{
		"deploy/overlays/preview/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../../base\n",
	}
	for name, content := range argocdserver.SampleApps {
		if rest, ok := strings.CutPrefix(name, "chart/"); ok {
			web["deploy/chart/"+rest] = content
		}
		if rest, ok := strings.CutPrefix(name, "kustomized-ingress/"); ok {
			web["deploy/base/"+rest] = content
		}
	}
	return map[string]map[string]string{"team/shop": shop, "team/web": web}
}

// ExampleResult is one shipped example applied and Ready.
type ExampleResult struct {
	File, Object string
	Ready        time.Duration
}

// RunExamples applies the shipped DevOpsProject examples as a user copies
// them (examples/devopsproject under root), after the scenario, and waits
// for each to be Ready; the platform's side they rely on is set up first:
// the namespaces' ProviderConfig "default" that xr-ingress.yaml names and
// the legacy Composition uses for claims. xr.yaml and claim.yaml are one
// project (team-shop/shop, the scenario's too) in two forms, so they run
// one after the other, each taking back what the one before orphaned
// (prod); xr-legacy.yaml is checked against the XR Crossplane makes of
// claim.yaml. The only change to a file is claim.yaml's SSH URL, for the
// served one (ExampleGitHost).
func (c *Cluster) RunExamples(ctx context.Context, root string) ([]ExampleResult, error) {
	stop := c.playIngressControllers(ctx)
	defer stop()
	dir := filepath.Join(root, "examples", "devopsproject")
	read := func(name string) (*unstructured.Unstructured, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(b, &u.Object); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return u, nil
	}
	ssh, err := c.Argo.ServeSSH(ctx)
	if err != nil {
		return nil, err
	}
	c.logf("the shipped examples: ProviderConfig default in team-web and team-shop (for xr-ingress.yaml and claims), %s by HTTPS through a proxy, %s as %s", ExampleGitHost, exampleSSHURL, ssh.URL("team/shop"))
	if err := c.Apply(ctx, c.configYAML("team-web")+"---\n"+c.backendsSecret("team-shop", "devops-backends")+fmt.Sprintf(`---
apiVersion: devops.freeleaps.io/v1alpha1
kind: ProviderConfig
metadata: {name: default, namespace: team-shop}
spec:
%s`, c.backendsSpec("devops-backends", "", ""))); err != nil {
		return nil, err
	}
	var results []ExampleResult

	// xr.yaml and xr-ingress.yaml together.
	var xrs []*unstructured.Unstructured
	for _, name := range []string{"xr.yaml", "xr-ingress.yaml"} {
		xr, err := read(name)
		if err != nil {
			return results, err
		}
		if err := c.Kube.Create(ctx, xr); err != nil {
			return results, fmt.Errorf("%s: %w", name, err)
		}
		xrs = append(xrs, xr)
	}
	// xr.yaml's name is the scenario's, whose circuit breaker its
	// deletions opened.
	stopTouch := c.touch(ctx, xrs[0])
	t0 := time.Now()
	for i, name := range []string{"xr.yaml", "xr-ingress.yaml"} {
		r, err := c.exampleReady(ctx, name, xrs[i], "devopsproject.platform.freeleaps.io", t0)
		if err != nil {
			stopTouch()
			return results, err
		}
		results = append(results, r)
	}
	stopTouch()
	if err := c.deleteAndWait(ctx, xrs[0]); err != nil {
		return results, err
	}

	// claim.yaml, then its XR against xr-legacy.yaml.
	claim, err := read("claim.yaml")
	if err != nil {
		return results, err
	}
	if err := unstructured.SetNestedField(claim.Object, ssh.URL("team/shop"), "spec", "git", "url"); err != nil {
		return results, err
	}
	if err := c.Kube.Create(ctx, claim); err != nil {
		return results, fmt.Errorf("claim.yaml: %w", err)
	}
	defer c.touch(ctx, claim)()
	r, err := c.exampleReady(ctx, "claim.yaml", claim, "devopsprojectclaim.platform.freeleaps.io", time.Now())
	if err != nil {
		return results, err
	}
	results = append(results, r)
	if err := c.checkLegacyXR(ctx, claim, read, ssh.URL("team/shop")); err != nil {
		return results, err
	}
	return results, nil
}

// exampleReady waits for the example's object to be Ready and traces it
// with the crossplane CLI.
func (c *Cluster) exampleReady(ctx context.Context, file string, u *unstructured.Unstructured, resource string, t0 time.Time) (ExampleResult, error) {
	what := fmt.Sprintf("%s %s/%s", u.GetKind(), u.GetNamespace(), u.GetName())
	err := c.Wait(ctx, file+" ("+what+") to be Ready", 5*time.Minute, func(ctx context.Context) (bool, string, error) {
		got, err := c.Get(ctx, u.GetAPIVersion(), u.GetKind(), u.GetNamespace(), u.GetName())
		if err != nil {
			return false, err.Error(), nil
		}
		st, reason, msg := Condition(got, "Ready")
		return st == "True", reason + ": " + msg, nil
	})
	if err != nil {
		trace, _ := c.TraceOf(ctx, resource, u.GetNamespace(), u.GetName())
		return ExampleResult{}, fmt.Errorf("%w\n%s%s", err, trace, c.unready(ctx, u.GetNamespace()))
	}
	r := ExampleResult{File: file, Object: what, Ready: time.Since(t0)}
	trace, err := c.TraceOf(ctx, resource, u.GetNamespace(), u.GetName())
	if err != nil {
		return r, fmt.Errorf("%s: %w", file, err)
	}
	c.logf("  %s: %s Ready after %s; crossplane beta trace %s %s -n %s:\n%s", file, what, r.Ready.Round(100*time.Millisecond), resource, u.GetName(), u.GetNamespace(), trace)
	return r, nil
}

// unready lists the managed resources in namespace not Synced or not
// Ready, with their conditions' whole messages (the CLI's trace cuts them).
func (c *Cluster) unready(ctx context.Context, namespace string) string {
	var b strings.Builder
	for _, k := range mrKinds {
		items, err := c.List(ctx, k[0], k[1], client.InNamespace(namespace))
		if err != nil {
			fmt.Fprintf(&b, "%s: %v\n", k[1], err)
			continue
		}
		for i := range items {
			for _, typ := range []string{"Synced", "Ready"} {
				if st, reason, msg := Condition(&items[i], typ); st != "True" {
					fmt.Fprintf(&b, "%s/%s %s=%s %s: %s\n", k[1], items[i].GetName(), typ, st, reason, msg)
				}
			}
		}
	}
	return b.String()
}

// checkLegacyXR checks that xr-legacy.yaml is what Crossplane made of the
// claim: its labels and every field of its spec are the XR's (with the
// claim's served SSH URL).
func (c *Cluster) checkLegacyXR(ctx context.Context, claim *unstructured.Unstructured, read func(string) (*unstructured.Unstructured, error), url string) error {
	got, err := c.Get(ctx, claim.GetAPIVersion(), claim.GetKind(), claim.GetNamespace(), claim.GetName())
	if err != nil {
		return err
	}
	name, _, _ := unstructured.NestedString(got.Object, "spec", "resourceRef", "name")
	xr, err := c.Get(ctx, claim.GetAPIVersion(), "XDevOpsProject", "", name)
	if err != nil {
		return fmt.Errorf("the claim's XR %q: %w", name, err)
	}
	want, err := read("xr-legacy.yaml")
	if err != nil {
		return err
	}
	if err := unstructured.SetNestedField(want.Object, url, "spec", "git", "url"); err != nil {
		return err
	}
	var diffs []string
	for k, v := range want.GetLabels() {
		if xr.GetLabels()[k] != v {
			diffs = append(diffs, fmt.Sprintf("label %s: %q, xr-legacy.yaml says %q", k, xr.GetLabels()[k], v))
		}
	}
	diffs = append(diffs, notIn("spec", want.Object["spec"], xr.Object["spec"])...)
	if len(diffs) > 0 {
		sort.Strings(diffs)
		return fmt.Errorf("xr-legacy.yaml is not the XR Crossplane made of claim.yaml (%s):\n  %s", name, strings.Join(diffs, "\n  "))
	}
	c.logf("  xr-legacy.yaml: the XR Crossplane made of claim.yaml (%s) has its labels and spec", name)
	return nil
}

// notIn lists the paths of want that got does not hold as want has them.
func notIn(path string, want, got any) []string {
	if w, ok := want.(map[string]any); ok {
		g, _ := got.(map[string]any)
		var out []string
		for k, v := range w {
			out = append(out, notIn(path+"."+k, v, g[k])...)
		}
		return out
	}
	if !reflect.DeepEqual(want, got) {
		return []string{fmt.Sprintf("%s: %v, xr-legacy.yaml says %v", path, got, want)}
	}
	return nil
}

// deleteAndWait deletes obj and waits until it is gone.
func (c *Cluster) deleteAndWait(ctx context.Context, obj *unstructured.Unstructured) error {
	if err := c.Kube.Delete(ctx, obj, client.PropagationPolicy("Foreground")); client.IgnoreNotFound(err) != nil {
		return err
	}
	what := fmt.Sprintf("%s %s/%s to be deleted", obj.GetKind(), obj.GetNamespace(), obj.GetName())
	return c.Wait(ctx, what, 3*time.Minute, func(ctx context.Context) (bool, string, error) {
		_, err := c.Get(ctx, obj.GetAPIVersion(), obj.GetKind(), obj.GetNamespace(), obj.GetName())
		if kerrors.IsNotFound(err) {
			return true, "", nil
		}
		return false, fmt.Sprint(err), nil
	})
}

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

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/freeleaps/provider-devops/internal/ociimage"
	"github.com/freeleaps/provider-devops/internal/testing/node"
	"github.com/freeleaps/provider-devops/test/e2e/framework"
)

// TestInstall installs Crossplane with its Helm chart and the packages
// with `crossplane xpkg install` on a one-node cluster, as a platform team
// does, and checks what Crossplane's package manager made of them: the
// provider's two replicas and the function run as Pods from the
// packages' images, as the image's non-root user with a read-only root
// filesystem, ready by the probes the kubelet calls, one replica leading;
// and Crossplane calls the function through its Service: the shipped
// DevOpsProject example composes its resources.
func TestInstall(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := framework.ConfigFromEnv(root, t.TempDir())
	if err == nil {
		if m := node.Missing(); m != "" {
			err = fmt.Errorf("a node needs %s", m)
		}
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skipf("skipped outside CI: %v", err)
	}
	cfg.Runtime = framework.RuntimePods
	t0 := time.Now()
	cfg.Logf = func(format string, args ...any) {
		t.Logf("[%6.1fs] "+format, append([]any{time.Since(t0).Seconds()}, args...)...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	c, err := framework.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	pods := &corev1.PodList{}
	if err := c.Kube.List(ctx, pods, client.InNamespace(framework.Namespace)); err != nil {
		t.Fatal(err)
	}
	byPackage := map[string][]corev1.Pod{}
	for _, p := range pods.Items {
		for _, pkg := range []string{framework.ProviderName, framework.FunctionName} {
			if strings.HasPrefix(p.Name, pkg+"-") {
				byPackage[pkg] = append(byPackage[pkg], p)
			}
		}
	}
	if n := len(byPackage[framework.ProviderName]); n != 2 {
		t.Errorf("%d provider Pods, want the runtime config's 2", n)
	}
	if n := len(byPackage[framework.FunctionName]); n != 1 {
		t.Errorf("%d function Pods, want 1", n)
	}
	for pkg, ps := range byPackage {
		for _, p := range ps {
			ready := slices.ContainsFunc(p.Status.Conditions, func(c corev1.PodCondition) bool {
				return c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue
			})
			ctr := p.Spec.Containers[0]
			sc := ctr.SecurityContext
			switch {
			case !ready:
				t.Errorf("%s Pod %s not Ready: %+v", pkg, p.Name, p.Status.ContainerStatuses)
			case !strings.Contains(ctr.Image, "/freeleaps/"+pkg):
				t.Errorf("%s Pod %s runs %s, not the package's image", pkg, p.Name, ctr.Image)
			case sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot:
				t.Errorf("%s Pod %s security context %+v: want non-root with a read-only root filesystem", pkg, p.Name, sc)
			}
			if sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != ociimage.NonRoot || sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
				t.Errorf("%s Pod %s security context %+v: want the image's user and no capability, as the runtime config says", pkg, p.Name, sc)
			}
			if pkg == framework.ProviderName && (ctr.ReadinessProbe == nil || ctr.LivenessProbe == nil) {
				t.Errorf("provider Pod %s: readiness probe %v, liveness probe %v: want the runtime config's", p.Name, ctr.ReadinessProbe, ctr.LivenessProbe)
			}
		}
	}
	leases := &coordinationv1.LeaseList{}
	if err := c.Kube.List(ctx, leases, client.InNamespace(framework.Namespace)); err != nil {
		t.Fatal(err)
	}
	var holder string
	for _, l := range leases.Items {
		if h := l.Spec.HolderIdentity; h != nil && strings.HasPrefix(*h, framework.ProviderName+"-") {
			holder = *h
		}
	}
	if holder == "" {
		t.Errorf("no provider replica holds a lease in %s", framework.Namespace)
	}

	// The shipped example, as a team applies it.
	b, err := os.ReadFile(filepath.Join(root, "examples", "devopsproject", "xr.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	xr := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(b, &xr.Object); err != nil {
		t.Fatal(err)
	}
	if err := c.Kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: xr.GetNamespace()}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Kube.Create(ctx, xr); err != nil {
		t.Fatal(err)
	}
	var composed int
	err = c.Wait(ctx, "the example DevOpsProject to compose its resources", 3*time.Minute, func(ctx context.Context) (bool, string, error) {
		x, err := c.Get(ctx, xr.GetAPIVersion(), xr.GetKind(), xr.GetNamespace(), xr.GetName())
		if err != nil {
			return false, err.Error(), nil
		}
		refs, _, _ := unstructured.NestedSlice(x.Object, "spec", "crossplane", "resourceRefs")
		composed = len(refs)
		st, reason, msg := framework.Condition(x, "Synced")
		return composed > 0 && st == "True", "Synced=" + st + " " + reason + " " + msg, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("installed: provider Pods %d (leader %s), function Pods %d; the example composed %d resources through the function's Service",
		len(byPackage[framework.ProviderName]), holder, len(byPackage[framework.FunctionName]), composed)
}

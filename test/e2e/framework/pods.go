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
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/freeleaps/provider-devops/internal/ociimage"
	"github.com/freeleaps/provider-devops/internal/testing/distribution"
	"github.com/freeleaps/provider-devops/internal/testing/node"
)

// Runtime says how Crossplane and the packages run.
type Runtime string

const (
	// RuntimePods installs everything the way a platform team does, on a
	// one-node cluster of the harness's own (internal/testing/node):
	// Crossplane with its Helm chart, the packages with `crossplane xpkg
	// install`, and Crossplane's package manager runs them as Pods.
	RuntimePods Runtime = "pods"
	// RuntimeProcesses runs Crossplane, the provider and the function as
	// processes on the machine, the harness playing the package runtime
	// (runtime.go): quicker to start, for a fast inner loop.
	RuntimeProcesses Runtime = "processes"
)

// Names in the cluster of the pods runtime.
const (
	// HelmRelease is Crossplane's release.
	HelmRelease = "crossplane"
)

// startNode brings up the one-node cluster, the registry its images come
// from first.
func (c *Cluster) startNode(ctx context.Context) error {
	if err := os.MkdirAll(filepath.Join(c.dir, "registry"), 0o750); err != nil {
		return err
	}
	var err error
	if c.Registry, err = distribution.New(filepath.Join(c.dir, "registry")); err != nil {
		return err
	}
	// Crossplane installs the provider's CRDs from its package.
	if c.node, err = node.Start(node.Options{Registry: c.Registry, Logf: func(f string, a ...any) { c.logf("  "+f, a...) }, NoProviderCRDs: true}); err != nil {
		return err
	}
	c.REST = c.node.Env.Config
	kc, err := c.node.Env.KubeConfigFor("cluster-admin", "system:masters")
	if err != nil {
		return err
	}
	c.KubeConfig = filepath.Join(c.dir, "kubeconfig")
	if err := os.WriteFile(c.KubeConfig, kc, 0o600); err != nil {
		return err
	}
	scheme := kruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if c.Kube, err = client.New(c.REST, client.Options{Scheme: scheme}); err != nil {
		return err
	}
	return c.Kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}})
}

// helm runs the helm binary hack/argocd.sh links (Argo CD's repo server
// renders with it too) against the cluster, its state under the
// cluster's directory.
func (c *Cluster) helm(ctx context.Context, args ...string) error {
	home := filepath.Join(c.dir, "helm")
	cmd := exec.CommandContext(ctx, filepath.Join(c.cfg.ArgoCD, "bin", "helm"), append(args, "--kubeconfig", c.KubeConfig)...)
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+filepath.Join(home, "cache"), "HELM_CONFIG_HOME="+filepath.Join(home, "config"), "HELM_DATA_HOME="+filepath.Join(home, "data"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("helm %s: %w\n%s", strings.Join(args[:1], " "), err, lastLines(string(out), 20))
	}
	return nil
}

// installCrossplane builds Crossplane's image from the core binary with the
// release's CRDs and webhook configurations where its Dockerfile puts them,
// pushes it to the registry, and installs Crossplane's own Helm chart of
// that release. Webhooks are off: the API server runs off the node and
// cannot reach a Service's address.
func (c *Cluster) installCrossplane(ctx context.Context) error {
	release := filepath.Dir(c.cfg.CrossplaneCRDs)
	image, err := c.node.PushImage(c.cfg.Crossplane, "crossplane/crossplane", c.cfg.CrossplaneVersion,
		ociimage.Tree{From: c.cfg.CrossplaneCRDs, To: "/crds"},
		ociimage.Tree{From: filepath.Join(release, "webhookconfigurations"), To: "/webhookconfigurations"})
	if err != nil {
		return err
	}
	repo, _, _ := strings.Cut(image, ":"+c.cfg.CrossplaneVersion)
	c.logf("  pushed %s", image)
	return c.helm(ctx, "install", HelmRelease, filepath.Join(release, "charts", "crossplane"),
		"--namespace", Namespace, "--wait", "--timeout", "5m",
		"--set", "image.repository="+repo, "--set", "image.tag="+c.cfg.CrossplaneVersion, "--set", "image.pullPolicy=IfNotPresent",
		"--set", "webhooks.enabled=false",
		// As the processes runtime: the scenario creates the project
		// again right after deleting it.
		"--set", "args[0]=--circuit-breaker-cooldown=1m")
}

// installPackagesWithCLI pushes the three packages and installs them with
// `crossplane xpkg install`, as the install guide does: the provider with
// its DeploymentRuntimeConfig, the function with its own, then the
// configuration, whose dependencies they satisfy. An ImageConfig rewrites xpkg.freeleaps.io/ to
// the registry as the node's Pods reach it, with its pull secret.
func (c *Cluster) installPackagesWithCLI(ctx context.Context) error {
	if err := c.pushPackages(ctx); err != nil {
		return err
	}
	host := c.node.RegistryHost()
	auth := base64.StdEncoding.EncodeToString([]byte(distribution.User + ":" + distribution.Password))
	runtimeConfig, err := os.ReadFile(filepath.Join(c.cfg.Root, "examples", "install", "deploymentruntimeconfig.yaml"))
	if err != nil {
		return err
	}
	if err := c.Apply(ctx, fmt.Sprintf(`
apiVersion: v1
kind: Secret
metadata: {name: %[1]s, namespace: %[2]s}
type: kubernetes.io/dockerconfigjson
stringData:
  .dockerconfigjson: '{"auths":{%[3]q:{"auth":%[4]q}}}'
---
apiVersion: pkg.crossplane.io/v1beta1
kind: ImageConfig
metadata: {name: freeleaps-to-registry}
spec:
  matchImages: [{prefix: %[5]s}]
  rewriteImage: {prefix: %[3]s/freeleaps/}
---
apiVersion: pkg.crossplane.io/v1beta1
kind: ImageConfig
metadata: {name: registry-auth}
spec:
  matchImages: [{prefix: %[3]s/}]
  registry:
    authentication:
      pullSecretRef: {name: %[1]s}
---
apiVersion: apiextensions.crossplane.io/v1alpha1
kind: ManagedResourceActivationPolicy
metadata: {name: provider-devops}
spec:
  activate: ["*.devops.freeleaps.io"]
---
%[6]s`, registrySecret, Namespace, host, auth, PackagePrefix, runtimeConfig)); err != nil {
		return err
	}
	for _, p := range []struct{ kind, name string }{{"provider", ProviderName}, {"function", FunctionName}, {"configuration", ConfigurationName}} {
		args := []string{"xpkg", "install", p.kind, PackagePrefix + p.name + ":" + c.cfg.Version, p.name, "--wait=5m"}
		if p.kind != "configuration" {
			// examples/install/deploymentruntimeconfig.yaml names one
			// for each after its package.
			args = append(args, "--runtime-config="+p.name)
		}
		cmd := exec.CommandContext(ctx, c.cfg.CrossplaneCLI, args...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+c.KubeConfig)
		t0 := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("crossplane %s: %w\n%s\n%s", strings.Join(args, " "), err, lastLines(string(out), 10), c.node.Diagnostics())
		}
		c.logf("  crossplane %s (%s)", strings.Join(args, " "), time.Since(t0).Round(100*time.Millisecond))
	}
	for _, p := range []struct{ kind, name string }{{"Provider", ProviderName}, {"Function", FunctionName}, {"Configuration", ConfigurationName}} {
		if err := c.WaitPackage(ctx, p.kind, p.name); err != nil {
			return err
		}
	}
	return c.waitKinds(ctx)
}

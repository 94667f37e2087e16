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
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	"github.com/freeleaps/provider-devops/internal/testing/node"
)

// ConfigFromEnv is the Config `make demo` and `make e2e` describe through
// the environment (see the Makefile), with paths relative to the repository
// root for what make builds:
//
//	KUBEBUILDER_ASSETS   etcd, kube-apiserver, kube-controller-manager, and
//	                     crds/cert-manager (hack/envtest-assets.sh links it)
//	ARGOCD               Argo CD's binary and CRDs (hack/argocd.sh)
//	CROSSPLANE           the Crossplane core binary
//	CROSSPLANE_CLI       the crossplane CLI of the same release
//	CROSSPLANE_VERSION   that release, whose cluster/crds core init installs
//	PKG_VERSION          the packages' tag (_output/xpkg/*-PKG_VERSION.xpkg)
//	PKG_UPGRADE_VERSION  a second build's, installed over the first by the
//	                     scenario (optional; none, no upgrade)
//	E2E_RUNTIME          pods (the default: a one-node cluster) or processes
//	                     (a fast inner loop; see Runtime)
//
// Any of them missing is an error naming it.
func ConfigFromEnv(root, dir string) (Config, error) {
	get := func(k string) string { return os.Getenv(k) }
	var missing []string
	for _, k := range []string{"KUBEBUILDER_ASSETS", "ARGOCD", "CROSSPLANE", "CROSSPLANE_CLI", "CROSSPLANE_VERSION", "PKG_VERSION"} {
		if get(k) == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return Config{}, fmt.Errorf("%s not set: run `make e2e` or `make demo`, which build everything and set them", strings.Join(missing, ", "))
	}
	v := get("PKG_VERSION")
	xpkg := func(name string) string { return filepath.Join(root, "_output", "xpkg", name+"-"+v+".xpkg") }
	cfg := Config{
		Dir:                  dir,
		KubeAssets:           get("KUBEBUILDER_ASSETS"),
		CertManagerCRDs:      controlplane.CertManagerCRDs(),
		ArgoCD:               get("ARGOCD"),
		Crossplane:           get("CROSSPLANE"),
		CrossplaneCLI:        get("CROSSPLANE_CLI"),
		Provider:             filepath.Join(root, "_output", "static", "provider"),
		Function:             filepath.Join(root, "_output", "static", "function"),
		Sandbox:              filepath.Join(root, "_output", "bin", "sandbox"),
		ProviderPackage:      xpkg(ProviderName),
		FunctionPackage:      xpkg(FunctionName),
		ConfigurationPackage: xpkg(ConfigurationName),
		Version:              v,
		UpgradeVersion:       get("PKG_UPGRADE_VERSION"),
		Root:                 root,
		CrossplaneVersion:    get("CROSSPLANE_VERSION"),
		Runtime:              Runtime(get("E2E_RUNTIME")),
	}
	switch cfg.Runtime {
	case "", RuntimePods:
		cfg.Runtime = RuntimePods
		if m := node.Missing(); m != "" {
			return Config{}, fmt.Errorf("the %s runtime needs %s (or set E2E_RUNTIME=%s)", RuntimePods, m, RuntimeProcesses)
		}
	case RuntimeProcesses:
	default:
		return Config{}, fmt.Errorf("E2E_RUNTIME=%s: want %s or %s", cfg.Runtime, RuntimePods, RuntimeProcesses)
	}
	for _, f := range []string{filepath.Join(cfg.KubeAssets, "kube-controller-manager"), cfg.CertManagerCRDs, filepath.Join(cfg.ArgoCD, "argocd"), cfg.Crossplane, cfg.CrossplaneCLI, cfg.Provider, cfg.Function, cfg.Sandbox, cfg.ProviderPackage, cfg.FunctionPackage, cfg.ConfigurationPackage} {
		if _, err := os.Stat(f); err != nil {
			return Config{}, fmt.Errorf("%w (run `make e2e` or `make demo`, which build it)", err)
		}
	}
	crds, err := moduleDir("github.com/crossplane/crossplane/v2@" + get("CROSSPLANE_VERSION"))
	if err != nil {
		return Config{}, err
	}
	cfg.CrossplaneCRDs = filepath.Join(crds, "cluster", "crds")
	return cfg, nil
}

// moduleDir downloads a module (once, into the module cache) and returns
// its directory.
func moduleDir(mod string) (string, error) {
	var out, stderr bytes.Buffer
	cmd := exec.Command("go", "mod", "download", "-json", mod)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go mod download %s: %w\n%s%s", mod, err, out.String(), stderr.String())
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out.Bytes(), &m); err != nil || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s gave no directory: %s", mod, out.String())
	}
	return m.Dir, nil
}

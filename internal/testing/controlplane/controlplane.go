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

// Package controlplane starts a real kube-apiserver and etcd for
// integration tests (through controller-runtime's envtest), with the
// provider's CRDs and cert-manager's installed (no cert-manager runs:
// applications whose charts ship a Certificate apply, and tests play its
// controller). The binaries and cert-manager's CRDs come from
// hack/envtest-assets.sh through KUBEBUILDER_ASSETS (make test sets it).
//
// Without them a test is skipped on a developer machine and fails in CI
// (CI=true), so CI can never pass by running nothing.
package controlplane

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	kruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/freeleaps/provider-devops/apis"
	"github.com/freeleaps/provider-devops/internal/clients/netguard"
	"github.com/freeleaps/provider-devops/internal/testing/integration"
)

// CRDWait bounds the wait for installed CRDs to be served. It is a bound,
// not a pause: controller-runtime's default of 10 s ran out on a 2-core
// machine running a demo beside the tests, while the API server was
// merely slow to publish discovery.
const CRDWait = 2 * time.Minute

// StartWait bounds how long etcd and kube-apiserver each get to answer
// their health checks, a wait for a condition, not a pause: envtest's
// 20 s default ran out five times in a row for a package's shared
// control plane while two `.ci/run`s shared a 2-core machine.
const StartWait = 2 * time.Minute

// Env is a running control plane.
type Env struct {
	Config *rest.Config
	Client client.Client
	Scheme *kruntime.Scheme
	// CRDs installed from package/provider/crds (cert-manager's are not
	// listed: they are not the provider's).
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// CertDir holds the API server's CA (CAFile) and service-account
	// signing key (SAKeyFile) when Options.ServingNames asked for
	// certificates of the test's own; empty otherwise.
	CertDir string
	env     *envtest.Environment
}

var (
	once   sync.Once
	shared *Env
	errEnv error
)

// Shared returns the package's control plane, starting it on first use. Call
// Stop from TestMain after m.Run.
func Shared(t testing.TB) *Env {
	t.Helper()
	integration.Test(t, "kube-apiserver and etcd")
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("KUBEBUILDER_ASSETS is not set: run the tests with `make test`, which builds kube-apiserver and installs etcd")
		}
		t.Skip("KUBEBUILDER_ASSETS is not set; skipping a test that needs kube-apiserver and etcd (run `make test`; in CI this fails)")
	}
	once.Do(func() { shared, errEnv = start() })
	if errEnv != nil {
		t.Fatalf("cannot start kube-apiserver and etcd: %v", errEnv)
	}
	return shared
}

// KubeConfig returns a kubeconfig for an administrator of the control plane,
// for tests that run the provider binary as a user would.
func (e *Env) KubeConfig() ([]byte, error) {
	return e.KubeConfigFor("provider-devops-test", "system:masters")
}

// KubeConfigFor returns a kubeconfig for user name in groups, whose rights
// are what RBAC grants them: tests run the provider with the permissions it
// would have in a cluster.
func (e *Env) KubeConfigFor(name string, groups ...string) ([]byte, error) {
	u, err := e.env.AddUser(envtest.User{Name: name, Groups: groups}, nil)
	if err != nil {
		return nil, err
	}
	return u.KubeConfig()
}

// TenantGuard is the rule tests give the controllers: the backends tests
// start listen on loopback, which namespaced ProviderConfigs may not reach
// unless the platform allows it, as --tenant-backend-networks=127.0.0.0/8,::1
// does. Link-local and private addresses stay refused (tests check that).
func TenantGuard() *netguard.Guard {
	g, err := netguard.New(nil, []string{"127.0.0.0/8", "::1/128"})
	if err != nil {
		panic(err)
	}
	return g
}

// Main runs a package's tests and then stops the shared control plane. Use it
// as the package's TestMain.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

var (
	atExitMu sync.Mutex
	atExit   []func()
)

// AtExit registers f to run when Main ends, before the control plane stops:
// servers started once per test binary on top of it (Argo CD) stop there.
func AtExit(f func()) {
	atExitMu.Lock()
	defer atExitMu.Unlock()
	atExit = append(atExit, f)
}

// Stop stops what AtExit registered, newest first, and then the shared
// control plane if one was started.
func Stop() {
	atExitMu.Lock()
	fs := atExit
	atExit = nil
	atExitMu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
	if shared != nil {
		_ = shared.env.Stop()
	}
}

// Scheme returns a scheme with Kubernetes' and the provider's kinds.
func Scheme() *kruntime.Scheme {
	s := kruntime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = apiextensionsv1.AddToScheme(s)
	_ = apis.AddToScheme(s)
	return s
}

// RepoRoot is the repository's top directory.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

func start() (*Env, error) { return StartWith(Options{}) }

// Options of a control plane of a test's own.
type Options struct {
	// Address the API server listens on, and advertises, besides serving
	// it in its certificate (default 127.0.0.1): a one-node cluster's Pods
	// reach it there.
	Address string
	// ServiceAccountTokens turns on the ServiceAccount admission plugin
	// (off in envtest), so Pods get their service account's token
	// mounted as in a cluster.
	ServiceAccountTokens bool
	// ServingNames are more names and addresses for the API server's
	// certificate: a cluster's Pods reach it at the kubernetes Service's
	// address and names.
	ServingNames []string
	// NoProviderCRDs leaves the provider's CRDs out: Crossplane installs
	// them from the package.
	NoProviderCRDs bool
}

// StartWith starts a control plane like Shared's, configured by o. Stop
// stops it.
func StartWith(o Options) (*Env, error) {
	s := Scheme()
	e := &envtest.Environment{Scheme: s, CRDInstallOptions: envtest.CRDInstallOptions{MaxTime: CRDWait}, ControlPlaneStartTimeout: StartWait}
	if !o.NoProviderCRDs {
		e.CRDDirectoryPaths, e.ErrorIfCRDPathMissing = []string{filepath.Join(RepoRoot(), "package", "provider", "crds")}, true
	}
	api := e.ControlPlane.GetAPIServer()
	if o.Address != "" {
		// envtest picks a port on 127.0.0.1 unless given both.
		l, err := net.Listen("tcp", net.JoinHostPort(o.Address, "0"))
		if err != nil {
			return nil, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		api.Address, api.Port = o.Address, strconv.Itoa(port)
		api.Configure().Set("advertise-address", o.Address)
	}
	if o.ServiceAccountTokens {
		api.Configure().Set("enable-admission-plugins", "ServiceAccount").Set("disable-admission-plugins", "DefaultStorageClass")
	}
	var certDir string
	if len(o.ServingNames) > 0 {
		// envtest keeps certificates it finds in its directory.
		var err error
		if certDir, err = os.MkdirTemp("", "pdapi"); err != nil {
			return nil, err
		}
		ca, err := writeServingCerts(certDir, append([]string{o.Address}, o.ServingNames...))
		if err != nil {
			_ = os.RemoveAll(certDir)
			return nil, err
		}
		api.CertDir, api.CA = certDir, ca
	}
	cfg, err := e.Start()
	if err != nil {
		if certDir != "" {
			_ = os.RemoveAll(certDir)
		}
		return nil, err
	}
	// Installed apart from the provider's so Env.CRDs stays the provider's
	// own; once per test binary, like the control plane.
	env := &Env{Config: cfg, Scheme: s, CRDs: e.CRDs, CertDir: certDir, env: e}
	if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: []string{CertManagerCRDs()}, ErrorIfPathMissing: true, MaxTime: CRDWait}); err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("cannot install cert-manager's CRDs from %s (hack/envtest-assets.sh links them there; run it again): %w", CertManagerCRDs(), err)
	}
	if env.Client, err = client.New(cfg, client.Options{Scheme: s}); err != nil {
		_ = env.Stop()
		return nil, err
	}
	return env, nil
}

// Stop stops a control plane StartWith started.
func (e *Env) Stop() error {
	err := e.env.Stop()
	if e.CertDir != "" {
		_ = os.RemoveAll(e.CertDir)
	}
	return err
}

// CertManagerCRDs is the directory of cert-manager's CRDs: crds/cert-manager
// in KUBEBUILDER_ASSETS, which hack/envtest-assets.sh links to the cache
// hack/cert-manager-crds.sh fills from the cert-manager Go module.
func CertManagerCRDs() string {
	return filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "crds", "cert-manager")
}

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

// Package framework runs a real Crossplane v2 control plane on this machine, with
// nothing but Debian packages and binaries built from the Go module proxy:
//
//   - etcd and kube-apiserver (controller-runtime's envtest) with
//     cert-manager's CRDs, and kube-controller-manager's garbage collector
//     and namespace controllers, which Crossplane relies on to delete what a
//     deleted XR composed;
//   - Crossplane core, initialised with `crossplane core init` and started
//     with `crossplane core start --package-runtime=External`;
//   - a loopback distribution registry (Debian docker-registry) the packages
//     are pushed to with `crossplane xpkg push`, and installed from as a user
//     does: Provider, Function and Configuration objects, with an ImageConfig
//     that rewrites xpkg.freeleaps.io/ to the loopback registry;
//   - the backends: a real Argo CD (API server, repo server, application
//     controller and redis, syncing a Helm chart and Kustomize overlays with
//     Ingresses from a loopback git repository into this control plane),
//     real BIND 9, RabbitMQ and registry, and the sandbox binary's fakes of
//     Jenkins, GoDaddy, Docker Hub and Harbor.
//
// With the External runtime Crossplane starts no pods, so this package is the
// package runtime: for every active FunctionRevision and ProviderRevision it
// issues a server certificate for 127.0.0.1 signed by Crossplane's root CA,
// stores it in a Secret and records it (and, for a function, the endpoint
// dns:///127.0.0.1:PORT) in the revision's status, then runs the function and
// the provider as host processes. No /etc/hosts entry is needed.
//
// Every process runs in its own process group with its log under
// <dir>/logs, and Close stops them all.
package framework

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/freeleaps/provider-devops/internal/testing/argocdserver"
	"github.com/freeleaps/provider-devops/internal/testing/bind"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	"github.com/freeleaps/provider-devops/internal/testing/distribution"
	"github.com/freeleaps/provider-devops/internal/testing/gitea"
	"github.com/freeleaps/provider-devops/internal/testing/loopback"
	"github.com/freeleaps/provider-devops/internal/testing/node"
	"github.com/freeleaps/provider-devops/internal/testing/process"
	"github.com/freeleaps/provider-devops/internal/testing/rabbitmq"
	"github.com/freeleaps/provider-devops/internal/testing/sandbox"
)

// Namespace is where Crossplane runs and keeps its Secrets.
const Namespace = "crossplane-system"

// PackagePrefix is where the packages are published; an ImageConfig rewrites
// it to the loopback registry.
const PackagePrefix = "xpkg.freeleaps.io/"

// Names of the installed packages, as the Configuration's Composition and
// dependencies expect them.
const (
	ProviderName      = "provider-devops"
	FunctionName      = "function-devopsproject"
	ConfigurationName = "configuration-devopsproject"
)

// Config says where everything comes from.
type Config struct {
	// Dir holds every file the cluster writes; Close leaves it for the
	// caller to remove.
	Dir string
	// Logf reports progress.
	Logf func(format string, args ...any)
	// KubeAssets holds etcd, kube-apiserver and kube-controller-manager
	// (hack/envtest-assets.sh kube-controller-manager).
	KubeAssets string
	// CertManagerCRDs is the directory of cert-manager's CRDs
	// (hack/cert-manager-crds.sh), installed so that a chart shipping a
	// Certificate applies; no cert-manager runs.
	CertManagerCRDs string
	// ArgoCD is the directory hack/argocd.sh prints: Argo CD's binary and
	// CRDs.
	ArgoCD string
	// Crossplane is the core binary and CLI the CLI, of one release;
	// CrossplaneCRDs the release's cluster/crds directory.
	Crossplane, CrossplaneCLI, CrossplaneCRDs string
	// Provider, Function and Sandbox are the binaries run on the host.
	Provider, Function, Sandbox string
	// Packages are the .xpkg files of the provider, function and
	// configuration, and Version the tag they are pushed with.
	ProviderPackage, FunctionPackage, ConfigurationPackage string
	Version                                                string
	// UpgradeVersion is a second build of the packages (the same files
	// with this tag in their names), which the scenario installs over
	// Version on the pods runtime; "" skips the upgrade.
	UpgradeVersion string
	// ProviderArgs are extra provider flags (e.g. --poll).
	ProviderArgs []string
	// Runtime says how Crossplane and the packages run (RuntimeProcesses
	// when empty).
	Runtime Runtime
	// Root is the repository's directory (examples/ is read from it);
	// CrossplaneVersion the release of Crossplane and CrossplaneCLI.
	Root, CrossplaneVersion string
	// OTLPEndpoint, when set, is the host:port of an OTLP/HTTP receiver on
	// this machine the provider sends its traces to; JaegerQuery the
	// query API the deployment's trace is then read back from.
	OTLPEndpoint, JaegerQuery string
	// MetricsTargets, when set, is a file the cluster keeps listing the
	// provider's and the function's metrics endpoints in (Prometheus's
	// file_sd JSON, jobs JobProvider and JobFunction).
	MetricsTargets string
	// Forge, when set, is the Gitea the platform's config names
	// (spec.forge) and RunPreviews opens pull requests on. It must run
	// before the cluster starts: Argo CD reaches its repositories as
	// ForgeGitHost.
	Forge *gitea.Server
}

// Cluster is a running control plane with the packages installed.
type Cluster struct {
	cfg        Config
	dir        string
	Kube       client.Client
	REST       *rest.Config
	KubeConfig string

	env *envtest.Environment
	// node is the one-node cluster of the pods runtime; reached maps
	// servers on this machine to their forwarders there (reach).
	node     *node.Node
	reached  map[string]string
	Registry *distribution.Server
	BIND     *bind.Server
	RabbitMQ *rabbitmq.Broker
	// ProviderAMQP and DeployerAMQP are the broker URLs of the provider's
	// user and of the CI user that may request deploys (user "ci"), with
	// the permissions docs/events.md gives.
	ProviderAMQP, DeployerAMQP string
	Sandbox                    sandbox.Endpoints
	// Argo is the real Argo CD; its Apps repository holds deploy/<env> for
	// every environment of the scenario.
	Argo *argocdserver.Server
	// GitPassword is GitUser's password for the Argo CD Apps repository,
	// which answers to nobody else.
	GitPassword string

	mu       sync.Mutex
	procs    []*process.Process
	provider *process.Process
	function *process.Process
	runtimes map[string]*runtime
	// providerMetrics is the provider's Prometheus endpoint;
	// crossplaneMetrics Crossplane's.
	providerMetrics, crossplaneMetrics string
	stop                               context.CancelFunc
	runtimeWG                          sync.WaitGroup
	// deployTrace and deploySpan are the trace and span the deploy
	// request was sent in.
	deployTrace, deploySpan string
	// stopObserve stops keepMetricsTargets.
	stopObserve func()
	observeWG   sync.WaitGroup
}

func (c *Cluster) logf(format string, args ...any) {
	if c.cfg.Logf != nil {
		c.cfg.Logf(format, args...)
	}
}

// Start brings up the control plane, the backends and Crossplane, and
// installs the packages. On error everything started is stopped again.
func Start(ctx context.Context, cfg Config) (_ *Cluster, err error) {
	// The harness's clients log through controller-runtime (API warnings
	// while a definition is being established): without a logger it
	// prints a stack trace saying none was set. They are not needed here.
	ctrllog.SetLogger(logr.Discard())
	c := &Cluster{cfg: cfg, dir: cfg.Dir, runtimes: map[string]*runtime{}}
	defer func() {
		if err != nil {
			c.Close()
		}
	}()
	type step struct {
		what string
		fn   func(context.Context) error
	}
	steps := []step{
		{"etcd, kube-apiserver and kube-controller-manager", c.startKube},
		{"backends: Argo CD, registry, BIND 9, RabbitMQ and the sandbox fakes", c.startBackends},
		{"Crossplane core (init, then start with --package-runtime=External)", c.startCrossplane},
		{"packages pushed to the loopback registry and installed", c.installPackages},
	}
	if cfg.Runtime == RuntimePods {
		steps = []step{
			{"a one-node cluster: control plane, node, kube-proxy and CoreDNS", c.startNode},
			{"backends: Argo CD, BIND 9, RabbitMQ and the sandbox fakes", c.startBackends},
			{"Crossplane with its Helm chart", c.installCrossplane},
			{"packages pushed and installed with crossplane xpkg install", c.installPackagesWithCLI},
		}
	}
	for _, s := range steps {
		t0 := time.Now()
		c.logf("starting %s", s.what)
		if err := s.fn(ctx); err != nil {
			return nil, fmt.Errorf("%s: %w", s.what, err)
		}
		c.logf("  done in %s", time.Since(t0).Round(100*time.Millisecond))
	}
	if cfg.MetricsTargets != "" {
		octx, stop := context.WithCancel(context.WithoutCancel(ctx))
		c.stopObserve = stop
		c.observeWG.Add(1)
		go func() {
			defer c.observeWG.Done()
			c.keepMetricsTargets(octx)
		}()
	}
	return c, nil
}

func (c *Cluster) startKube(ctx context.Context) error {
	scheme := kruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	// cert-manager's CRDs before Argo CD starts, so that its cluster cache
	// knows Certificates when a chart ships one.
	c.env = &envtest.Environment{BinaryAssetsDirectory: c.cfg.KubeAssets, Scheme: scheme,
		CRDDirectoryPaths: []string{c.cfg.CertManagerCRDs}, ErrorIfCRDPathMissing: true,
		CRDInstallOptions: envtest.CRDInstallOptions{MaxTime: controlplane.CRDWait}, ControlPlaneStartTimeout: controlplane.StartWait}
	cfg, err := c.env.Start()
	if err != nil {
		return err
	}
	c.REST = cfg
	u, err := c.env.AddUser(envtest.User{Name: "cluster-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return err
	}
	kc, err := u.KubeConfig()
	if err != nil {
		return err
	}
	c.KubeConfig = filepath.Join(c.dir, "kubeconfig")
	if err := os.WriteFile(c.KubeConfig, kc, 0o600); err != nil {
		return err
	}
	if c.Kube, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		return err
	}
	if _, err := c.start("kube-controller-manager", nil, filepath.Join(c.cfg.KubeAssets, "kube-controller-manager"),
		"--kubeconfig="+c.KubeConfig, "--controllers=garbagecollector,namespace", "--leader-elect=false",
		"--secure-port=0", "--concurrent-gc-syncs=5"); err != nil {
		return err
	}
	return c.Kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}})
}

func (c *Cluster) startBackends(ctx context.Context) error {
	for _, d := range []string{"registry", "bind", "rabbitmq", "argocd"} {
		if err := os.MkdirAll(filepath.Join(c.dir, d), 0o750); err != nil {
			return err
		}
	}
	var err error
	if c.Registry == nil {
		if c.Registry, err = distribution.New(filepath.Join(c.dir, "registry")); err != nil {
			return err
		}
	}
	if c.BIND, err = bind.New(filepath.Join(c.dir, "bind"), "example.com."); err != nil {
		return err
	}
	if c.RabbitMQ, err = rabbitmq.Run(filepath.Join(c.dir, "rabbitmq")); err != nil {
		return err
	}
	if c.ProviderAMQP, err = c.RabbitMQ.AddUserWith("provider-devops", "provider-devops", rabbitmq.ProviderPermissions); err != nil {
		return err
	}
	if c.DeployerAMQP, err = c.RabbitMQ.AddUserWith(DeployUser, DeployUser, rabbitmq.DeployerPermissions); err != nil {
		return err
	}
	if err := c.RabbitMQ.SetTopicPermissions(DeployUser, rabbitmq.DeployerTopicPermissions); err != nil {
		return err
	}
	kubeconfig, err := os.ReadFile(c.KubeConfig)
	if err != nil {
		return err
	}
	// kube-controller-manager already runs the garbage collector Argo CD's
	// foreground cascade needs.
	if c.Argo, err = argocdserver.New(ctx, argocdserver.Config{Dir: filepath.Join(c.dir, "argocd"), Bin: c.cfg.ArgoCD, KubeConfig: kubeconfig, NoGarbageCollector: true, GitHosts: []string{ExampleGitHost}, GitRoutes: c.forgeRoutes()}); err != nil {
		return fmt.Errorf("argo cd: %w", err)
	}
	for name, files := range exampleRepos() {
		if _, err := c.Argo.Git.Create(name, files); err != nil {
			return err
		}
	}
	files, err := gitopsFiles()
	if err != nil {
		return err
	}
	if _, err := c.Argo.Apps.Commit(files, "the scenario's environments"); err != nil {
		return err
	}
	// The project's repository is private, as most are: Argo CD reads it
	// only with the credentials the DevOpsProject's ArgoRepository gives it.
	c.GitPassword = rand.Text()
	c.Argo.Git.Protect("apps", GitUser, c.GitPassword)
	out := filepath.Join(c.dir, "sandbox.json")
	// The sandbox's executor ends a deployment's build as its pipeline
	// would: with a commit to the repository Argo CD syncs from, on the
	// branch the applications track. It pushes to the served directory.
	p, err := c.start("sandbox", nil, c.cfg.Sandbox, "--out", out,
		"--gitops-repo", c.Argo.Apps.Bare, "--gitops-branch", appBranch, "--gitops-manifest", manifestPath,
		// A preview's build builds the pull request's head and commits
		// nothing: its DeployRun syncs that head.
		"--gitops-skip", "^"+regexp.QuoteMeta(previewJobs))
	if err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(out)
		if err == nil {
			return json.Unmarshal(b, &c.Sandbox)
		}
		if done, werr := p.Exited(); done || time.Now().After(deadline) {
			return fmt.Errorf("the sandbox did not start (%v):\n%s", werr, p.Tail(20))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Secret names core init fills.
const (
	caSecret       = "crossplane-root-ca"
	clientSecret   = "crossplane-tls-client"
	registrySecret = "loopback-registry"
	eventsSecret   = "devops-events"
)

func (c *Cluster) startCrossplane(ctx context.Context) error {
	env := []string{
		"KUBECONFIG=" + c.KubeConfig,
		"POD_NAMESPACE=" + Namespace,
		// No webhook server: nothing could reach one. Crossplane core
		// validates with CEL; the webhooks it still serves are optional.
		"ENABLE_WEBHOOKS=false",
		"TLS_CA_SECRET_NAME=" + caSecret,
		"TLS_CLIENT_SECRET_NAME=" + clientSecret,
	}
	empty := filepath.Join(c.dir, "webhookconfigurations")
	if err := os.MkdirAll(empty, 0o750); err != nil {
		return err
	}
	// core init installs the CRDs and at once creates objects of them; the
	// first attempt can beat the API server's discovery ("no matches for
	// kind"). It is idempotent, so try again, as the init container's
	// restart would.
	var out []byte
	var err error
	for attempt := 1; attempt <= 5; attempt++ {
		initCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
		cmd := exec.CommandContext(initCtx, c.cfg.Crossplane, "core", "init")
		cmd.Env = append(os.Environ(), append(env, "CRDS_PATH="+c.cfg.CrossplaneCRDs, "WEBHOOK_CONFIGS_PATH="+empty)...)
		out, err = cmd.CombinedOutput()
		cancel()
		if err == nil {
			break
		}
		time.Sleep(2 * time.Second)
	}
	if err != nil {
		return fmt.Errorf("crossplane core init: %w\n%s", err, lastLines(string(out), 20))
	}

	certs := filepath.Join(c.dir, "crossplane-tls-client")
	if err := c.writeSecretFiles(ctx, clientSecret, certs); err != nil {
		return err
	}
	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	metrics, health := ports[0], ports[1]
	c.crossplaneMetrics = fmt.Sprintf("http://127.0.0.1:%d/metrics", metrics)
	for _, d := range []string{"xpkg", "xfn"} {
		if err := os.MkdirAll(filepath.Join(c.dir, "cache", d), 0o750); err != nil {
			return err
		}
	}
	env = append(env,
		"PACKAGE_RUNTIME=External",
		"TLS_CLIENT_CERTS_DIR="+certs,
		"XPKG_CACHE_DIR="+filepath.Join(c.dir, "cache", "xpkg"),
		"XFN_CACHE_DIR="+filepath.Join(c.dir, "cache", "xfn"),
		fmt.Sprintf("METRICS_PORT=%d", metrics),
		fmt.Sprintf("HEALTH_PROBE_PORT=%d", health),
	)
	// The XR circuit breaker stays open 1m here, not Crossplane's 5m: the
	// scenario creates the project again right after deleting it, whose
	// burst of composed-resource events opened the breaker for that name.
	if _, err = c.start("crossplane", env, c.cfg.Crossplane, "core", "start", "--circuit-breaker-cooldown=1m"); err != nil {
		return err
	}
	// The RBAC manager derives each provider revision's ClusterRole from
	// its package and binds it to the revision's ServiceAccount, which the
	// provider then runs as (providerIdentity).
	if _, err = c.start("crossplane-rbac", env, c.cfg.Crossplane, "rbac", "start"); err != nil {
		return err
	}
	rctx, stop := context.WithCancel(context.Background())
	c.stop = stop
	c.runtimeWG.Add(1)
	go func() {
		defer c.runtimeWG.Done()
		c.packageRuntime(rctx)
	}()
	return nil
}

// writeSecretFiles writes a TLS Secret's ca.crt, tls.crt and tls.key to dir.
func (c *Cluster) writeSecretFiles(ctx context.Context, name, dir string) error {
	s := &corev1.Secret{}
	if err := c.Kube.Get(ctx, types.NamespacedName{Namespace: Namespace, Name: name}, s); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, k := range []string{"ca.crt", "tls.crt", "tls.key"} {
		if len(s.Data[k]) == 0 {
			return fmt.Errorf("secret %s/%s has no %s", Namespace, name, k)
		}
		if err := os.WriteFile(filepath.Join(dir, k), s.Data[k], 0o600); err != nil {
			return err
		}
	}
	return nil
}

// pushPackages pushes the three packages to the registry with `crossplane
// xpkg push`, under freeleaps/<name>:<version>.
func (c *Cluster) pushPackages(ctx context.Context) error {
	dockerDir := filepath.Join(c.dir, "docker")
	if err := os.MkdirAll(dockerDir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dockerDir, "config.json"), []byte(c.dockerConfig()), 0o600); err != nil {
		return err
	}
	for name, file := range map[string]string{ProviderName: c.cfg.ProviderPackage, FunctionName: c.cfg.FunctionPackage, ConfigurationName: c.cfg.ConfigurationPackage} {
		if err := c.pushPackage(ctx, name, c.cfg.Version, file); err != nil {
			return err
		}
	}
	return nil
}

// pushPackage pushes the .xpkg file as the package name at version, with
// the registry's credentials (written by pushPackages).
func (c *Cluster) pushPackage(ctx context.Context, name, version, file string) error {
	ref := fmt.Sprintf("%s/freeleaps/%s:%s", c.Registry.Host, name, version)
	cmd := exec.CommandContext(ctx, c.cfg.CrossplaneCLI, "xpkg", "push", "-f", file, ref)
	cmd.Env = append(os.Environ(), "DOCKER_CONFIG="+filepath.Join(c.dir, "docker"))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("crossplane xpkg push %s: %w\n%s", ref, err, lastLines(string(out), 10))
	}
	c.logf("  pushed %s", ref)
	return nil
}

// dockerConfig is a Docker config.json with the registry's credentials.
func (c *Cluster) dockerConfig() string { return dockerConfigFor(c.Registry.Host) }

// dockerConfigFor is a Docker config.json with the registry's credentials
// for its address host.
func dockerConfigFor(host string) string {
	auth := base64.StdEncoding.EncodeToString([]byte(distribution.User + ":" + distribution.Password))
	return fmt.Sprintf(`{"auths":{%q:{"auth":%q}}}`, host, auth)
}

// registryObjects are what Crossplane needs to install from the registry
// at host, as docs/install.md gives them: its pull Secret (dockerConfig),
// an ImageConfig rewriting PackagePrefix to it and one giving it the
// Secret; and the activation policy of the provider's kinds.
func registryObjects(host, dockerConfig string) string {
	return fmt.Sprintf(`
apiVersion: v1
kind: Secret
metadata: {name: %[1]s, namespace: %[2]s}
type: kubernetes.io/dockerconfigjson
stringData:
  .dockerconfigjson: '%[3]s'
---
apiVersion: pkg.crossplane.io/v1beta1
kind: ImageConfig
metadata: {name: freeleaps-to-registry}
spec:
  matchImages: [{prefix: %[4]s}]
  rewriteImage: {prefix: %[5]s/freeleaps/}
---
apiVersion: pkg.crossplane.io/v1beta1
kind: ImageConfig
metadata: {name: registry-auth}
spec:
  matchImages: [{prefix: %[5]s/}]
  registry:
    authentication:
      pullSecretRef: {name: %[1]s}
---
apiVersion: apiextensions.crossplane.io/v1alpha1
kind: ManagedResourceActivationPolicy
metadata: {name: provider-devops}
spec:
  activate: ["*.devops.freeleaps.io"]`, registrySecret, Namespace, dockerConfig, PackagePrefix, host)
}

func (c *Cluster) installPackages(ctx context.Context) error {
	if err := c.pushPackages(ctx); err != nil {
		return err
	}
	objects := registryObjects(c.Registry.Host, c.dockerConfig()) + fmt.Sprintf(`
---
apiVersion: pkg.crossplane.io/v1
kind: Provider
metadata: {name: %[2]s}
spec: {package: %[1]s%[2]s:%[4]s}
---
apiVersion: pkg.crossplane.io/v1
kind: Function
metadata: {name: %[3]s}
spec: {package: %[1]s%[3]s:%[4]s}
`, PackagePrefix, ProviderName, FunctionName, c.cfg.Version)
	if err := c.Apply(ctx, objects); err != nil {
		return err
	}
	for _, p := range []struct{ kind, name string }{{"Provider", ProviderName}, {"Function", FunctionName}} {
		if err := c.WaitPackage(ctx, p.kind, p.name); err != nil {
			return err
		}
	}
	if err := c.Apply(ctx, fmt.Sprintf(`
apiVersion: pkg.crossplane.io/v1
kind: Configuration
metadata: {name: %[1]s}
spec: {package: %[2]s%[1]s:%[3]s}
`, ConfigurationName, PackagePrefix, c.cfg.Version)); err != nil {
		return err
	}
	if err := c.WaitPackage(ctx, "Configuration", ConfigurationName); err != nil {
		return err
	}
	return c.waitKinds(ctx)
}

// waitKinds waits for the packages' kinds to be served.
func (c *Cluster) waitKinds(ctx context.Context) error {
	// The provider's kinds arrive as ManagedResourceDefinitions (safe-start);
	// the activation policy turns them into CRDs.
	for _, crd := range []string{"jenkinspipelines.jenkins", "jenkinscredentials.jenkins", "argoapplications.argocd", "dnsrecords.dns", "registryrepos.registry"} {
		if err := c.waitEstablished(ctx, "apiextensions.k8s.io/v1", "CustomResourceDefinition", crd+".devops.freeleaps.io"); err != nil {
			return err
		}
	}
	return c.waitEstablished(ctx, "apiextensions.crossplane.io/v1", "CompositeResourceDefinition", "devopsprojects.platform.freeleaps.io")
}

// waitEstablished waits for a definition's Established condition.
func (c *Cluster) waitEstablished(ctx context.Context, apiVersion, kind, name string) error {
	return c.Wait(ctx, fmt.Sprintf("%s %s to be established", kind, name), 2*time.Minute, func(ctx context.Context) (bool, string, error) {
		x, err := c.Get(ctx, apiVersion, kind, "", name)
		if err != nil {
			return false, err.Error(), nil
		}
		st, _, msg := Condition(x, "Established")
		return st == "True", msg, nil
	})
}

// WaitPackage waits until a package reports Installed and Healthy.
func (c *Cluster) WaitPackage(ctx context.Context, kind, name string) error {
	t0 := time.Now()
	err := c.Wait(ctx, fmt.Sprintf("%s %s to be Installed and Healthy", kind, name), 3*time.Minute, func(ctx context.Context) (bool, string, error) {
		p, err := c.Get(ctx, "pkg.crossplane.io/v1", kind, "", name)
		if err != nil {
			return false, err.Error(), nil
		}
		inst, _, imsg := Condition(p, "Installed")
		healthy, _, hmsg := Condition(p, "Healthy")
		return inst == "True" && healthy == "True", fmt.Sprintf("Installed=%s %s; Healthy=%s %s", inst, imsg, healthy, hmsg), nil
	})
	if err == nil {
		c.logf("  %s %s is Installed and Healthy (%s)", kind, name, time.Since(t0).Round(100*time.Millisecond))
	}
	return err
}

// Close stops every process and server the cluster started. Its directory
// stays for the caller to inspect or remove.
func (c *Cluster) Close() {
	if c.stopObserve != nil {
		c.stopObserve()
		c.observeWG.Wait()
	}
	if c.stop != nil {
		c.stop()
		c.runtimeWG.Wait()
	}
	c.mu.Lock()
	procs := append([]*process.Process(nil), c.procs...)
	c.mu.Unlock()
	// Stop in reverse order: the provider and function before Crossplane,
	// Crossplane before the API server.
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].Stop(10 * time.Second)
	}
	if c.Argo != nil {
		c.Argo.Close()
	}
	if c.RabbitMQ != nil {
		c.RabbitMQ.Close()
	}
	if c.BIND != nil {
		c.BIND.Close()
	}
	if c.Registry != nil {
		c.Registry.Close()
	}
	if c.env != nil {
		_ = c.env.Stop()
	}
	if c.node != nil {
		c.node.Close()
	}
}

// Apply creates the objects of a multi-document YAML; existing ones are
// left as they are.
func (c *Cluster) Apply(ctx context.Context, docs string) error {
	for _, doc := range strings.Split(docs, "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			return fmt.Errorf("cannot parse %q: %w", lastLines(doc, 5), err)
		}
		if err := c.Kube.Create(ctx, u); client.IgnoreAlreadyExists(err) != nil {
			return fmt.Errorf("cannot create %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return nil
}

// Get reads one object.
func (c *Cluster) Get(ctx context.Context, apiVersion, kind, namespace, name string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	err := c.Kube.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, u)
	return u, err
}

// List reads every object of a kind, in every namespace or in one.
func (c *Cluster) List(ctx context.Context, apiVersion, kind string, opts ...client.ListOption) ([]unstructured.Unstructured, error) {
	l := &unstructured.UnstructuredList{}
	l.SetAPIVersion(apiVersion)
	l.SetKind(kind + "List")
	err := c.Kube.List(ctx, l, opts...)
	return l.Items, err
}

// Condition returns a condition's status, reason and message.
func Condition(u *unstructured.Unstructured, typ string) (status, reason, message string) {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == typ {
			s, _ := m["status"].(string)
			r, _ := m["reason"].(string)
			msg, _ := m["message"].(string)
			return s, r, msg
		}
	}
	return "Unknown", "", ""
}

// ErrProcessExited says a process the cluster depends on has ended.
var ErrProcessExited = errors.New("process exited")

// Wait polls check every second until it is done, timeout passes or a
// process the cluster runs has died; the error carries the last status.
func (c *Cluster) Wait(ctx context.Context, what string, timeout time.Duration, check func(context.Context) (bool, string, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	last := ""
	for {
		done, status, err := check(ctx)
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", what, err)
		}
		if done {
			return nil
		}
		last = status
		if err := c.processesAlive(); err != nil {
			return fmt.Errorf("waiting for %s: %w", what, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: gave up after %s; last seen: %s", what, timeout, last)
		case <-time.After(time.Second):
		}
	}
}

func (c *Cluster) processesAlive() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.procs {
		if done, err := p.Exited(); done {
			return fmt.Errorf("%w: %s (%v); the end of its log %s:\n%s", ErrProcessExited, p.Name, err, p.Log, p.Tail(30))
		}
	}
	return nil
}

// freePorts returns n loopback ports nothing listens on now.
func freePorts(n int) ([]int, error) {
	ports := make([]int, n)
	for i := range ports {
		p, err := loopback.FreePort()
		if err != nil {
			return nil, err
		}
		ports[i] = p
	}
	return ports, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

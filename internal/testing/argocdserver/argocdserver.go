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

// Package argocdserver runs a real Argo CD for tests and the local cluster:
// Debian's redis-server, and Argo CD's repo server, API server and
// application controller (one binary built by hack/argocd.sh, chosen by
// ARGOCD_BINARY_NAME) against a given kube-apiserver, which is also the
// in-cluster destination apps deploy into. A loopback git server holds the
// apps they sync. Authentication stays on: tokens of local accounts scoped by
// Argo CD's own RBAC, so 401 and 403 are Argo CD's.
//
// Every server listens on 127.0.0.1, but for the application controller's
// metrics endpoint, which Argo CD binds on all interfaces without a flag to
// change it (a free random port).
package argocdserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlenvtest "sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	"github.com/freeleaps/provider-devops/internal/testing/gitserver"
	"github.com/freeleaps/provider-devops/internal/testing/integration"
	"github.com/freeleaps/provider-devops/internal/testing/loopback"
	"github.com/freeleaps/provider-devops/internal/testing/process"
)

// Namespace Argo CD runs in and keeps its Applications in.
const Namespace = "argocd"

// AppsNamespacePattern is the glob of the extra namespaces Argo CD watches
// for Applications (apps in any namespace), so tests see what a client meets
// when two namespaces hold an app of the same name.
const AppsNamespacePattern = "argocd-apps-*"

// Accounts with an API token. ProviderAccount may do everything on
// applications, projects and repositories, read clusters; LimitedAccount may
// only read applications of the project "limited".
const (
	ProviderAccount = "provider"
	LimitedAccount  = "limited"
)

// RBAC is argocd-rbac-cm's policy: nothing by default, the provider account
// what the provider needs.
const RBAC = `p, provider, applications, *, */*, allow
p, provider, projects, *, *, allow
p, provider, repositories, *, *, allow
p, provider, clusters, get, *, allow
p, limited, applications, get, limited/*, allow
`

// InClusterServer is the destination that means "the cluster Argo CD runs in".
const InClusterServer = "https://kubernetes.default.svc"

// ApplicationGVR is Argo CD's Application resource.
var ApplicationGVR = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}

// Config of a Server.
type Config struct {
	// Dir holds logs, the kubeconfig, redis' data and the git repositories.
	Dir string
	// Bin is the directory hack/argocd.sh prints: the binary, crds/ and
	// bin/ (helm and kustomize).
	Bin string
	// KubeConfig is an administrator's kubeconfig of the control plane Argo
	// CD manages and keeps its state in.
	KubeConfig []byte
	// NoGarbageCollector is set when the control plane already runs
	// kube-controller-manager's garbage collector.
	NoGarbageCollector bool
	// GitHosts are host names (git.example.com) the git server answers to
	// over HTTPS besides 127.0.0.1: the repo server reaches them through
	// the server's proxy (HTTPS_PROXY, as behind a corporate proxy) and
	// trusts its certificate for each (argocd-tls-certs-cm in a cluster).
	GitHosts []string
	// GitRoutes are more such host names, each passed on to another git
	// server (a forge on loopback, http://127.0.0.1:PORT), which Argo CD
	// then reaches by that name over HTTPS, as behind a forge's
	// TLS-terminating proxy.
	GitRoutes map[string]string
}

// Server is a running Argo CD.
type Server struct {
	// URL of the API server (plain HTTP on loopback).
	URL string
	// Token of ProviderAccount; LimitedToken of LimitedAccount.
	Token, LimitedToken string
	// Git serves the repositories; Apps is the one holding the sample apps.
	Git  *gitserver.Server
	Apps *gitserver.Repo
	// Kube is a client of the control plane.
	Kube client.Client

	cfg            Config
	kubeconfigPath string
	// kubeHost is the control plane's host, which the repo server reaches
	// without the git proxy.
	kubeHost                     string
	adminPassword                string
	redisPort, repoPort, apiPort int
	apiMetrics                   string
	mu                           sync.Mutex
	redis, repo, api, controller *process.Process
	gc                           *process.Process
	// askPassDir holds the askpass socket when the server's directory is
	// too deep for one; removed by Close.
	askPassDir string
}

// Bin returns the Argo CD directory from the environment variable ARGOCD
// (make test sets it from hack/argocd.sh), or "".
func Bin() string {
	d := os.Getenv("ARGOCD")
	if d == "" {
		return ""
	}
	if _, err := os.Stat(filepath.Join(d, "argocd")); err != nil {
		return ""
	}
	return d
}

// Available says why Argo CD cannot run here, or "".
func Available() string {
	switch {
	case Bin() == "":
		return "ARGOCD is not set to the directory hack/argocd.sh prints (make test sets it)"
	case !gitserver.Installed():
		return "git is not installed (apt-get install git)"
	}
	if _, err := os.Stat(redisServer); err != nil {
		return "redis-server is not installed (apt-get install redis-server)"
	}
	return ""
}

const redisServer = "/usr/bin/redis-server"

// New starts Argo CD and returns once its API answers and the tokens exist.
func New(ctx context.Context, cfg Config) (_ *Server, err error) {
	s := &Server{cfg: cfg, kubeconfigPath: filepath.Join(cfg.Dir, "kubeconfig")}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if err := s.setupKube(ctx); err != nil {
		return nil, err
	}
	hosts := slices.Clone(cfg.GitHosts)
	for h := range cfg.GitRoutes {
		hosts = append(hosts, h)
	}
	if s.Git, err = gitserver.New(filepath.Join(cfg.Dir, "git"), hosts...); err != nil {
		return nil, err
	}
	for h, up := range cfg.GitRoutes {
		if err := s.Git.Route(h, up); err != nil {
			return nil, err
		}
	}
	// Argo CD trusts a repository server's certificate from a file named for
	// its host in ARGOCD_TLS_DATA_PATH (argocd-tls-certs-cm in a cluster).
	if err := os.MkdirAll(filepath.Join(cfg.Dir, "tls"), 0o750); err != nil {
		return nil, err
	}
	for _, host := range append([]string{"127.0.0.1"}, hosts...) {
		if err := os.WriteFile(filepath.Join(cfg.Dir, "tls", host), s.Git.CertPEM, 0o600); err != nil {
			return nil, err
		}
	}
	if s.Apps, err = s.Git.Create("apps", SampleApps); err != nil {
		return nil, err
	}
	for _, p := range []*int{&s.redisPort, &s.repoPort, &s.apiPort} {
		if *p, err = loopback.FreePort(); err != nil {
			return nil, err
		}
	}
	if err := s.startGarbageCollector(); err != nil {
		return nil, err
	}
	if err := onFreePort(&s.redisPort, s.startRedis); err != nil {
		return nil, err
	}
	if err := onFreePort(&s.repoPort, func() error { return s.StartRepoServer(ctx) }); err != nil {
		return nil, err
	}
	if err := onFreePort(&s.apiPort, func() error { return s.startAPI(ctx) }); err != nil {
		return nil, err
	}
	if err := s.startController(); err != nil {
		return nil, err
	}
	if err := s.createTokens(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// onFreePort starts a component on *port, picked free beforehand: another
// process (a test package running in parallel) may bind it in between, so
// a start that fails on "address already in use" (its own port or its
// metrics port) is tried again, twice, on a port picked anew.
func onFreePort(port *int, start func() error) error {
	for attempt := 0; ; attempt++ {
		err := start()
		if err == nil || attempt == 2 || !strings.Contains(strings.ToLower(err.Error()), "address already in use") {
			return err
		}
		if *port, err = loopback.FreePort(); err != nil {
			return err
		}
	}
}

// Close stops every process.
func (s *Server) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range []*process.Process{s.controller, s.api, s.repo, s.redis, s.gc} {
		if p != nil {
			p.Stop(10 * time.Second)
		}
	}
	if s.Git != nil {
		s.Git.Close()
	}
	if s.askPassDir != "" {
		_ = os.RemoveAll(s.askPassDir)
	}
}

func (s *Server) logs() string { return filepath.Join(s.cfg.Dir, "logs") }

func (s *Server) setupKube(ctx context.Context) error {
	if err := os.WriteFile(s.kubeconfigPath, s.cfg.KubeConfig, 0o600); err != nil {
		return err
	}
	rc, err := clientcmd.RESTConfigFromKubeConfig(s.cfg.KubeConfig)
	if err != nil {
		return fmt.Errorf("cannot read the kubeconfig: %w", err)
	}
	if _, err := ctrlenvtest.InstallCRDs(rc, ctrlenvtest.CRDInstallOptions{Paths: []string{filepath.Join(s.cfg.Bin, "crds")}, ErrorIfPathMissing: true, MaxTime: controlplane.CRDWait}); err != nil {
		return fmt.Errorf("cannot install Argo CD's CRDs: %w", err)
	}
	if s.Kube, err = client.New(rc, client.Options{}); err != nil {
		return err
	}
	if u, err := url.Parse(rc.Host); err == nil {
		s.kubeHost = u.Hostname()
	}
	pw := randomHex(16)
	hash, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.MinCost)
	if err != nil {
		return err
	}
	s.adminPassword = pw
	part := map[string]string{"app.kubernetes.io/part-of": "argocd"}
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "argocd-cm", Namespace: Namespace, Labels: part}, Data: map[string]string{
			"admin.enabled":                  "true",
			"accounts." + ProviderAccount:    "apiKey",
			"accounts." + LimitedAccount:     "apiKey",
			"application.instanceLabelKey":   "argocd.argoproj.io/instance",
			"timeout.reconciliation":         "30s",
			"server.rbac.log.enforce.enable": "false",
			"statusbadge.enabled":            "false",
			"users.anonymous.enabled":        "false",
		}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "argocd-rbac-cm", Namespace: Namespace, Labels: part}, Data: map[string]string{
			"policy.default": "", "policy.csv": RBAC,
		}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "argocd-secret", Namespace: Namespace, Labels: part}, StringData: map[string]string{
			"server.secretkey":    randomHex(32),
			"admin.password":      string(hash),
			"admin.passwordMtime": time.Now().UTC().Format(time.RFC3339),
		}},
	}
	for _, o := range objs {
		if err := s.Kube.Create(ctx, o); err != nil && !kerrors.IsAlreadyExists(err) {
			return fmt.Errorf("cannot create %s: %w", o.GetName(), err)
		}
	}
	return nil
}

func (s *Server) env(component string) []string {
	d := s.cfg.Dir
	for _, sub := range []string{"tmp", "tls", "ssh", "gpg", "home"} {
		_ = os.MkdirAll(filepath.Join(d, sub), 0o750)
	}
	return []string{
		"ARGOCD_BINARY_NAME=" + component,
		"ARGOCD_FAKE_IN_CLUSTER=true",
		"KUBECONFIG=" + s.kubeconfigPath,
		"ARGOCD_GPG_ENABLED=false",
		"ARGOCD_TLS_DATA_PATH=" + filepath.Join(d, "tls"),
		"ARGOCD_SSH_DATA_PATH=" + filepath.Join(d, "ssh"),
		"ARGOCD_GNUPGHOME=" + filepath.Join(d, "gpg"),
		"TMPDIR=" + filepath.Join(d, "tmp"),
		"HOME=" + filepath.Join(d, "home"),
		// helm and kustomize for the repo server (hack/argocd.sh links them),
		// and argocd itself: git asks it for a private repository's
		// credentials (GIT_ASKPASS=argocd), as in Argo CD's image.
		"PATH=" + filepath.Join(s.cfg.Bin, "bin") + string(os.PathListSeparator) + s.cfg.Bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"REDIS_PASSWORD=",
		// The repo server's askpass socket, through which git gets a
		// private repository's credentials, is /tmp/reposerver-ask-pass.sock
		// unless set: every Argo CD on the machine (a test, an e2e and a
		// demo at once) would take it from the one before, whose git then
		// asks the wrong server ("unable to read askpass response").
		"ARGOCD_ASK_PASS_SOCK=" + s.askPassSocket(),
	}
}

// askPassSocket is the repo server's askpass socket, in the server's
// directory, or in a directory of its own under the system's when that
// path is too long for a unix socket.
func (s *Server) askPassSocket() string {
	sock := filepath.Join(s.cfg.Dir, "tmp", "askpass.sock")
	if len(sock) < 100 {
		return sock
	}
	if s.askPassDir == "" {
		d, err := os.MkdirTemp("", "argocd-askpass-")
		if err != nil {
			return sock
		}
		s.askPassDir = d
	}
	return filepath.Join(s.askPassDir, "askpass.sock")
}

func (s *Server) bin() string { return filepath.Join(s.cfg.Bin, "argocd") }

// startGarbageCollector runs kube-controller-manager's garbage collector
// when KUBEBUILDER_ASSETS has it and nothing else runs one: Argo CD's
// cascading delete is foreground by default, and a foreground delete only
// completes once a garbage collector removes the foregroundDeletion
// finalizer. A real cluster always has one; envtest has none.
func (s *Server) startGarbageCollector() error {
	if s.cfg.NoGarbageCollector {
		return nil
	}
	kcm := filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kube-controller-manager")
	if _, err := os.Stat(kcm); err != nil {
		if os.Getenv("CI") != "" {
			return fmt.Errorf("%s is missing: make test builds it (hack/envtest-assets.sh kube-controller-manager)", kcm)
		}
		return nil
	}
	p, err := process.Start(s.logs(), "kube-controller-manager", nil, kcm, "--kubeconfig="+s.kubeconfigPath,
		"--controllers=garbagecollector", "--leader-elect=false", "--secure-port=0", "--concurrent-gc-syncs=5")
	s.gc = p
	return err
}

func (s *Server) startRedis() error {
	dir := filepath.Join(s.cfg.Dir, "redis")
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	p, err := process.Start(s.logs(), "redis", nil, redisServer, "--bind", "127.0.0.1", "--port", strconv.Itoa(s.redisPort),
		"--save", "", "--appendonly", "no", "--dir", dir, "--protected-mode", "yes")
	if err != nil {
		return err
	}
	s.redis = p
	return waitTCP(p, s.redisPort, time.Minute)
}

// StartRepoServer (re)starts the repo server on its port.
func (s *Server) StartRepoServer(_ context.Context) error {
	metrics, err := loopback.FreePort()
	if err != nil {
		return err
	}
	env := s.env("argocd-repo-server")
	if s.Git.ProxyURL != "" {
		// Only the repo server talks to git servers; loopback and the
		// control plane stay direct.
		noProxy := "127.0.0.1,localhost," + s.kubeHost
		env = append(env, "HTTPS_PROXY="+s.Git.ProxyURL, "https_proxy="+s.Git.ProxyURL, "NO_PROXY="+noProxy, "no_proxy="+noProxy)
	}
	p, err := process.Start(s.logs(), "repo-server", env, s.bin(),
		"--address", "127.0.0.1", "--port", strconv.Itoa(s.repoPort),
		"--metrics-address", "127.0.0.1", "--metrics-port", strconv.Itoa(metrics),
		"--redis", s.redisAddr(), "--disable-tls", "--loglevel", "info", "--logformat", "text")
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.repo = p
	s.mu.Unlock()
	return waitTCP(p, s.repoPort, 2*time.Minute)
}

// StopRepoServer stops the repo server, as when its pod is down.
func (s *Server) StopRepoServer() {
	s.mu.Lock()
	p := s.repo
	s.repo = nil
	s.mu.Unlock()
	if p != nil {
		p.Stop(10 * time.Second)
	}
}

func (s *Server) redisAddr() string { return "127.0.0.1:" + strconv.Itoa(s.redisPort) }
func (s *Server) repoAddr() string  { return "127.0.0.1:" + strconv.Itoa(s.repoPort) }

func (s *Server) startAPI(ctx context.Context) error {
	metrics, err := loopback.FreePort()
	if err != nil {
		return err
	}
	static := filepath.Join(s.cfg.Dir, "static")
	_ = os.MkdirAll(static, 0o750)
	p, err := process.Start(s.logs(), "api-server", s.env("argocd-server"), s.bin(),
		"--insecure", "--address", "127.0.0.1", "--port", strconv.Itoa(s.apiPort),
		"--metrics-address", "127.0.0.1", "--metrics-port", strconv.Itoa(metrics),
		"--redis", s.redisAddr(), "--repo-server", s.repoAddr(), "--repo-server-plaintext",
		"--dex-server", "http://127.0.0.1:1", "--staticassets", static,
		"--kubeconfig", s.kubeconfigPath, "--namespace", Namespace,
		"--application-namespaces", AppsNamespacePattern,
		"--loglevel", "info", "--logformat", "text")
	if err != nil {
		return err
	}
	s.api = p
	s.URL = "http://127.0.0.1:" + strconv.Itoa(s.apiPort)
	s.apiMetrics = "http://127.0.0.1:" + strconv.Itoa(metrics) + "/metrics"
	return waitHTTP(ctx, p, s.URL+"/healthz", 2*time.Minute)
}

func (s *Server) startController() error {
	metrics, err := loopback.FreePort()
	if err != nil {
		return err
	}
	p, err := process.Start(s.logs(), "application-controller", s.env("argocd-application-controller"), s.bin(),
		"--kubeconfig", s.kubeconfigPath, "--namespace", Namespace,
		"--redis", s.redisAddr(), "--repo-server", s.repoAddr(), "--repo-server-plaintext",
		"--commit-server", "127.0.0.1:1", "--metrics-port", strconv.Itoa(metrics),
		"--application-namespaces", AppsNamespacePattern,
		"--app-resync", "30", "--status-processors", "4", "--operation-processors", "4",
		"--loglevel", "info", "--logformat", "text")
	if err != nil {
		return err
	}
	s.controller = p
	return waitTCP(p, metrics, 2*time.Minute)
}

// createTokens logs in as admin and creates one API token per account.
func (s *Server) createTokens(ctx context.Context) error {
	var session struct {
		Token string `json:"token"`
	}
	if err := s.call(ctx, "", http.MethodPost, "/api/v1/session", map[string]string{"username": "admin", "password": s.adminPassword}, &session); err != nil {
		return fmt.Errorf("cannot log in as admin: %w", err)
	}
	for _, acct := range []struct {
		name string
		into *string
	}{{ProviderAccount, &s.Token}, {LimitedAccount, &s.LimitedToken}} {
		var tok struct {
			Token string `json:"token"`
		}
		if err := s.call(ctx, session.Token, http.MethodPost, "/api/v1/account/"+acct.name+"/token", map[string]any{"name": acct.name, "id": "tests-" + randomHex(4)}, &tok); err != nil {
			return fmt.Errorf("cannot create a token for %s: %w", acct.name, err)
		}
		*acct.into = tok.Token
	}
	return nil
}

// call sends one JSON request to the API server.
func (s *Server) call(ctx context.Context, token, method, path string, in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, method, s.URL+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, body)
	}
	return json.Unmarshal(body, out)
}

// Application reads the Application called name in namespace straight from
// Kubernetes, or nil when there is none.
func (s *Server) Application(ctx context.Context, namespace, name string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(ApplicationGVR.GroupVersion().WithKind("Application"))
	err := s.Kube.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, u)
	if kerrors.IsNotFound(err) {
		return nil, nil
	}
	return u, err
}

// Requests counts the application API calls the API server has handled, by
// HTTP verb as a client sends them ("argocd GET" for List and Get, "argocd
// PATCH", "argocd DELETE", ...), from its gRPC metrics.
func (s *Server) Requests(ctx context.Context) (map[string]int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.apiMetrics, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	verbs := map[string]string{"List": "GET", "Get": "GET", "Create": "POST", "Update": "PUT", "Patch": "PATCH", "Delete": "DELETE", "Sync": "POST sync"}
	out := map[string]int{}
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, "grpc_server_handled_total{") || !strings.Contains(line, `grpc_service="application.ApplicationService"`) {
			continue
		}
		_, rest, _ := strings.Cut(line, `grpc_method="`)
		method, _, _ := strings.Cut(rest, `"`)
		f := strings.Fields(line)
		n, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			return nil, fmt.Errorf("cannot parse %q: %w", line, err)
		}
		verb := verbs[method]
		if verb == "" {
			verb = method
		}
		out["argocd "+verb] += int(n)
	}
	return out, nil
}

// Applications lists the names of the Applications in Argo CD's namespace.
func (s *Server) Applications(ctx context.Context) ([]string, error) {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(ApplicationGVR.GroupVersion().WithKind("ApplicationList"))
	if err := s.Kube.List(ctx, l, client.InNamespace(Namespace)); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(l.Items))
	for _, a := range l.Items {
		names = append(names, a.GetName())
	}
	return names, nil
}

// WriteCounter is a transport that counts the non-GET requests sent
// through it, to check a steady state writes nothing.
type WriteCounter struct {
	mu   sync.Mutex
	n    map[string]int
	next http.RoundTripper
}

// NewWriteCounter counts the writes sent through http.DefaultTransport.
func NewWriteCounter() *WriteCounter {
	return &WriteCounter{n: map[string]int{}, next: http.DefaultTransport}
}

// RoundTrip counts a write and sends the request on.
func (w *WriteCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet {
		w.mu.Lock()
		w.n[req.Method+" "+req.URL.Path]++
		w.mu.Unlock()
	}
	return w.next.RoundTrip(req)
}

// Take returns the writes counted since the last Take, by method and path.
func (w *WriteCounter) Take() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.n
	w.n = map[string]int{}
	return out
}

// Project reads the AppProject name from the control plane.
func (s *Server) Project(ctx context.Context, name string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("argoproj.io/v1alpha1")
	u.SetKind("AppProject")
	return u, s.Kube.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: name}, u)
}

// Repositories lists the repositories registered in Argo CD as
// "<project> <url> <connection status>" ("" project: a global one), read
// with the provider's token.
func (s *Server) Repositories(ctx context.Context) ([]string, error) {
	var l struct {
		Items []struct {
			Repo, Project   string
			ConnectionState struct{ Status string }
		}
	}
	if err := s.call(ctx, s.Token, http.MethodGet, "/api/v1/repositories", nil, &l); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(l.Items))
	for _, r := range l.Items {
		out = append(out, r.Project+" "+r.Repo+" "+r.ConnectionState.Status)
	}
	return out, nil
}

func waitTCP(p *process.Process, port int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if done, err := p.Exited(); done {
			return fmt.Errorf("%s exited: %v\n%s", p.Name, err, p.Tail(30))
		}
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
		if err == nil {
			_ = c.Close()
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("%s did not listen on %d within %s:\n%s", p.Name, port, timeout, p.Tail(30))
}

func waitHTTP(ctx context.Context, p *process.Process, url string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if done, err := p.Exited(); done {
			return fmt.Errorf("%s exited: %v\n%s", p.Name, err, p.Tail(30))
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer %s within %s:\n%s", p.Name, url, timeout, p.Tail(30))
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

var (
	sharedOnce sync.Once
	shared     *Server
	errShared  error
)

// Shared returns one Argo CD per test binary on env's control plane,
// starting it on first use; controlplane.Main stops it after the last test.
// Without the binaries the test fails in CI and is skipped elsewhere.
func Shared(t testing.TB, env *controlplane.Env) *Server {
	t.Helper()
	integration.Test(t, "Argo CD")
	if why := Available(); why != "" {
		if os.Getenv("CI") != "" {
			t.Fatal("cannot run a real Argo CD: " + why)
		}
		t.Skip("cannot run a real Argo CD: " + why + "; skipped outside CI")
	}
	sharedOnce.Do(func() {
		kc, err := env.KubeConfig()
		if err != nil {
			errShared = err
			return
		}
		dir, err := os.MkdirTemp("", "argocd-")
		if err != nil {
			errShared = err
			return
		}
		shared, errShared = New(context.Background(), Config{Dir: dir, Bin: Bin(), KubeConfig: kc})
		controlplane.AtExit(func() {
			if shared != nil {
				shared.Close()
			}
			_ = os.RemoveAll(dir)
		})
	})
	if errShared != nil {
		t.Fatalf("cannot start Argo CD: %v", errShared)
	}
	return shared
}

// ServeSSH serves the git repositories over SSH as well and configures
// Argo CD as a platform team does for a git host it reaches by SSH: the
// host's key among its known hosts (argocd-ssh-known-hosts-cm in a
// cluster) and a credential template (a repo-creds Secret) that gives
// every repository under ssh://git@<host>/ the key.
func (s *Server) ServeSSH(ctx context.Context) (gitserver.SSH, error) {
	c, err := s.Git.ServeSSH()
	if err != nil {
		return c, err
	}
	if err := os.WriteFile(filepath.Join(s.cfg.Dir, "ssh", "ssh_known_hosts"), []byte(c.KnownHosts+"\n"), 0o600); err != nil {
		return c, err
	}
	creds := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "git-ssh", Namespace: Namespace, Labels: map[string]string{"argocd.argoproj.io/secret-type": "repo-creds"}},
		StringData: map[string]string{"type": "git", "url": "ssh://git@" + c.Addr + "/", "sshPrivateKey": string(c.PrivateKeyPEM)},
	}
	if err := s.Kube.Create(ctx, creds); err != nil && !kerrors.IsAlreadyExists(err) {
		return c, err
	}
	return c, nil
}

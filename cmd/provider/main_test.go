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
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	"github.com/freeleaps/provider-devops/internal/testing/integration"
	jenkinsfake "github.com/freeleaps/provider-devops/internal/testing/jenkins"
)

func TestMain(m *testing.M) { controlplane.Main(m) }

// limitedRole is what the provider may do in TestBinarySecretsUncached: its
// own kinds, events, CRDs to read, and Secrets only to get, never to list or
// watch, so a cluster-wide Secret cache would be refused.
var limitedRole = &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "provider-devops-limited"}, Rules: []rbacv1.PolicyRule{
	{APIGroups: []string{"devops.freeleaps.io", "jenkins.devops.freeleaps.io", "argocd.devops.freeleaps.io", "dns.devops.freeleaps.io", "registry.devops.freeleaps.io", "forge.devops.freeleaps.io"}, Resources: []string{"*"}, Verbs: []string{"*"}},
	{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
	{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"get", "list", "watch"}},
	{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}},
}}

// TestBinarySecretsUncached runs the provider as a user that may get Secrets
// but not list or watch them: a JenkinsPipeline still connects with its
// credentials, because Secrets are read from the API server, not from a
// cache of every Secret in the cluster.
func TestBinarySecretsUncached(t *testing.T) {
	integration.Test(t, "the provider binary")
	env := controlplane.Shared(t)
	ctx := context.Background()
	c := env.Client
	dir := t.TempDir()
	bin := filepath.Join(dir, "provider")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	controlplane.Must(t, c.Create(ctx, limitedRole.DeepCopy()))
	controlplane.Must(t, c.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "provider-devops-limited"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: limitedRole.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "provider-devops-limited"}}}))
	kc, err := env.KubeConfigFor("provider-devops-limited")
	if err != nil {
		t.Fatal(err)
	}
	kcPath := filepath.Join(dir, "kubeconfig")
	controlplane.Must(t, os.WriteFile(kcPath, kc, 0o600))

	jenkins := jenkinsfake.New("ci-bot", "jenkins-token-never-printed")
	defer jenkins.Close()
	ns := "secrets-uncached"
	controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	controlplane.Must(t, c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "jenkins", Namespace: ns},
		StringData: map[string]string{"creds": `{"username": "ci-bot", "token": "jenkins-token-never-printed"}`}}))
	controlplane.Must(t, c.Create(ctx, &pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: pcv1alpha1.ProviderConfigSpec{
		Jenkins: &pcv1alpha1.JenkinsConfig{URL: jenkins.URL, Credentials: pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &pcv1alpha1.SecretKeySelector{Name: "jenkins", Key: "creds"}}},
	}}))
	p := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "uncached", Namespace: ns}}
	p.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
	script := "pipeline { agent any; stages { stage('x') { steps { echo 'x' } } } }"
	p.Spec.ForProvider = jenkinsv1alpha1.JenkinsPipelineParameters{Name: "uncached", Source: jenkinsv1alpha1.PipelineSource{Script: &script}}
	controlplane.Must(t, c.Create(ctx, p))

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The test's Jenkins is on loopback, which a namespaced config may
	// reach only when the platform allows it.
	cmd := exec.CommandContext(runCtx, bin, "--metrics-bind-address="+freeAddr(t), "--health-probe-bind-address="+freeAddr(t), "--poll=2s", "--tenant-backend-networks=127.0.0.0/8")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kcPath)
	logs := &controlplane.Logs{}
	cmd.Stdout, cmd.Stderr = logs, logs
	controlplane.Must(t, cmd.Start())
	defer func() { cancel(); _ = cmd.Wait() }()

	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		controlplane.Must(t, c.Get(ctx, client.ObjectKeyFromObject(p), p))
		if p.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue && jenkins.Exists("uncached") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pipeline never connected with get-only Secret rights: %v\nprovider output:\n%s", p.GetCondition(xpv2.TypeSynced), logs.String())
		}
	}
	if out := logs.String(); strings.Contains(out, "jenkins-token-never-printed") {
		t.Errorf("the token was printed")
	}
}

// TestBinary builds the provider and runs it as a user would: against a real
// API server with a kubeconfig. It must serve its probes and metrics, and
// refuse bad flags before doing anything.
func TestBinary(t *testing.T) {
	integration.Test(t, "the provider binary")
	env := controlplane.Shared(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "provider")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	t.Run("BadFlagRefused", func(t *testing.T) {
		out, err := exec.Command(bin, "--poll=1ms").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "--poll must be at least 1s") {
			t.Fatalf("want a refusal naming --poll, got err=%v output=%s", err, out)
		}
		out, err = exec.Command(bin, "--tenant-backend-hosts=*.corp.example,[bad").CombinedOutput()
		if err == nil || !strings.Contains(string(out), `--tenant-backend-hosts: "[bad" is not a valid host pattern`) {
			t.Fatalf("want a refusal naming --tenant-backend-hosts, got err=%v output=%s", err, out)
		}
		out, err = exec.Command(bin, "--tenant-backend-networks=10.0.0.0/8,10.0.0.0/33").CombinedOutput()
		if err == nil || !strings.Contains(string(out), `--tenant-backend-networks: "10.0.0.0/33" is not a CIDR or an address`) {
			t.Fatalf("want a refusal naming --tenant-backend-networks, got err=%v output=%s", err, out)
		}
	})

	t.Run("ServesProbesAndMetrics", func(t *testing.T) {
		kc, err := env.KubeConfig()
		if err != nil {
			t.Fatal(err)
		}
		kcPath := filepath.Join(dir, "kubeconfig")
		if err := os.WriteFile(kcPath, kc, 0o600); err != nil {
			t.Fatal(err)
		}
		metrics, health := freeAddr(t), freeAddr(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "--metrics-bind-address="+metrics, "--health-probe-bind-address="+health)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+kcPath)
		var logs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &logs, &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cancel(); _ = cmd.Wait() }()

		for _, path := range []string{"http://" + health + "/healthz", "http://" + health + "/readyz"} {
			if body, err := waitOK(path); err != nil {
				t.Fatalf("%s: %v\nprovider output:\n%s", path, err, logs.String())
			} else if !strings.Contains(body, "ok") {
				t.Errorf("%s: unexpected body %q", path, body)
			}
		}
		// Ready means it reaches the API server and its caches synced.
		if body, err := waitOK("http://" + health + "/readyz?verbose"); err != nil || !strings.Contains(body, "[+]apiserver ok") || !strings.Contains(body, "[+]informers ok") {
			t.Errorf("/readyz?verbose: %v %q, want the apiserver and informers checks passed", err, body)
		}
		// The safe-start gate starts each managed-resource controller once
		// its CRD is established; these must appear.
		want := []string{
			`controller="managed/jenkinspipeline.jenkins.devops.freeleaps.io"`,
			`controller="managed/argoapplication.argocd.devops.freeleaps.io"`,
			`controller="managed/dnsrecord.dns.devops.freeleaps.io"`,
			`controller="managed/registryrepo.registry.devops.freeleaps.io"`,
			`controller="managed/forgerepository.forge.devops.freeleaps.io"`,
			`controller="providerconfig/providerconfig.devops.freeleaps.io"`,
			`controller="providerconfig/clusterproviderconfig.devops.freeleaps.io"`,
		}
		var missing []string
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
			body, err := waitOK("http://" + metrics + "/metrics")
			if err != nil {
				t.Fatalf("metrics: %v\nprovider output:\n%s", err, logs.String())
			}
			missing = missing[:0]
			for _, w := range want {
				if !strings.Contains(body, w) {
					missing = append(missing, w)
				}
			}
			if len(missing) == 0 {
				return
			}
		}
		t.Fatalf("controllers never registered: %v\nprovider output:\n%s", missing, logs.String())
	})
}

// TestBinaryEventsBrokerDown runs the provider with the event stream on and
// its broker unreachable: it serves, keeps retrying with back-off, exports
// the outbox metrics, and never prints the broker password.
func TestBinaryEventsBrokerDown(t *testing.T) {
	integration.Test(t, "the provider binary")
	env := controlplane.Shared(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "provider")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	kc, err := env.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	kcPath := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kcPath, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	const password = "amqp-pw-never-printed"
	closed := freeAddr(t) // nothing listens there
	ctx := context.Background()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "events-down"}}); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "rabbitmq", Namespace: "events-down"},
		StringData: map[string]string{"url": "amqp://provider:" + password + "@" + closed + "/"}}); err != nil {
		t.Fatal(err)
	}
	metrics, health := freeAddr(t), freeAddr(t)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(cctx, bin, "--metrics-bind-address="+metrics, "--health-probe-bind-address="+health, "--events-secret=events-down/rabbitmq", "--debug")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kcPath)
	logs := &controlplane.Logs{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = cmd.Wait() }()
	if _, err := waitOK("http://" + health + "/healthz"); err != nil {
		t.Fatalf("healthz: %v\nprovider output:\n%s", err, logs.String())
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		body, err := waitOK("http://" + metrics + "/metrics")
		if err != nil {
			t.Fatalf("metrics: %v", err)
		}
		if strings.Contains(body, "provider_devops_events_outbox_depth") && strings.Contains(logs.String(), "event stream disconnected") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no outbox metric or no reconnect log within 60s\nprovider output:\n%s", logs.String())
		}
	}
	if out := logs.String(); strings.Contains(out, password) {
		t.Fatalf("the broker password was printed:\n%s", out)
	} else if !strings.Contains(out, "amqp://provider@"+closed) {
		t.Errorf("want the redacted broker URL in the reconnect log:\n%s", out)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func waitOK(url string) (string, error) {
	deadline := time.Now().Add(60 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return string(b), nil
			}
			last = fmt.Errorf("status %d: %s", resp.StatusCode, b)
		} else {
			last = err
		}
		time.Sleep(250 * time.Millisecond)
	}
	return "", last
}

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
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/structpb"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"

	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	jenkinsfake "github.com/freeleaps/provider-devops/internal/testing/jenkins"
	promserver "github.com/freeleaps/provider-devops/internal/testing/prometheus"
)

// TestBinaryMetricsScraped runs the provider and the function binaries and
// a real Prometheus scraping both every second. The provider manages a
// JenkinsPipeline against the test's Jenkins and the function composes a
// DevOpsProject once; then PromQL, as a dashboard or an alert would ask it,
// must find the backend requests, the observations, a latency quantile, both
// targets up and the function's gRPC calls.
func TestBinaryMetricsScraped(t *testing.T) {
	promserver.Require(t)
	env := controlplane.Shared(t)
	ctx := context.Background()
	dir := t.TempDir()

	providerMetrics := startProvider(t, env, dir)
	fnAddr, fnMetrics := startFunctionBinary(t, dir)
	prom := promserver.Start(t,
		promserver.Target{Job: "provider", Addr: providerMetrics},
		promserver.Target{Job: "function", Addr: fnMetrics})

	const ns = "metrics-scraped"
	jenkins := jenkinsfake.New("ci-bot", "jenkins-token-never-printed")
	t.Cleanup(jenkins.Close)
	p := createPipeline(t, env.Client, ns, jenkins.URL)
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		controlplane.Must(t, env.Client.Get(ctx, client.ObjectKeyFromObject(p), p))
		if p.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue && jenkins.Exists(p.Spec.ForProvider.Name) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pipeline never synced: %v", p.GetCondition(xpv2.TypeSynced))
		}
	}
	composed, envs := runFunction(t, fnAddr)
	t.Logf("the function composed %d resources for %d environments", composed, envs)

	qctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for _, q := range []struct {
		promql string
		cond   func([]promserver.Sample) bool
	}{
		{`up{job="provider"} == 1`, promserver.NonEmpty},
		{`up{job="function"} == 1`, promserver.NonEmpty},
		{fmt.Sprintf(`provider_devops_backend_requests_total{backend="jenkins",namespace=%q,result="ok"} > 0`, ns), promserver.NonEmpty},
		{`provider_devops_observations_total{kind="JenkinsPipeline",outcome="exists"} > 0`, promserver.NonEmpty},
		// Both v1 and v1beta1 services are served; Crossplane v2 calls v1.
		{`grpc_server_handled_total{job="function",grpc_service="apiextensions.fn.proto.v1.FunctionRunnerService",grpc_method="RunFunction",grpc_code="OK"} >= 1`, promserver.NonEmpty},
		// The project's environments, by phase: every one is in one.
		{`sum(function_devopsproject_environments{job="function",namespace="team-shop"})`, func(s []promserver.Sample) bool {
			return len(s) == 1 && s[0].Value == float64(envs)
		}},
	} {
		got, err := prom.WaitFor(qctx, q.promql, q.cond)
		if err != nil {
			t.Fatalf("%v\ntargets:\n%s", err, prom.Targets(ctx))
		}
		t.Logf("%s\n  => %v", q.promql, got)
	}
	// The 95th percentile of Jenkins's answers over the last minute: a
	// number once two scrapes saw requests, and the test's Jenkins on
	// loopback answers well within 5s.
	const p95 = `histogram_quantile(0.95, sum by (le) (rate(provider_devops_backend_request_duration_seconds_bucket{backend="jenkins"}[1m])))`
	got, err := prom.WaitFor(qctx, p95, promserver.OneNumber)
	if err != nil {
		t.Fatalf("%v\ntargets:\n%s", err, prom.Targets(ctx))
	}
	t.Logf("%s\n  => %v", p95, got)
	if v := got[0].Value; v <= 0 || v >= 5 {
		t.Errorf("p95 of Jenkins requests = %gs, want in (0, 5)", v)
	}
}

// startProvider builds and runs the provider as an administrator, polling
// every 2s and allowed to reach backends on loopback, and returns its
// metrics address.
func startProvider(t *testing.T, env *controlplane.Env, dir string, extraEnv ...string) string {
	t.Helper()
	bin := filepath.Join(dir, "provider")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	kc, err := env.KubeConfig()
	controlplane.Must(t, err)
	kcPath := filepath.Join(dir, "kubeconfig")
	controlplane.Must(t, os.WriteFile(kcPath, kc, 0o600))
	metrics := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--metrics-bind-address="+metrics, "--health-probe-bind-address="+freeAddr(t), "--poll=2s", "--tenant-backend-networks=127.0.0.0/8")
	cmd.Env = append(append(os.Environ(), "KUBECONFIG="+kcPath), extraEnv...)
	logs := &controlplane.Logs{}
	cmd.Stdout, cmd.Stderr = logs, logs
	controlplane.Must(t, cmd.Start())
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("provider output:\n%s", logs.String())
		}
	})
	return metrics
}

// startFunctionBinary builds and runs the function without TLS, as
// crossplane render runs it, and returns its gRPC and metrics addresses.
func startFunctionBinary(t *testing.T, dir string) (addr, metrics string) {
	t.Helper()
	bin := filepath.Join(dir, "function-devopsproject")
	build := exec.Command("go", "build", "-o", bin, "./functions/devopsproject")
	build.Dir = controlplane.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	addr, metrics = freeAddr(t), freeAddr(t)
	cmd := exec.Command(bin, "--insecure", "--address="+addr, "--metrics-address="+metrics)
	logs := &controlplane.Logs{}
	cmd.Stdout, cmd.Stderr = logs, logs
	controlplane.Must(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("function output:\n%s", logs.String())
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			_ = c.Close()
			return addr, metrics
		}
		if time.Now().After(deadline) {
			t.Fatalf("the function did not listen on %s", addr)
		}
	}
}

// createPipeline makes namespace ns, a ProviderConfig of it with the
// Jenkins at url and its credentials, and a JenkinsPipeline using it.
func createPipeline(t *testing.T, c client.Client, ns, url string) *jenkinsv1alpha1.JenkinsPipeline {
	t.Helper()
	ctx := context.Background()
	controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	controlplane.Must(t, c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "jenkins", Namespace: ns},
		StringData: map[string]string{"creds": `{"username": "ci-bot", "token": "jenkins-token-never-printed"}`}}))
	controlplane.Must(t, c.Create(ctx, &pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: pcv1alpha1.ProviderConfigSpec{
		Jenkins: &pcv1alpha1.JenkinsConfig{URL: url, Credentials: pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &pcv1alpha1.SecretKeySelector{Name: "jenkins", Key: "creds"}}},
	}}))
	p := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "scraped", Namespace: ns}}
	p.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
	script := "pipeline { agent any; stages { stage('x') { steps { echo 'x' } } } }"
	p.Spec.ForProvider = jenkinsv1alpha1.JenkinsPipelineParameters{Name: "scraped", Source: jenkinsv1alpha1.PipelineSource{Script: &script}}
	controlplane.Must(t, c.Create(ctx, p))
	return p
}

// runFunction sends the function one RunFunctionRequest over gRPC, as
// Crossplane would: the example DevOpsProject with the packaged
// Composition's input. It returns how many resources it composed, and how
// many environments the project has.
func runFunction(t *testing.T, addr string) (composed, envs int) {
	t.Helper()
	root := controlplane.RepoRoot()
	x := readYAML(t, filepath.Join(root, "examples", "devopsproject", "xr.yaml"))
	if x["metadata"].(map[string]any)["namespace"] != "team-shop" {
		t.Fatal("examples/devopsproject/xr.yaml: the test expects namespace team-shop")
	}
	envList, _ := x["spec"].(map[string]any)["environments"].([]any)
	xr, err := structpb.NewStruct(x)
	controlplane.Must(t, err)
	// The Composition's one step: spec.pipeline[0].input.
	comp := readYAML(t, filepath.Join(root, "package", "configuration", "composition.yaml"))
	steps, _ := comp["spec"].(map[string]any)["pipeline"].([]any)
	if len(steps) == 0 {
		t.Fatal("package/configuration/composition.yaml has no pipeline step")
	}
	in, _ := steps[0].(map[string]any)["input"].(map[string]any)
	input, err := structpb.NewStruct(in)
	controlplane.Must(t, err)
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	controlplane.Must(t, err)
	defer func() { _ = conn.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rsp, err := fnv1.NewFunctionRunnerServiceClient(conn).RunFunction(ctx, &fnv1.RunFunctionRequest{
		Observed: &fnv1.State{Composite: &fnv1.Resource{Resource: xr}},
		Input:    input,
	})
	if err != nil {
		t.Fatalf("RunFunction: %v", err)
	}
	composed = len(rsp.GetDesired().GetResources())
	if composed == 0 || len(envList) == 0 {
		t.Fatalf("the function composed %d resources for %d environments: %v", composed, len(envList), rsp.GetResults())
	}
	return composed, len(envList)
}

func readYAML(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	controlplane.Must(t, err)
	var m map[string]any
	controlplane.Must(t, yaml.Unmarshal(b, &m))
	return m
}

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
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/testing/argocdserver"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	"github.com/freeleaps/provider-devops/internal/testing/jaeger"
	jenkinsfake "github.com/freeleaps/provider-devops/internal/testing/jenkins"
)

// TestBinaryDeploymentTraced runs the provider binary with an OTLP endpoint
// pointing at a real Jaeger, deploys once through a real Argo CD and the
// test's Jenkins, and reads the deployment's trace back from Jaeger's query
// API: one trace continuing the request's traceparent, a root span for the
// deployment, a span per phase in order under it, and the Jenkins, Argo CD
// and Kubernetes calls each under the phase that made them.
func TestBinaryDeploymentTraced(t *testing.T) {
	jg := jaeger.Start(t, "")
	env := controlplane.Shared(t)
	argo := argocdserver.Shared(t, env)
	jenkins := jenkinsfake.New("ci-bot", "jenkins-token-never-printed")
	t.Cleanup(jenkins.Close)
	ctx := context.Background()
	c := env.Client
	const ns, appPath = "traced", "traced-shop"
	_, err := argo.Apps.Commit(map[string]string{appPath + "/configmap.yaml": tracedConfigMap("v0")}, "shop v0")
	controlplane.Must(t, err)
	p, app := createEnvironment(t, c, argo, jenkins.URL, ns, appPath)

	startProvider(t, env, t.TempDir(), "OTEL_EXPORTER_OTLP_ENDPOINT="+jg.OTLP, "OTEL_BSP_SCHEDULE_DELAY=200")
	controlplane.EventuallyWithin(t, 3*time.Minute, "pipeline and application ready to deploy", func() bool {
		_ = c.Get(ctx, client.ObjectKeyFromObject(app), app)
		return jenkins.Exists(p.Spec.ForProvider.Name) && app.Status.AtProvider.URL != ""
	})

	// As a deploy request's span would be, in the requester's trace.
	tid, parent := randomHex(16), randomHex(8)
	d := &pcv1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: "traced", Namespace: ns,
		Annotations: map[string]string{contract.AnnotationTraceParent: "00-" + tid + "-" + parent + "-01"}},
		Spec: pcv1alpha1.DeployRunSpec{Project: "shop", Environment: "dev", Revision: "main"}}
	controlplane.Must(t, c.Create(ctx, d))
	controlplane.EventuallyWithin(t, 2*time.Minute, "a build queued", func() bool { return jenkins.Queued(p.Spec.ForProvider.Name) == 1 })
	jenkins.RunQueue()
	sha, err := argo.Apps.Commit(map[string]string{appPath + "/configmap.yaml": tracedConfigMap("v1")}, "shop v1")
	controlplane.Must(t, err)
	jenkins.SetDescription(p.Spec.ForProvider.Name, 1, "revision="+sha)
	jenkins.Finish(p.Spec.ForProvider.Name, "SUCCESS")
	controlplane.EventuallyWithin(t, 3*time.Minute, "the deployment succeeded", func() bool {
		_ = c.Get(ctx, client.ObjectKeyFromObject(d), d)
		return d.Status.Phase == pcv1alpha1.DeploySucceeded || d.Status.Phase == pcv1alpha1.DeployFailed
	})
	if d.Status.Phase != pcv1alpha1.DeploySucceeded {
		t.Fatalf("the deployment %s: %s", d.Status.Phase, d.Status.Message)
	}
	if d.Status.TraceID != tid {
		t.Errorf("status.traceID %q, want the request's trace %s", d.Status.TraceID, tid)
	}

	// The root span is sent last, when the deployment ends.
	var spans []jaeger.Span
	controlplane.EventuallyWithin(t, time.Minute, "the trace in Jaeger with its root span", func() bool {
		spans, err = jg.Trace(ctx, tid)
		return err == nil && jaeger.DeploymentRoot(spans, parent) != nil
	})
	drawn, problems := jaeger.CheckDeployment(spans, parent)
	t.Logf("the deployment's trace:\n%s", drawn)
	for _, p := range problems {
		t.Error(p)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func tracedConfigMap(version string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop\ndata:\n  version: %q\n", version)
}

// createEnvironment makes namespace ns with a ProviderConfig for Argo CD
// server s and the Jenkins at jenkinsURL, and project shop's dev
// environment: a pipeline with a REVISION parameter, an application of
// appPath in s's repository.
func createEnvironment(t *testing.T, c client.Client, s *argocdserver.Server, jenkinsURL, ns, appPath string) (*jenkinsv1alpha1.JenkinsPipeline, *argov1alpha1.ArgoApplication) {
	t.Helper()
	ctx := context.Background()
	secret := func(key string) pcv1alpha1.Credentials {
		return pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &pcv1alpha1.SecretKeySelector{Name: "creds", Key: key}}
	}
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: ns}, StringData: map[string]string{
			"argocd": s.Token, "jenkins": `{"username": "ci-bot", "token": "jenkins-token-never-printed"}`}},
		&pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: pcv1alpha1.ProviderConfigSpec{
			ArgoCD:  &pcv1alpha1.ArgoCDConfig{URL: s.URL, Namespace: argocdserver.Namespace, Credentials: secret("argocd")},
			Jenkins: &pcv1alpha1.JenkinsConfig{URL: jenkinsURL, Credentials: secret("jenkins")},
		}},
	} {
		controlplane.Must(t, c.Create(ctx, o))
	}
	name := ns + "-shop-dev"
	labels := map[string]string{contract.LabelProject: "shop", contract.LabelEnvironment: "dev"}
	ref := &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
	def := "main"
	p := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
		Spec: jenkinsv1alpha1.JenkinsPipelineSpec{ForProvider: jenkinsv1alpha1.JenkinsPipelineParameters{
			Name:       name,
			Source:     jenkinsv1alpha1.PipelineSource{Script: &def},
			Parameters: []jenkinsv1alpha1.Parameter{{Name: "REVISION", Type: "string", Default: &def}},
		}}}
	app := &argov1alpha1.ArgoApplication{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}}
	app.Spec.ForProvider = argov1alpha1.ArgoApplicationParameters{
		Source:      argov1alpha1.ApplicationSource{RepoURL: s.Apps.URL, Path: appPath, TargetRevision: "main"},
		Destination: argov1alpha1.ApplicationDestination{Server: argocdserver.InClusterServer, Namespace: name},
		SyncPolicy:  &argov1alpha1.SyncPolicy{SyncOptions: []string{"CreateNamespace=true"}},
	}
	for _, o := range []interface {
		client.Object
		SetProviderConfigReference(*xpv2.ProviderConfigReference)
	}{p, app} {
		o.SetProviderConfigReference(ref)
		controlplane.Must(t, c.Create(ctx, o))
	}
	return p, app
}

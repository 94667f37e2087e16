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

package controller_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/contract"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/events"
	"github.com/freeleaps/provider-devops/internal/events/deployrequest"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	fakejenkins "github.com/freeleaps/provider-devops/internal/testing/jenkins"
)

// TestDeployRenewsExpiredEnvironment: on a real API server, with the
// provider's controllers running, a deploy request for the expired pr-42 of
// examples/devopsproject/xr.yaml (renewOnDeploy) renews it on the
// DevOpsProject, and its DeployRun waits in Pending until the environment's
// JenkinsPipeline is back (as the function brings it back), then builds. A
// user the recorded config does not list renews nothing.
func TestDeployRenewsExpiredEnvironment(t *testing.T) {
	env := controlplane.Shared(t)
	controlplane.InstallXRD(t, env, "package/configuration/xrd.yaml")
	jenkins := fakejenkins.New("ci", secretText)
	defer jenkins.Close()
	c := env.Client
	ctx := context.Background()
	ns := controlplane.Unique("renew")
	create(t, c,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "jenkins", Namespace: ns}, StringData: map[string]string{"credentials": `{"username": "ci", "token": "` + secretText + `"}`}},
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: v1alpha1.ProviderConfigSpec{
			Jenkins: &v1alpha1.JenkinsConfig{URL: jenkins.URL, DeployUsers: []string{"ci-shop"}, Credentials: v1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.SecretKeySelector{Name: "jenkins", Key: "credentials"}}},
		}},
	)
	startProvider(t, env)

	docs := loadExample(t, "devopsproject/xr.yaml")
	project := docs[len(docs)-1]
	project.SetNamespace(ns)
	controlplane.Must(t, unstructured.SetNestedField(project.Object, "default", "spec", "providerConfigName"))
	create(t, c, project)
	// What the function writes once pr-42 expired: its pipeline is gone.
	controlplane.Must(t, unstructured.SetNestedSlice(project.Object, []any{map[string]any{
		"name": "pr-42", "phase": "Expired", "expiresAt": "2026-11-22T14:00:00Z", "ttl": "72h0m0s",
		"providerConfigRef": map[string]any{"kind": "ProviderConfig", "name": "default"},
	}}, "status", "environments"))
	controlplane.Must(t, c.Status().Update(ctx, project))

	request := func(token, user string) error {
		at := time.Now().UTC()
		return deployrequest.Apply(ctx, c, &deployrequest.Request{Project: "shop", Environment: "pr-42", Namespace: ns, Revision: "main", ID: "renew-" + token, RequestedAt: &at},
			deployrequest.Delivery{Token: token, User: user})
	}
	err := request("amqp-intruder", "ci-other")
	var r *events.RejectError
	if !errors.As(err, &r) || !strings.HasPrefix(r.Reason, `unauthorised: broker user "ci-other" may not renew and deploy environment pr-42`) {
		t.Fatalf("ci-other's request: want it refused as unauthorised, got %v", err)
	}
	controlplane.Must(t, request("amqp-renew-1", "ci-shop"))

	controlplane.Must(t, c.Get(ctx, client.ObjectKeyFromObject(project), project))
	if got := project.GetAnnotations()[contract.AnnotationRenewPrefix+"pr-42"]; got != "deploy:amqp-renew-1" {
		t.Errorf("renew annotation %q, want deploy:amqp-renew-1 (and never the intruder's)", got)
	}
	runs := &v1alpha1.DeployRunList{}
	controlplane.Must(t, c.List(ctx, runs, client.InNamespace(ns)))
	if len(runs.Items) != 1 {
		t.Fatalf("%d DeployRuns, want 1", len(runs.Items))
	}
	run := &runs.Items[0]
	controlplane.Eventually(t, "the DeployRun waiting for pr-42 to come back", func() bool {
		return c.Get(ctx, client.ObjectKeyFromObject(run), run) == nil && run.Status.Phase == v1alpha1.DeployPending &&
			strings.HasPrefix(run.Status.Message, "waiting for environment pr-42 to come back: its deploy request renewed it")
	})

	// The function composes the environment again.
	p := &jenkinsv1alpha1.JenkinsPipeline{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-pr-42", Namespace: ns, Labels: map[string]string{contract.LabelProject: "shop", contract.LabelEnvironment: "pr-42"},
			Annotations: map[string]string{contract.AnnotationExpiresAt: time.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339)}},
		Spec: jenkinsv1alpha1.JenkinsPipelineSpec{ForProvider: jenkinsv1alpha1.JenkinsPipelineParameters{
			Source:     jenkinsv1alpha1.PipelineSource{Script: ptr("node { sh \"git checkout ${params.REVISION}\" }")},
			Parameters: []jenkinsv1alpha1.Parameter{{Name: deployrequest.RevisionParameter, Type: "string", Default: ptr("main")}},
		}},
	}
	p.SetProviderConfigReference(&xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"})
	create(t, c, p)
	controlplane.Eventually(t, "the renewed environment's build queued", func() bool { return jenkins.Queued("shop-pr-42") == 1 })
	controlplane.Must(t, c.Get(ctx, client.ObjectKeyFromObject(run), run))
	if run.Status.Phase != v1alpha1.DeployBuilding {
		t.Errorf("DeployRun phase %s (%s), want Building", run.Status.Phase, run.Status.Message)
	}
}

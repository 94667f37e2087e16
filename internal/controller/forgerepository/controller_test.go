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

package forgerepository_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/forge/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/controller/forgerepository"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	"github.com/freeleaps/provider-devops/internal/testing/gitea"
)

func TestMain(m *testing.M) { controlplane.Main(m) }

// TestForgeRepository runs the controller as the provider does, with a
// poll interval of a minute, against a real Gitea: the resource is Ready
// with its report posted; a pull request opened later is listed within
// the busy poll (15 s), not the minute; and a poll that finds nothing new
// writes nothing.
func TestForgeRepository(t *testing.T) {
	s := gitea.Start(t)
	env := controlplane.Shared(t)
	c := env.Client
	ctx := context.Background()
	controlplane.StartManager(t, env, time.Minute, func(mgr ctrl.Manager, o controller.Options) error {
		return mrcontroller.Setup(mgr, o, forgerepository.Descriptor, forgerepository.NewConnector(mgr.GetClient(), controlplane.TenantGuard(), nil))
	})
	const ns = "forge-ctl"
	controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	controlplane.Must(t, c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "forge", Namespace: ns}, StringData: map[string]string{"token": s.Token}}))
	controlplane.Must(t, c.Create(ctx, &pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns},
		Spec: pcv1alpha1.ProviderConfigSpec{Forge: &pcv1alpha1.ForgeConfig{URL: s.URL,
			Credentials: pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &pcv1alpha1.SecretKeySelector{Name: "forge", Key: "token"}}}}}))

	repo, err := s.CreateRepo(ctx, "web")
	controlplane.Must(t, err)
	sha, err := s.CommitFile(ctx, "web", "one", "a.txt", "1", "one")
	controlplane.Must(t, err)
	first, err := s.OpenPullRequest(ctx, "web", "one", "main", "One")
	controlplane.Must(t, err)

	cr := &v1alpha1.ForgeRepository{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns}}
	cr.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
	cr.Spec.ForProvider = v1alpha1.ForgeRepositoryParameters{Repository: repo.FullName, Reports: []v1alpha1.PullRequestReport{
		{Number: first, SHA: sha, State: v1alpha1.ReportSuccess, TargetURL: "https://pr-1.web.example.com", Comment: "Preview: https://pr-1.web.example.com"},
	}}
	controlplane.Must(t, c.Create(ctx, cr))
	get := func() bool { return c.Get(ctx, client.ObjectKeyFromObject(cr), cr) == nil }
	controlplane.Eventually(t, "Ready and Synced, the report posted", func() bool {
		return get() && cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue && cr.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue &&
			len(cr.Status.AtProvider.Reported) == 1
	})
	if comments, err := s.Comments(ctx, "web", first); err != nil || len(comments) != 1 || !strings.Contains(comments[0].Body, forgerepository.Marker(cr)) {
		t.Errorf("comments %+v (%v): want one, with the marker", comments, err)
	}

	_, err = s.CommitFile(ctx, "web", "two", "b.txt", "2", "two")
	controlplane.Must(t, err)
	second, err := s.OpenPullRequest(ctx, "web", "two", "main", "Two")
	controlplane.Must(t, err)
	opened := time.Now()
	controlplane.EventuallyWithin(t, mrcontroller.NotReadyPollInterval+5*time.Second, "the new pull request listed within the busy poll", func() bool {
		return get() && len(cr.Status.AtProvider.PullRequests) == 2 && cr.Status.AtProvider.PullRequests[1].Number == second
	})
	t.Logf("pull request #%d listed %s after it was opened", second, time.Since(opened).Round(time.Second))

	rv := cr.ResourceVersion
	time.Sleep(mrcontroller.NotReadyPollInterval + 3*time.Second)
	get()
	if cr.ResourceVersion != rv {
		t.Errorf("a poll that found nothing new wrote the resource: resourceVersion %s -> %s, status %+v", rv, cr.ResourceVersion, cr.Status.AtProvider)
	}

	events := &corev1.EventList{}
	controlplane.Must(t, c.List(ctx, events, client.InNamespace(ns)))
	for _, e := range events.Items {
		if strings.Contains(e.Message, s.Token) {
			t.Errorf("an event holds the token: %s", e.Message)
		}
	}
	for _, cond := range cr.Status.Conditions {
		if strings.Contains(cond.Message, s.Token) {
			t.Errorf("condition %s holds the token", cond.Type)
		}
	}
}

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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/gate"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/customresourcesgate"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	dnsv1alpha1 "github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	registryv1alpha1 "github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	devops "github.com/freeleaps/provider-devops/internal/controller"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

const secretText = "s3cr3t-t0ken-never-printed"

func TestMain(m *testing.M) { controlplane.Main(m) }

// startProvider runs the provider's controllers, wired as cmd/provider wires
// them (CRD gate, safe-start), against the shared control plane.
func startProvider(t testing.TB, env *controlplane.Env) {
	t.Helper()
	controlplane.StartManager(t, env, time.Minute, func(mgr ctrl.Manager, o controller.Options) error {
		o.Gate = new(gate.Gate[schema.GroupVersionKind])
		if err := customresourcesgate.Setup(mgr, o); err != nil {
			return err
		}
		return devops.SetupGated(mgr, o, devops.Config{Guard: controlplane.TenantGuard()})
	})
}

func create(t *testing.T, c client.Client, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := c.Create(context.Background(), o); err != nil && !kerrors.IsAlreadyExists(err) {
			t.Fatalf("create %T %s: %v", o, o.GetName(), err)
		}
	}
}

// waitSynced waits until mg's Synced condition has a message containing want.
func waitSynced(t *testing.T, c client.Client, mg resource.Managed, want string) xpv2.Condition {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var last xpv2.Condition
	for time.Now().Before(deadline) {
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(mg), mg); err == nil {
			last = mg.GetCondition(xpv2.TypeSynced)
			if last.Status == corev1.ConditionFalse && strings.Contains(last.Message, want) {
				return last
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s %s: Synced never said %q; last condition: %+v", mg.GetObjectKind().GroupVersionKind().Kind, mg.GetName(), want, last)
	return last
}

func ref(kind, name string) *xpv2.ProviderConfigReference {
	return &xpv2.ProviderConfigReference{Kind: kind, Name: name}
}

func secretCreds(name, ns, key string) v1alpha1.Credentials {
	return v1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.SecretKeySelector{Name: name, Namespace: ns, Key: key}}
}

func TestManagedResourcesReportConfigurationAndBackendState(t *testing.T) {
	env := controlplane.Shared(t)
	startProvider(t, env)
	c := env.Client
	for _, ns := range []string{"team-a", "team-b"} {
		create(t, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	create(t, c,
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: "team-a"}, StringData: map[string]string{"token": secretText}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: "team-b"}, StringData: map[string]string{"token": secretText}},
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "full", Namespace: "team-a"}, Spec: v1alpha1.ProviderConfigSpec{
			Jenkins:  &v1alpha1.JenkinsConfig{URL: "https://jenkins.example.com", Credentials: secretCreds("creds", "", "token")},
			ArgoCD:   &v1alpha1.ArgoCDConfig{URL: "https://argocd.example.com", Credentials: secretCreds("creds", "", "token")},
			DNS:      &v1alpha1.DNSConfig{Provider: v1alpha1.DNSProviderGoDaddy, Credentials: secretCreds("creds", "", "token")},
			Registry: &v1alpha1.RegistryConfig{Kind: v1alpha1.RegistryDockerHub, Credentials: secretCreds("creds", "", "token")},
		}},
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "argo-only", Namespace: "team-a"}, Spec: v1alpha1.ProviderConfigSpec{
			ArgoCD: &v1alpha1.ArgoCDConfig{URL: "https://argocd.example.com", Credentials: secretCreds("creds", "", "token")},
		}},
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "foreign-secret", Namespace: "team-a"}, Spec: v1alpha1.ProviderConfigSpec{
			Jenkins: &v1alpha1.JenkinsConfig{URL: "https://jenkins.example.com", Credentials: secretCreds("creds", "team-b", "token")},
		}},
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "missing-secret", Namespace: "team-a"}, Spec: v1alpha1.ProviderConfigSpec{
			Jenkins: &v1alpha1.JenkinsConfig{URL: "https://jenkins.example.com", Credentials: secretCreds("nope", "", "token")},
		}},
		&v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "platform"}, Spec: v1alpha1.ProviderConfigSpec{AllowedNamespaces: []string{"team-a"},
			Registry: &v1alpha1.RegistryConfig{Kind: v1alpha1.RegistryOCI, URL: "https://registry.example.com", Credentials: secretCreds("creds", "", "token")},
		}},
	)

	jp := func(name, pc string) *jenkinsv1alpha1.JenkinsPipeline {
		script := "pipeline { agent any }"
		p := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-a"}}
		p.Spec.ProviderConfigReference = ref("ProviderConfig", pc)
		p.Spec.ForProvider.Source.Script = &script
		return p
	}
	argo := &argov1alpha1.ArgoApplication{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "team-a"}}
	argo.Spec.ProviderConfigReference = ref("ProviderConfig", "full")
	argo.Spec.ForProvider.Source = argov1alpha1.ApplicationSource{RepoURL: "https://git.example.com/a.git", Path: "deploy"}
	argo.Spec.ForProvider.Destination = argov1alpha1.ApplicationDestination{Server: "https://kubernetes.default.svc", Namespace: "a"}
	dns := &dnsv1alpha1.DNSRecord{ObjectMeta: metav1.ObjectMeta{Name: "rec", Namespace: "team-a"}}
	dns.Spec.ProviderConfigReference = ref("ProviderConfig", "argo-only")
	dns.Spec.ForProvider = dnsv1alpha1.DNSRecordParameters{Zone: "example.com", Name: "www", Type: dnsv1alpha1.RecordA, Values: []string{"192.0.2.1"}}
	dnsFull := dns.DeepCopy()
	dnsFull.Name = "rec-full"
	dnsFull.Spec.ProviderConfigReference = ref("ProviderConfig", "full")
	repo := &registryv1alpha1.RegistryRepo{ObjectMeta: metav1.ObjectMeta{Name: "repo", Namespace: "team-a"}}
	repo.Spec.ProviderConfigReference = ref("ClusterProviderConfig", "platform")
	repo.Spec.ForProvider = registryv1alpha1.RegistryRepoParameters{Namespace: "team-a", Name: "shop"}
	repoFull := repo.DeepCopy()
	repoFull.Name = "repo-full"
	repoFull.Spec.ProviderConfigReference = ref("ProviderConfig", "full")
	repoMissingPC := repo.DeepCopy()
	repoMissingPC.Name = "repo-missing-pc"
	repoMissingPC.Spec.ProviderConfigReference = ref("ProviderConfig", "does-not-exist")

	cases := map[string]struct {
		reason string
		mg     resource.Managed
		want   string
	}{
		"RegistryCredentialsNotJSON": {
			reason: "registry credentials that are not the expected JSON are explained without quoting them",
			mg:     repoFull, want: `the registry credentials must be JSON {"username": "...", "password": "..."}`,
		},
		"GoDaddyCredentialsMalformed": {
			reason: "GoDaddy credentials that are not key:secret are explained without quoting them",
			mg:     dnsFull, want: `the GoDaddy credentials must be "key:secret"`,
		},
		"JenkinsCredentialsNotJSON": {
			reason: "Jenkins credentials that are not the expected JSON are explained without quoting them",
			mg:     jp("pipeline", "full"), want: `spec.jenkins.credentials of ProviderConfig team-a/full: the Jenkins credentials must be JSON {"username": "...", "token": "<API token>"}`,
		},
		"ArgoUnreachable": {
			reason: "Argo CD is implemented: an unreachable server is reported, not a panic",
			mg:     argo, want: "cannot observe the Argo CD application",
		},
		"MissingSection": {
			reason: "a config without the MR's section names the section to add",
			mg:     dns, want: "ProviderConfig team-a/argo-only has no spec.dns section",
		},
		"ForeignSecret": {
			reason: "a namespaced ProviderConfig cannot read another namespace's Secret",
			mg:     jp("foreign", "foreign-secret"), want: "may only read Secrets in its own namespace \"team-a\", not \"team-b\"",
		},
		"MissingSecret": {
			reason: "a missing Secret is named",
			mg:     jp("missing", "missing-secret"), want: "credentials Secret team-a/nope not found",
		},
		"ClusterConfigNeedsSecretNamespace": {
			reason: "a ClusterProviderConfig must say which namespace its Secret is in",
			mg:     repo, want: "credentials.secretRef.namespace is required in a ClusterProviderConfig",
		},
		"MissingProviderConfig": {
			reason: "a reference to a config that does not exist is named",
			mg:     repoMissingPC, want: "ProviderConfig \"does-not-exist\" not found in namespace \"team-a\"",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			create(t, c, tc.mg)
			cond := waitSynced(t, c, tc.mg, tc.want)
			if strings.Contains(cond.Message, secretText) {
				t.Errorf("%s: condition message leaks the secret: %s", tc.reason, cond.Message)
			}
		})
	}

	t.Run("UsageTracked", func(t *testing.T) {
		// The pipeline, the application, a DNS record and a repository use ProviderConfig
		// team-a/full; one registry repository uses ClusterProviderConfig
		// platform.
		pc := &v1alpha1.ProviderConfig{}
		waitUsers(t, c, client.ObjectKey{Namespace: "team-a", Name: "full"}, pc, 4, func() int64 { return pc.Status.Users })
		cpc := &v1alpha1.ClusterProviderConfig{}
		waitUsers(t, c, client.ObjectKey{Name: "platform"}, cpc, 1, func() int64 { return cpc.Status.Users })
	})

	t.Run("NoSecretInEvents", func(t *testing.T) {
		events := &corev1.EventList{}
		if err := c.List(context.Background(), events, client.InNamespace("team-a")); err != nil {
			t.Fatal(err)
		}
		if len(events.Items) == 0 {
			t.Fatal("expected warning events for the failing resources")
		}
		for _, e := range events.Items {
			if strings.Contains(e.Message, secretText) {
				t.Errorf("event %s leaks the secret: %s", e.Name, e.Message)
			}
		}
	})
}

// waitUsers waits until the config at key counts want users.
func waitUsers(t *testing.T, c client.Client, key client.ObjectKey, obj client.Object, want int64, users func() int64) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if err := c.Get(context.Background(), key, obj); err == nil && users() == want {
			return
		}
	}
	t.Fatalf("%T %s: want %d users, got %d", obj, key, want, users())
}

package controller_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	argofake "github.com/freeleaps/provider-devops/internal/testing/argocd"
	"github.com/freeleaps/provider-devops/internal/testing/envtest"
	jenkinsfake "github.com/freeleaps/provider-devops/internal/testing/jenkins"
)

// TestExamplesReconcile applies the shipped examples, unchanged but for
// their namespace, to the provider wired as cmd/provider wires it, against
// the fake Jenkins and Argo CD, and waits for them to become Ready.
func TestExamplesReconcile(t *testing.T) {
	env := envtest.Shared(t)
	jenkins := jenkinsfake.New("ci-bot", secretText)
	defer jenkins.Close()
	argo := argofake.New(secretText)
	defer argo.Close()
	startProvider(t, env)
	c := env.Client
	ns := "examples"
	secret := func(key string) v1alpha1.Credentials {
		return v1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.SecretKeySelector{Name: "backends", Key: key}}
	}
	create(t, c,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "backends", Namespace: ns}, StringData: map[string]string{
			"jenkins": `{"username": "ci-bot", "token": "` + secretText + `"}`, "argocd": secretText,
		}},
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: v1alpha1.ProviderConfigSpec{
			Jenkins: &v1alpha1.JenkinsConfig{URL: jenkins.URL, Credentials: secret("jenkins")},
			ArgoCD:  &v1alpha1.ArgoCDConfig{URL: argo.URL, Credentials: secret("argocd")},
		}},
	)

	cases := map[string]struct {
		file  string
		ready func()
	}{
		"JenkinsPipeline": {file: "jenkins/jenkinspipeline.yaml"},
		"ArgoApplication": {file: "argocd/argoapplication.yaml", ready: func() {
			argo.SetStatus("shop-alpha", "Synced", "4f2a9c1", "Healthy", "", "Succeeded")
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := loadExample(t, tc.file)
			u.SetNamespace(ns)
			create(t, c, u)
			deadline := time.Now().Add(60 * time.Second)
			for ; time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
				if tc.ready != nil {
					tc.ready()
				}
				if err := c.Get(context.Background(), client.ObjectKeyFromObject(u), u); err == nil && condition(u, "Ready") == "True" && condition(u, "Synced") == "True" {
					return
				}
			}
			t.Fatalf("example %s never became Ready and Synced: %v", tc.file, u.Object["status"])
		})
	}
	if jenkins.Queued("team/shop/alpha") != 1 {
		t.Errorf("the example's buildRequest must queue exactly one build, got %d", jenkins.Queued("team/shop/alpha"))
	}
}

func loadExample(t *testing.T, file string) *unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(envtest.RepoRoot(), "examples", file))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(b, &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

func condition(u *unstructured.Unstructured, typ string) string {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			s, _ := m["status"].(string)
			return s
		}
	}
	return ""
}

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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mdns "github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/testing/argocdserver"
	"github.com/freeleaps/provider-devops/internal/testing/bind"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	dockerhubfake "github.com/freeleaps/provider-devops/internal/testing/dockerhub"
	argofake "github.com/freeleaps/provider-devops/internal/testing/fakeargocd"
	"github.com/freeleaps/provider-devops/internal/testing/gitea"
	godaddyfake "github.com/freeleaps/provider-devops/internal/testing/godaddy"
	jenkinsfake "github.com/freeleaps/provider-devops/internal/testing/jenkins"
)

// TestExamplesReconcile applies the shipped examples, unchanged but for
// their namespace (and, for RFC 2136, the server address and TSIG secret;
// for Argo CD, the repository URL, served on loopback here), to
// the provider wired as cmd/provider wires it, against the fake Jenkins,
// GoDaddy and Docker Hub, a real Argo CD, a real BIND 9 and a real Gitea
// (the ForgeRepository's repository and pull request, created here), and
// waits for them to become Ready.
func TestExamplesReconcile(t *testing.T) {
	env := controlplane.Shared(t)
	f := startFakes(t)
	jenkins, godaddy, hub := f.jenkins, f.godaddy, f.hub
	named := bind.StartZone(t, "example.com.")
	// The ArgoApplication example runs against a real Argo CD, syncing the
	// example's path from the loopback repository.
	argo := argocdserver.Shared(t, env)
	if _, err := argo.Apps.Commit(map[string]string{"deploy/overlays/alpha/configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop-alpha\ndata:\n  overlay: alpha\n"}, "the ArgoApplication example's overlay"); err != nil {
		t.Fatal(err)
	}
	private, err := argo.Git.Create("examples-private", argocdserver.SampleApps)
	controlplane.Must(t, err)
	argo.Git.Protect("examples-private", "ci-bot", "examples-password")
	startProvider(t, env)
	c := env.Client
	ns := "examples"
	objs := f.objects(ns)
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.Secret:
			o.StringData["argocd"] = argo.Token
		case *v1alpha1.ProviderConfig:
			o.Spec.ArgoCD.URL = argo.URL
		}
	}
	create(t, c, objs...)

	// The ForgeRepository example reports on a real Gitea's pull request,
	// started by its subtest alone (which skips outside CI without one).
	var forge *gitea.Server
	var forgePR struct {
		number int64
		sha    string
	}
	cases := map[string]struct {
		file  string
		setup func(t *testing.T)
		patch func(*unstructured.Unstructured)
		ready func()
		// check, when set, checks the backend once the example is Ready.
		check func(t *testing.T)
	}{
		"DNSRecord":    {file: "dns/dnsrecord.yaml"},
		"RegistryRepo": {file: "registry/registryrepo.yaml"},
		"DNSRecordRFC2136": {file: "dns/rfc2136.yaml", patch: func(u *unstructured.Unstructured) {
			switch u.GetKind() {
			case "Secret":
				controlplane.Must(t, unstructured.SetNestedField(u.Object, named.Secret, "stringData", "secret"))
			case "ProviderConfig":
				controlplane.Must(t, unstructured.SetNestedField(u.Object, named.Addr, "spec", "dns", "rfc2136", "server"))
			}
		}},
		"JenkinsPipeline":      {file: "jenkins/jenkinspipeline.yaml"},
		"JenkinsPipelineBuild": {file: "jenkins/declared-build.yaml"},
		"JenkinsCredential":    {file: "jenkins/credential.yaml"},
		"ArgoApplication": {file: "argocd/argoapplication.yaml", patch: func(u *unstructured.Unstructured) {
			controlplane.Must(t, unstructured.SetNestedField(u.Object, argo.Apps.URL, "spec", "forProvider", "source", "repoURL"))
		}},
		"ArgoRepository": {file: "argocd/argorepository.yaml", patch: func(u *unstructured.Unstructured) {
			switch u.GetKind() {
			case "Secret":
				controlplane.Must(t, unstructured.SetNestedField(u.Object, "examples-password", "stringData", "password"))
				// The example binds the Secret to its repositories: to
				// the served one here, so Argo CD gets it.
				controlplane.Must(t, unstructured.SetNestedField(u.Object, private.URL, "metadata", "annotations", contract.AnnotationGitRepositoryURLs))
			case "ArgoRepository":
				controlplane.Must(t, unstructured.SetNestedField(u.Object, private.URL, "spec", "forProvider", "url"))
			}
		}},
		"ArgoProject": {file: "argocd/argoproject.yaml", patch: func(u *unstructured.Unstructured) {
			controlplane.Must(t, unstructured.SetNestedStringSlice(u.Object, []string{argo.Apps.URL}, "spec", "forProvider", "sourceRepos"))
		}},
		"ForgeRepository": {file: "forge/forgerepository.yaml", setup: func(t *testing.T) {
			forge = gitea.Start(t)
			forgePR.number, forgePR.sha = startPullRequest(t, forge)
			addForge(t, c, ns, forge)
		}, patch: func(u *unstructured.Unstructured) {
			controlplane.Must(t, unstructured.SetNestedField(u.Object, forge.User+"/shop", "spec", "forProvider", "repository"))
			reports, _, _ := unstructured.NestedSlice(u.Object, "spec", "forProvider", "reports")
			r, _ := reports[0].(map[string]any)
			r["number"], r["sha"] = forgePR.number, forgePR.sha
			controlplane.Must(t, unstructured.SetNestedSlice(u.Object, reports, "spec", "forProvider", "reports"))
		}, check: func(t *testing.T) {
			st, err := forge.CommitStatuses(context.Background(), "shop", forgePR.sha)
			controlplane.Must(t, err)
			comments, err := forge.Comments(context.Background(), "shop", forgePR.number)
			controlplane.Must(t, err)
			if len(st) != 1 || st[0].State != "success" || st[0].Context != "devops/preview" || len(comments) != 1 || !strings.Contains(comments[0].Body, "The preview of this pull request is live") {
				t.Errorf("the ForgeRepository example's report on Gitea: statuses %+v, comments %+v", st, comments)
			}
		}},
	}
	// In order: the ArgoRepository and ArgoApplication examples use the
	// AppProject the ArgoProject example makes (a map ranges at random).
	// The JenkinsCredential example goes into the folder the
	// JenkinsPipeline example makes.
	order := []string{"DNSRecord", "RegistryRepo", "DNSRecordRFC2136", "JenkinsPipeline", "JenkinsPipelineBuild", "JenkinsCredential", "ArgoProject", "ArgoRepository", "ArgoApplication", "ForgeRepository"}
	if len(order) != len(cases) {
		t.Fatalf("order lists %d examples, cases %d", len(order), len(cases))
	}
	for _, name := range order {
		tc := cases[name]
		t.Run(name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup(t)
			}
			docs := loadExample(t, tc.file)
			for _, d := range docs {
				d.SetNamespace(ns)
				if tc.patch != nil {
					tc.patch(d)
				}
				create(t, c, d)
			}
			u := docs[len(docs)-1]
			deadline := time.Now().Add(60 * time.Second)
			for ; time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
				if tc.ready != nil {
					tc.ready()
				}
				if err := c.Get(context.Background(), client.ObjectKeyFromObject(u), u); err == nil && condition(u, "Ready") == "True" && condition(u, "Synced") == "True" {
					if tc.check != nil {
						tc.check(t)
					}
					return
				}
			}
			t.Fatalf("example %s never became Ready and Synced: %v", tc.file, u.Object["status"])
		})
	}
	if v := godaddy.Values("example.com", "CNAME", "alpha.shop"); len(v) != 1 || v[0] != "ingress.example.com" {
		t.Errorf("the DNSRecord example at GoDaddy: %v", v)
	}
	if r := hub.Repo("team", "shop"); r == nil || !r.IsPrivate {
		t.Errorf("the RegistryRepo example at Docker Hub: %+v", r)
	}
	if v := named.Values("api.example.com.", mdns.TypeA); len(v) != 2 {
		t.Errorf("the RFC 2136 example at BIND: %v", v)
	}
	if c, _ := jenkins.StoredCredential("team/shop", "git-shop"); !strings.Contains(c, "<password>replace-with-a-git-token</password>") {
		t.Errorf("the JenkinsCredential example in Jenkins: %q", c)
	}
	if config, _ := jenkins.Config("team/shop/build"); !strings.Contains(config, "stage(&#39;Checkout&#39;)") || !strings.Contains(config, "<sandbox>true</sandbox>") {
		t.Errorf("the declared-build example's job must hold its generated script, sandboxed:\n%s", config)
	}
	if jenkins.Queued("team/shop/alpha") != 1 {
		t.Errorf("the example's buildRequest must queue exactly one build, got %d", jenkins.Queued("team/shop/alpha"))
	}
}

// fakes are the fake Jenkins, Argo CD, GoDaddy (owning example.com) and
// Docker Hub (organisation team), all accepting secretText.
type fakes struct {
	jenkins *jenkinsfake.Server
	argo    *argofake.Server
	godaddy *godaddyfake.Server
	hub     *dockerhubfake.Server
}

// startFakes starts the fakes until the test ends.
func startFakes(t testing.TB) fakes {
	f := fakes{
		jenkins: jenkinsfake.New("ci-bot", secretText),
		argo:    argofake.New(secretText),
		godaddy: godaddyfake.New("gd-key", secretText, "example.com"),
		hub:     dockerhubfake.New("ci-bot", secretText, "team"),
	}
	t.Cleanup(func() { f.jenkins.Close(); f.argo.Close(); f.godaddy.Close(); f.hub.Close() })
	return f
}

// objects are a namespace, a Secret with the fakes' credentials and a
// ProviderConfig "default" that points at the fakes.
func (f fakes) objects(ns string) []client.Object {
	jenkins, argo, godaddy, hub := f.jenkins, f.argo, f.godaddy, f.hub
	secret := func(key string) v1alpha1.Credentials {
		return v1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.SecretKeySelector{Name: "backends", Key: key}}
	}
	return []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "backends", Namespace: ns}, StringData: map[string]string{
			"jenkins": `{"username": "ci-bot", "token": "` + secretText + `"}`, "argocd": secretText,
			"godaddy": "gd-key:" + secretText, "registry": `{"username": "ci-bot", "password": "` + secretText + `"}`,
		}},
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: v1alpha1.ProviderConfigSpec{
			Jenkins:  &v1alpha1.JenkinsConfig{URL: jenkins.URL, Credentials: secret("jenkins")},
			ArgoCD:   &v1alpha1.ArgoCDConfig{URL: argo.URL, Credentials: secret("argocd")},
			DNS:      &v1alpha1.DNSConfig{Provider: v1alpha1.DNSProviderGoDaddy, GoDaddy: &v1alpha1.GoDaddyOptions{URL: godaddy.URL}, Credentials: secret("godaddy")},
			Registry: &v1alpha1.RegistryConfig{Kind: v1alpha1.RegistryDockerHub, URL: hub.URL, Credentials: secret("registry")},
		}},
	}
}

// loadExample reads the YAML documents of an example file.
func loadExample(t testing.TB, file string) []*unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(controlplane.RepoRoot(), "examples", file))
	if err != nil {
		t.Fatal(err)
	}
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(string(b), "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
	return out
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

// startPullRequest creates repository shop on forge with a pull request
// labelled preview, as the ForgeRepository example selects, and returns
// its number and head commit.
func startPullRequest(t *testing.T, forge *gitea.Server) (int64, string) {
	t.Helper()
	ctx := context.Background()
	_, err := forge.CreateRepo(ctx, "shop")
	controlplane.Must(t, err)
	sha, err := forge.CommitFile(ctx, "shop", "feature", "app.txt", "a", "a feature")
	controlplane.Must(t, err)
	n, err := forge.OpenPullRequest(ctx, "shop", "feature", "main", "A feature")
	controlplane.Must(t, err)
	controlplane.Must(t, forge.AddLabel(ctx, "shop", n, "preview"))
	return n, sha
}

// addForge adds forge, with its token, to the ProviderConfig "default" of
// ns and its Secret "backends".
func addForge(t *testing.T, c client.Client, ns string, forge *gitea.Server) {
	t.Helper()
	ctx := context.Background()
	s := &corev1.Secret{}
	controlplane.Must(t, c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "backends"}, s))
	s.Data["forge"] = []byte(forge.Token)
	controlplane.Must(t, c.Update(ctx, s))
	pc := &v1alpha1.ProviderConfig{}
	controlplane.Must(t, c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "default"}, pc))
	pc.Spec.Forge = &v1alpha1.ForgeConfig{URL: forge.URL, Credentials: v1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.SecretKeySelector{Name: "backends", Key: "forge"}}}
	controlplane.Must(t, c.Update(ctx, pc))
}

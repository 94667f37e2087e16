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

package jenkinspipeline

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/gitfile"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins/declarative"
	"github.com/freeleaps/provider-devops/internal/clients/netguard"
	"github.com/freeleaps/provider-devops/internal/testing/gitserver"
	"github.com/freeleaps/provider-devops/internal/testing/integration"
)

const (
	goodFile    = "stages:\n- name: Test\n  sh: [make test]\n"
	changedFile = "stages:\n- name: Test\n  sh: [make test]\n- name: Lint\n  sh: [make lint]\n"
	gitPassword = "s3cr3t-git-token"
)

// scriptOf is the script the provider writes for a build file's YAML.
func scriptOf(t *testing.T, file string) string {
	t.Helper()
	b, err := declarative.ParseFile([]byte(file), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := declarative.Script(*b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBuildFile follows a build file in a repository served by Debian
// git's git-http-backend through the life of a job: created from it,
// updated when it changes, and kept at its last good pipeline while the
// file is broken, invalid, missing, unreachable or refused by the guard.
// The steps run in order, each on the job the last one left.
func TestBuildFile(t *testing.T) {
	integration.Test(t, "a git server")
	if !gitserver.Installed() {
		if os.Getenv("CI") != "" {
			t.Fatal("git and git-http-backend are not installed")
		}
		t.Skip("skipped outside CI: git or git-http-backend is not installed")
	}
	srv, err := gitserver.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	repo, err := srv.Create("team/shop", map[string]string{".devops/pipeline.yaml": goodFile})
	if err != nil {
		t.Fatal(err)
	}
	srv.Protect("team/shop", "bot", gitPassword)
	loopback, err := netguard.New(nil, []string{"127.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	allowed := gitfile.NewReader(httpapi.TLS{CABundle: srv.CertPEM, Tenant: true, Guard: loopback}, declarative.MaxFileSize)
	guarded := gitfile.NewReader(httpapi.TLS{CABundle: srv.CertPEM, Tenant: true}, declarative.MaxFileSize)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "https://" + ln.Addr().String() + "/team/shop.git"
	_ = ln.Close()

	cr := pipeline(func(cr *v1alpha1.JenkinsPipeline) {
		cr.Spec.ForProvider.Source = v1alpha1.PipelineSource{BuildFile: &v1alpha1.BuildFileSource{
			URL: repo.URL, CredentialsSecretRef: &v1alpha1.CredentialSecretRef{Name: "git"},
		}}
	})
	kc, _ := kube(t, cr)
	optIn := map[string]string{contract.LabelGitRepository: contract.ValueGitRepository}
	for _, s := range []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "git", Labels: optIn}, Data: map[string][]byte{"username": []byte("bot"), "password": []byte(gitPassword)}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "git", Labels: optIn}, Data: map[string][]byte{"username": []byte("bot"), "password": []byte("not-this-one")}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "unlabelled"}, Data: map[string][]byte{"username": []byte("bot"), "password": []byte(gitPassword)}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "nokey", Labels: optIn}, Data: map[string][]byte{"username": []byte("bot")}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "elsewhere", Labels: optIn, Annotations: map[string]string{contract.AnnotationGitRepositoryURLs: "https://git.example.com/team/"}},
			Data: map[string][]byte{"username": []byte("bot"), "password": []byte(gitPassword)}},
	} {
		if err := kc.Create(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	m := &mockClient{}
	commit := func(file string) func(*testing.T) {
		return func(t *testing.T) {
			if _, err := repo.Commit(map[string]string{".devops/pipeline.yaml": file}, "change the build"); err != nil {
				t.Fatal(err)
			}
		}
	}
	type want struct {
		exists, upToDate bool
		// script is the job's script afterwards.
		script string
		// errs are parts of the error Create or Update returned (or
		// Observe's diff, when nothing was written).
		errs   []string
		writes int
		// builds is how many builds were queued.
		builds int
	}
	steps := []struct {
		name   string
		reason string
		before func(*testing.T)
		mutate func(*v1alpha1.JenkinsPipeline)
		reader BuildFiles
		want   want
	}{
		{name: "CreateFromFile", reason: "No job yet: it is created from the file, read with the Secret of the resource's own namespace.",
			want: want{script: scriptOf(t, goodFile), writes: 1}},
		{name: "UpToDate", reason: "An unchanged file leaves the job alone.",
			want: want{exists: true, upToDate: true, script: scriptOf(t, goodFile)}},
		{name: "Changed", reason: "A new commit of the file updates the job at the next poll.", before: commit(changedFile),
			want: want{exists: true, script: scriptOf(t, changedFile), writes: 1}},
		{name: "BrokenYAML", reason: "Broken YAML is reported naming the file; the job keeps its last good pipeline.", before: commit("stages: [\n"),
			want: want{exists: true, script: scriptOf(t, changedFile), errs: []string{".devops/pipeline.yaml (branch main of " + repo.URL + ")", "not YAML", "keeps the pipeline of the last good file"}}},
		{name: "KeptWhileOtherFieldsChange", reason: "While the file is broken, the other managed fields are still corrected, with the kept script.",
			mutate: func(cr *v1alpha1.JenkinsPipeline) { cr.Spec.ForProvider.Description = "Builds the shop, again" },
			want:   want{exists: true, script: scriptOf(t, changedFile), writes: 1, errs: []string{"not YAML"}}},
		{name: "BuildOnKeptPipeline", reason: "While the file is broken, a requested build still runs, on the kept pipeline, and the file's problem is still reported: deployments go on while it is fixed (a migrated job keeps building).",
			mutate: func(cr *v1alpha1.JenkinsPipeline) { cr.Spec.ForProvider.BuildRequest = "deploy-1" },
			want:   want{exists: true, script: scriptOf(t, changedFile), errs: []string{"not YAML"}, builds: 1}},
		{name: "InvalidBuild", reason: "A build the CRD's rules refuse is reported with the rule's message.", before: commit("stages:\n- name: Test\n  sh: [make]\n  deploy: {}\n"),
			want: want{exists: true, script: scriptOf(t, changedFile), errs: []string{"invalid build", "a stage sets exactly one of checkout, sh, image and deploy"}}},
		{name: "UnknownField", reason: "An unknown field is refused, not dropped.", before: commit("stages:\n- name: Test\n  shell: [make]\n"),
			want: want{exists: true, script: scriptOf(t, changedFile), errs: []string{`unknown field "shell"`}}},
		{name: "OutsideRootFolder", reason: "The ProviderConfig's limits hold for the file's build as for an inline one, and a requested build does not run on the kept script, which may hold what the platform has withdrawn.",
			before: commit("stages:\n- name: Deploy\n  deploy: {job: other/team/deploy}\n"),
			mutate: func(cr *v1alpha1.JenkinsPipeline) { cr.Spec.ForProvider.BuildRequest = "deploy-2" },
			want:   want{exists: true, script: scriptOf(t, changedFile), errs: []string{"is refused by the ProviderConfig: stages[0].deploy.job", "outside the root folder"}}},
		{name: "Missing", reason: "A missing file is reported as such; the build the refused file held back now runs on the kept pipeline.", before: commit(""),
			want: want{exists: true, script: scriptOf(t, changedFile), errs: []string{"no file .devops/pipeline.yaml"}, builds: 1}},
		{name: "Fixed", reason: "A good file again updates the job.", before: commit(goodFile),
			want: want{exists: true, script: scriptOf(t, goodFile), writes: 1}},
		{name: "Unreachable", reason: "An unreachable host is reported; the job is kept.",
			mutate: func(cr *v1alpha1.JenkinsPipeline) { cr.Spec.ForProvider.Source.BuildFile.URL = closed },
			want:   want{exists: true, script: scriptOf(t, goodFile), errs: []string{"connection refused", "keeps the pipeline"}}},
		{name: "Guarded", reason: "An address the tenant guard does not allow is refused before any request.",
			mutate: func(cr *v1alpha1.JenkinsPipeline) { cr.Spec.ForProvider.Source.BuildFile.URL = repo.URL },
			reader: guarded,
			want:   want{exists: true, script: scriptOf(t, goodFile), errs: []string{"127.0.0.1 is internal"}}},
		{name: "NoSecret", reason: "A missing Secret is named; another namespace's Secret of that name is not used.",
			mutate: func(cr *v1alpha1.JenkinsPipeline) {
				cr.Spec.ForProvider.Source.BuildFile.CredentialsSecretRef.Name = "absent"
			},
			want: want{exists: true, script: scriptOf(t, goodFile), errs: []string{`no Secret "absent" in namespace team-a`}}},
		{name: "NotOptedIn", reason: "A Secret without the git-repository label is never read nor sent: the resource's author picks the server it would go to.",
			mutate: func(cr *v1alpha1.JenkinsPipeline) {
				cr.Spec.ForProvider.Source.BuildFile.CredentialsSecretRef.Name = "unlabelled"
			},
			want: want{exists: true, script: scriptOf(t, goodFile), errs: []string{`Secret "unlabelled" in namespace "team-a" has not consented`, "kubectl label secret -n team-a unlabelled devops.freeleaps.io/git-repository=true"}}},
		{name: "URLNotListed", reason: "A Secret whose annotation lists other repositories is not sent to this one.",
			mutate: func(cr *v1alpha1.JenkinsPipeline) {
				cr.Spec.ForProvider.Source.BuildFile.CredentialsSecretRef.Name = "elsewhere"
			},
			want: want{exists: true, script: scriptOf(t, goodFile), errs: []string{`Secret "elsewhere" in namespace "team-a" consents to being sent only to the repositories its annotation devops.freeleaps.io/git-repository-urls lists`}}},
		{name: "MissingKey", reason: "A Secret without its password key is named, not read as anonymous access.",
			mutate: func(cr *v1alpha1.JenkinsPipeline) {
				cr.Spec.ForProvider.Source.BuildFile.CredentialsSecretRef.Name = "nokey"
			},
			want: want{exists: true, script: scriptOf(t, goodFile), errs: []string{`Secret "nokey" has no key "password"`}}},
		{name: "CreateRefusedFromBadFile", reason: "Without a job, a bad file creates nothing.", before: func(t *testing.T) {
			commit("stages: [\n")(t)
			m.job = nil
		}, mutate: func(cr *v1alpha1.JenkinsPipeline) {
			cr.Spec.ForProvider.Source.BuildFile.CredentialsSecretRef.Name = "git"
		},
			want: want{errs: []string{"not YAML", "the job is created once the file is a valid build"}}},
	}
	ctx := context.Background()
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.before != nil {
				st.before(t)
			}
			if st.mutate != nil {
				st.mutate(cr)
			}
			reader := st.reader
			if reader == nil {
				reader = allowed
			}
			created, updated, builds := len(m.created), len(m.updated), len(m.builds)
			e := &external{client: m, kube: kc, now: time.Now, files: reader, limits: &pcv1alpha1.JenkinsConfig{RootFolder: "team"}}
			obs, err := e.Observe(ctx, cr)
			if err != nil {
				t.Fatalf("%s\nObserve: %v", st.reason, err)
			}
			var msg string
			switch {
			case !obs.ResourceExists:
				_, err = e.Create(ctx, cr)
			case !obs.ResourceUpToDate:
				_, err = e.Update(ctx, cr)
			}
			if err != nil {
				msg = err.Error()
			}
			if got := (obs.ResourceExists && obs.ResourceUpToDate); got != st.want.upToDate {
				t.Errorf("%s\nObserve: up to date %t, want %t (diff %q)", st.reason, got, st.want.upToDate, obs.Diff)
			}
			if len(st.want.errs) == 0 && err != nil {
				t.Errorf("%s\nunexpected error: %v", st.reason, err)
			}
			for _, w := range st.want.errs {
				if !strings.Contains(msg, w) || !strings.Contains(obs.Diff, w) && obs.ResourceExists {
					t.Errorf("%s\nwant the error and the diff to say %q; error %q, diff %q", st.reason, w, msg, obs.Diff)
				}
			}
			if strings.Contains(msg+obs.Diff, gitPassword) || strings.Contains(msg+obs.Diff, "not-this-one") {
				t.Errorf("%s\na password is in the error or diff: %q %q", st.reason, msg, obs.Diff)
			}
			if got := len(m.builds) - builds; got != st.want.builds {
				t.Errorf("%s\nbuilds queued: want %d, got %d", st.reason, st.want.builds, got)
			}
			if got := len(m.created) - created + len(m.updated) - updated; got != st.want.writes {
				t.Errorf("%s\nconfig.xml writes: want %d, got %d", st.reason, st.want.writes, got)
			}
			// The mock's job becomes what was written last.
			switch {
			case len(m.updated) > updated:
				p := m.updated[len(m.updated)-1].Pipeline
				m.job = &jenkins.Job{Pipeline: &p, Config: []byte("<flow-definition/>")}
			case len(m.created) > created:
				p := m.created[len(m.created)-1]
				m.job = &jenkins.Job{Pipeline: &p, Config: []byte("<flow-definition/>")}
			}
			var script string
			if m.job != nil {
				script = m.job.Pipeline.Script
			}
			if diff := cmp.Diff(st.want.script, script); diff != "" {
				t.Errorf("%s\nthe job's script: -want, +got:\n%s", st.reason, diff)
			}
		})
	}
}

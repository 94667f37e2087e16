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
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/freeleaps/provider-devops/internal/testing/jenkins"
)

const (
	devManifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop\ndata:\n  environment: dev\n"
	service     = "apiVersion: v1\nkind: Service\nmetadata:\n  name: shop\n"
)

// repository makes a bare repository whose branches each hold files, and
// returns its directory.
func repository(t *testing.T, branches map[string]map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ctx := context.Background()
	dir := t.TempDir()
	bare, work := filepath.Join(dir, "repo.git"), filepath.Join(dir, "seed")
	for _, args := range [][]string{{"init", "-q", "--bare", "-b", "main", bare}, {"init", "-q", "-b", "main", work}} {
		if _, err := git(ctx, "", args...); err != nil {
			t.Fatal(err)
		}
	}
	for branch, files := range branches {
		if _, err := git(ctx, work, "checkout", "-q", "--orphan", branch); err != nil {
			t.Fatal(err)
		}
		for p, content := range files {
			full := filepath.Join(work, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o750); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "seed " + branch}, {"push", "-q", bare, "HEAD:refs/heads/" + branch}, {"rm", "-q", "-r", "--cached", "."}} {
			if _, err := git(ctx, work, args...); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.RemoveAll(filepath.Join(work, "deploy")); err != nil {
			t.Fatal(err)
		}
	}
	return bare
}

func newGitops(t *testing.T, repo, branch string) *gitops {
	return &gitops{repo: repo, branch: branch, manifest: "deploy/" + EnvironmentVar + "/configmap.yaml", work: t.TempDir()}
}

// show reads a file of the repository at rev, "" when it has none.
func show(t *testing.T, repo, rev, file string) string {
	t.Helper()
	out, err := git(context.Background(), "", "--git-dir="+repo, "show", rev+":"+file)
	if err != nil {
		return ""
	}
	return out + "\n"
}

func head(t *testing.T, repo, branch string) string {
	t.Helper()
	out, err := git(context.Background(), "", "--git-dir="+repo, "rev-parse", "refs/heads/"+branch)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGitopsCommit(t *testing.T) {
	files := map[string]string{"deploy/dev/configmap.yaml": devManifest, "deploy/prod/configmap.yaml": strings.ReplaceAll(devManifest, "dev", "prod"), "deploy/svc/configmap.yaml": service}
	cases := map[string]struct {
		reason  string
		job     string
		branch  string
		wantErr string
		// want is the environment's manifest on the branch afterwards.
		want string
	}{
		"BumpsTheEnvironment": {
			reason: "A build of team/shop/dev sets the build number and the revision it built in deploy/dev's ConfigMap, keeping its other data.",
			job:    "team/shop/dev", branch: "main",
			want: "apiVersion: v1\ndata:\n  build: \"7\"\n  environment: dev\n  sourceRevision: v1.2\nkind: ConfigMap\nmetadata:\n  name: shop\n",
		},
		"TrackedBranch": {
			reason: "The commit goes on the branch the applications track, not on main.",
			job:    "team/shop/prod", branch: "release",
			want: "apiVersion: v1\ndata:\n  build: \"7\"\n  environment: prod\n  sourceRevision: v1.2\nkind: ConfigMap\nmetadata:\n  name: shop\n",
		},
		"NoManifest": {
			reason: "An environment without a manifest fails the build, committing nothing.",
			job:    "team/shop/qa", branch: "main", wantErr: "the environment's manifest",
		},
		"NotAConfigMap": {
			reason: "A manifest that is not a ConfigMap fails the build, committing nothing.",
			job:    "team/shop/svc", branch: "main", wantErr: "want a ConfigMap",
			want: service,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			repo := repository(t, map[string]map[string]string{"main": files, "release": files})
			env := filepath.Base(tc.job)
			file := "deploy/" + env + "/configmap.yaml"
			before := map[string]string{"main": head(t, repo, "main"), "release": head(t, repo, "release")}
			sha, err := newGitops(t, repo, tc.branch).commit(context.Background(), tc.job, 7, "v1.2")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\ncommit(...): error %v, want one containing %q", tc.reason, err, tc.wantErr)
				}
				if got := head(t, repo, tc.branch); got != before[tc.branch] {
					t.Errorf("%s\nthe branch moved to %s after a failed build", tc.reason, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\ncommit(...): %v", tc.reason, err)
			}
			if got := head(t, repo, tc.branch); got != sha || len(sha) != 40 {
				t.Errorf("%s\ncommit(...) = %q, but %s is at %s", tc.reason, sha, tc.branch, got)
			}
			if diff := cmp.Diff(tc.want, show(t, repo, sha, file)); diff != "" {
				t.Errorf("%s\nthe manifest at the commit: -want, +got:\n%s", tc.reason, diff)
			}
			for branch, was := range before {
				if got := head(t, repo, branch); branch != tc.branch && got != was {
					t.Errorf("%s\nbranch %s moved too", tc.reason, branch)
				}
			}
		})
	}
}

const parameterized = `<flow-definition plugin="workflow-job"><properties><hudson.model.ParametersDefinitionProperty><parameterDefinitions>
<hudson.model.StringParameterDefinition><name>REVISION</name><defaultValue>main</defaultValue></hudson.model.StringParameterDefinition>
</parameterDefinitions></hudson.model.ParametersDefinitionProperty></properties></flow-definition>`

func TestAdvanceJob(t *testing.T) {
	cases := map[string]struct {
		reason string
		job    string
		// params the build is asked with.
		params url.Values
		want   string // result, and "revision=" when the description reports one
		// commit is whether the build moved the branch.
		commit bool
	}{
		"RevisionCommits": {
			reason: "A build with REVISION commits and reports the commit on its description.",
			job:    "team/shop/dev", params: url.Values{"REVISION": {"main"}}, want: "SUCCESS revision=", commit: true,
		},
		"NoRevisionNoCommit": {
			reason: "A build asked without REVISION (its default applies in Jenkins) is no deployment: it commits nothing.",
			job:    "team/shop/dev", params: url.Values{}, want: "SUCCESS",
		},
		"CommitFails": {
			reason: "A build that cannot commit (no manifest for its environment) fails, as its pipeline would.",
			job:    "team/shop/qa", params: url.Values{"REVISION": {"main"}}, want: "FAILURE",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			repo := repository(t, map[string]map[string]string{"main": {"deploy/dev/configmap.yaml": devManifest}})
			before := head(t, repo, "main")
			srv := jenkins.New("u", "t")
			defer srv.Close()
			srv.SetConfig(tc.job, parameterized)
			// As the provider asks: past the quiet period, which the
			// sandbox's executor waits out.
			u := srv.URL + "/job/" + strings.ReplaceAll(tc.job, "/", "/job/") + "/buildWithParameters?delay=0sec"
			req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(tc.params.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.SetBasicAuth("u", "t")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				t.Fatalf("buildWithParameters: %s", resp.Status)
			}
			f := fakes{jenkins: srv, gitops: newGitops(t, repo, "main")}
			seen := map[string]time.Time{}
			f.advanceJob(context.Background(), tc.job, time.Now(), 0, seen) // starts it
			f.advanceJob(context.Background(), tc.job, time.Now().Add(time.Second), 0, seen)
			builds := srv.Builds(tc.job)
			if len(builds) != 1 {
				t.Fatalf("%d builds, want 1", len(builds))
			}
			b, after := builds[0], head(t, repo, "main")
			got := b.Result
			if b.Description != nil {
				d, ok := strings.CutPrefix(*b.Description, "revision=")
				if !ok || d != after {
					t.Errorf("%s\ndescription %q, want revision=%s (the branch's head)", tc.reason, *b.Description, after)
				}
				got += " revision="
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nresult and description: -want, +got:\n%s", tc.reason, diff)
			}
			if moved := after != before; moved != tc.commit {
				t.Errorf("%s\nthe branch moved: %v, want %v", tc.reason, moved, tc.commit)
			}
		})
	}
}

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

package gitea

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestConfig(t *testing.T) {
	ini, err := Config("/w", "/s", 3000)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"WORK_PATH = /w\n", "ROOT_URL = http://127.0.0.1:3000/\n", "HTTP_ADDR = 127.0.0.1\n",
		"STATIC_ROOT_PATH = /s\n", "DB_TYPE = sqlite3\n", "PATH = /w/data/gitea.db\n",
		"INSTALL_LOCK = true\n", "OFFLINE_MODE = true\n", "START_SSH_SERVER = false\n",
		"[mailer]\nENABLED = false\n", "MODE = console\n",
	} {
		if !strings.Contains(ini, want) {
			t.Errorf("app.ini lacks %q:\n%s", want, ini)
		}
	}
	again, err := Config("/w", "/s", 3000)
	if err != nil {
		t.Fatal(err)
	}
	if again == ini {
		t.Error("two configurations share SECRET_KEY and INTERNAL_TOKEN: want fresh ones")
	}
}

// TestPullRequestLoop is what a preview environment needs of a forge,
// against a real Gitea: a repository, a branch with a commit, a pull
// request that is labelled, a commit status and a comment posted by
// another client, a push from the git CLI that moves the pull request's
// head, then merging it; and closing another unmerged.
func TestPullRequestLoop(t *testing.T) {
	t.Parallel()
	begin := time.Now()
	s := Start(t)
	t.Logf("gitea ready at %s in %s", s.URL, time.Since(begin).Round(time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	const repo = "shop"
	r, err := s.CreateRepo(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if r.DefaultBranch != "main" {
		t.Fatalf("default branch %q, want main", r.DefaultBranch)
	}
	var readme struct {
		Name string `json:"name"`
	}
	if err := s.Do(ctx, http.MethodGet, "/repos/"+s.User+"/"+repo+"/contents/README.md?ref=main", nil, &readme); err != nil || readme.Name != "README.md" {
		t.Fatalf("the new repository's README: %+v, %v", readme, err)
	}
	first, err := s.CommitFile(ctx, repo, "feature", "deploy/app.yaml", "replicas: 1\n", "Deploy the app")
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.OpenPullRequest(ctx, repo, "feature", "main", "Deploy the app")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := s.PullRequest(ctx, repo, n)
	if err != nil {
		t.Fatal(err)
	}
	if pr.Head.SHA != first || pr.Head.Ref != "feature" || pr.Base.Ref != "main" || pr.State != "open" {
		t.Fatalf("pull request %+v, want open, feature@%s into main", pr, first)
	}

	// Labels: "preview" asks for an environment; another comes and goes.
	for _, l := range []string{"preview", "wip"} {
		if err := s.AddLabel(ctx, repo, n, l); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RemoveLabel(ctx, repo, n, "wip"); err != nil {
		t.Fatal(err)
	}
	if pr, err = s.PullRequest(ctx, repo, n); err != nil {
		t.Fatal(err)
	}
	if names := labelNames(pr.Labels); !slices.Equal(names, []string{"preview"}) {
		t.Fatalf("labels %v, want [preview]", names)
	}

	// A commit status and a comment, posted as any client would, with
	// nothing of this package's but the token; read back through it.
	post(ctx, t, s, "/repos/"+s.User+"/"+repo+"/statuses/"+first,
		`{"state":"pending","context":"preview","description":"deploying","target_url":"http://preview.example/pr-1"}`)
	post(ctx, t, s, fmt.Sprintf("/repos/%s/%s/issues/%d/comments", s.User, repo, n),
		`{"body":"Preview: http://preview.example/pr-1"}`)
	st, err := s.CommitStatuses(ctx, repo, first)
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 1 || st[0].State != "pending" || st[0].Context != "preview" || st[0].TargetURL != "http://preview.example/pr-1" {
		t.Fatalf("statuses %+v, want one pending \"preview\"", st)
	}
	cs, err := s.Comments(ctx, repo, n)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Body != "Preview: http://preview.example/pr-1" || cs[0].User.Login != s.User {
		t.Fatalf("comments %+v, want the preview's", cs)
	}

	// A developer pushes to the branch with git over HTTP.
	second := pushWithGit(t, s.GitURL(repo), "feature", "deploy/app.yaml", "replicas: 2\n")
	deadline := time.Now().Add(time.Minute)
	for pr.Head.SHA != second {
		if time.Now().After(deadline) {
			t.Fatalf("pull request head %s after the push, want %s", pr.Head.SHA, second)
		}
		time.Sleep(100 * time.Millisecond)
		if pr, err = s.PullRequest(ctx, repo, n); err != nil {
			t.Fatal(err)
		}
	}
	if st, err = s.CommitStatuses(ctx, repo, second); err != nil || len(st) != 0 {
		t.Fatalf("statuses of the new head %+v (%v), want none yet", st, err)
	}

	if err := s.MergePullRequest(ctx, repo, n); err != nil {
		t.Fatal(err)
	}
	if pr, err = s.PullRequest(ctx, repo, n); err != nil {
		t.Fatal(err)
	}
	if pr.State != "closed" || !pr.Merged || pr.MergeCommitSHA == "" {
		t.Fatalf("after merging: %+v, want closed and merged", pr)
	}

	// Another pull request, closed unmerged.
	if _, err := s.CommitFile(ctx, repo, "abandoned", "deploy/app.yaml", "replicas: 9\n", "Scale up"); err != nil {
		t.Fatal(err)
	}
	m, err := s.OpenPullRequest(ctx, repo, "abandoned", "main", "Scale up")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ClosePullRequest(ctx, repo, m); err != nil {
		t.Fatal(err)
	}
	if pr, err = s.PullRequest(ctx, repo, m); err != nil {
		t.Fatal(err)
	}
	if pr.State != "closed" || pr.Merged {
		t.Fatalf("after closing: %+v, want closed and not merged", pr)
	}
	t.Logf("the whole loop took %s", time.Since(begin).Round(time.Millisecond))
}

func labelNames(ls []Label) []string {
	var n []string
	for _, l := range ls {
		n = append(n, l.Name)
	}
	slices.Sort(n)
	return n
}

// post sends body to the API with the token and nothing else of Server's.
func post(ctx context.Context, t *testing.T, s *Server, path, body string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/api/v1"+path, bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+s.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST %s: %s %s", path, resp.Status, b)
	}
}

// pushWithGit clones url with the git CLI, commits content to path on
// branch and pushes it; it returns the new commit.
func pushWithGit(t *testing.T, url, branch, path, content string) string {
	t.Helper()
	dir := t.TempDir()
	home := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
			"GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.com",
			"GIT_COMMITTER_NAME=Dev", "GIT_COMMITTER_EMAIL=dev@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("clone", "--quiet", "--branch", branch, url, ".")
	if err := os.WriteFile(filepath.Join(dir, path), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	git("commit", "--quiet", "-am", "Scale to two")
	git("push", "--quiet", "origin", branch)
	return git("rev-parse", "HEAD")
}

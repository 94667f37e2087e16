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

package gitea_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeleaps/provider-devops/internal/clients/gitea"
	giteatest "github.com/freeleaps/provider-devops/internal/testing/gitea"
)

// newUser creates a plain (non-admin) user and returns a token of it.
func newUser(t *testing.T, s *giteatest.Server, name string) string {
	t.Helper()
	ctx := context.Background()
	pw := "Passw0rd-" + name + "-x1"
	if err := s.Do(ctx, http.MethodPost, "/admin/users", map[string]any{
		"username": name, "password": pw, "email": name + "@example.com", "must_change_password": false,
	}, nil); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"name": "t", "scopes": []string{"all"}})
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/api/v1/users/"+name+"/tokens", bytes.NewReader(b))
	req.SetBasicAuth(name, pw)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		SHA1 string `json:"sha1"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&tok)
	if tok.SHA1 == "" {
		t.Fatalf("no token for %s: %s", name, resp.Status)
	}
	return tok.SHA1
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=m", "GIT_AUTHOR_EMAIL=m@x", "GIT_COMMITTER_NAME=m", "GIT_COMMITTER_EMAIL=m@x", "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestAGitPullRequestIsAFork: a user who may only read a public
// repository opens a pull request by AGit flow (git push
// HEAD:refs/for/main/topic), without a fork. Its code is its author's, so
// it is a fork's: listed only for forkAuthors where forks are allowed.
func TestAGitPullRequestIsAFork(t *testing.T) {
	s := giteatest.Start(t)
	ctx := context.Background()
	if _, err := s.CreateOrgRepo(ctx, "team", "shop"); err != nil {
		t.Fatal(err)
	}
	tok := newUser(t, s, "mallory")
	u, _ := url.Parse(s.URL)
	u.User = url.UserPassword("mallory", tok)
	u.Path = "/team/shop.git"
	dir := t.TempDir()
	git(t, dir, "clone", u.String(), "w")
	w := filepath.Join(dir, "w")
	if err := os.WriteFile(filepath.Join(w, "Jenkinsfile"), []byte("evil"), 0o600); err != nil {
		t.Fatal(err)
	}
	git(t, w, "add", ".")
	git(t, w, "commit", "-m", "evil")
	git(t, w, "push", "origin", "HEAD:refs/for/main/evil", "-o", "title=harmless")

	c, err := gitea.New(gitea.Config{URL: s.URL, Token: s.Token})
	if err != nil {
		t.Fatal(err)
	}
	prs, err := c.OpenPullRequests(ctx, "team/shop")
	if err != nil {
		t.Fatal(err)
	}
	if len(prs) != 1 {
		t.Fatalf("want 1 pull request, got %+v", prs)
	}
	if !prs[0].Fork {
		t.Errorf("pull request %+v by a reader (AGit flow) is not a fork: it gets a preview without forkAuthors", prs[0])
	}
}

// TestRenamedOwnerNotFollowed: organisation team-a renamed acme leaves a
// redirect from team-a/secret to acme/secret. A namespace whose tenancy
// is team-a/* asking for team-a/secret must not reach acme/secret.
func TestRenamedOwnerNotFollowed(t *testing.T) {
	s := giteatest.Start(t)
	ctx := context.Background()
	if _, err := s.CreateOrgRepo(ctx, "team-a", "secret"); err != nil {
		t.Fatal(err)
	}
	if err := s.Do(ctx, http.MethodPost, "/orgs/team-a/rename", map[string]any{"new_name": "acme"}, nil); err != nil {
		if err2 := s.Do(ctx, http.MethodPost, "/admin/users/team-a/rename", map[string]any{"new_username": "acme"}, nil); err2 != nil {
			t.Fatal(err, err2)
		}
	}
	if _, err := s.CommitFile(ctx, "acme/secret", "feature", "x", "y", "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenPullRequest(ctx, "acme/secret", "feature", "main", "acme's"); err != nil {
		t.Fatal(err)
	}
	c, err := gitea.New(gitea.Config{URL: s.URL, Token: s.Token})
	if err != nil {
		t.Fatal(err)
	}
	if prs, err := c.OpenPullRequests(ctx, "team-a/secret"); err == nil {
		t.Errorf("team-a/secret, renamed acme/secret, listed %+v", prs)
	}
	sha, err := s.CommitFile(ctx, "acme/secret", "feature", "x", "z", "again")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetStatus(ctx, "team-a/secret", sha, gitea.Status{State: gitea.StateSuccess, Context: "x"}); err == nil {
		t.Error("a status posted on team-a/secret went to acme/secret")
	}
	if prs, err := c.OpenPullRequests(ctx, "acme/secret"); err != nil || len(prs) != 1 {
		t.Errorf("acme/secret by its name: %+v, %v", prs, err)
	}
}

func doAs(t *testing.T, s *giteatest.Server, token, method, path string, body, out any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, s.URL+"/api/v1"+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "token "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode > 299 {
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		t.Fatalf("%s %s: %s %v", method, path, resp.Status, m)
	}
	if out != nil {
		_ = json.NewDecoder(resp.Body).Decode(out)
	}
}

// TestForkHeadOwner: a trusted author opens a pull request whose head is
// in someone else's fork (Gitea lets a reader of the fork do so). The
// fork's owner, not the author, pushes its code: the client says whose
// repository the head is in.
func TestForkHeadOwner(t *testing.T) {
	s := giteatest.Start(t)
	ctx := context.Background()
	if _, err := s.CreateOrgRepo(ctx, "team", "shop"); err != nil {
		t.Fatal(err)
	}
	tok := newUser(t, s, "mallory")
	doAs(t, s, tok, http.MethodPost, "/repos/team/shop/forks", map[string]any{}, nil)
	doAs(t, s, tok, http.MethodPost, "/repos/mallory/shop/contents", map[string]any{
		"message": "evil", "branch": "main", "new_branch": "evil",
		"files": []map[string]string{{"operation": "upload", "path": "Jenkinsfile", "content": "ZXZpbA=="}},
	}, nil)
	// The admin, a trusted author, opens it.
	if err := s.Do(ctx, http.MethodPost, "/repos/team/shop/pulls", map[string]string{"head": "mallory:evil", "base": "main", "title": "t"}, nil); err != nil {
		t.Fatal(err)
	}
	c, err := gitea.New(gitea.Config{URL: s.URL, Token: s.Token})
	if err != nil {
		t.Fatal(err)
	}
	prs, err := c.OpenPullRequests(ctx, "team/shop")
	if err != nil || len(prs) != 1 {
		t.Fatalf("%+v, %v", prs, err)
	}
	t.Logf("%+v", prs[0])
	if p := prs[0]; !p.Fork || p.Author != s.User || p.HeadOwner != "mallory" {
		t.Errorf("pull request %+v: want a fork by %s whose head is mallory's", p, s.User)
	}
}

// counting counts the requests a client sends.
type counting struct{ n int }

func (c *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n++
	return http.DefaultTransport.RoundTrip(r)
}

// TestCommentsOfABusyPullRequest: Gitea lists an issue's comments all at
// once (its endpoint takes no page nor limit). With 50 or more, the
// client read the same list again page after page, up to 10 times, and
// returned each comment many times over; every report re-read them. Now
// it reads them once, and a comment whose id it holds is read alone. An
// id that names another pull request's comment (a status edited) is not
// edited.
func TestCommentsOfABusyPullRequest(t *testing.T) {
	s := giteatest.Start(t)
	ctx := context.Background()
	if _, err := s.CreateOrgRepo(ctx, "team", "shop"); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"a", "b"} {
		if _, err := s.CommitFile(ctx, "team/shop", b, b, b, b); err != nil {
			t.Fatal(err)
		}
	}
	a, err := s.OpenPullRequest(ctx, "team/shop", "a", "main", "a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.OpenPullRequest(ctx, "team/shop", "b", "main", "b")
	if err != nil {
		t.Fatal(err)
	}
	rt := &counting{}
	c, err := gitea.New(gitea.Config{URL: s.URL, Token: s.Token, Transport: rt})
	if err != nil {
		t.Fatal(err)
	}
	const marker = "<!-- m -->"
	onB, err := c.UpsertComment(ctx, "team/shop", b, 0, s.User, marker, "b's")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.UpsertComment(ctx, "team/shop", a, onB, s.User, marker, "a's"); err != nil || got == onB {
		t.Fatalf("with b's comment's id, a's report wrote comment %d (%v)", got, err)
	}
	if l, _ := c.Comments(ctx, "team/shop", b); len(l) != 1 || !strings.HasPrefix(l[0].Body, "b's") {
		t.Errorf("b's comments %+v: want its own, unchanged", l)
	}
	tok := newUser(t, s, "mallory")
	const spam = 60
	for i := range spam {
		doAs(t, s, tok, http.MethodPost, fmt.Sprintf("/repos/team/shop/issues/%d/comments", a), map[string]string{"body": fmt.Sprint("spam ", i)}, nil)
	}
	rt.n = 0
	l, err := c.Comments(ctx, "team/shop", a)
	if err != nil || len(l) != spam+1 || rt.n != 1 {
		t.Errorf("%d comments read in %d requests (%v), want %d in 1", len(l), rt.n, err, spam+1)
	}
	id := mustFind(t, c, a, marker)
	rt.n = 0
	if got, err := c.UpsertComment(ctx, "team/shop", a, id, s.User, marker, "second"); err != nil || got != id || rt.n != 2 {
		t.Errorf("updating comment %d: wrote %d (%v) in %d requests, want it in 2", id, got, err, rt.n)
	}
}

func mustFind(t *testing.T, c *gitea.Client, n int64, marker string) int64 {
	t.Helper()
	l, err := c.Comments(context.Background(), "team/shop", n)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range l {
		if strings.Contains(x.Body, marker) {
			return x.ID
		}
	}
	t.Fatal("no comment of ours")
	return 0
}

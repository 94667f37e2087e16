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
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/testing/gitea"
)

// TestAgainstGitea holds the client to a real Gitea: the open pull
// requests with their heads, labels and forks; a commit status set and
// read back; one comment kept up to date however often it is written,
// also when its id is lost; and the errors of a bad token and a missing
// repository.
func TestAgainstGitea(t *testing.T) {
	s := gitea.Start(t)
	ctx := context.Background()
	repo, err := s.CreateRepo(ctx, "shop")
	if err != nil {
		t.Fatal(err)
	}
	// Loopback is the test server's address; a tenant's ProviderConfig
	// would be refused it.
	c, err := New(Config{URL: s.URL, Token: s.Token})
	if err != nil {
		t.Fatal(err)
	}
	if prs, err := c.OpenPullRequests(ctx, repo.FullName); err != nil || len(prs) != 0 {
		t.Fatalf("a new repository's pull requests: %v, %v", prs, err)
	}

	sha1, err := s.CommitFile(ctx, "shop", "feature-a", "app.txt", "a", "feature a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CommitFile(ctx, "shop", "feature-b", "app.txt", "b", "feature b"); err != nil {
		t.Fatal(err)
	}
	a, err := s.OpenPullRequest(ctx, "shop", "feature-a", "main", "Feature A")
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.OpenPullRequest(ctx, "shop", "feature-b", "main", "Feature B")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddLabel(ctx, "shop", a, "preview"); err != nil {
		t.Fatal(err)
	}
	prs, err := c.OpenPullRequests(ctx, repo.FullName)
	if err != nil {
		t.Fatal(err)
	}
	if len(prs) != 2 || prs[0].Number != a || prs[1].Number != b {
		t.Fatalf("open pull requests %+v, want #%d then #%d", prs, a, b)
	}
	if p := prs[0]; p.HeadSHA != sha1 || p.HeadRef != "feature-a" || p.BaseRef != "main" || p.Fork || p.Author != s.User ||
		len(p.Labels) != 1 || p.Labels[0] != "preview" || !strings.HasSuffix(p.URL, "/pulls/1") {
		t.Errorf("pull request %+v: want head feature-a at %s, label preview, not a fork, by %s", p, sha1, s.User)
	}

	st := Status{State: StateSuccess, Context: "provider-devops/preview", Description: "live", TargetURL: "https://pr-1.shop.example.com"}
	if err := c.SetStatus(ctx, repo.FullName, sha1, st); err != nil {
		t.Fatal(err)
	}
	got, err := c.Statuses(ctx, repo.FullName, sha1)
	if err != nil || len(got) != 1 || got[0] != st {
		t.Errorf("statuses %+v (%v), want %+v", got, err, st)
	}
	if err := c.SetStatus(ctx, repo.FullName, "main", st); err == nil {
		t.Error("a status on a branch name, not a commit id: want refused")
	}

	const marker = "<!-- provider-devops:preview -->"
	id, err := c.UpsertComment(ctx, repo.FullName, a, 0, s.User, marker, "Preview: https://pr-1.shop.example.com")
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.UpsertComment(ctx, repo.FullName, a, id, s.User, marker, "Preview: https://pr-1.shop.example.com (updated)")
	if err != nil || again != id {
		t.Fatalf("the update made comment %d (%v), want %d", again, err, id)
	}
	// The id lost (a status write that failed): the comment is found by
	// its marker, not duplicated.
	lost, err := c.UpsertComment(ctx, repo.FullName, a, 0, s.User, marker, "Preview: gone")
	if err != nil || lost != id {
		t.Fatalf("with the id lost: comment %d (%v), want %d", lost, err, id)
	}
	comments, err := c.Comments(ctx, repo.FullName, a)
	if err != nil {
		t.Fatal(err)
	}
	if len(comments) != 1 || !strings.HasPrefix(comments[0].Body, "Preview: gone") || !strings.Contains(comments[0].Body, marker) {
		t.Errorf("comments %+v: want one, updated in place", comments)
	}

	if user, err := c.User(ctx); err != nil || user != s.User {
		t.Errorf("user %q (%v), want %s", user, err, s.User)
	}
	bad, err := New(Config{URL: s.URL, Token: "not-a-token"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.OpenPullRequests(ctx, repo.FullName); httpapi.StatusOf(err) != http.StatusUnauthorized || !httpapi.IsTerminal(err) || strings.Contains(err.Error(), "not-a-token") {
		t.Errorf("a bad token: %v, want a terminal 401 that does not print the token", err)
	}
	if _, err := c.OpenPullRequests(ctx, s.User+"/nope"); !httpapi.IsNotFound(err) {
		t.Errorf("a missing repository: %v, want not found", err)
	}
}

func TestRepoPath(t *testing.T) {
	for repo, ok := range map[string]bool{
		"team/shop": true, "team/shop.web": true,
		"shop": false, "/shop": false, "team/": false, "a/b/c": false, "../x": false, "x/..": false,
	} {
		if _, err := repoPath(repo); (err == nil) != ok {
			t.Errorf("repoPath(%q): %v, want ok %t", repo, err, ok)
		}
	}
	for _, u := range []string{"ftp://x", "https://user:pw@gitea.example.com", "https://gitea.example.com?x=1", "gitea.example.com"} {
		if _, err := New(Config{URL: u, Token: "t"}); err == nil {
			t.Errorf("New(%q): want refused", u)
		}
	}
}

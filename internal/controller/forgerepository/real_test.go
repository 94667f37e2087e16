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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/forge/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/controller/forgerepository"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	"github.com/freeleaps/provider-devops/internal/testing/gitea"
	"github.com/freeleaps/provider-devops/internal/testing/loopback"
)

const ns = "team"

// kube is a fake API server holding a ProviderConfig "default" in ns for
// a forge at url, whose token (with the newline a Secret written from a
// file keeps) is in Secret "forge", and a ClusterProviderConfig
// "platform" for the same forge with its default tenancy.
func kube(t *testing.T, url, token string) client.Client {
	t.Helper()
	creds := pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &pcv1alpha1.SecretKeySelector{Name: "forge", Key: "token"}}
	platform := creds
	platform.SecretRef = &pcv1alpha1.SecretKeySelector{Name: "forge", Namespace: ns, Key: "token"}
	return fake.NewClientBuilder().WithScheme(controlplane.Scheme()).WithObjects(
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "forge", Namespace: ns}, Data: map[string][]byte{"token": []byte(token + "\n")}},
		&pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns},
			Spec: pcv1alpha1.ProviderConfigSpec{Forge: &pcv1alpha1.ForgeConfig{URL: url, Credentials: creds}}},
		&pcv1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "platform"},
			Spec: pcv1alpha1.ProviderConfigSpec{AllowedNamespaces: []string{"*"}, Forge: &pcv1alpha1.ForgeConfig{URL: url, Credentials: platform}}},
	).Build()
}

func newCR(repo string, p v1alpha1.PullRequestSelector, reports ...v1alpha1.PullRequestReport) *v1alpha1.ForgeRepository {
	cr := &v1alpha1.ForgeRepository{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: ns, UID: "uid-shop"}}
	cr.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
	cr.Spec.ForProvider = v1alpha1.ForgeRepositoryParameters{Repository: repo, PullRequests: p, Reports: reports}
	return cr
}

func connect(t *testing.T, c managed.TypedExternalConnector[*v1alpha1.ForgeRepository], cr *v1alpha1.ForgeRepository) managed.TypedExternalClient[*v1alpha1.ForgeRepository] {
	t.Helper()
	ext, err := c.Connect(context.Background(), cr)
	if err != nil {
		t.Fatal(err)
	}
	return ext
}

func numbers(prs []v1alpha1.PullRequest) []int64 {
	out := []int64{}
	for _, p := range prs {
		out = append(out, p.Number)
	}
	return out
}

// TestAgainstGitea runs the external client, connected as the controller
// connects it, against a real Gitea: the pull requests listed, a report
// posted as a commit status and one comment, a changed report editing
// that comment, a repository the token cannot read, and a forge down.
func TestAgainstGitea(t *testing.T) {
	s := gitea.Start(t)
	ctx := context.Background()
	repo, err := s.CreateRepo(ctx, "shop")
	controlplane.Must(t, err)
	shaA, err := s.CommitFile(ctx, "shop", "feature-a", "app.txt", "a", "feature a")
	controlplane.Must(t, err)
	_, err = s.CommitFile(ctx, "shop", "feature-b", "app.txt", "b", "feature b")
	controlplane.Must(t, err)
	a, err := s.OpenPullRequest(ctx, "shop", "feature-a", "main", "Feature A")
	controlplane.Must(t, err)
	b, err := s.OpenPullRequest(ctx, "shop", "feature-b", "main", "Feature B")
	controlplane.Must(t, err)
	controlplane.Must(t, s.AddLabel(ctx, "shop", a, "preview"))

	conn := forgerepository.NewConnector(kube(t, s.URL, s.Token), controlplane.TenantGuard(), nil)

	t.Run("Listed", func(t *testing.T) {
		cr := newCR(repo.FullName, v1alpha1.PullRequestSelector{})
		o, err := connect(t, conn, cr).Observe(ctx, cr)
		if err != nil || !o.ResourceExists || !o.ResourceUpToDate {
			t.Fatalf("Observe: %+v, %v; want existing and up to date", o, err)
		}
		if diff := cmp.Diff([]int64{a, b}, numbers(cr.Status.AtProvider.PullRequests)); diff != "" {
			t.Errorf("every open pull request, oldest first: -want, +got:\n%s", diff)
		}
		if p := cr.Status.AtProvider.PullRequests[0]; p.HeadSHA != shaA || p.HeadRef != "feature-a" || p.BaseRef != "main" || p.Title != "Feature A" || p.Author != s.User || p.Fork || p.URL == "" {
			t.Errorf("pull request #%d: %+v", a, p)
		}
	})

	labelled := v1alpha1.PullRequestSelector{Labels: []string{"preview"}}
	report := v1alpha1.PullRequestReport{Number: a, SHA: shaA, State: v1alpha1.ReportPending, Description: "building", TargetURL: "https://pr-1.shop.example.com", Comment: "Preview building"}
	cr := newCR(repo.FullName, labelled, report, v1alpha1.PullRequestReport{Number: b, SHA: shaA, State: v1alpha1.ReportFailure})
	marker := forgerepository.Marker(cr)

	t.Run("Reported", func(t *testing.T) {
		ext := connect(t, conn, cr)
		o, err := ext.Observe(ctx, cr)
		if err != nil || o.ResourceUpToDate {
			t.Fatalf("Observe: %+v, %v; want a report to post", o, err)
		}
		if diff := cmp.Diff([]int64{a}, numbers(cr.Status.AtProvider.PullRequests)); diff != "" {
			t.Errorf("only the labelled pull request: -want, +got:\n%s", diff)
		}
		if _, err := ext.Update(ctx, cr); err != nil {
			t.Fatal(err)
		}
		st, err := s.CommitStatuses(ctx, "shop", shaA)
		controlplane.Must(t, err)
		if want := (gitea.CommitStatus{State: "pending", Context: "devops/preview", Description: "building", TargetURL: "https://pr-1.shop.example.com"}); len(st) != 1 || st[0] != want {
			t.Errorf("statuses of %s: %+v, want one: %+v (the report for unlisted #%d not posted)", shaA, st, want, b)
		}
		comments, err := s.Comments(ctx, "shop", a)
		controlplane.Must(t, err)
		if len(comments) != 1 || !strings.HasPrefix(comments[0].Body, "Preview building") || !strings.Contains(comments[0].Body, marker) || comments[0].User.Login != s.User {
			t.Errorf("comments %+v: want one by %s with the marker", comments, s.User)
		}
		if bc, _ := s.Comments(ctx, "shop", b); len(bc) != 0 {
			t.Errorf("pull request #%d, not listed, got comments %+v", b, bc)
		}
		if r := cr.Status.AtProvider.Reported; len(r) != 1 || r[0].Number != a || len(comments) != 1 || r[0].CommentID != comments[0].ID {
			t.Errorf("reported %+v, want #%d with its comment's id", r, a)
		}
		if o, err := connect(t, conn, cr).Observe(ctx, cr); err != nil || !o.ResourceUpToDate {
			t.Errorf("the next Observe: %+v, %v; want up to date", o, err)
		}
	})

	t.Run("ChangedReport", func(t *testing.T) {
		cr.Spec.ForProvider.Reports[0].State = v1alpha1.ReportSuccess
		cr.Spec.ForProvider.Reports[0].Comment = "Preview ready"
		ext := connect(t, conn, cr)
		if o, err := ext.Observe(ctx, cr); err != nil || o.ResourceUpToDate {
			t.Fatalf("Observe: %+v, %v; want the changed report to post", o, err)
		}
		if _, err := ext.Update(ctx, cr); err != nil {
			t.Fatal(err)
		}
		comments, err := s.Comments(ctx, "shop", a)
		controlplane.Must(t, err)
		if len(comments) != 1 || !strings.HasPrefix(comments[0].Body, "Preview ready") {
			t.Errorf("comments %+v: want the one comment edited in place", comments)
		}
		// The combined status: the latest of each context, as a pull
		// request's page shows it (the list's order is by second).
		var combined struct {
			State    string               `json:"state"`
			Statuses []gitea.CommitStatus `json:"statuses"`
		}
		controlplane.Must(t, s.Do(ctx, http.MethodGet, "/repos/"+repo.FullName+"/commits/"+shaA+"/status", nil, &combined))
		if combined.State != "success" || len(combined.Statuses) != 1 || combined.Statuses[0].Context != "devops/preview" {
			t.Errorf("combined status %+v: want devops/preview alone, success", combined)
		}
		if o, err := connect(t, conn, cr).Observe(ctx, cr); err != nil || !o.ResourceUpToDate {
			t.Errorf("the next Observe: %+v, %v; want up to date", o, err)
		}
	})

	// The token docs/configuration.md asks for: a user with write access
	// to the repository, its token scoped write:repository (pull
	// requests, statuses), write:issue (comments) and read:user (its
	// login), no more.
	t.Run("ScopedToken", func(t *testing.T) {
		token := userToken(t, s, "preview-bot", "write:repository", "write:issue", "read:user")
		controlplane.Must(t, s.Do(ctx, http.MethodPut, "/repos/"+repo.FullName+"/collaborators/preview-bot", map[string]any{"permission": "write"}, nil))
		bot := forgerepository.NewConnector(kube(t, s.URL, token), controlplane.TenantGuard(), nil)
		cr := newCR(repo.FullName, labelled, v1alpha1.PullRequestReport{Number: a, SHA: shaA, State: v1alpha1.ReportSuccess, Description: "live", Comment: "Preview live"})
		cr.Spec.ForProvider.StatusContext = "devops/bot"
		ext := connect(t, bot, cr)
		if _, err := ext.Observe(ctx, cr); err != nil {
			t.Fatal(err)
		}
		if _, err := ext.Update(ctx, cr); err != nil {
			t.Fatalf("Update with the scoped token: %v", err)
		}
		st, err := s.CommitStatuses(ctx, "shop", shaA)
		controlplane.Must(t, err)
		if !slices.ContainsFunc(st, func(c gitea.CommitStatus) bool { return c.Context == "devops/bot" && c.State == "success" }) {
			t.Errorf("statuses %+v: want devops/bot success", st)
		}
		comments, err := s.Comments(ctx, "shop", a)
		controlplane.Must(t, err)
		if !slices.ContainsFunc(comments, func(c gitea.Comment) bool {
			return c.User.Login == "preview-bot" && strings.HasPrefix(c.Body, "Preview live")
		}) {
			t.Errorf("comments %+v: want preview-bot's", comments)
		}
	})

	t.Run("Tenancy", func(t *testing.T) {
		// Through the platform's config, namespace team may watch only
		// team/*: the admin's repository is refused before the forge is
		// asked.
		other := newCR(repo.FullName, v1alpha1.PullRequestSelector{})
		other.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "platform"}
		_, err := connect(t, conn, other).Observe(ctx, other)
		if want := fmt.Sprintf("repository %q is not allowed for namespace %q: ClusterProviderConfig platform spec.forge.tenancy.repositories allows \"team/*\"", repo.FullName, ns); err == nil || err.Error() != want {
			t.Errorf("Observe: %v, want %q", err, want)
		}
	})

	t.Run("CannotRead", func(t *testing.T) {
		// The admin's private repository, read with another user's token:
		// Gitea answers 404, as for a repository that does not exist.
		controlplane.Must(t, s.Do(ctx, http.MethodPost, "/user/repos", map[string]any{"name": "secret", "private": true}, nil))
		token := outsider(t, s)
		cr := newCR(s.User+"/secret", v1alpha1.PullRequestSelector{})
		_, err := connect(t, forgerepository.NewConnector(kube(t, s.URL, token), controlplane.TenantGuard(), nil), cr).Observe(ctx, cr)
		want := fmt.Sprintf("repository %s/secret not found on %s, or the token cannot read it", s.User, s.URL)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), token) {
			t.Errorf("Observe: %v, want an error containing %q, without the token", err, want)
		}
	})

	t.Run("ForgeDown", func(t *testing.T) {
		port, err := loopback.FreePort()
		controlplane.Must(t, err)
		down := forgerepository.NewConnector(kube(t, fmt.Sprintf("http://127.0.0.1:%d", port), s.Token), controlplane.TenantGuard(), nil)
		before := cr.Status.AtProvider.DeepCopy()
		_, err = connect(t, down, cr).Observe(ctx, cr)
		if err == nil || !strings.Contains(err.Error(), "cannot list the open pull requests") || strings.Contains(err.Error(), s.Token) {
			t.Errorf("Observe: %v, want it cannot list, without the token", err)
		}
		if diff := cmp.Diff(*before, cr.Status.AtProvider); diff != "" {
			t.Errorf("status changed while the forge was down: -before, +after:\n%s", diff)
		}
	})
}

// outsider creates a user who is not the admin and returns a token of
// theirs.
func outsider(t *testing.T, s *gitea.Server) string {
	t.Helper()
	return userToken(t, s, "outsider", "all")
}

// userToken creates user, who is not an admin, and returns a token of
// theirs with scopes.
func userToken(t *testing.T, s *gitea.Server, user string, scopes ...string) string {
	t.Helper()
	ctx := context.Background()
	password := user + "-password-1"
	controlplane.Must(t, s.Do(ctx, http.MethodPost, "/admin/users", map[string]any{
		"username": user, "email": user + "@example.com", "password": password, "must_change_password": false,
	}, nil))
	body, err := json.Marshal(map[string]any{"name": user, "scopes": scopes})
	controlplane.Must(t, err)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/api/v1/users/"+user+"/tokens", bytes.NewReader(body))
	controlplane.Must(t, err)
	req.SetBasicAuth(user, password)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	controlplane.Must(t, err)
	defer func() { _ = resp.Body.Close() }()
	var tok struct {
		SHA1 string `json:"sha1"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || resp.StatusCode != http.StatusCreated || tok.SHA1 == "" {
		t.Fatalf("cannot create %s's token: %d, %v", user, resp.StatusCode, err)
	}
	return tok.SHA1
}

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

package argocd

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Repository is an Argo CD repository: what the API returns of one (never
// its credentials) and, when writing, the credentials too.
type Repository struct {
	Repo      string `json:"repo"`
	Type      string `json:"type,omitempty"`
	Name      string `json:"name,omitempty"`
	Project   string `json:"project,omitempty"`
	Insecure  bool   `json:"insecure,omitempty"`
	EnableLFS bool   `json:"enableLfs,omitempty"`
	// Credentials: written only, Argo CD never returns them. Secret: never
	// log or print a Repository holding them.
	Username      string `json:"username,omitempty"`
	Password      string `json:"password,omitempty"`
	SSHPrivateKey string `json:"sshPrivateKey,omitempty"`

	ConnectionState ConnectionState `json:"connectionState,omitzero"`
}

// ConnectionState is Argo CD's last test of a repository, which its API
// server caches (an hour by default).
type ConnectionState struct {
	Status      string     `json:"status,omitempty"`
	Message     string     `json:"message,omitempty"`
	AttemptedAt *time.Time `json:"attemptedAt,omitempty"`
}

// Connection states.
const (
	ConnectionSuccessful = "Successful"
	ConnectionFailed     = "Failed"
)

// RepositoryList is the answer of GET /api/v1/repositories.
type RepositoryList struct {
	Items []Repository `json:"items"`
}

// SameRepoURL is true when a and b name one repository the way Argo CD
// compares them: case, a trailing slash and ".git" do not matter.
func SameRepoURL(a, b string) bool {
	norm := func(s string) string {
		// ASCII letters only: strings.ToLower folds some non-ASCII
		// letters into ASCII ones (U+0130 to i), which would make a
		// look-alike host the same repository.
		s = asciiLower(strings.TrimSpace(s))
		s = strings.TrimSuffix(s, "/")
		return strings.TrimSuffix(s, ".git")
	}
	return norm(a) == norm(b)
}

// asciiLower lower-cases the ASCII letters of s and nothing else.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

// GetRepository returns the repository repo registered for project ("":
// a global one), or an error for which IsNotFound is true. It lists rather
// than GETs: Argo CD answers PermissionDenied, not NotFound, for a
// repository that does not exist, and its GET lists all repositories
// internally anyway. With refresh, Argo CD tests the connection of every
// repository the token sees instead of answering from its cache (an hour by
// default): use it only to see the effect of a write.
func (c *Client) GetRepository(ctx context.Context, repo, project string, refresh bool) (*Repository, error) {
	var q url.Values
	if refresh {
		q = url.Values{"forceRefresh": {"true"}}
	}
	l := &RepositoryList{}
	if err := c.do(ctx, http.MethodGet, "/api/v1/repositories", q, nil, l); err != nil {
		return nil, err
	}
	for i := range l.Items {
		if SameRepoURL(l.Items[i].Repo, repo) && l.Items[i].Project == project {
			return &l.Items[i], nil
		}
	}
	return nil, notFound(fmt.Sprintf("repository %q of project %q not found", repo, project))
}

// CreateRepository registers r with its credentials; Argo CD refuses one
// that exists with other settings (upsert=false), so another's repository
// is never overwritten.
func (c *Client) CreateRepository(ctx context.Context, r *Repository) error {
	return c.do(ctx, http.MethodPost, "/api/v1/repositories", noUpsert(), r, nil)
}

// UpdateRepository replaces the settings and credentials of r, which
// exists.
func (c *Client) UpdateRepository(ctx context.Context, r *Repository) error {
	return c.do(ctx, http.MethodPut, "/api/v1/repositories/"+repoSegment(r.Repo), nil, r, nil)
}

// DeleteRepository removes the repository repo of project.
func (c *Client) DeleteRepository(ctx context.Context, repo, project string) error {
	q := url.Values{}
	if project != "" {
		q.Set("appProject", project)
	}
	return c.do(ctx, http.MethodDelete, "/api/v1/repositories/"+repoSegment(repo), q, nil, nil)
}

// repoSegment is a repository URL as one path segment, escaped as Argo CD's
// own UI does (encodeURIComponent) and its server undoes (QueryUnescape):
// a ':' left as is would be read by its gateway as a custom verb.
func repoSegment(repo string) string {
	return strings.ReplaceAll(url.QueryEscape(repo), "+", "%20")
}

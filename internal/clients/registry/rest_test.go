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

package registry_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/registry"
	"github.com/freeleaps/provider-devops/internal/clients/retryafter"
	"github.com/freeleaps/provider-devops/internal/testing/dockerhub"
	"github.com/freeleaps/provider-devops/internal/testing/harbor"
)

const hubToken = "dckr_pat_secret-value"

func TestDockerHubAgainstFake(t *testing.T) {
	s := dockerhub.New("alice", hubToken, "acme")
	defer s.Close()
	ctx := context.Background()
	gate := retryafter.New(nil)
	c, err := registry.New(registry.Config{Kind: registry.KindDockerHub, URL: s.URL, Username: "alice", Password: hubToken, RetryAfter: gate, Cache: testCache})
	if err != nil {
		t.Fatal(err)
	}
	r := registry.Repo{Namespace: "acme", Name: "shop", Private: true, Description: "the shop"}

	if o, err := c.Get(ctx, r); o != nil || err != nil {
		t.Fatalf("absent repository: got %+v, %v", o, err)
	}
	if _, err := c.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	if got := s.Repo("acme", "shop"); got == nil || !got.IsPrivate || got.Description != "the shop" {
		t.Fatalf("stored: %+v", got)
	}
	if _, err := c.Create(ctx, r); !registry.IsConflict(err) {
		t.Errorf("creating it again is a conflict, got %v", err)
	}

	t.Run("SteadyStateIsOneRead", func(t *testing.T) {
		s.ResetCounts()
		c2, _ := registry.New(registry.Config{Kind: registry.KindDockerHub, URL: s.URL, Username: "alice", Password: hubToken, Cache: testCache})
		o, err := c2.Get(ctx, r)
		if err != nil || o == nil || !*o.Private || *o.Description != "the shop" || o.URL != "docker.io/acme/shop" || o.TagCount != nil {
			t.Fatalf("observed %+v, %v", o, err)
		}
		if g, l := s.Count(http.MethodGet), s.Logins(); g != 1 || l != 0 {
			t.Errorf("a new client reuses the cached token: %d GETs and %d logins, want 1 and 0", g, l)
		}
		// A client without the cache logs in.
		c3, _ := registry.New(registry.Config{Kind: registry.KindDockerHub, URL: s.URL, Username: "alice", Password: hubToken})
		if _, err := c3.Get(ctx, r); err != nil {
			t.Fatal(err)
		}
		if l := s.Logins(); l != 1 {
			t.Errorf("a client without the cache: %d logins, want 1", l)
		}
	})

	t.Run("ExpiredTokenRenewedOnce", func(t *testing.T) {
		s.ExpireTokens()
		s.ResetCounts()
		if _, err := c.Get(ctx, r); err != nil {
			t.Fatal(err)
		}
		if l := s.Logins(); l != 1 {
			t.Errorf("want exactly one new login after a 401, got %d", l)
		}
	})

	t.Run("Update", func(t *testing.T) {
		u := r
		u.Private, u.Description = false, "now public"
		if err := c.Update(ctx, u); err != nil {
			t.Fatal(err)
		}
		if got := s.Repo("acme", "shop"); got.IsPrivate || got.Description != "now public" {
			t.Errorf("after Update: %+v", got)
		}
	})

	t.Run("Refusals", func(t *testing.T) {
		if _, err := c.Create(ctx, registry.Repo{Namespace: "acme", Name: "a/b"}); err == nil || !strings.Contains(err.Error(), "cannot contain") {
			t.Errorf("a slash in a Hub name: %v", err)
		}
		_, err := c.Create(ctx, registry.Repo{Namespace: "other-org", Name: "x1"})
		if err == nil || !strings.Contains(err.Error(), "403") || httpapi.IsTransient(err) {
			t.Errorf("a namespace the account may not write: %v", err)
		}
		bad, _ := registry.New(registry.Config{Kind: registry.KindDockerHub, URL: s.URL, Username: "alice", Password: "wrong-token"})
		_, err = bad.Get(ctx, r)
		if err == nil || !strings.Contains(err.Error(), "rejected the credentials") || strings.Contains(err.Error(), "wrong-token") {
			t.Errorf("a wrong token: %v", err)
		}
	})

	t.Run("RateLimitHoldsTheServer", func(t *testing.T) {
		s.FailNext(1, http.StatusTooManyRequests, 60)
		_, err := c.Get(ctx, r)
		if !httpapi.IsTransient(err) || !strings.Contains(err.Error(), "retry after 1m0s") {
			t.Fatalf("a 429 is transient and says how long: %v", err)
		}
		s.ResetCounts()
		if _, err := c.Get(ctx, r); !httpapi.IsTransient(err) || s.Count(http.MethodGet) != 0 {
			t.Errorf("within the wait no request may reach Hub: %v, %d GETs", err, s.Count(http.MethodGet))
		}
	})

	gate2 := registry.Config{Kind: registry.KindDockerHub, URL: s.URL, Username: "alice", Password: hubToken}
	c, _ = registry.New(gate2)
	if err := c.Delete(ctx, r); err != nil {
		t.Fatal(err)
	}
	if s.Repo("acme", "shop") != nil {
		t.Error("still stored after Delete")
	}
	if err := c.Delete(ctx, r); err != nil {
		t.Errorf("deleting a deleted repository: %v", err)
	}
}

func TestHarborAgainstFake(t *testing.T) {
	s := harbor.New("robot$ci", "harbor-secret-value")
	defer s.Close()
	ctx := context.Background()
	c, err := registry.New(registry.Config{Kind: registry.KindHarbor, URL: s.URL, Username: "robot$ci", Password: "harbor-secret-value"})
	if err != nil {
		t.Fatal(err)
	}
	quota := int64(1 << 30)
	r := registry.Repo{Namespace: "team", Name: "shop/api", Private: true, StorageQuotaBytes: &quota, ImmutableTags: true}

	if o, err := c.Get(ctx, r); o != nil || err != nil {
		t.Fatalf("no project, no repository: %+v, %v", o, err)
	}
	_, err = c.Create(ctx, r)
	var missing *registry.ProjectMissingError
	if !errors.As(err, &missing) || missing.Project != "team" || !strings.Contains(err.Error(), "createProject") {
		t.Errorf("without createProject the missing project is named, in an error the controller can tell apart: %v", err)
	}
	r.CreateProject = true
	if created, err := c.Create(ctx, r); err != nil || !created.Project {
		t.Fatalf("the project is created and reported so: %+v, %v", created, err)
	}
	if p := s.Project("team"); p == nil || p.Metadata["public"] != "false" || p.StorageLimit != quota || p.ImmutableRules != 1 {
		t.Fatalf("project: %+v", p)
	}
	o, err := c.Get(ctx, r)
	if err != nil || o == nil || !o.Implicit || *o.TagCount != 0 || !*o.Private {
		t.Fatalf("available before the first push: %+v, %v", o, err)
	}

	s.Push("team", "shop/api", 2)
	s.ResetCounts()
	o, err = c.Get(ctx, r)
	if err != nil || *o.TagCount != 2 || o.LastPushed == nil || o.URL != strings.TrimPrefix(s.URL, "http://")+"/team/shop/api" {
		t.Fatalf("after a push (the name's slash must travel as %%252F): %+v, %v", o, err)
	}
	if g := s.Count(http.MethodGet); g != 2 {
		t.Errorf("Get reads the project and the repository: %d GETs, want 2", g)
	}

	u := r
	u.Private = false
	if err := c.Update(ctx, u); err != nil {
		t.Errorf("an Update of a repository whose project another made (recording its owner, say) must not fail: %v", err)
	}
	if p := s.Project("team"); p.Metadata["public"] != "false" {
		t.Errorf("the visibility of a project the resource does not own was changed: %v", p.Metadata)
	}
	u.ProjectOwned = true
	if err := c.Update(ctx, u); err != nil {
		t.Fatal(err)
	}
	if p := s.Project("team"); p.Metadata["public"] != "true" {
		t.Errorf("visibility after Update: %v", p.Metadata)
	}

	t.Run("CreatedPrivate", func(t *testing.T) {
		// Nothing manages a project's visibility until the resource's
		// claim on it is recorded: it must not start out public.
		open := registry.Repo{Namespace: "open", Name: "x", Private: false, CreateProject: true}
		if created, err := c.Create(ctx, open); err != nil || !created.Project {
			t.Fatalf("the project is created: %+v, %v", created, err)
		}
		if p := s.Project("open"); p == nil || p.Metadata["public"] != "false" {
			t.Errorf("a project the provider creates must be private, even for a public repository: %+v", p)
		}
	})

	t.Run("ExistingProjectAdopted", func(t *testing.T) {
		s.AddProject("shared", true)
		created, err := c.Create(ctx, registry.Repo{Namespace: "shared", Name: "x", CreateProject: true, ImmutableTags: true})
		if err != nil || created.Project {
			t.Errorf("a project that exists (409) is fine, and not reported as created: %+v, %v", created, err)
		}
		if p := s.Project("shared"); p.ImmutableRules != 0 || p.Metadata["public"] != "true" {
			t.Errorf("an existing project's settings were changed: %+v", p)
		}
	})

	t.Run("Refusals", func(t *testing.T) {
		bad, _ := registry.New(registry.Config{Kind: registry.KindHarbor, URL: s.URL, Username: "robot$ci", Password: "nope-secret"})
		_, err := bad.Get(ctx, r)
		if err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "nope-secret") {
			t.Errorf("wrong password: %v", err)
		}
		s.ReadOnly = true
		owned := r
		owned.ProjectOwned = true
		err = c.Update(ctx, owned)
		s.ReadOnly = false
		if err == nil || !strings.Contains(err.Error(), "403") || !strings.Contains(err.Error(), "FORBIDDEN") {
			t.Errorf("a robot without rights: %v", err)
		}
		s.FailNext(1, http.StatusTooManyRequests, 0)
		if _, err := c.Get(ctx, r); !httpapi.IsTransient(err) {
			t.Errorf("429 is transient: %v", err)
		}
	})

	if err := c.Delete(ctx, r); err != nil {
		t.Fatal(err)
	}
	if s.Repository("team", "shop/api") != nil || s.Project("team") == nil {
		t.Error("Delete removes the repository and keeps the project")
	}
	o, err = c.Get(ctx, r)
	if err != nil || *o.TagCount != 0 {
		t.Errorf("after Delete: %+v, %v", o, err)
	}
}

// testCache is what a connector shares across its clients.
var testCache = registry.NewCache()

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
	"strings"
	"testing"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/registry"
	regtest "github.com/freeleaps/provider-devops/internal/testing/distribution"
)

func TestOCIAgainstDistribution(t *testing.T) {
	s := regtest.Start(t)
	ctx := context.Background()
	c, err := registry.New(registry.Config{Kind: registry.KindOCI, URL: s.URL, Username: regtest.User, Password: regtest.Password, Cache: testCache})
	if err != nil {
		t.Fatal(err)
	}
	r := registry.Repo{Namespace: "team", Name: "shop/api"}

	if _, err := c.Create(ctx, r); err != nil {
		t.Fatalf("Create checks push access: %v", err)
	}
	o, err := c.Get(ctx, r)
	if err != nil || o == nil || !o.Implicit || o.TagCount == nil || *o.TagCount != 0 {
		t.Fatalf("a repository nothing was pushed to is available with no tags: %+v, %v", o, err)
	}
	if want := s.Host + "/team/shop/api"; o.URL != want {
		t.Errorf("URL %q, want %q", o.URL, want)
	}

	d := s.Push(t, "team/shop/api", "v1")
	s.Push(t, "team/shop/api", "v2")
	// A second tag on the same manifest: one delete must do for both.
	if got := s.Push(t, "team/shop/api", "v1"); got == d {
		t.Fatal("random images should differ")
	}
	o, err = c.Get(ctx, r)
	if err != nil || *o.TagCount != 2 {
		t.Fatalf("tag count after pushing v1, v2: %+v, %v", o, err)
	}

	if err := c.Delete(ctx, r); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if tags := s.Tags(t, "team/shop/api"); len(tags) != 0 {
		t.Errorf("tags left after Delete: %v", tags)
	}
	o, err = c.Get(ctx, r)
	if err != nil || *o.TagCount != 0 {
		t.Errorf("after Delete: %+v, %v", o, err)
	}
	if err := c.Delete(ctx, r); err != nil {
		t.Errorf("deleting an empty repository again: %v", err)
	}

	t.Run("WrongPassword", func(t *testing.T) {
		bad, _ := registry.New(registry.Config{Kind: registry.KindOCI, URL: s.URL, Username: regtest.User, Password: "wrong-password"})
		_, err := bad.Create(ctx, r)
		if err == nil || !strings.Contains(err.Error(), "401") || httpapi.IsTransient(err) {
			t.Errorf("a wrong password is a clear, permanent error, got %v", err)
		}
		if _, err := bad.Get(ctx, r); err == nil || strings.Contains(err.Error(), "wrong-password") {
			t.Errorf("Get with a wrong password: %v", err)
		}
	})

	t.Run("Unreachable", func(t *testing.T) {
		c, _ := registry.New(registry.Config{Kind: registry.KindOCI, URL: "http://127.0.0.1:1"})
		if _, err := c.Get(ctx, r); !httpapi.IsTransient(err) {
			t.Errorf("a refused connection is transient, got %v", err)
		}
	})
}

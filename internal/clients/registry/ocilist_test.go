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
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/registry"
)

// pagingRegistry answers team/app's tag list with pages of perPage tags,
// each linking to the next, for pages pages (0: without end), and counts
// the tag list requests and anything that would change the registry.
type pagingRegistry struct {
	perPage, pages int
	lists, writes  atomic.Int64
}

func (p *pagingRegistry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/v2/":
		w.WriteHeader(http.StatusOK)
	case r.URL.Path == "/v2/team/app/tags/list":
		n := int(p.lists.Add(1))
		tags := make([]string, p.perPage)
		for i := range tags {
			tags[i] = fmt.Sprintf("p%d-t%d", n, i)
		}
		if p.pages == 0 || n < p.pages {
			w.Header().Set("Link", fmt.Sprintf(`</v2/team/app/tags/list?n=1000&last=p%d>; rel="next"`, n))
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"name": "team/app", "tags": tags})
	default:
		p.writes.Add(1)
		w.WriteHeader(http.StatusAccepted)
	}
}

// TestOCITagListBounded: a registry is a ProviderConfig's to choose, and
// one that answers tag list pages without end (or millions of tags) gets a
// terminal error on the one resource, after a bounded number of requests,
// from Get and from Delete, and Delete then deletes nothing.
func TestOCITagListBounded(t *testing.T) {
	cases := map[string]struct {
		reason         string
		perPage, pages int
		tags           int64
		maxLists       int64
		err            string
	}{
		"EndlessFullPages": {
			reason:  "Full pages without end stop once MaxTags is passed.",
			perPage: 1000, maxLists: registry.MaxTags/1000 + 1, err: fmt.Sprintf("runs past %d tags", registry.MaxTags),
		},
		"EndlessEmptyPages": {
			reason:  "Empty pages without end stop at MaxTagPages.",
			perPage: 0, maxLists: registry.MaxTagPages, err: fmt.Sprintf("runs past %d pages", registry.MaxTagPages),
		},
		"Paged": {
			reason:  "A list that ends is followed to its end and counted whole.",
			perPage: 2, pages: 3, tags: 6, maxLists: 3,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := &pagingRegistry{perPage: tc.perPage, pages: tc.pages}
			s := httptest.NewServer(srv)
			defer s.Close()
			c, err := registry.New(registry.Config{Kind: registry.KindOCI, URL: s.URL})
			if err != nil {
				t.Fatal(err)
			}
			// Without the bound the listing ends only with the context.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			r := registry.Repo{Namespace: "team", Name: "app"}

			o, err := c.Get(ctx, r)
			if tc.err == "" {
				if err != nil || o == nil || o.TagCount == nil || *o.TagCount != tc.tags {
					t.Errorf("%s\nGet: want %d tags, got %+v, %v", tc.reason, tc.tags, o, err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tc.err) || !httpapi.IsTerminal(err) {
				t.Errorf("%s\nGet: want a terminal error containing %q, got %v (terminal %v)", tc.reason, tc.err, err, httpapi.IsTerminal(err))
			}
			if n := srv.lists.Load(); n > tc.maxLists {
				t.Errorf("%s\nGet sent %d tag list requests, want at most %d", tc.reason, n, tc.maxLists)
			}
			if tc.err == "" {
				return
			}

			srv.lists.Store(0)
			err = c.Delete(ctx, r)
			if err == nil || !strings.Contains(err.Error(), tc.err) || !httpapi.IsTerminal(err) {
				t.Errorf("%s\nDelete: want a terminal error containing %q, got %v", tc.reason, tc.err, err)
			}
			if n := srv.lists.Load(); n > tc.maxLists {
				t.Errorf("%s\nDelete sent %d tag list requests, want at most %d", tc.reason, n, tc.maxLists)
			}
			if n := srv.writes.Load(); n != 0 {
				t.Errorf("%s\nDelete sent %d requests after a list it could not finish", tc.reason, n)
			}
		})
	}
}

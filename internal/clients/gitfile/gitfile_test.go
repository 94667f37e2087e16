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

package gitfile

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/netguard"
	"github.com/freeleaps/provider-devops/internal/testing/gitserver"
	"github.com/freeleaps/provider-devops/internal/testing/integration"
)

// TestRead reads files from Debian git's own smart-HTTP backend.
func TestRead(t *testing.T) {
	integration.Test(t, "a git server")
	if !gitserver.Installed() {
		if os.Getenv("CI") != "" {
			t.Fatal("git and git-http-backend are not installed")
		}
		t.Skip("skipped outside CI: git or git-http-backend is not installed")
	}
	s, err := gitserver.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	repo, err := s.Create("team/shop", map[string]string{".devops/pipeline.yaml": "stages: []\n", "big": strings.Repeat("x", 2048)})
	if err != nil {
		t.Fatal(err)
	}
	private, err := s.Create("team/private", map[string]string{"f": "secret build\n"})
	if err != nil {
		t.Fatal(err)
	}
	s.Protect("team/private", "bot", "s3cr3t-token")
	loopback, err := netguard.New(nil, []string{"127.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	allowed := NewReader(httpapi.TLS{CABundle: s.CertPEM, Tenant: true, Guard: loopback}, 1024)
	strict := NewReader(httpapi.TLS{CABundle: s.CertPEM, Tenant: true}, 1024)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "https://" + ln.Addr().String() + "/team/shop.git"
	_ = ln.Close()

	read := func(rd *Reader, r Request) (string, error) {
		f, err := rd.Read(context.Background(), r)
		return string(f.Content), err
	}
	type want struct {
		content  string
		err      string
		notFound bool
	}
	cases := map[string]struct {
		reason string
		before func(t *testing.T)
		reader *Reader
		req    Request
		want   want
	}{
		"Present": {
			reason: "A file at the head of the branch is read.",
			reader: allowed, req: Request{URL: repo.URL, Branch: "main", Path: ".devops/pipeline.yaml"},
			want: want{content: "stages: []\n"},
		},
		"Changed": {
			reason: "A new commit's content is read, not the one kept for the last commit.",
			before: func(t *testing.T) {
				if _, err := repo.Commit(map[string]string{".devops/pipeline.yaml": "stages: [changed]\n"}, "change"); err != nil {
					t.Fatal(err)
				}
			},
			reader: allowed, req: Request{URL: repo.URL, Branch: "main", Path: ".devops/pipeline.yaml"},
			want: want{content: "stages: [changed]\n"},
		},
		"MissingFile": {
			reason: "A missing file is NotFound, naming it.",
			reader: allowed, req: Request{URL: repo.URL, Branch: "main", Path: ".devops/none.yaml"},
			want: want{err: "no file .devops/none.yaml", notFound: true},
		},
		"MissingBranch": {
			reason: "A missing branch is NotFound, naming it.",
			reader: allowed, req: Request{URL: repo.URL, Branch: "release", Path: ".devops/pipeline.yaml"},
			want: want{err: "branch release does not exist", notFound: true},
		},
		"TooLarge": {
			reason: "A file above the bound is refused.",
			reader: allowed, req: Request{URL: repo.URL, Branch: "main", Path: "big"},
			want: want{err: "more than the 1024"},
		},
		"Private": {
			reason: "Credentials read a protected repository.",
			reader: allowed, req: Request{URL: private.URL, Branch: "main", Path: "f", Username: "bot", Password: "s3cr3t-token"},
			want: want{content: "secret build\n"},
		},
		"PrivateWithoutCredentials": {
			reason: "Without credentials a protected repository is refused.",
			reader: allowed, req: Request{URL: private.URL, Branch: "main", Path: "f"},
			want: want{err: "authentication required"},
		},
		"Unreachable": {
			reason: "A host nobody listens on is an error, not a hang.",
			reader: allowed, req: Request{URL: closed, Branch: "main", Path: "f"},
			want: want{err: "connection refused"},
		},
		"Guarded": {
			reason: "The tenant guard refuses a loopback address it does not allow.",
			reader: strict, req: Request{URL: repo.URL, Branch: "main", Path: ".devops/pipeline.yaml"},
			want: want{err: "127.0.0.1"},
		},
		"NotHTTPS": {
			reason: "Only https is spoken.",
			reader: allowed, req: Request{URL: strings.Replace(repo.URL, "https://", "http://", 1), Branch: "main", Path: "f"},
			want: want{err: "no https URL"},
		},
	}
	for _, name := range []string{"Present", "Changed", "MissingFile", "MissingBranch", "TooLarge", "Private", "PrivateWithoutCredentials", "Unreachable", "Guarded", "NotHTTPS"} {
		tc := cases[name]
		t.Run(name, func(t *testing.T) {
			if tc.before != nil {
				tc.before(t)
			}
			got, err := read(tc.reader, tc.req)
			if tc.want.err == "" {
				if err != nil {
					t.Fatalf("%s\nRead: %v", tc.reason, err)
				}
				if diff := cmp.Diff(tc.want.content, got); diff != "" {
					t.Errorf("%s\nRead: -want, +got:\n%s", tc.reason, diff)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want.err) {
				t.Errorf("%s\nRead: want error containing %q, got %v", tc.reason, tc.want.err, err)
			}
			if IsNotFound(err) != tc.want.notFound {
				t.Errorf("%s\nIsNotFound(%v) = %t, want %t", tc.reason, err, IsNotFound(err), tc.want.notFound)
			}
			t.Logf("%s: %v", name, err)
			if err != nil && strings.Contains(err.Error(), "s3cr3t-token") {
				t.Errorf("%s\nthe error carries the password: %v", tc.reason, err)
			}
		})
	}
}

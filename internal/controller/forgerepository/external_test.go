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

package forgerepository

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/forge/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/gitea"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

// mock is a forge that records what is posted; fail makes a call fail.
type mock struct {
	prs      []gitea.PullRequest
	listErr  error
	fail     map[int64]error // by pull request number, for SetStatus
	statuses map[string]gitea.Status
	comments map[int64]int64 // pull request -> the id passed in
	authors  []string
	users    int
}

func (m *mock) OpenPullRequests(context.Context, string) ([]gitea.PullRequest, error) {
	return m.prs, m.listErr
}

func (m *mock) SetStatus(_ context.Context, _, sha string, s gitea.Status) error {
	for n, err := range m.fail {
		for _, p := range m.prs {
			if p.Number == n && p.HeadSHA == sha {
				return err
			}
		}
	}
	if m.statuses == nil {
		m.statuses = map[string]gitea.Status{}
	}
	m.statuses[sha] = s
	return nil
}

func (m *mock) UpsertComment(_ context.Context, _ string, number, id int64, author, _, _ string) (int64, error) {
	if m.comments == nil {
		m.comments = map[int64]int64{}
	}
	m.comments[number] = id
	m.authors = append(m.authors, author)
	if id == 0 {
		id = 100 + number
	}
	return id, nil
}

func (m *mock) User(context.Context) (string, error) { m.users++; return "bot", nil }

var now = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)

func newExternal(m *mock) *external {
	l := &logins{m: map[loginKey]string{}}
	return &external{client: m, forge: "https://git.example.com", forks: true, now: func() time.Time { return now },
		login: func(ctx context.Context) (string, error) {
			return l.get(ctx, loginKey{url: "https://git.example.com"}, m)
		}}
}

func newCR(reports ...v1alpha1.PullRequestReport) *v1alpha1.ForgeRepository {
	cr := &v1alpha1.ForgeRepository{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "shop"}}
	cr.Spec.ForProvider = v1alpha1.ForgeRepositoryParameters{Repository: "team-a/shop", Reports: reports}
	return cr
}

func TestObserve(t *testing.T) {
	prev := v1alpha1.ForgeRepositoryObservation{PullRequests: []v1alpha1.PullRequest{listedPR(1)}, ObservedAt: &metav1.Time{Time: now.Add(-time.Hour)}}
	report := v1alpha1.PullRequestReport{Number: 1, SHA: sha1, State: v1alpha1.ReportSuccess}
	cases := map[string]struct {
		reason    string
		m         *mock
		cr        func() *v1alpha1.ForgeRepository
		wantErr   string
		exists    bool
		upToDate  bool
		wantAtPro v1alpha1.ForgeRepositoryObservation
	}{
		"Deleted": {
			reason: "A resource being deleted is let go: nothing on the forge is deleted.",
			m:      &mock{listErr: errors.New("never called")},
			cr: func() *v1alpha1.ForgeRepository {
				cr := newCR()
				cr.SetDeletionTimestamp(&metav1.Time{Time: now})
				return cr
			},
		},
		"NotFound": {
			reason:  "A repository the token cannot see: a message naming it and the forge; status kept.",
			m:       &mock{listErr: &httpapi.Error{Backend: "Gitea", Status: http.StatusNotFound, Message: "not found"}},
			wantErr: "repository team-a/shop not found on https://git.example.com, or the token cannot read it", wantAtPro: prev,
		},
		"Forbidden": {
			reason:  "403 reads the same.",
			m:       &mock{listErr: &httpapi.Error{Backend: "Gitea", Status: http.StatusForbidden}},
			wantErr: "or the token cannot read it", wantAtPro: prev,
		},
		"Down": {
			reason:  "The forge unreachable: an error, and the pull requests listed stay (previews are kept).",
			m:       &mock{listErr: &httpapi.Error{Backend: "Gitea", Message: "connection refused"}},
			wantErr: "cannot list the open pull requests: cannot reach Gitea", wantAtPro: prev,
		},
		"Pending": {
			reason: "A report never posted for a listed pull request: not up to date.",
			m:      &mock{prs: []gitea.PullRequest{pr(1), pr(2)}},
			cr:     func() *v1alpha1.ForgeRepository { return newCR(report) },
			exists: true,
			wantAtPro: v1alpha1.ForgeRepositoryObservation{PullRequests: []v1alpha1.PullRequest{listedPR(1), listedPR(2)},
				ObservedAt: &metav1.Time{Time: now}},
		},
		"UpToDate": {
			reason: "Every report posted as it reads, and none for the pull request not listed: up to date.",
			m:      &mock{prs: []gitea.PullRequest{pr(1)}},
			cr: func() *v1alpha1.ForgeRepository {
				closed := report
				closed.Number = 7
				cr := newCR(report, closed)
				cr.Status.AtProvider = *prev.DeepCopy()
				cr.Status.AtProvider.Reported = []v1alpha1.Reported{{Number: 1, Digest: Digest(report, DefaultStatusContext)}}
				return cr
			},
			exists: true, upToDate: true,
			wantAtPro: v1alpha1.ForgeRepositoryObservation{PullRequests: []v1alpha1.PullRequest{listedPR(1)},
				Reported: []v1alpha1.Reported{{Number: 1, Digest: Digest(report, DefaultStatusContext)}}, ObservedAt: &metav1.Time{Time: now}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := newCR()
			cr.Status.AtProvider = *prev.DeepCopy()
			if tc.cr != nil {
				cr = tc.cr()
			}
			o, err := newExternal(tc.m).Observe(context.Background(), cr)
			if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("%s\nObserve(...): want an error containing %q, got %v", tc.reason, tc.wantErr, err)
			}
			if o.ResourceExists != tc.exists || o.ResourceUpToDate != tc.upToDate {
				t.Errorf("%s\nObserve(...): exists %t, up to date %t; want %t, %t", tc.reason, o.ResourceExists, o.ResourceUpToDate, tc.exists, tc.upToDate)
			}
			if tc.cr != nil && tc.wantAtPro.PullRequests == nil {
				return
			}
			if diff := cmp.Diff(tc.wantAtPro, cr.Status.AtProvider); diff != "" {
				t.Errorf("%s\nObserve(...) atProvider: -want, +got:\n%s", tc.reason, diff)
			}
			if tc.exists && cr.GetCondition(xpv2.TypeReady).Reason != xpv2.ReasonAvailable {
				t.Errorf("%s\nObserve(...): want Available", tc.reason)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	withComment := v1alpha1.PullRequestReport{Number: 1, SHA: sha1, State: v1alpha1.ReportSuccess, TargetURL: "https://pr-1.example.com", Description: "live", Comment: "Preview: https://pr-1.example.com"}
	statusOnly := v1alpha1.PullRequestReport{Number: 2, SHA: sha2, State: v1alpha1.ReportPending}
	open := []gitea.PullRequest{pr(1), {Number: 2, HeadSHA: sha2}}
	at := &metav1.Time{Time: now}
	cases := map[string]struct {
		reason       string
		m            *mock
		reported     []v1alpha1.Reported
		wantErr      string
		wantReported []v1alpha1.Reported
		wantComments map[int64]int64
	}{
		"Posted": {
			reason: "Both reports posted: a status each, a comment for the one that asks, by the token's login; each recorded.",
			m:      &mock{prs: open},
			wantReported: []v1alpha1.Reported{
				{Number: 1, Digest: Digest(withComment, DefaultStatusContext), CommentID: 101, At: at},
				{Number: 2, Digest: Digest(statusOnly, DefaultStatusContext), At: at},
			},
			wantComments: map[int64]int64{1: 0},
		},
		"CommentEdited": {
			reason:   "A report changed since posted: the comment recorded is passed on to be edited, not a new one made.",
			m:        &mock{prs: open},
			reported: []v1alpha1.Reported{{Number: 1, Digest: "old", CommentID: 55}, {Number: 2, Digest: Digest(statusOnly, DefaultStatusContext), At: at}},
			wantReported: []v1alpha1.Reported{
				{Number: 1, Digest: Digest(withComment, DefaultStatusContext), CommentID: 55, At: at},
				{Number: 2, Digest: Digest(statusOnly, DefaultStatusContext), At: at},
			},
			wantComments: map[int64]int64{1: 55},
		},
		"PartlyFailed": {
			reason:       "One status refused: the other is posted and recorded, the error names the pull request that failed. Its comment (written first) is not recorded: the next try writes it again, unchanged.",
			m:            &mock{prs: open, fail: map[int64]error{1: errors.New("refused")}},
			wantErr:      "cannot report on pull request #1: cannot set commit status \"devops/preview\" on " + sha1 + ": refused",
			wantReported: []v1alpha1.Reported{{Number: 2, Digest: Digest(statusOnly, DefaultStatusContext), At: at}},
			wantComments: map[int64]int64{1: 0},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := newCR(withComment, statusOnly)
			cr.Status.AtProvider.PullRequests = []v1alpha1.PullRequest{listedPR(1), {Number: 2, HeadSHA: sha2}}
			cr.Status.AtProvider.Reported = tc.reported
			_, err := newExternal(tc.m).Update(context.Background(), cr)
			if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("%s\nUpdate(...): want an error containing %q, got %v", tc.reason, tc.wantErr, err)
			}
			if diff := cmp.Diff(tc.wantReported, cr.Status.AtProvider.Reported); diff != "" {
				t.Errorf("%s\nUpdate(...) reported: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantComments, tc.m.comments); diff != "" {
				t.Errorf("%s\nUpdate(...) comment ids passed: -want, +got:\n%s", tc.reason, diff)
			}
			for _, a := range tc.m.authors {
				if a != "bot" {
					t.Errorf("%s\ncomment author %q, want the token's login", tc.reason, a)
				}
			}
			if s, ok := tc.m.statuses[sha2]; ok && (s.Context != DefaultStatusContext || s.State != gitea.StatePending) {
				t.Errorf("%s\nstatus posted %+v", tc.reason, s)
			}
		})
	}
}

func TestLoginCached(t *testing.T) {
	m := &mock{}
	l := &logins{m: map[loginKey]string{}}
	k := loginKey{url: "https://git.example.com"}
	for range 3 {
		if login, err := l.get(context.Background(), k, m); err != nil || login != "bot" {
			t.Fatalf("login %q, %v", login, err)
		}
	}
	if m.users != 1 {
		t.Errorf("the forge was asked the token's login %d times, want once", m.users)
	}
}

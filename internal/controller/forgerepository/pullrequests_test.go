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
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/freeleaps/provider-devops/apis/forge/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/gitea"
)

const (
	sha1 = "1111111111111111111111111111111111111111"
	sha2 = "2222222222222222222222222222222222222222"
)

func pr(n int64, labels ...string) gitea.PullRequest {
	return gitea.PullRequest{Number: n, Title: "PR", Author: "bob", HeadRef: "feature", HeadSHA: sha1, BaseRef: "main", Labels: labels}
}

func fork(n int64, author string) gitea.PullRequest {
	p := pr(n)
	p.Fork, p.Author, p.HeadOwner = true, author, author
	return p
}

func listedPR(n int64) v1alpha1.PullRequest {
	return v1alpha1.PullRequest{Number: n, Title: "PR", Author: "bob", HeadRef: "feature", HeadSHA: sha1, BaseRef: "main"}
}

func TestSelect(t *testing.T) {
	long := pr(1)
	long.Title = strings.Repeat("é", 300)
	clipped := listedPR(1)
	clipped.Title = strings.Repeat("é", 256)
	aliceFork := listedPR(4)
	aliceFork.Fork, aliceFork.Author = true, "Alice"
	cases := map[string]struct {
		reason      string
		prs         []gitea.PullRequest
		sel         v1alpha1.PullRequestSelector
		forks       bool
		wantListed  []v1alpha1.PullRequest
		wantSkipped []v1alpha1.SkippedPullRequest
	}{
		"None": {reason: "No open pull request: nothing listed or skipped."},
		"OldestFirst": {
			reason:     "Listed by number, oldest first, whatever order the forge answered in.",
			prs:        []gitea.PullRequest{pr(3), pr(1), pr(2)},
			wantListed: []v1alpha1.PullRequest{listedPR(1), listedPR(2), listedPR(3)},
		},
		"Labels": {
			reason:     "Every label of the selector must be on the pull request; one without them is neither listed nor skipped.",
			prs:        []gitea.PullRequest{pr(1, "preview"), pr(2, "preview", "other"), pr(3), pr(4, "other")},
			sel:        v1alpha1.PullRequestSelector{Labels: []string{"preview"}},
			wantListed: []v1alpha1.PullRequest{listedPR(1), listedPR(2)},
		},
		"DefaultMax": {
			reason:      "At most 5 when max is unset; the newer ones are skipped for Max.",
			prs:         []gitea.PullRequest{pr(1), pr(2), pr(3), pr(4), pr(5), pr(6), pr(7)},
			wantListed:  []v1alpha1.PullRequest{listedPR(1), listedPR(2), listedPR(3), listedPR(4), listedPR(5)},
			wantSkipped: []v1alpha1.SkippedPullRequest{{Number: 6, Reason: v1alpha1.SkippedMax}, {Number: 7, Reason: v1alpha1.SkippedMax}},
		},
		"MaxZero": {
			reason:      "max 0 lists none.",
			prs:         []gitea.PullRequest{pr(1)},
			sel:         v1alpha1.PullRequestSelector{Max: ptr.To[int32](0)},
			wantSkipped: []v1alpha1.SkippedPullRequest{{Number: 1, Reason: v1alpha1.SkippedMax}},
		},
		"ForkNotAuthorised": {
			reason:      "A fork's pull request whose author is not in forkAuthors is skipped for Fork and does not count towards max.",
			prs:         []gitea.PullRequest{fork(1, "mallory"), pr(2)},
			sel:         v1alpha1.PullRequestSelector{Max: ptr.To[int32](1), ForkAuthors: []string{"alice"}},
			forks:       true,
			wantListed:  []v1alpha1.PullRequest{listedPR(2)},
			wantSkipped: []v1alpha1.SkippedPullRequest{{Number: 1, Reason: v1alpha1.SkippedFork}},
		},
		"ForkAuthorised": {
			reason:     "An author in forkAuthors is listed, logins matched without regard to case.",
			prs:        []gitea.PullRequest{fork(4, "Alice")},
			sel:        v1alpha1.PullRequestSelector{ForkAuthors: []string{"alice"}},
			forks:      true,
			wantListed: []v1alpha1.PullRequest{aliceFork},
		},
		"ForkOfAnother": {
			reason:      "An author in forkAuthors who opens a pull request from another's fork is skipped: the fork's owner pushes its code.",
			prs:         []gitea.PullRequest{func() gitea.PullRequest { p := fork(4, "alice"); p.HeadOwner = "mallory"; return p }()},
			sel:         v1alpha1.PullRequestSelector{ForkAuthors: []string{"alice"}},
			forks:       true,
			wantSkipped: []v1alpha1.SkippedPullRequest{{Number: 4, Reason: v1alpha1.SkippedFork}},
		},
		"ForkGone": {
			reason:      "A fork's pull request whose fork is gone (no head owner) is skipped.",
			prs:         []gitea.PullRequest{func() gitea.PullRequest { p := fork(4, "alice"); p.HeadOwner = ""; return p }()},
			sel:         v1alpha1.PullRequestSelector{ForkAuthors: []string{"alice"}},
			forks:       true,
			wantSkipped: []v1alpha1.SkippedPullRequest{{Number: 4, Reason: v1alpha1.SkippedFork}},
		},
		"ForksNotAllowed": {
			reason:      "Where the tenancy allows no forks, not even a named author's fork is listed.",
			prs:         []gitea.PullRequest{fork(4, "alice")},
			sel:         v1alpha1.PullRequestSelector{ForkAuthors: []string{"alice"}},
			wantSkipped: []v1alpha1.SkippedPullRequest{{Number: 4, Reason: v1alpha1.SkippedFork}},
		},
		"TitleClipped": {
			reason:     "Titles keep 256 characters, not bytes, never a split character.",
			prs:        []gitea.PullRequest{long},
			wantListed: []v1alpha1.PullRequest{clipped},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			listed, skipped := Select(tc.prs, tc.sel, tc.forks)
			if diff := cmp.Diff(tc.wantListed, listed); diff != "" {
				t.Errorf("%s\nSelect(...) listed: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantSkipped, skipped); diff != "" {
				t.Errorf("%s\nSelect(...) skipped: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRecord(t *testing.T) {
	then := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	at := func(t time.Time) *metav1.Time { m := metav1.NewTime(t); return &m }
	old := v1alpha1.ForgeRepositoryObservation{
		PullRequests: []v1alpha1.PullRequest{listedPR(1), listedPR(2)},
		Reported:     []v1alpha1.Reported{{Number: 1, Digest: "a"}, {Number: 2, Digest: "b", CommentID: 7}},
		ObservedAt:   at(then),
	}
	cases := map[string]struct {
		reason  string
		listed  []v1alpha1.PullRequest
		skipped []v1alpha1.SkippedPullRequest
		now     time.Time
		want    v1alpha1.ForgeRepositoryObservation
	}{
		"Unchanged": {
			reason: "The same list a poll later changes nothing, observedAt included: no status write.",
			listed: []v1alpha1.PullRequest{listedPR(1), listedPR(2)}, now: then.Add(15 * time.Second),
			want: old,
		},
		"UnchangedLong": {
			reason: "The same list after ObservedAtRefresh: observedAt alone is refreshed.",
			listed: []v1alpha1.PullRequest{listedPR(1), listedPR(2)}, now: then.Add(ObservedAtRefresh),
			want: v1alpha1.ForgeRepositoryObservation{PullRequests: old.PullRequests, Reported: old.Reported, ObservedAt: at(then.Add(ObservedAtRefresh))},
		},
		"Closed": {
			reason: "Pull request 1 closed: listed no more, its report forgotten, observedAt set.",
			listed: []v1alpha1.PullRequest{listedPR(2)}, now: then.Add(15 * time.Second),
			want: v1alpha1.ForgeRepositoryObservation{PullRequests: []v1alpha1.PullRequest{listedPR(2)},
				Reported: []v1alpha1.Reported{{Number: 2, Digest: "b", CommentID: 7}}, ObservedAt: at(then.Add(15 * time.Second))},
		},
		"Skipped": {
			reason: "A pull request skipped (max lowered) is a change; its report is forgotten too.",
			listed: []v1alpha1.PullRequest{listedPR(1)}, skipped: []v1alpha1.SkippedPullRequest{{Number: 2, Reason: v1alpha1.SkippedMax}}, now: then.Add(time.Minute),
			want: v1alpha1.ForgeRepositoryObservation{PullRequests: []v1alpha1.PullRequest{listedPR(1)}, Skipped: []v1alpha1.SkippedPullRequest{{Number: 2, Reason: v1alpha1.SkippedMax}},
				Reported: []v1alpha1.Reported{{Number: 1, Digest: "a"}}, ObservedAt: at(then.Add(time.Minute))},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := *old.DeepCopy()
			Record(&o, tc.listed, tc.skipped, tc.now)
			if diff := cmp.Diff(tc.want, o); diff != "" {
				t.Errorf("%s\nRecord(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestPending(t *testing.T) {
	report := v1alpha1.PullRequestReport{Number: 1, SHA: sha1, State: v1alpha1.ReportSuccess, TargetURL: "https://pr-1.example.com", Comment: "Preview ready"}
	posted := Digest(report, DefaultStatusContext)
	changed := report
	changed.SHA = sha2
	closed := report
	closed.Number = 9
	obs := func(r ...v1alpha1.Reported) v1alpha1.ForgeRepositoryObservation {
		return v1alpha1.ForgeRepositoryObservation{PullRequests: []v1alpha1.PullRequest{listedPR(1)}, Reported: r}
	}
	pushed := func(r ...v1alpha1.Reported) v1alpha1.ForgeRepositoryObservation {
		o := obs(r...)
		o.PullRequests[0].HeadSHA = sha2
		return o
	}
	cases := map[string]struct {
		reason string
		p      v1alpha1.ForgeRepositoryParameters
		o      v1alpha1.ForgeRepositoryObservation
		want   []v1alpha1.PullRequestReport
	}{
		"NeverPosted":   {reason: "A report for a listed pull request never posted is pending.", p: v1alpha1.ForgeRepositoryParameters{Reports: []v1alpha1.PullRequestReport{report}}, o: obs(), want: []v1alpha1.PullRequestReport{report}},
		"Posted":        {reason: "Posted as it reads: up to date.", p: v1alpha1.ForgeRepositoryParameters{Reports: []v1alpha1.PullRequestReport{report}}, o: obs(v1alpha1.Reported{Number: 1, Digest: posted})},
		"Changed":       {reason: "A new head commit is posted again.", p: v1alpha1.ForgeRepositoryParameters{Reports: []v1alpha1.PullRequestReport{changed}}, o: pushed(v1alpha1.Reported{Number: 1, Digest: posted}), want: []v1alpha1.PullRequestReport{changed}},
		"NotTheHead":    {reason: "A report on a commit that is not the pull request's head (the base branch's, one a required check names) is never posted.", p: v1alpha1.ForgeRepositoryParameters{Reports: []v1alpha1.PullRequestReport{changed}}, o: obs()},
		"LastHead":      {reason: "A report on the last head after a push waits for the new head's.", p: v1alpha1.ForgeRepositoryParameters{Reports: []v1alpha1.PullRequestReport{report}}, o: pushed(v1alpha1.Reported{Number: 1, Digest: "x"})},
		"ContextChange": {reason: "The same report under another statusContext is another status: posted.", p: v1alpha1.ForgeRepositoryParameters{StatusContext: "ci/preview", Reports: []v1alpha1.PullRequestReport{report}}, o: obs(v1alpha1.Reported{Number: 1, Digest: posted}), want: []v1alpha1.PullRequestReport{report}},
		"NotListed":     {reason: "A report for a pull request not listed (closed, skipped) is never posted.", p: v1alpha1.ForgeRepositoryParameters{Reports: []v1alpha1.PullRequestReport{closed}}, o: obs()},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Pending(tc.p, tc.o)); diff != "" {
				t.Errorf("%s\nPending(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestDigest(t *testing.T) {
	base := v1alpha1.PullRequestReport{Number: 1, SHA: sha1, State: v1alpha1.ReportPending}
	same := base
	if Digest(base, "a") != Digest(same, "a") {
		t.Error("the same report and context must give the same digest")
	}
	for name, r := range map[string]v1alpha1.PullRequestReport{
		"State":       {Number: 1, SHA: sha1, State: v1alpha1.ReportSuccess},
		"Description": {Number: 1, SHA: sha1, State: v1alpha1.ReportPending, Description: "x"},
		"TargetURL":   {Number: 1, SHA: sha1, State: v1alpha1.ReportPending, TargetURL: "https://x"},
		"Comment":     {Number: 1, SHA: sha1, State: v1alpha1.ReportPending, Comment: "x"},
		"SHA":         {Number: 1, SHA: sha2, State: v1alpha1.ReportPending},
	} {
		if Digest(r, "a") == Digest(base, "a") {
			t.Errorf("a changed %s must change the digest", name)
		}
	}
	if Digest(base, "a") == Digest(base, "b") {
		t.Error("a changed status context must change the digest")
	}
}

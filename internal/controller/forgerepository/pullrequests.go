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
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/freeleaps/provider-devops/apis/forge/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/gitea"
)

const (
	// DefaultMax is how many pull requests are listed when
	// spec.forProvider.pullRequests.max is unset (the API's default).
	DefaultMax = 5
	// DefaultStatusContext is the API's default statusContext.
	DefaultStatusContext = "devops/preview"
	// ObservedAtRefresh is how old status.atProvider.observedAt may grow
	// while the list stays the same. It is set whenever the list changes,
	// and otherwise refreshed only this often: setting it on every 15 s
	// poll would make each poll a status write (and a watch event for
	// every reader) that says nothing new.
	ObservedAtRefresh = 10 * time.Minute
	// maxTitle is how many characters of a title status keeps.
	maxTitle = 256
)

// Select returns the open pull requests (any order) sel lists, oldest
// (lowest number) first, and those carrying sel's labels it does not, with
// why. A pull request from a fork is listed only when forks are allowed
// and both its author and the fork's owner are among sel's forkAuthors
// (forge logins, matched without regard to case as forges match them):
// Gitea lets anyone who may read a fork open a pull request from it, and
// the fork's owner, not the author, pushes its code. At most max are
// listed.
func Select(prs []gitea.PullRequest, sel v1alpha1.PullRequestSelector, forks bool) ([]v1alpha1.PullRequest, []v1alpha1.SkippedPullRequest) {
	max := DefaultMax
	if sel.Max != nil {
		max = int(*sel.Max)
	}
	sorted := slices.Clone(prs)
	slices.SortStableFunc(sorted, func(a, b gitea.PullRequest) int { return cmp.Compare(a.Number, b.Number) })
	var listed []v1alpha1.PullRequest
	var skipped []v1alpha1.SkippedPullRequest
	for _, pr := range sorted {
		switch {
		case !hasAll(pr.Labels, sel.Labels):
		case pr.Fork && (!forks || !hasFold(sel.ForkAuthors, pr.Author) || !hasFold(sel.ForkAuthors, pr.HeadOwner)):
			skipped = append(skipped, v1alpha1.SkippedPullRequest{Number: pr.Number, Reason: v1alpha1.SkippedFork})
		case len(listed) >= max:
			skipped = append(skipped, v1alpha1.SkippedPullRequest{Number: pr.Number, Reason: v1alpha1.SkippedMax})
		default:
			listed = append(listed, v1alpha1.PullRequest{Number: pr.Number, Title: clip(pr.Title, maxTitle), Author: pr.Author, URL: pr.URL,
				HeadRef: pr.HeadRef, HeadSHA: pr.HeadSHA, BaseRef: pr.BaseRef, Fork: pr.Fork})
		}
	}
	return listed, skipped
}

// hasAll is true when have holds every label of want. Label names are
// compared exactly, as forges keep them.
func hasAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

func hasFold(logins []string, login string) bool {
	return slices.ContainsFunc(logins, func(l string) bool { return strings.EqualFold(l, login) })
}

// clip keeps the first n characters of s, never splitting one.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// Record writes the listed and skipped pull requests to o when they
// changed, with observedAt (see ObservedAtRefresh), and forgets what was
// reported on pull requests no longer listed: their reports are not
// posted, and one listed again is reported afresh. An unchanged list
// leaves o as it was, so a poll that finds nothing new writes nothing.
func Record(o *v1alpha1.ForgeRepositoryObservation, listed []v1alpha1.PullRequest, skipped []v1alpha1.SkippedPullRequest, now time.Time) {
	changed := !equality.Semantic.DeepEqual(o.PullRequests, listed) || !equality.Semantic.DeepEqual(o.Skipped, skipped)
	if changed {
		o.PullRequests, o.Skipped = listed, skipped
	}
	if changed || o.ObservedAt == nil || now.Sub(o.ObservedAt.Time) >= ObservedAtRefresh {
		t := metav1.NewTime(now)
		o.ObservedAt = &t
	}
	if slices.ContainsFunc(o.Reported, func(r v1alpha1.Reported) bool { return !isListed(o.PullRequests, r.Number) }) {
		o.Reported = slices.DeleteFunc(o.Reported, func(r v1alpha1.Reported) bool { return !isListed(o.PullRequests, r.Number) })
	}
}

func isListed(prs []v1alpha1.PullRequest, n int64) bool {
	return slices.ContainsFunc(prs, func(p v1alpha1.PullRequest) bool { return p.Number == n })
}

// Digest names what posting r under context puts on the forge: the
// SHA-256 of their JSON (the struct's fields in a fixed order), so any
// change to the report or the context posts it again.
func Digest(r v1alpha1.PullRequestReport, context string) string {
	b, _ := json.Marshal(struct { //nolint:errchkjson // strings and an int64 always encode
		Report  v1alpha1.PullRequestReport `json:"report"`
		Context string                     `json:"context"`
	}{r, context})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// StatusContext is p's statusContext, or the default.
func StatusContext(p v1alpha1.ForgeRepositoryParameters) string {
	if p.StatusContext == "" {
		return DefaultStatusContext
	}
	return p.StatusContext
}

// Pending are the reports of p to post: those for listed pull requests,
// on their head, whose last posting (o.Reported) differs. Reports for
// pull requests not listed (closed, merged, unlabelled, skipped) are
// never posted, nor those for a commit that is not the pull request's
// head: a status on any other commit (the base branch's, one a required
// check names) is not a preview's to set, and a report for the last head
// waits for the one for the new head.
func Pending(p v1alpha1.ForgeRepositoryParameters, o v1alpha1.ForgeRepositoryObservation) []v1alpha1.PullRequestReport {
	var out []v1alpha1.PullRequestReport
	ctx := StatusContext(p)
	for _, r := range p.Reports {
		if !slices.ContainsFunc(o.PullRequests, func(l v1alpha1.PullRequest) bool { return l.Number == r.Number && l.HeadSHA == r.SHA }) {
			continue
		}
		if prev, ok := reported(o, r.Number); ok && prev.Digest == Digest(r, ctx) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// reported is what was last posted on pull request n.
func reported(o v1alpha1.ForgeRepositoryObservation, n int64) (v1alpha1.Reported, bool) {
	for _, r := range o.Reported {
		if r.Number == n {
			return r, true
		}
	}
	return v1alpha1.Reported{}, false
}

// setReported records r in o, replacing what was recorded for its number.
func setReported(o *v1alpha1.ForgeRepositoryObservation, r v1alpha1.Reported) {
	for i := range o.Reported {
		if o.Reported[i].Number == r.Number {
			o.Reported[i] = r
			return
		}
	}
	o.Reported = append(o.Reported, r)
	slices.SortFunc(o.Reported, func(a, b v1alpha1.Reported) int { return cmp.Compare(a.Number, b.Number) })
}

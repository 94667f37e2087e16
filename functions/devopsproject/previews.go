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

package main

import (
	"cmp"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/resource"

	forgev1alpha1 "github.com/freeleaps/provider-devops/apis/forge/v1alpha1"
	devopsv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/pbcodec"
)

// Kinds the function composes for previews.
const (
	KindForgeRepo = "ForgeRepository"
	KindDeployRun = "DeployRun"
)

// nameForgeRepo is the composition-resource name of the project's
// ForgeRepository.
const nameForgeRepo = resource.Name("forge-repository")

// Defaults of spec.previews.pullRequests.
const (
	defaultPreviewMax  = 3
	maxPreviews        = 20
	defaultPreviewPath = "deploy/preview"
	previewPrefix      = "pr-"
	// maxPreviewNumber is the highest pull request number previewed. The
	// template is validated as pr-<maxPreviewNumber>, the longest name a
	// preview has, so that a pull request's number growing by a digit
	// never makes a name (the default destination namespace, the host)
	// too long, which would fail the whole project. Higher ones are not
	// previewed.
	maxPreviewNumber = 999999
)

// PreviewsSpec is spec.previews: environments the project makes by
// itself.
type PreviewsSpec struct {
	PullRequests *PullRequestPreviews `json:"pullRequests,omitempty"`
}

// PullRequestPreviews make an environment pr-<number> for each open pull
// request of Repository that carries Labels, at most Max, from Template.
type PullRequestPreviews struct {
	// Repository is <owner>/<name> on the forge of the project's config
	// (spec.forge of its ProviderConfig or ClusterProviderConfig).
	Repository  string          `json:"repository"`
	Labels      []string        `json:"labels,omitempty"`
	ForkAuthors []string        `json:"forkAuthors,omitempty"`
	Max         *int            `json:"max,omitempty"`
	Template    PreviewTemplate `json:"template"`
}

// PreviewTemplate is what every preview environment is made of. Domain is
// the parent of the previews' hosts: pr-<number>.<domain>.
type PreviewTemplate struct {
	Domain         string               `json:"domain"`
	Path           string               `json:"path,omitempty"`
	Cluster        string               `json:"cluster,omitempty"`
	TTL            string               `json:"ttl,omitempty"`
	Retain         []string             `json:"retain,omitempty"`
	DeletionPolicy string               `json:"deletionPolicy,omitempty"`
	SourceType     string               `json:"sourceType,omitempty"`
	Ingress        *IngressSpec         `json:"ingress,omitempty"`
	Pipeline       *EnvironmentPipeline `json:"pipeline,omitempty"`
}

// preview is the pull request an environment previews.
type preview struct {
	number           int64
	headRef, headSHA string
	url, author      string
	fork             bool
	// closedAt is when the pull request was first seen no longer listed
	// (closed, merged, unlabelled); zero while it is.
	closedAt time.Time
	// reopened is true for a listed pull request whose environment was
	// closed before: its old expiry does not apply.
	reopened bool
	// unlisted is true for an open preview kept from status while the
	// forge's list is not known: its resources stay, but no new head of
	// it is deployed (status is not the forge's word).
	unlisted bool
}

// PullRequestStatus is the pull request an environment of
// status.environments previews.
type PullRequestStatus struct {
	Number  int64  `json:"number"`
	URL     string `json:"url,omitempty"`
	HeadRef string `json:"headRef,omitempty"`
	HeadSHA string `json:"headSHA,omitempty"`
	Author  string `json:"author,omitempty"`
	// Fork is true for a pull request from a fork: its job builds
	// refs/pull/<number>/head, not HeadRef (the fork's branch), also
	// while the forge's list is not known.
	Fork     bool   `json:"fork,omitempty"`
	ClosedAt string `json:"closedAt,omitempty"`
}

var (
	forgeRepoPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}/[A-Za-z0-9_.-]{1,100}$`)
	previewName      = regexp.MustCompile(`^pr-[0-9]+$`)
	shaPattern       = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)
)

const previewsPath = "spec.previews.pullRequests"

// sameRepository is true when the git URL (https, ssh:// or scp-like
// user@host:path) names repository <owner>/<name>: its path, less .git,
// is it or ends in /<owner>/<name> (a forge served under a sub-path),
// without regard to case, as forges name repositories.
func sameRepository(gitURL, repository string) bool {
	p := gitURL
	if u, err := url.Parse(gitURL); err == nil && u.Scheme != "" && u.Host != "" {
		p = u.Path
	} else if _, rest, ok := strings.Cut(gitURL, ":"); ok {
		p = rest
	}
	p = strings.ToLower(strings.TrimSuffix(strings.Trim(p, "/"), ".git"))
	r := strings.ToLower(repository)
	return p == r || strings.HasSuffix(p, "/"+r)
}

// max is how many previews the project may hold.
func (pr *PullRequestPreviews) max() int {
	if pr.Max == nil {
		return defaultPreviewMax
	}
	return *pr.Max
}

// environment is the preview of pull request n, from the template.
func (pr *PullRequestPreviews) environment(n int64) Environment {
	t := pr.Template
	name := previewPrefix + strconv.FormatInt(n, 10)
	path := t.Path
	if path == "" {
		path = defaultPreviewPath
	}
	policy := t.DeletionPolicy
	if policy == "" {
		// A preview is the pull request's: gone with it.
		policy = PolicyDelete
	}
	return Environment{
		Name: name, Domain: name + "." + strings.TrimSuffix(t.Domain, "."), Path: path, Cluster: t.Cluster,
		TTL: t.TTL, Retain: t.Retain, DeletionPolicy: policy, SourceType: t.SourceType,
		Ingress: t.Ingress, Pipeline: t.Pipeline,
	}
}

// validatePreviews checks spec.previews: the repository, the bounds, and
// the template as an environment (pr-1) of the project.
func (s *ProjectSpec) validatePreviews(zone string) error {
	pr := s.Previews.PullRequests
	if pr == nil {
		return nil
	}
	if !forgeRepoPattern.MatchString(pr.Repository) || strings.HasSuffix(pr.Repository, ".git") {
		return fieldErr(previewsPath+".repository", "%q must be <owner>/<name> on the forge, without .git", pr.Repository)
	}
	if !sameRepository(s.Git.URL, pr.Repository) {
		return fieldErr(previewsPath+".repository", "%q is not the repository spec.git.url names: a preview's job builds, and its application tracks, the pull request's branch in spec.git.url's repository", pr.Repository)
	}
	if m := pr.max(); m < 0 || m > maxPreviews {
		return fieldErr(previewsPath+".max", "%d must be between 0 and %d", m, maxPreviews)
	}
	for i, e := range s.Environments {
		if previewName.MatchString(e.Name) {
			return fieldErr(fmt.Sprintf("spec.environments[%d].name", i), "%q is a preview's name (pr-<number>): name it otherwise, or drop spec.previews.pullRequests", e.Name)
		}
	}
	if len(s.Environments)+pr.max() > 64 {
		return fieldErr(previewsPath+".max", "%d previews and %d environments pass the 64 environments a project may hold", pr.max(), len(s.Environments))
	}
	err := s.validateEnvironment(previewsPath+".template", pr.environment(maxPreviewNumber), zone)
	if fe, ok := err.(fieldError); ok { //nolint:errorlint // validateEnvironment returns fieldError values
		// pr-1.<domain>: name the template's field.
		fe.path = strings.Replace(fe.path, ".template.domain", ".template.domain (with pr-<number>. in front)", 1)
		return fe
	}
	return err
}

// addPreviews adds an environment per pull request the project's
// ForgeRepository lists, and keeps those of pull requests no longer
// listed, closed, until they expired. A preview closed and gone (its
// resources deleted, or never made) is dropped.
func (rs *requestState) addPreviews(now time.Time) {
	pr := rs.project.spec.Previews.PullRequests
	if pr == nil {
		return
	}
	prev := map[string]*EnvStatus{}
	for i := range rs.prev {
		if rs.prev[i].PullRequest != nil && previewName.MatchString(rs.prev[i].Name) {
			prev[rs.prev[i].Name] = &rs.prev[i]
		}
	}
	listed, known := rs.listedPullRequests()
	seen := rs.openPreviews(pr, listed, prev)
	// Those the last run had that are not listed now: closed (or, while
	// the forge's list is not known, kept as they were, at most max open
	// ones in all: status is the tenant's to edit). In number order,
	// whatever the map's.
	kept := make([]*EnvStatus, 0, len(prev))
	for _, st := range prev {
		if !seen[st.Name] {
			kept = append(kept, st)
		}
	}
	slices.SortFunc(kept, func(a, b *EnvStatus) int { return cmp.Compare(a.PullRequest.Number, b.PullRequest.Number) })
	open := len(seen)
	for _, st := range kept {
		e, ok := rs.closedPreview(pr, st, known, now)
		if !ok {
			continue
		}
		if e.preview.closedAt.IsZero() {
			if open >= pr.max() {
				continue
			}
			open++
		}
		rs.project.spec.Environments = append(rs.project.spec.Environments, e)
	}
	// In status order, whatever the map's.
	slices.SortStableFunc(rs.project.spec.Environments, func(a, b Environment) int {
		return cmpPreview(a.preview, b.preview)
	})
}

// openPreviews adds the environments of the listed pull requests, at most
// max, and returns their names.
func (rs *requestState) openPreviews(pr *PullRequestPreviews, listed []forgev1alpha1.PullRequest, prev map[string]*EnvStatus) map[string]bool {
	seen := map[string]bool{}
	for _, l := range listed {
		if len(seen) == pr.max() {
			break
		}
		e := pr.environment(l.Number)
		if seen[e.Name] {
			continue
		}
		seen[e.Name] = true
		e.preview = &preview{number: l.Number, headRef: l.HeadRef, headSHA: l.HeadSHA, url: l.URL, author: l.Author, fork: l.Fork}
		if st := prev[e.Name]; st != nil && st.PullRequest.ClosedAt != "" {
			e.preview.reopened = true
		}
		rs.project.spec.Environments = append(rs.project.spec.Environments, e)
	}
	return seen
}

// closedPreview is the environment of a preview whose pull request is no
// longer listed: closed when it was first seen so (now, if the list is
// known), until it expired and its resources are gone.
func (rs *requestState) closedPreview(pr *PullRequestPreviews, st *EnvStatus, known bool, now time.Time) (Environment, bool) {
	closed := st.PullRequest.ClosedAt != ""
	if closed && (st.Phase == PhaseExpired || !rs.previewExists(st.Name)) {
		return Environment{}, false
	}
	if st.PullRequest.Number > maxPreviewNumber {
		return Environment{}, false
	}
	e := pr.environment(st.PullRequest.Number)
	if e.Name != st.Name {
		return Environment{}, false
	}
	// status.environments[].pullRequest is what the last run wrote, or
	// what whoever may write the project's status wrote: keep only what a
	// listed pull request could have been.
	if !shaPattern.MatchString(st.PullRequest.HeadSHA) || !validHeadRef(st.PullRequest.HeadRef) {
		return Environment{}, false
	}
	e.preview = &preview{number: st.PullRequest.Number, headRef: st.PullRequest.HeadRef, headSHA: st.PullRequest.HeadSHA, url: st.PullRequest.URL, author: st.PullRequest.Author, fork: st.PullRequest.Fork}
	if t, err := time.Parse(time.RFC3339, st.PullRequest.ClosedAt); err == nil {
		e.preview.closedAt = t
	} else if known {
		e.preview.closedAt = now.UTC().Truncate(time.Second)
	} else {
		if !rs.previewExists(st.Name) {
			// Kept as it was: nothing to keep.
			return Environment{}, false
		}
		e.preview.unlisted = true
	}
	return e, true
}

// cmpPreview orders spec.environments first, then previews by number.
func cmpPreview(a, b *preview) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	default:
		return int(a.number - b.number)
	}
}

// listedPullRequests are the pull requests the project's ForgeRepository
// lists; known is false until it has listed them once (observed Ready):
// until then no preview is closed for not being listed.
func (rs *requestState) listedPullRequests() (listed []forgev1alpha1.PullRequest, known bool) {
	o, ok := rs.observed[nameForgeRepo]
	if !ok {
		return nil, false
	}
	for _, v := range pbAt(o, "status", "atProvider", "pullRequests").GetListValue().GetValues() {
		var l forgev1alpha1.PullRequest
		if pbcodec.Decode(v, &l) != nil || l.Number <= 0 || l.Number > maxPreviewNumber || !shaPattern.MatchString(l.HeadSHA) || !validHeadRef(l.HeadRef) {
			continue
		}
		listed = append(listed, l)
	}
	return listed, rs.ready[nameForgeRepo]
}

// validHeadRef is true for a branch name a job and an application may be
// pointed at: what a DeployRun's revision allows (its schema's pattern
// starts with a letter, digit or '_').
func validHeadRef(ref string) bool {
	return devopsv1alpha1.IsRevision(ref) && !strings.HasPrefix(ref, "/")
}

// previewExists is true when one of the environment's resources is
// observed.
func (rs *requestState) previewExists(env string) bool {
	for _, n := range []resource.Name{namePipeline(env), nameApp(env), nameDNS(env)} {
		if _, ok := rs.observed[n]; ok {
			return true
		}
	}
	return false
}

// branchOf is the branch an environment's job builds and its application
// tracks: the pull request's head for a preview (a fork's as the
// repository serves it, refs/pull/<number>/head), else spec.git's.
func (p *project) branchOf(e Environment) string {
	switch {
	case e.preview == nil:
		return branch(p.spec.Git)
	case e.preview.fork:
		return "refs/pull/" + strconv.FormatInt(e.preview.number, 10) + "/head"
	default:
		return e.preview.headRef
	}
}

// previewExpiry moves a closed preview's expiry to when it was closed.
func previewExpiry(e Environment, x expiry) expiry {
	if e.preview == nil || e.preview.closedAt.IsZero() {
		return x
	}
	if x.at.IsZero() || e.preview.closedAt.Before(x.at) {
		x.at, x.warnAt = e.preview.closedAt, e.preview.closedAt
		x.ttlFrom = ttlFromClosed
	}
	return x
}

// ttlFromClosed says an expiry came from the pull request's closing.
const ttlFromClosed = "pullRequestClosed"

// previewStatus is what status.environments[] says of the pull request.
func previewStatus(e Environment) *PullRequestStatus {
	if e.preview == nil {
		return nil
	}
	st := &PullRequestStatus{Number: e.preview.number, URL: e.preview.url, HeadRef: e.preview.headRef, HeadSHA: e.preview.headSHA, Author: e.preview.author, Fork: e.preview.fork}
	if !e.preview.closedAt.IsZero() {
		st.ClosedAt = e.preview.closedAt.Format(time.RFC3339)
	}
	return st
}

// nameDeployRun is the composition-resource name of the deployment of a
// preview's head: a new head is a new DeployRun (and the last one is
// deleted).
func nameDeployRun(env, sha string) resource.Name {
	return resource.Name(env + "-deploy-" + sha[:12])
}

// forge adds the project's ForgeRepository, with a report for each open
// preview, and each open preview's DeployRun of its head once its job is
// Ready and its application made.
func (c *composer) forge(pl plan) error {
	pr := c.p.spec.Previews.PullRequests
	if pr == nil {
		return nil
	}
	var reports []forgev1alpha1.PullRequestReport
	for _, ep := range pl.envs {
		e := ep.env
		if e.preview == nil || !e.preview.closedAt.IsZero() || ep.phase == PhaseExpired || ep.phase == PhaseExpiring {
			continue
		}
		name := nameDeployRun(e.Name, e.preview.headSHA)
		_, appMade := c.observed[nameApp(e.Name)]
		if c.exists(name) || (!e.preview.unlisted && c.ready[namePipeline(e.Name)] && appMade) {
			if err := c.addDeployRun(name, e); err != nil {
				return err
			}
		}
		reports = append(reports, c.previewReport(ep, name))
	}
	max := int32(pr.max()) //nolint:gosec // validated: at most maxPreviews
	r := &forgev1alpha1.ForgeRepository{
		TypeMeta:   metav1.TypeMeta{APIVersion: forgev1alpha1.SchemeGroupVersion.String(), Kind: KindForgeRepo},
		ObjectMeta: c.p.meta("", nil),
		Spec: forgev1alpha1.ForgeRepositorySpec{ManagedResourceSpec: c.p.managed(false), ForProvider: forgev1alpha1.ForgeRepositoryParameters{
			Repository: pr.Repository,
			PullRequests: forgev1alpha1.PullRequestSelector{
				Labels: pr.Labels, ForkAuthors: pr.ForkAuthors, Max: &max,
			},
			Reports: reports,
		}},
	}
	return c.add(nameForgeRepo, r)
}

// addDeployRun composes the deployment of a preview's head. It is Ready
// whatever its outcome: the commit status on the pull request and the
// environment's status say how it went.
func (c *composer) addDeployRun(name resource.Name, e Environment) error {
	d := &devopsv1alpha1.DeployRun{
		TypeMeta:   metav1.TypeMeta{APIVersion: devopsv1alpha1.SchemeGroupVersion.String(), Kind: KindDeployRun},
		ObjectMeta: c.p.meta(e.Name, nil),
		Spec: devopsv1alpha1.DeployRunSpec{
			Project: c.p.name, Environment: e.Name, Revision: e.preview.headSHA,
			// No requestID: events name the deployment <namespace>/<name>,
			// which no other namespace's can be. A requestID is global (the
			// legacy heartbeats carry no namespace), and another namespace
			// previewing the same repository (a public one, through its own
			// ProviderConfig) would have the same one.
			RequestedBy: "forge:" + c.p.spec.Previews.PullRequests.Repository + "/pulls/" + strconv.FormatInt(e.preview.number, 10),
		},
	}
	if err := c.add(name, d); err != nil {
		return err
	}
	c.desired[name].Ready = fnv1.Ready_READY_TRUE
	return nil
}

// previewReport is the commit status and comment of a preview's head: its
// DeployRun's outcome.
func (c *composer) previewReport(ep envPlan, run resource.Name) forgev1alpha1.PullRequestReport {
	e := ep.env
	sha := e.preview.headSHA
	r := forgev1alpha1.PullRequestReport{Number: e.preview.number, SHA: sha, State: forgev1alpha1.ReportPending}
	url := c.p.url(e)
	// What the DeployRun says goes no further than its phases and its
	// name: its message may hold backend detail (a sync's errors, a
	// cluster's names) that the forge's readers, the world for a public
	// repository, need not see. The team reads it in the DeployRun.
	phase, failedIn, runName, buildURL := "", "", "", ""
	if o, ok := c.observed[run]; ok {
		st := pbAt(o, "status").GetStructValue()
		phase, failedIn = pbAt(st, "phase").GetStringValue(), pbAt(st, "failedPhase").GetStringValue()
		runName = pbAt(o, "metadata", "name").GetStringValue()
		buildURL = pbAt(st, "build", "url").GetStringValue()
	}
	short := sha[:7]
	switch devopsv1alpha1.DeployPhase(phase) {
	case devopsv1alpha1.DeploySucceeded:
		r.State, r.TargetURL = forgev1alpha1.ReportSuccess, url
		r.Description = clipLine("Preview of "+short+" is live at "+url, 255)
	case devopsv1alpha1.DeployFailed:
		r.State = forgev1alpha1.ReportFailure
		r.TargetURL = httpURL(buildURL)
		r.Description = clipLine("Preview of "+short+" failed"+while(failedIn), 255)
	case "":
		r.Description = "Preview of " + short + ": waiting for its environment"
	default:
		r.TargetURL = httpURL(buildURL)
		r.Description = "Preview of " + short + ": " + strings.ToLower(phase)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**Preview** `%s` of DevOpsProject %s/%s\n\n", e.Name, c.p.tenant, c.p.name)
	switch r.State {
	case forgev1alpha1.ReportSuccess:
		fmt.Fprintf(&b, "Live at %s (commit `%s`).", url, short)
	case forgev1alpha1.ReportFailure:
		fmt.Fprintf(&b, "Commit `%s` could not be deployed%s: DeployRun `%s` in namespace `%s` says why.", short, while(failedIn), clipLine(runName, 253), c.p.tenant)
	default:
		fmt.Fprintf(&b, "Deploying commit `%s` to %s.", short, url)
	}
	if !ep.expiry.at.IsZero() {
		fmt.Fprintf(&b, "\n\nExpires at %s, or when this pull request is closed.", ep.expiry.at.Format(time.RFC3339))
	} else {
		b.WriteString("\n\nRemoved when this pull request is closed.")
	}
	r.Comment = b.String()
	return r
}

// while is " while <phase>" for a phase a deployment failed in, "" for
// none or one unknown.
func while(phase string) string {
	switch devopsv1alpha1.DeployPhase(phase) {
	case devopsv1alpha1.DeployPending, devopsv1alpha1.DeployBuilding, devopsv1alpha1.DeployDeploying, devopsv1alpha1.DeployVerifying:
		return " while " + strings.ToLower(phase)
	default:
		return ""
	}
}

// httpURL is u when it is an http(s) URL, else "".
func httpURL(u string) string {
	if (strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://")) && len(u) <= 2048 && !strings.ContainsAny(u, " \t\r\n") {
		return u
	}
	return ""
}

// clipLine is s on one line, at most n bytes (on a rune boundary).
func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// skippedPullRequests are the open pull requests carrying the labels that
// the ForgeRepository does not list, as "#<n> (<reason>)".
func (rs *requestState) skippedPullRequests() []string {
	o, ok := rs.observed[nameForgeRepo]
	if !ok {
		return nil
	}
	var out []string
	for _, v := range pbAt(o, "status", "atProvider", "skipped").GetListValue().GetValues() {
		m := v.GetStructValue()
		n := int64(pbAt(m, "number").GetNumberValue())
		if n <= 0 {
			continue
		}
		out = append(out, fmt.Sprintf("#%d (%s)", n, clipLine(pbAt(m, "reason").GetStringValue(), 32)))
	}
	slices.Sort(out)
	return out
}

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

// Package jenkins is an in-process fake of a Jenkins controller, faithful to
// the parts of the remote API the provider uses, as Jenkins 2.479 answers
// them (read from its source and checked with an independent client,
// python-jenkins, by contract_test.go):
//
//   - GET / (an HTML page) and every answer carry X-Jenkins; /api/json,
//     /me/api/json, /user/NAME/api/json and /queue/api/json describe the
//     controller, the user and the queue.
//   - HTTP basic auth with an API token (no crumb needed) or a password
//     (POSTs then need the crumb from /crumbIssuer/api/json and its session
//     cookie, else 403); 401 for a bad token, 403 for anonymous requests.
//   - Nested folders addressed as /job/a/job/b. createItem with a config.xml
//     body makes the item its root element names (<flow-definition> a
//     Pipeline, <project> a freestyle job, a Folder element a folder,
//     another root a 500), or with a form's mode=CLASS an empty item and a
//     302 to its configure page; 400 with X-Error (no Content-Type, no or
//     an unsafe name, a duplicate), 404 when the parent folder is missing.
//   - config.xml GET (stored the way Jenkins saves it: XML 1.1, plugin
//     versions) and POST (500 for malformed XML or another item type).
//   - doDelete, enable and disable answer 302 to an HTML page (the parent,
//     the job); a disabled job is not buildable, its color "disabled".
//   - build and buildWithParameters answer 201 with Location
//     .../queue/item/N/; Jenkins keeps one queue item per job and
//     parameters, so buildWithParameters with the same parameters answers
//     303 to it; 409 for a disabled job, 400 for build on a parameterized
//     job without a form, 500 for buildWithParameters without parameters.
//   - Queue items wait in the quiet period (Queue$WaitingItem, 5s, or the
//     request's delay: "0sec", "3secs", a number of milliseconds), then
//     for an executor (Queue$BuildableItem) until the test starts them
//     (Queue$LeftItem with executable); a request merged into a queued
//     item pulls a later end of its quiet period in. POST /queue/cancelItem?id=N cancels
//     a waiting item (204; it stays readable as a cancelled LeftItem), 404
//     for an id the queue does not hold, 500 for an item that already left.
//     Builds have api/json (description, queueId), consoleText and
//     permalinks (lastBuild, lastSuccessfulBuild...); POST stop aborts a
//     running build and does nothing to a finished one, POST
//     submitDescription sets the description, both answering 302 to the
//     build.
//   - The credentials plugins' stores (credentials.go).
//   - api/json is written as Stapler exports beans: ?depth= with each
//     property's visibility (nested runs are {number, url} at depth 0),
//     ?tree= with nesting, * and {M,N} ranges, _class where Jenkins writes
//     it.
//
// Tests drive the queue and builds (RunQueue, Log, Finish, SetDescription,
// ForgetLeftItems), change jobs behind the client's back, make the server
// fail on command and count requests.
package jenkins

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/freeleaps/provider-devops/internal/testing/httpfail"
)

// Version is what the fake reports in X-Jenkins.
const Version = "2.479.3"

// Item classes the fake knows, with the root element XStream writes for
// them in config.xml.
const (
	folderClass    = "com.cloudbees.hudson.plugins.folder.Folder"
	workflowClass  = "org.jenkinsci.plugins.workflow.job.WorkflowJob"
	freestyleClass = "hudson.model.FreeStyleProject"
)

// classOfRoot maps a config.xml root element to the item's class: XStream
// accepts a class's alias and its full name.
var classOfRoot = map[string]string{
	"flow-definition": workflowClass,
	workflowClass:     workflowClass,
	"project":         freestyleClass,
	freestyleClass:    freestyleClass,
	folderClass:       folderClass,
}

// emptyConfig is what Jenkins saves for an item created with mode=CLASS.
var emptyConfig = map[string]string{
	workflowClass: `<?xml version='1.1' encoding='UTF-8'?>
<flow-definition plugin="workflow-job@1436.vfa_244484591f">
  <actions/>
  <keepDependencies>false</keepDependencies>
  <properties/>
  <triggers/>
  <disabled>false</disabled>
</flow-definition>`,
	freestyleClass: `<?xml version='1.1' encoding='UTF-8'?>
<project>
  <actions/>
  <keepDependencies>false</keepDependencies>
  <properties/>
  <scm class="hudson.scm.NullSCM"/>
  <canRoam>true</canRoam>
  <disabled>false</disabled>
  <blockBuildWhenDownstreamBuilding>false</blockBuildWhenDownstreamBuilding>
  <blockBuildWhenUpstreamBuilding>false</blockBuildWhenUpstreamBuilding>
  <triggers/>
  <concurrentBuild>false</concurrentBuild>
  <builders/>
  <publishers/>
  <buildWrappers/>
</project>`,
	folderClass: `<?xml version='1.1' encoding='UTF-8'?>
<com.cloudbees.hudson.plugins.folder.Folder plugin="cloudbees-folder@6.955.v81e2a_35c08d3">
  <actions/>
  <properties/>
  <folderViews class="com.cloudbees.hudson.plugins.folder.views.DefaultFolderViewHolder">
    <views>
      <hudson.model.AllView>
        <owner class="com.cloudbees.hudson.plugins.folder.Folder" reference="../../../.."/>
        <name>All</name>
        <filterExecutors>false</filterExecutors>
        <filterQueue>false</filterQueue>
        <properties class="hudson.model.View$PropertyList"/>
      </hudson.model.AllView>
    </views>
    <tabBar class="hudson.views.DefaultViewsTabBar"/>
  </folderViews>
  <healthMetrics/>
  <icon class="com.cloudbees.hudson.plugins.folder.icons.StockFolderIcon"/>
</com.cloudbees.hudson.plugins.folder.Folder>`,
}

// quietPeriod is Jenkins' default: a queued build waits this long before
// it may start, unless the request says otherwise (delay).
const quietPeriod = 5 * time.Second

// delayOf is the quiet period a build request asks for: its delay
// parameter as Jenkins' TimeDuration reads it ("3sec", "3secs", or a
// number of milliseconds) and its build scheduling uses it (whole
// seconds), else the default.
func delayOf(form url.Values) time.Duration {
	v := strings.TrimSpace(form.Get("delay"))
	if v == "" {
		return quietPeriod
	}
	unit := time.Millisecond
	if i := strings.LastIndex(v, "sec"); i >= 0 && (strings.HasSuffix(v, "sec") || strings.HasSuffix(v, "secs")) {
		v, unit = strings.TrimSpace(v[:i]), time.Second
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return quietPeriod
	}
	// The quiet period is whole seconds (TimeDuration.getTimeInSeconds).
	return (time.Duration(n) * unit).Truncate(time.Second)
}

// Server is a running fake Jenkins.
type Server struct {
	*httptest.Server
	// Injector makes requests fail on command (FailNext, PendingFailures,
	// LastFailureAt).
	httpfail.Injector
	user, token, password string

	mu       sync.Mutex
	items    map[string]*item // full path -> item
	system   credentialStore  // Jenkins' global credential store
	queue    map[int]*queueItem
	nextQ    int
	sessions map[string]string // session id -> crumb
	counts   map[string]int
	requests []string
	times    []time.Time
	// lose is the answer-losing fault for the next build request: "" none,
	// "after" (queued, connection closed unanswered), "before" (closed
	// unanswered, nothing queued).
	lose string
	// created and deleted count the items made by createItem and removed
	// by doDelete, by full path; refused the createItem requests for a
	// job that existed.
	created, deleted, refused map[string]int
	// hold is armed by HoldNextCreate: the next item created keeps its
	// answer until ReleaseHeld. held names that item; holding is the
	// request whose answer waits.
	hold    bool
	held    string
	release chan struct{}
	holding *http.Request
}

// HoldNextCreate makes the next createItem of a job (not a folder) that
// succeeds keep its answer: the job exists, but the client hears nothing
// until ReleaseHeld (or it goes away). One create is held at a time. A client killed meanwhile has created an object it never
// recorded, as a crash between a create and the write that records it.
func (s *Server) HoldNextCreate() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hold = true
}

// Held is the item whose create answer is held, or "".
func (s *Server) Held() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}

// ReleaseHeld answers the held create, if its client is still there.
func (s *Server) ReleaseHeld() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.release != nil {
		close(s.release)
		s.release = nil
	}
	s.hold, s.held = false, ""
}

// Close answers a held create, then stops the server (which waits for the
// requests in flight).
func (s *Server) Close() {
	s.ReleaseHeld()
	s.Server.Close()
}

// Created counts the items createItem made, by full path.
func (s *Server) Created() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.created)
}

// Refused counts the createItem requests refused because the job existed,
// by full path: a client that creates what it should have found.
func (s *Server) Refused() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.refused)
}

// Deleted counts the items doDelete removed, by full path.
func (s *Server) Deleted() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.deleted)
}

// LoseNextBuildAnswer makes the next build request's connection close
// without an answer, after Jenkins queued the build and an executor started
// it (queued) or before anything (not): what a timeout or a reset looks
// like to the client. A started build is one Jenkins can no longer merge a
// repeated request into.
func (s *Server) LoseNextBuildAnswer(queued bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lose = "before"
	if queued {
		s.lose = "after"
	}
}

type item struct {
	class     string          // the Java class, from the config's root element
	creds     credentialStore // a folder's credential store
	config    string
	builds    []*Build // oldest first
	nextBuild int
}

func (it *item) folder() bool { return it.class == folderClass }

// disabled reads <disabled> from the config: Jenkins keeps the flag there,
// so a config.xml POST may change it too.
func (it *item) disabled() bool {
	v, _ := topText(it.config, "disabled")
	return !it.folder() && strings.TrimSpace(v) == "true"
}

type queueItem struct {
	id   int
	job  string
	sent url.Values // the request's parameters, as Build.Params
	// values is the ParametersAction, every parameter with the defaults
	// filled in; nil for a job without parameters (no ParametersAction).
	values []paramValue
	since  time.Time
	// due is when its quiet period ends: since plus the request's delay,
	// else the quiet period's default.
	due       time.Time
	build     *Build
	cancelled bool
}

// waiting is true until the item leaves the queue.
func (q *queueItem) waiting() bool { return q.build == nil && !q.cancelled }

// buildable is true for a waiting item past its quiet period.
func (q *queueItem) buildable(now time.Time) bool { return q.waiting() && !now.Before(q.due) }

type paramValue struct {
	def   paramDef
	value any
}

// Build is one run of a job.
type Build struct {
	Number    int
	Result    string // empty while building
	Building  bool
	Timestamp time.Time
	// Params are the parameters the build request sent (Jenkins applies
	// the defaults to the others).
	Params url.Values
	// Description is nil until set (api/json writes null).
	Description *string

	queueID  int
	values   []paramValue
	finished time.Time
	console  string
}

// New starts a fake with one user who authenticates with token.
func New(user, token string) *Server {
	s := &Server{user: user, token: token, items: map[string]*item{}, queue: map[int]*queueItem{}, nextQ: 1, sessions: map[string]string{}, counts: map[string]int{}, created: map[string]int{}, deleted: map[string]int{}, refused: map[string]int{}}
	// Started after s.Server is set: the handler reads s.URL.
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.Start()
	return s
}

// SetPassword lets the user also log in with a password; like Jenkins, such
// sessions must send a crumb with every POST.
func (s *Server) SetPassword(pw string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.password = pw
}

// Count returns how many authenticated requests used method.
func (s *Server) Count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[method]
}

// Requests returns "METHOD path" of every authenticated request so far.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// RequestsBetween returns "METHOD path" of the requests that arrived in
// [from, to).
func (s *Server) RequestsBetween(from, to time.Time) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for i, at := range s.times {
		if !at.Before(from) && at.Before(to) {
			out = append(out, s.requests[i])
		}
	}
	return out
}

// ResetCounts zeroes the counters and the request log.
func (s *Server) ResetCounts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts, s.requests, s.times = map[string]int{}, nil, nil
}

// Config returns a job's stored config.xml and whether it exists.
func (s *Server) Config(path string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok := s.items[path]
	if !ok || it.folder() {
		return "", false
	}
	return it.config, true
}

// SetConfig replaces a job's config.xml behind the provider's back (drift),
// or creates the job (and its folders) as someone else would. The root
// element says what the item is, as in createItem.
func (s *Server) SetConfig(path, config string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	parts := strings.Split(path, "/")
	for i := 1; i < len(parts); i++ {
		if p := strings.Join(parts[:i], "/"); s.items[p] == nil {
			s.items[p] = &item{class: folderClass, config: emptyConfig[folderClass], nextBuild: 1}
		}
	}
	class := workflowClass
	if root, err := parseConfig(config); err == nil && classOfRoot[root] != "" {
		class = classOfRoot[root]
	}
	if it, ok := s.items[path]; ok {
		it.config, it.class = config, class
		return
	}
	s.items[path] = &item{class: class, config: config, nextBuild: 1}
}

// Exists reports whether an item (job or folder) exists.
func (s *Server) Exists(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.items[path]
	return ok
}

// Jobs returns the full paths of every job (not folders), sorted.
func (s *Server) Jobs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for p, it := range s.items {
		if !it.folder() {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// IsFolder reports whether path is a folder.
func (s *Server) IsFolder(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok := s.items[path]
	return ok && it.folder()
}

// Builds returns a copy of a job's builds, oldest first.
func (s *Server) Builds(path string) []Build {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Build
	if it, ok := s.items[path]; ok {
		for _, b := range it.builds {
			out = append(out, *b)
		}
	}
	return out
}

// Queued reports how many items wait in the queue for a job.
func (s *Server) Queued(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.waitingFor(path))
}

// Buildable reports how many of a job's queue items are past their quiet
// period, waiting for an executor (Queue$BuildableItem).
func (s *Server) Buildable(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, q := range s.waitingFor(path) {
		if q.buildable(time.Now()) {
			n++
		}
	}
	return n
}

// RunQueue starts every queued build, as executors picking them up; a test
// calling it plays an executor that does not wait out quiet periods.
func (s *Server) RunQueue() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runQueue(nil)
}

// RunBuildable starts the queued builds past their quiet period, as
// Jenkins' executors do.
func (s *Server) RunBuildable() {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	s.runQueue(func(q *queueItem) bool { return q.buildable(now) })
}

// RunQueueOf starts the queued builds of one job only, past their quiet
// period, as an executor that job's label ties it to: executors of other
// jobs run theirs apart.
func (s *Server) RunQueueOf(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	s.runQueue(func(q *queueItem) bool { return q.job == path && q.buildable(now) })
}

// runQueue starts the queued builds match accepts (nil: all).
func (s *Server) runQueue(match func(q *queueItem) bool) {
	ids := make([]int, 0, len(s.queue))
	for id := range s.queue {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		q := s.queue[id]
		it, ok := s.items[q.job]
		if !q.waiting() || !ok || match != nil && !match(q) {
			continue
		}
		b := &Build{Number: it.nextBuild, Building: true, Timestamp: time.Now().Truncate(time.Millisecond), Params: q.sent,
			queueID: q.id, values: q.values, console: "Started by user " + s.user + "\n"}
		it.nextBuild++
		it.builds = append(it.builds, b)
		q.build = b
	}
}

// Log appends text to the console of a job's running builds, as their
// steps would print it.
func (s *Server) Log(path, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if it, ok := s.items[path]; ok {
		for _, b := range it.builds {
			if b.Building {
				b.console += text
			}
		}
	}
}

// Finish completes a job's running builds with result (SUCCESS, FAILURE...).
func (s *Server) Finish(path, result string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if it, ok := s.items[path]; ok {
		for _, b := range it.builds {
			if b.Building {
				b.Building, b.Result, b.finished = false, result, time.Now()
				b.console += "Finished: " + result + "\n"
			}
		}
	}
}

// SetDescription sets the description of a job's build, as a Pipeline's
// currentBuild.description or a user would; nothing when there is no such
// build.
func (s *Server) SetDescription(path string, number int, desc string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if it, ok := s.items[path]; ok {
		if b := it.last(func(b *Build) bool { return b.Number == number }); b != nil {
			b.Description = &desc
		}
	}
}

// ForgetLeftItems drops the queue items that left the queue (started or
// cancelled), as Jenkins does five minutes after they left: their
// /queue/item/N/ is 404 from then on.
func (s *Server) ForgetLeftItems() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, q := range s.queue {
		if !q.waiting() {
			delete(s.queue, id)
		}
	}
}

// abort stops a running build as Executor.interrupt does for a user:
// ABORTED, with who aborted it in the console. A finished build stays as
// it is.
func (s *Server) abort(b *Build) {
	if !b.Building {
		return
	}
	b.Building, b.Result, b.finished = false, "ABORTED", time.Now()
	b.console += "Aborted by " + s.user + "\nFinished: ABORTED\n"
}

// waitingFor returns a job's items still in the queue, oldest first.
func (s *Server) waitingFor(path string) []*queueItem {
	var out []*queueItem
	for _, q := range s.queue {
		if q.job == path && q.waiting() {
			out = append(out, q)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// cancel takes items out of the queue as Queue.cancel does: they stay
// readable as cancelled Queue$LeftItems.
func (s *Server) cancel(match func(job string) bool) {
	for _, q := range s.queue {
		if q.waiting() && match(q.job) {
			q.cancelled = true
		}
	}
}

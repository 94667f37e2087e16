// Package jenkins is an in-process fake of a Jenkins controller, faithful to
// the parts of the remote API the provider uses, as Jenkins 2.4xx answers
// them: GET /api/json with the X-Jenkins header; HTTP basic auth with an API
// token (no crumb needed) or a password (POSTs then need the crumb from
// /crumbIssuer/api/json and its session cookie, else 403); 401 for a bad
// token; nested folders addressed as /job/a/job/b; createItem with a job XML
// body or a folder mode, answering 400 with an X-Error header for a duplicate
// or unsafe name and 404 when the parent folder is missing; config.xml GET
// (rewritten the way Jenkins saves it: XML 1.1, plugin versions) and POST;
// doDelete answering 302 to the parent; build and buildWithParameters
// answering 201 with Location .../queue/item/N/ (the same item while one is
// queued); queue items that turn into builds; job and build api/json honouring
// the top-level fields of ?tree=. Tests drive the queue and builds, make the
// server fail on command and count requests.
package jenkins

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/freeleaps/provider-devops/internal/testing/httpfail"
)

// Version is what the fake reports in X-Jenkins.
const Version = "2.479.3"

const folderClass = "com.cloudbees.hudson.plugins.folder.Folder"

// Server is a running fake Jenkins.
type Server struct {
	*httptest.Server
	// Injector makes requests fail on command (FailNext, PendingFailures,
	// LastFailureAt).
	httpfail.Injector
	user, token, password string

	mu       sync.Mutex
	items    map[string]*item // full path -> item
	queue    map[int]*queueItem
	nextQ    int
	sessions map[string]string // session id -> crumb
	counts   map[string]int
	requests []string
	times    []time.Time
}

type item struct {
	folder    bool
	config    string
	builds    []*Build
	nextBuild int
	queued    *queueItem
}

type queueItem struct {
	id     int
	job    string
	params url.Values
	build  *Build
}

// Build is one run of a job.
type Build struct {
	Number    int
	Result    string // empty while building
	Building  bool
	Timestamp time.Time
	Params    url.Values
}

// New starts a fake with one user who authenticates with token.
func New(user, token string) *Server {
	s := &Server{user: user, token: token, items: map[string]*item{}, queue: map[int]*queueItem{}, nextQ: 1, sessions: map[string]string{}, counts: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
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
	if !ok || it.folder {
		return "", false
	}
	return it.config, true
}

// SetConfig replaces a job's config.xml behind the provider's back (drift),
// or creates the job (and its folders) as someone else would.
func (s *Server) SetConfig(path, config string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	parts := strings.Split(path, "/")
	for i := 1; i < len(parts); i++ {
		if p := strings.Join(parts[:i], "/"); s.items[p] == nil {
			s.items[p] = &item{folder: true}
		}
	}
	if it, ok := s.items[path]; ok {
		it.config = config
		return
	}
	s.items[path] = &item{config: config, nextBuild: 1}
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
		if !it.folder {
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
	return ok && it.folder
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
	n := 0
	for _, q := range s.queue {
		if q.job == path && q.build == nil {
			n++
		}
	}
	return n
}

// RunQueue starts every queued build, as an executor picking them up.
func (s *Server) RunQueue() {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]int, 0, len(s.queue))
	for id := range s.queue {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		q := s.queue[id]
		it, ok := s.items[q.job]
		if q.build != nil || !ok {
			continue
		}
		b := &Build{Number: it.nextBuild, Building: true, Timestamp: time.Now().Truncate(time.Millisecond), Params: q.params}
		it.nextBuild++
		it.builds = append(it.builds, b)
		it.queued = nil
		q.build = b
	}
}

// Finish completes a job's running builds with result (SUCCESS, FAILURE...).
func (s *Server) Finish(path, result string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if it, ok := s.items[path]; ok {
		for _, b := range it.builds {
			if b.Building {
				b.Building, b.Result = false, result
			}
		}
	}
}

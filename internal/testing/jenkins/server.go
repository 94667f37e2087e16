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
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sort"
	"strconv"
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

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Jenkins", Version)
	session, ok := s.authenticate(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[r.Method]++
	s.requests = append(s.requests, r.Method+" "+r.URL.Path)
	s.times = append(s.times, time.Now())
	if s.Serve(w, func(w http.ResponseWriter, status int) { errorPage(w, status, http.StatusText(status)) }) {
		return
	}
	p := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case p == "/crumbIssuer/api/json" && r.Method == http.MethodGet:
		s.crumb(w)
		return
	case r.Method == http.MethodPost && session != "" && !s.validCrumb(session, r.Header.Get("Jenkins-Crumb")):
		errorPage(w, http.StatusForbidden, "No valid crumb was included in the request")
		return
	case p == "" || p == "/api/json":
		writeJSON(w, r, map[string]any{"_class": "hudson.model.Hudson", "mode": "NORMAL", "nodeDescription": "the Jenkins controller's built-in node", "useCrumbs": true, "jobs": s.children("")})
		return
	case strings.HasPrefix(p, "/queue/item/"):
		s.queueItem(w, r, strings.TrimPrefix(p, "/queue/item/"))
		return
	}
	path, action, ok := splitItemPath(p)
	if !ok {
		errorPage(w, http.StatusNotFound, "Not Found")
		return
	}
	s.item(w, r, path, action)
}

// authenticate checks basic auth. It returns the session id of a password
// login (whose POSTs need a crumb), "" for an API token.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (string, bool) {
	user, secret, ok := r.BasicAuth()
	s.mu.Lock()
	token, password := s.token, s.password
	s.mu.Unlock()
	switch {
	case !ok:
		// Anonymous users have no Overall/Read on a secured controller.
		errorPage(w, http.StatusForbidden, "Authentication required")
		return "", false
	case user == s.user && secret == token:
		return "", true
	case user == s.user && password != "" && secret == password:
		for _, c := range r.Cookies() {
			if strings.HasPrefix(c.Name, "JSESSIONID.") {
				return c.Value, true
			}
		}
		return "new", true
	default:
		w.Header().Set("WWW-Authenticate", `Basic realm="Jenkins"`)
		errorPage(w, http.StatusUnauthorized, "Invalid password/token for user: "+user)
		return "", false
	}
}

func (s *Server) validCrumb(session, crumb string) bool {
	want, ok := s.sessions[session]
	return ok && crumb == want
}

func (s *Server) crumb(w http.ResponseWriter) {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	s.sessions[id] = "crumb-" + id
	http.SetCookie(w, &http.Cookie{Name: "JSESSIONID.fake", Value: id, Path: "/", HttpOnly: true})
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	_, _ = fmt.Fprintf(w, `{"_class":"hudson.security.csrf.DefaultCrumbIssuer","crumb":%q,"crumbRequestField":"Jenkins-Crumb"}`, s.sessions[id])
}

var itemSegment = regexp.MustCompile(`^/job/([^/]+)`)

// splitItemPath turns /job/a/job/b/config.xml into ("a/b", "config.xml").
// The root's own actions (createItem) have an empty path.
func splitItemPath(p string) (string, string, bool) {
	var names []string
	for {
		m := itemSegment.FindStringSubmatch(p)
		if m == nil {
			break
		}
		n, err := url.PathUnescape(m[1])
		if err != nil {
			return "", "", false
		}
		names = append(names, n)
		p = p[len(m[0]):]
	}
	action := strings.TrimPrefix(p, "/")
	if len(names) == 0 && action != "createItem" {
		return "", "", false
	}
	return strings.Join(names, "/"), action, true
}

func (s *Server) item(w http.ResponseWriter, r *http.Request, path, action string) {
	if action == "createItem" {
		if r.Method != http.MethodPost {
			errorPage(w, http.StatusMethodNotAllowed, "createItem needs POST")
			return
		}
		s.createItem(w, r, path)
		return
	}
	it, ok := s.items[path]
	if !ok {
		errorPage(w, http.StatusNotFound, "Not Found")
		return
	}
	switch {
	case action == "" || action == "api/json":
		if r.Method != http.MethodGet {
			errorPage(w, http.StatusMethodNotAllowed, "Method Not Allowed")
			return
		}
		writeJSON(w, r, s.itemJSON(path, it))
	case action == "config.xml" && r.Method == http.MethodGet:
		w.Header().Set("Content-Type", "application/xml")
		_, _ = io.WriteString(w, it.config)
	case action == "config.xml" && r.Method == http.MethodPost:
		body, _ := io.ReadAll(r.Body)
		if err := wellFormed(body); err != nil {
			errorPage(w, http.StatusInternalServerError, "java.io.IOException: Unable to read "+path+"/config.xml: "+err.Error())
			return
		}
		it.config = rewrite(string(body))
	case action == "doDelete" && r.Method == http.MethodPost:
		s.deleteItem(path)
		w.Header().Set("Location", s.URL+parentURLPath(path))
		w.WriteHeader(http.StatusFound)
	case (action == "build" || action == "buildWithParameters") && r.Method == http.MethodPost:
		s.build(w, r, path, it, action)
	case strings.HasSuffix(action, "/api/json") && r.Method == http.MethodGet:
		s.buildJSON(w, r, path, it, strings.TrimSuffix(action, "/api/json"))
	default:
		errorPage(w, http.StatusNotFound, "Not Found")
	}
}

func (s *Server) createItem(w http.ResponseWriter, r *http.Request, parent string) {
	if parent != "" {
		if p, ok := s.items[parent]; !ok || !p.folder {
			errorPage(w, http.StatusNotFound, "Not Found")
			return
		}
	}
	q := r.URL.Query()
	name := q.Get("name")
	if name == "" {
		_ = r.ParseForm()
		name = r.Form.Get("name")
	}
	switch {
	case name == "":
		xError(w, "No name is specified")
		return
	case strings.ContainsAny(name, `?*/\%!@#$^&|<>[]:;`) || name == "." || name == "..":
		xError(w, fmt.Sprintf("‘%s’ is an unsafe character", unsafeChar(name)))
		return
	}
	full := name
	if parent != "" {
		full = parent + "/" + name
	}
	if _, exists := s.items[full]; exists {
		xError(w, fmt.Sprintf("A job already exists with the name ‘%s’", name))
		return
	}
	mode := q.Get("mode")
	if mode == "" {
		mode = r.Form.Get("mode")
	}
	switch mode {
	case folderClass:
		s.items[full] = &item{folder: true}
	case "":
		body, _ := io.ReadAll(r.Body)
		if err := wellFormed(body); err != nil {
			errorPage(w, http.StatusInternalServerError, "java.io.IOException: Failed to persist config.xml: "+err.Error())
			return
		}
		s.items[full] = &item{config: rewrite(string(body)), nextBuild: 1}
	default:
		xError(w, "No item type ‘"+mode+"’ is known")
		return
	}
	w.WriteHeader(http.StatusOK)
}

func unsafeChar(name string) string {
	if i := strings.IndexAny(name, `?*/\%!@#$^&|<>[]:;`); i >= 0 {
		return name[i : i+1]
	}
	return name
}

func (s *Server) deleteItem(path string) {
	for p := range s.items {
		if p == path || strings.HasPrefix(p, path+"/") {
			delete(s.items, p)
		}
	}
	for id, q := range s.queue {
		if q.job == path || strings.HasPrefix(q.job, path+"/") {
			delete(s.queue, id)
		}
	}
}

func (s *Server) build(w http.ResponseWriter, r *http.Request, path string, it *item, action string) {
	if it.folder {
		errorPage(w, http.StatusNotFound, "Not Found")
		return
	}
	if strings.Contains(it.config, "<disabled>true</disabled>") {
		errorPage(w, http.StatusConflict, path+" is disabled")
		return
	}
	parameterized := len(parameterDefinitions(it.config)) > 0
	if action == "buildWithParameters" && !parameterized {
		errorPage(w, http.StatusInternalServerError, "java.lang.IllegalStateException: This build is not parameterized!")
		return
	}
	_ = r.ParseForm()
	if it.queued == nil {
		q := &queueItem{id: s.nextQ, job: path, params: r.Form}
		s.nextQ++
		s.queue[q.id] = q
		it.queued = q
	}
	w.Header().Set("Location", fmt.Sprintf("%s/queue/item/%d/", s.URL, it.queued.id))
	w.WriteHeader(http.StatusCreated)
}

func (s *Server) queueItem(w http.ResponseWriter, r *http.Request, rest string) {
	id, err := strconv.Atoi(strings.TrimSuffix(rest, "/api/json"))
	q, ok := s.queue[id]
	if err != nil || !ok {
		errorPage(w, http.StatusNotFound, "Not Found")
		return
	}
	task := map[string]any{"_class": "org.jenkinsci.plugins.workflow.job.WorkflowJob", "name": q.job[strings.LastIndex(q.job, "/")+1:], "url": s.jobURL(q.job)}
	out := map[string]any{"_class": "hudson.model.Queue$WaitingItem", "id": q.id, "task": task, "why": "In the quiet period.", "executable": nil}
	if q.build != nil {
		out["_class"] = "hudson.model.Queue$LeftItem"
		out["why"] = nil
		out["executable"] = map[string]any{"_class": "org.jenkinsci.plugins.workflow.job.WorkflowRun", "number": q.build.Number, "url": fmt.Sprintf("%s%d/", s.jobURL(q.job), q.build.Number)}
	}
	writeJSON(w, r, out)
}

func (s *Server) itemJSON(path string, it *item) map[string]any {
	name := path[strings.LastIndex(path, "/")+1:]
	if it.folder {
		return map[string]any{"_class": folderClass, "name": name, "fullName": path, "url": s.jobURL(path), "jobs": s.children(path)}
	}
	out := map[string]any{
		"_class": "org.jenkinsci.plugins.workflow.job.WorkflowJob", "name": name, "fullName": path, "url": s.jobURL(path),
		"buildable": !strings.Contains(it.config, "<disabled>true</disabled>"), "inQueue": it.queued != nil,
		"nextBuildNumber": it.nextBuild, "lastBuild": nil, "queueItem": nil, "property": []any{},
	}
	if defs := parameterDefinitions(it.config); len(defs) > 0 {
		out["property"] = []any{map[string]any{"_class": "hudson.model.ParametersDefinitionProperty", "parameterDefinitions": defs}}
	}
	if it.queued != nil {
		out["queueItem"] = map[string]any{"_class": "hudson.model.Queue$WaitingItem", "id": it.queued.id}
	}
	if n := len(it.builds); n > 0 {
		out["lastBuild"] = s.runJSON(path, it.builds[n-1])
	}
	return out
}

func (s *Server) runJSON(path string, b *Build) map[string]any {
	var result any
	if b.Result != "" {
		result = b.Result
	}
	return map[string]any{"_class": "org.jenkinsci.plugins.workflow.job.WorkflowRun", "number": b.Number, "result": result, "building": b.Building,
		"url": fmt.Sprintf("%s%d/", s.jobURL(path), b.Number), "timestamp": b.Timestamp.UnixMilli()}
}

func (s *Server) buildJSON(w http.ResponseWriter, r *http.Request, path string, it *item, which string) {
	var b *Build
	if which == "lastBuild" && len(it.builds) > 0 {
		b = it.builds[len(it.builds)-1]
	} else if n, err := strconv.Atoi(which); err == nil {
		for _, c := range it.builds {
			if c.Number == n {
				b = c
			}
		}
	}
	if b == nil {
		errorPage(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, r, s.runJSON(path, b))
}

func (s *Server) children(parent string) []map[string]any {
	out := []map[string]any{}
	var names []string
	for p := range s.items {
		dir, name := "", p
		if i := strings.LastIndex(p, "/"); i >= 0 {
			dir, name = p[:i], p[i+1:]
		}
		if dir == parent {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		full := n
		if parent != "" {
			full = parent + "/" + n
		}
		class := "org.jenkinsci.plugins.workflow.job.WorkflowJob"
		if s.items[full].folder {
			class = folderClass
		}
		out = append(out, map[string]any{"_class": class, "name": n, "url": s.jobURL(full)})
	}
	return out
}

func (s *Server) jobURL(path string) string {
	return s.URL + "/job/" + strings.ReplaceAll(path, "/", "/job/") + "/"
}

func parentURLPath(path string) string {
	i := strings.LastIndex(path, "/")
	if i < 0 {
		return "/"
	}
	return "/job/" + strings.ReplaceAll(path[:i], "/", "/job/") + "/"
}

// rewrite stores config.xml the way Jenkins saves it, so clients must
// compare meaning, not bytes.
func rewrite(config string) string {
	r := strings.NewReplacer(
		"<?xml version='1.0' encoding='UTF-8'?>", "<?xml version='1.1' encoding='UTF-8'?>",
		`plugin="workflow-job"`, `plugin="workflow-job@1436.vfa_244484591f"`,
		`plugin="workflow-cps"`, `plugin="workflow-cps@3969.vdc9d3a_efcc6a_"`,
		`plugin="git"`, `plugin="git@5.2.2"`,
		"<actions></actions>", "<actions/>",
	)
	return r.Replace(config)
}

func wellFormed(b []byte) error {
	d := xml.NewDecoder(strings.NewReader(strings.Replace(string(b), "version='1.1'", "version='1.0'", 1)))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// writeJSON answers api/json, keeping only the top-level fields named in
// ?tree= as Jenkins does, so a client cannot rely on fields it did not ask for.
func writeJSON(w http.ResponseWriter, r *http.Request, v map[string]any) {
	if tree := r.URL.Query().Get("tree"); tree != "" {
		keep := map[string]bool{}
		for _, f := range topLevelFields(tree) {
			keep[f] = true
		}
		for k := range v {
			if !keep[k] && k != "_class" {
				delete(v, k)
			}
		}
	}
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	_ = jsonEncode(w, v)
}

func topLevelFields(tree string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range tree + "," {
		switch c {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case ',':
			if depth == 0 {
				f := tree[start:i]
				if j := strings.IndexAny(f, "[{"); j >= 0 {
					f = f[:j]
				}
				out = append(out, strings.TrimSpace(f))
				start = i + 1
			}
		}
	}
	return out
}

// xError answers 400 with the message in X-Error, as createItem does.
func xError(w http.ResponseWriter, msg string) {
	w.Header().Set("X-Error", msg)
	errorPage(w, http.StatusBadRequest, msg)
}

func errorPage(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/html;charset=utf-8")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, "<html><head><title>Error %d</title></head><body><h2>HTTP ERROR %d %s</h2></body></html>", status, status, xmlEscape(msg))
}

func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

func jsonEncode(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }

// parameterDefinitions lists a job's parameters as api/json shows them.
func parameterDefinitions(config string) []map[string]any {
	var doc struct {
		Properties struct {
			Params *struct {
				Defs struct {
					Items []struct {
						XMLName xml.Name
						Name    string `xml:"name"`
						Default string `xml:"defaultValue"`
					} `xml:",any"`
				} `xml:"parameterDefinitions"`
			} `xml:"hudson.model.ParametersDefinitionProperty"`
		} `xml:"properties"`
	}
	d := xml.NewDecoder(strings.NewReader(strings.Replace(config, "version='1.1'", "version='1.0'", 1)))
	if d.Decode(&doc) != nil || doc.Properties.Params == nil {
		return nil
	}
	var out []map[string]any
	for _, p := range doc.Properties.Params.Defs.Items {
		t := strings.TrimPrefix(p.XMLName.Local, "hudson.model.")
		out = append(out, map[string]any{"_class": p.XMLName.Local, "name": p.Name, "type": t, "defaultParameterValue": map[string]any{"name": p.Name, "value": p.Default}})
	}
	return out
}

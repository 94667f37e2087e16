package jenkins

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

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

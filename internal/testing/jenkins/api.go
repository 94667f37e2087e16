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

package jenkins

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.handle(w, r)
	// A held create answers once released, or never if its client left.
	s.mu.Lock()
	var release chan struct{}
	if s.holding == r {
		release, s.holding = s.release, nil
	}
	s.mu.Unlock()
	if release != nil {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
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
		s.crumb(w, r)
		return
	case r.Method == http.MethodPost && session != "" && !s.validCrumb(session, r.Header.Get("Jenkins-Crumb")):
		errorPage(w, http.StatusForbidden, "No valid crumb was included in the request")
		return
	case p == "":
		page(w, "Dashboard")
		return
	case p == "/api/json":
		writeBean(w, r, s.rootBean())
		return
	case p == "/me/api/json" || p == "/user/"+strings.ToLower(s.user)+"/api/json":
		writeBean(w, r, s.userBean())
		return
	case p == "/queue/api/json":
		writeBean(w, r, s.queueBean())
		return
	case strings.HasPrefix(p, "/queue/item/"):
		s.queueItem(w, r, strings.TrimPrefix(p, "/queue/item/"))
		return
	case p == "/queue/cancelItem":
		s.cancelItem(w, r)
		return
	case strings.HasPrefix(p+"/", "/credentials/store/system/"):
		s.credentials(w, r, "", strings.TrimPrefix(strings.TrimPrefix(p, "/credentials/store/system"), "/"))
		return
	}
	path, action, ok := splitItemPath(p)
	if !ok {
		errorPage(w, http.StatusNotFound, "Not Found")
		return
	}
	if lose := s.lose; lose != "" && r.Method == http.MethodPost && (action == "build" || action == "buildWithParameters") {
		s.lose = ""
		if lose == "after" {
			s.item(httptest.NewRecorder(), r, path, action, session == "")
			s.runQueue(nil)
		}
		hangUp(w)
		return
	}
	s.item(w, r, path, action, session == "")
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

// crumb issues a crumb bound to a new session, as DefaultCrumbIssuer does
// for any authenticated user (API-token requests just do not need it).
func (s *Server) crumb(w http.ResponseWriter, r *http.Request) {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	s.sessions[id] = "crumb-" + id
	http.SetCookie(w, &http.Cookie{Name: "JSESSIONID.fake", Value: id, Path: "/", HttpOnly: true})
	writeBean(w, r, crumbBean(s.sessions[id]))
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

// item serves an item's URL space. tokenAuth is true for API-token
// requests, which Jenkins lets trigger builds with GET too.
func (s *Server) item(w http.ResponseWriter, r *http.Request, path, action string, tokenAuth bool) {
	if action == "createItem" {
		if r.Method != http.MethodPost {
			requirePOST(w)
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
	case action == "":
		page(w, s.fullDisplayName(path))
	case action == "api/json":
		writeBean(w, r, s.itemBean(path, it))
	case action == "configure" && r.Method == http.MethodGet:
		page(w, s.fullDisplayName(path)+" Config")
	case action == "config.xml":
		s.config(w, r, path, it)
	case strings.HasPrefix(action+"/", "credentials/store/folder/") && it.folder():
		s.credentials(w, r, path, strings.TrimPrefix(strings.TrimPrefix(action, "credentials/store/folder"), "/"))
	case action == "doDelete":
		if r.Method != http.MethodPost {
			requirePOST(w)
			return
		}
		s.deleteItem(path)
		dir, _ := split(path)
		redirect(w, http.StatusFound, s.urlOf(dir))
	case action == "enable" || action == "disable":
		if r.Method != http.MethodPost {
			requirePOST(w)
			return
		}
		// Folders do not support being disabled: Jenkins ignores it.
		if !it.folder() && it.disabled() != (action == "disable") {
			it.config = setTop(it.config, "disabled", strconv.FormatBool(action == "disable"))
			if action == "disable" {
				s.cancel(func(job string) bool { return job == path })
			}
		}
		redirect(w, http.StatusFound, s.jobURL(path))
	case it.folder():
		errorPage(w, http.StatusNotFound, "Not Found")
	case action == "build":
		s.build(w, r, path, it, tokenAuth)
	case action == "buildWithParameters":
		s.buildWithParameters(w, r, path, it, tokenAuth)
	default:
		s.run(w, r, path, it, action)
	}
}

// urlOf is the URL of a folder, or of the root for "".
func (s *Server) urlOf(path string) string {
	if path == "" {
		return s.rootURL()
	}
	return s.jobURL(path)
}

func redirect(w http.ResponseWriter, status int, location string) {
	w.Header().Set("Location", location)
	w.WriteHeader(status)
}

// requirePOST answers as Jenkins' @RequirePOST does.
func requirePOST(w http.ResponseWriter) {
	w.Header().Set("Allow", http.MethodPost)
	errorPage(w, http.StatusMethodNotAllowed, "This URL requires POST")
}

// config serves config.xml: GET reads it, POST replaces it the way
// AbstractItem.updateByXml does, refusing XML it cannot load or that would
// turn the item into another class.
func (s *Server) config(w http.ResponseWriter, r *http.Request, path string, it *item) {
	switch r.Method {
	case http.MethodGet:
		w.Header().Set("Content-Type", "application/xml")
		_, _ = io.WriteString(w, it.config)
	case http.MethodPost:
		body, _ := io.ReadAll(r.Body)
		class, ok := configClass(w, path, body)
		if !ok {
			return
		}
		if class != it.class {
			errorPage(w, http.StatusInternalServerError, "java.io.IOException: Expecting class "+it.class+" but got class "+class+" instead")
			return
		}
		it.config = rewrite(string(body))
	default:
		errorPage(w, http.StatusBadRequest, "Bad Request")
	}
}

// createItem is ItemGroupMixIn.createTopLevelItem: a config.xml body (by
// Content-Type) makes the item its root element names and answers 200; a
// form's mode=CLASS makes an empty item, mode=copy&from=NAME a copy, and
// both answer 302 to its configure page.
func (s *Server) createItem(w http.ResponseWriter, r *http.Request, parent string) {
	if parent != "" {
		if p, ok := s.items[parent]; !ok || !p.folder() {
			errorPage(w, http.StatusNotFound, "Not Found")
			return
		}
	}
	ct := r.Header.Get("Content-Type")
	_ = r.ParseForm() // the query, and a form body; not an XML one
	mode := r.Form.Get("mode")
	if ct == "" && mode != "copy" {
		xError(w, "No Content-Type header set")
		return
	}
	isXML := strings.HasPrefix(ct, "application/xml") || strings.HasPrefix(ct, "text/xml")
	names, ok := r.Form["name"]
	if !ok {
		xError(w, "Query parameter 'name' is required")
		return
	}
	if msg := validName(names[0]); msg != "" {
		xError(w, msg)
		return
	}
	name := javaTrim(names[0])
	full := name
	if parent != "" {
		full = parent + "/" + name
	}
	if it, exists := s.items[full]; exists {
		if !it.folder() {
			s.refused[full]++
		}
		xError(w, "A job already exists with the name ‘"+name+"’")
		return
	}
	switch {
	case mode == "copy":
		from := r.Form.Get("from")
		src, ok := s.items[s.resolve(parent, from)]
		switch {
		case strings.TrimSpace(from) == "":
			xError(w, "Specify which job to copy")
			return
		case !ok:
			xError(w, "No such job: "+from)
			return
		}
		s.items[full] = &item{class: src.class, config: src.config, nextBuild: 1}
		s.createdItem(r, full, s.items[full])
	case isXML:
		body, _ := io.ReadAll(r.Body)
		class, ok := configClass(w, full, body)
		if !ok {
			return
		}
		s.items[full] = &item{class: class, config: rewrite(string(body)), nextBuild: 1}
		s.createdItem(r, full, s.items[full])
		w.WriteHeader(http.StatusOK)
		return
	case mode == "":
		xError(w, "No mode given")
		return
	case emptyConfig[mode] == "":
		xError(w, "No item type ‘"+mode+"’ is known")
		return
	default:
		s.items[full] = &item{class: mode, config: emptyConfig[mode], nextBuild: 1}
		s.createdItem(r, full, s.items[full])
	}
	redirect(w, http.StatusFound, s.jobURL(full)+"configure")
}

// resolve is Jenkins.getItem(name, context): a name relative to the
// folder, or absolute from the root with a leading "/".
func (s *Server) resolve(parent, name string) string {
	if strings.HasPrefix(name, "/") || parent == "" {
		return strings.TrimPrefix(name, "/")
	}
	return parent + "/" + name
}

// createdItem counts a new item and, when HoldNextCreate armed it and the
// item is a job, holds r's answer.
func (s *Server) createdItem(r *http.Request, full string, it *item) {
	s.created[full]++
	if s.hold && !it.folder() {
		if s.release != nil {
			// One create is held at a time: the one before is answered.
			close(s.release)
		}
		s.hold, s.held, s.holding, s.release = false, full, r, make(chan struct{})
	}
}

// deleteItem deletes an item, its children and their queued builds; it
// counts the item, not its children.
func (s *Server) deleteItem(path string) {
	s.deleted[path]++
	inside := func(p string) bool { return p == path || strings.HasPrefix(p, path+"/") }
	for p := range s.items {
		if inside(p) {
			delete(s.items, p)
		}
	}
	for id, q := range s.queue {
		if inside(q.job) {
			delete(s.queue, id)
		}
	}
}

// build is ParameterizedJobMixIn.doBuild: 201 with the queue item (the
// one already queued for the job when there is one); a parameterized job
// takes only the form its page submits (a "json" field).
func (s *Server) build(w http.ResponseWriter, r *http.Request, path string, it *item, tokenAuth bool) {
	if it.disabled() {
		httpError(w, http.StatusConflict, "java.io.IOException: "+path+" is not buildable")
		return
	}
	defs := parameterDefinitions(it.config)
	switch {
	case defs != nil && r.Method != http.MethodPost:
		page(w, s.fullDisplayName(path)+" [Build with Parameters]")
		return
	case r.Method != http.MethodPost && !tokenAuth:
		requirePOST(w)
		return
	}
	_ = r.ParseForm()
	if defs == nil {
		q, _ := s.schedule(path, withoutDelay(r.Form), nil, delayOf(r.Form))
		redirect(w, http.StatusCreated, s.queueItemURL(q))
		return
	}
	form, ok := r.Form["json"]
	switch {
	case !ok && len(r.Form) > 0:
		errorPage(w, http.StatusBadRequest, "This page expects a form submission")
		return
	case !ok:
		errorPage(w, http.StatusBadRequest, "Nothing is submitted")
		return
	}
	sent, values, err := submittedParameters(form[0], defs)
	if err != nil {
		errorPage(w, http.StatusInternalServerError, err.Error())
		return
	}
	q, created := s.schedule(path, sent, values, delayOf(r.Form))
	if !created {
		// Queue.schedule (not schedule2) returns nothing for a duplicate.
		redirect(w, http.StatusFound, s.jobURL(path))
		return
	}
	redirect(w, http.StatusCreated, s.queueItemURL(q))
}

// submittedParameters reads the parameters of a build form's "json" field:
// {"parameter": [{"name": ..., "value": ...}]} (or one object). Unlike
// buildWithParameters, parameters left out take no default.
func submittedParameters(form string, defs []paramDef) (url.Values, []paramValue, error) {
	var f struct {
		Parameter json.RawMessage `json:"parameter"`
	}
	if err := json.Unmarshal([]byte(form), &f); err != nil {
		return nil, nil, fmt.Errorf("net.sf.json.JSONException: %v", err)
	}
	type param struct {
		Name  string `json:"name"`
		Value any    `json:"value"`
	}
	var list []param
	if len(f.Parameter) > 0 && json.Unmarshal(f.Parameter, &list) != nil {
		var one param
		if err := json.Unmarshal(f.Parameter, &one); err != nil {
			return nil, nil, fmt.Errorf("net.sf.json.JSONException: %v", err)
		}
		list = []param{one}
	}
	sent, values := url.Values{}, []paramValue{}
	for _, p := range list {
		var def *paramDef
		for i := range defs {
			if defs[i].name == p.Name {
				def = &defs[i]
			}
		}
		if def == nil {
			return nil, nil, fmt.Errorf("java.lang.IllegalArgumentException: No such parameter definition: %s", p.Name)
		}
		v := fmt.Sprint(p.Value)
		sent.Add(p.Name, v)
		values = append(values, paramValue{def: *def, value: def.value(v)})
	}
	return sent, values, nil
}

// buildWithParameters is ParameterizedJobMixIn.doBuildWithParameters: the
// request's parameters, defaults for the others; 201 with a new queue
// item, or 303 to the item already queued with the same parameters.
func (s *Server) buildWithParameters(w http.ResponseWriter, r *http.Request, path string, it *item, tokenAuth bool) {
	if r.Method != http.MethodPost && !tokenAuth {
		requirePOST(w)
		return
	}
	if it.disabled() {
		httpError(w, http.StatusConflict, "java.io.IOException: "+path+" is not buildable!")
		return
	}
	defs := parameterDefinitions(it.config)
	if defs == nil {
		errorPage(w, http.StatusInternalServerError, "java.lang.IllegalStateException: This build is not parameterized!")
		return
	}
	_ = r.ParseForm()
	values := []paramValue{}
	for _, d := range defs {
		v := d.defaultValue()
		if sent, ok := r.Form[d.name]; ok {
			v = d.value(sent[0])
		}
		values = append(values, paramValue{def: d, value: v})
	}
	q, created := s.schedule(path, withoutDelay(r.Form), values, delayOf(r.Form))
	if !created {
		redirect(w, http.StatusSeeOther, s.queueItemURL(q))
		return
	}
	redirect(w, http.StatusCreated, s.queueItemURL(q))
}

// schedule is Queue.schedule2: an item of the job still in the queue with
// the same parameters (ParametersAction.shouldSchedule) absorbs the
// request, and created is false.
// A request with a shorter quiet period pulls the item's in.
func (s *Server) schedule(path string, sent url.Values, values []paramValue, quiet time.Duration) (q *queueItem, created bool) {
	now := time.Now()
	for _, q := range s.waitingFor(path) {
		if (q.values == nil) == (values == nil) && paramsString(q.values) == paramsString(values) {
			if due := now.Add(quiet); due.Before(q.due) {
				q.due = due
			}
			return q, false
		}
	}
	q = &queueItem{id: s.nextQ, job: path, sent: sent, values: values, since: now, due: now.Add(quiet)}
	s.nextQ++
	s.queue[q.id] = q
	return q, true
}

// withoutDelay is a request's form less its delay, which Jenkins reads as
// the quiet period, not as a build parameter.
func withoutDelay(form url.Values) url.Values {
	if _, ok := form["delay"]; !ok {
		return form
	}
	out := url.Values{}
	for k, v := range form {
		if k != "delay" {
			out[k] = v
		}
	}
	return out
}

func (s *Server) queueItemURL(q *queueItem) string {
	return fmt.Sprintf("%s/queue/item/%d/", s.URL, q.id)
}

// queueItem serves /queue/item/N/: api/json, and the index's text.
func (s *Server) queueItem(w http.ResponseWriter, r *http.Request, rest string) {
	idStr, sub, _ := strings.Cut(rest, "/")
	id, err := strconv.Atoi(idStr)
	q, ok := s.queue[id]
	switch {
	case err != nil || !ok:
		errorPage(w, http.StatusNotFound, "Not Found")
	case sub == "api/json":
		writeBean(w, r, s.queueItemBean(q))
	case sub == "":
		w.Header().Set("Content-Type", "text/plain;charset=UTF-8")
		_, _ = fmt.Fprintf(w, "Queue item exists. For details check, for example, /queue/item/%d/api/json?tree=cancelled,executable[url]", id)
	default:
		errorPage(w, http.StatusNotFound, "Not Found")
	}
}

// cancelItem is Queue.doCancelItem (2.211 and later): 204 for an item it
// took out of the queue, 500 for one that already left it (started or
// cancelled: LeftItem.cancel fails), 404 for an id the queue does not hold
// (a missing id is 0, which no item has).
func (s *Server) cancelItem(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		requirePOST(w)
		return
	}
	// @QueryParameter: the query or a form body.
	_ = r.ParseForm()
	id, _ := strconv.Atoi(r.Form.Get("id"))
	q, ok := s.queue[id]
	switch {
	case !ok:
		httpError(w, http.StatusNotFound, fmt.Sprintf("java.lang.Exception: Provided id (%d) not found", id))
	case !q.waiting():
		httpError(w, http.StatusInternalServerError, fmt.Sprintf("java.lang.Exception: Could not cancel run for id %d", id))
	default:
		q.cancelled = true
		w.WriteHeader(http.StatusNoContent)
	}
}

// run serves a build's URL space, by number or permalink.
func (s *Server) run(w http.ResponseWriter, r *http.Request, path string, it *item, action string) {
	which, sub, _ := strings.Cut(action, "/")
	var b *Build
	if n, err := strconv.Atoi(which); err == nil {
		b = it.last(func(c *Build) bool { return c.Number == n })
	} else if match, ok := permalinks[which]; ok {
		b = it.last(match)
	}
	switch {
	case b == nil:
		errorPage(w, http.StatusNotFound, "Not Found")
	case sub == "":
		page(w, fmt.Sprintf("%s #%d", s.fullDisplayName(path), b.Number))
	case sub == "api/json":
		writeBean(w, r, s.runBean(path, it, b))
	case sub == "consoleText":
		w.Header().Set("Content-Type", "text/plain;charset=UTF-8")
		_, _ = io.WriteString(w, b.console)
	case sub == "stop" || sub == "submitDescription":
		if r.Method != http.MethodPost {
			requirePOST(w)
			return
		}
		if sub == "stop" {
			// Run.doStop (WorkflowRun's too): the executor interrupts a
			// running build; a finished one has none, and nothing happens.
			s.abort(b)
		} else {
			// Run.doSubmitDescription: the form's description, null when
			// the field is missing.
			_ = r.ParseForm()
			b.Description = nil
			if d, ok := r.Form["description"]; ok {
				b.Description = &d[0]
			}
		}
		// forwardToPreviousPage (stop, without a Referer) and
		// sendRedirect(".") (submitDescription) both lead to the build.
		redirect(w, http.StatusFound, fmt.Sprintf("%s%d/", s.jobURL(path), b.Number))
	default:
		errorPage(w, http.StatusNotFound, "Not Found")
	}
}

// permalinks are the builds a job's URL names, as PeepholePermalink does.
var permalinks = map[string]func(*Build) bool{
	"lastBuild":             func(*Build) bool { return true },
	"lastCompletedBuild":    func(b *Build) bool { return !b.Building },
	"lastSuccessfulBuild":   func(b *Build) bool { return !b.Building && atLeastUnstable(b.Result) },
	"lastStableBuild":       func(b *Build) bool { return !b.Building && b.Result == "SUCCESS" },
	"lastUnstableBuild":     func(b *Build) bool { return !b.Building && b.Result == "UNSTABLE" },
	"lastFailedBuild":       func(b *Build) bool { return !b.Building && b.Result == "FAILURE" },
	"lastUnsuccessfulBuild": func(b *Build) bool { return !b.Building && b.Result != "SUCCESS" },
}

// httpError answers as Stapler's HttpResponses.error does: the status and
// the exception as plain text.
func httpError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain;charset=UTF-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, msg+"\n")
}

// configClass is the item class a config.xml body declares by its root
// element, as Jenkins' XStream reads it; it answers Jenkins' 500 itself and
// returns false when the body does not parse or names no known class.
func configClass(w http.ResponseWriter, path string, body []byte) (string, bool) {
	root, err := parseConfig(string(body))
	if err != nil {
		errorPage(w, http.StatusInternalServerError, "java.io.IOException: Failed to persist config.xml: "+err.Error())
		return "", false
	}
	class := classOfRoot[root]
	if class == "" {
		errorPage(w, http.StatusInternalServerError, "java.io.IOException: Unable to read "+path+"/config.xml: com.thoughtworks.xstream.mapper.CannotResolveClassException: "+root)
		return "", false
	}
	return class, true
}

// hangUp closes the connection without an answer.
func hangUp(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

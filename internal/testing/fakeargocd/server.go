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

// Package fakeargocd is an in-process fake of the Argo CD API server's
// application endpoints, faithful to the paths, JSON shapes and grpc-gateway
// error bodies of Argo CD 2.x/3.x: bearer-token check (401, code 16),
// RBAC-scoped answers (403 PermissionDenied, code 7, also for apps that do not
// exist, as Argo CD does for non-admin tokens), list filtered by name,
// create with upsert=false, PUT, DELETE with cascade, and sync. Tests move
// apps through sync/health states, make the server fail on command and count
// requests.
package fakeargocd

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/freeleaps/provider-devops/internal/testing/httpfail"
)

// Server is a running fake.
type Server struct {
	*httptest.Server
	// Injector makes requests fail on command (FailNext, PendingFailures).
	httpfail.Injector
	// Counter counts authenticated requests by method (Count, ResetCounts).
	httpfail.Counter
	token   string
	limited string

	mu      sync.Mutex
	apps    map[string]map[string]any
	hidden  map[string]bool
	version int
	deleted map[string]string // name -> cascade value of its DELETE
}

// New starts a fake accepting token.
func New(token string) *Server {
	s := &Server{token: token, apps: map[string]map[string]any{}, hidden: map[string]bool{}, deleted: map[string]string{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Hide makes an app invisible to the token, as Argo CD RBAC does.
func (s *Server) Hide(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hidden[name] = true
}

// Put stores an application as if someone created it in Argo CD directly.
func (s *Server) Put(app map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.store(app)
}

// App returns a copy of the stored app, or nil.
func (s *Server) App(name string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[name]
	if !ok {
		return nil
	}
	return deepCopy(a)
}

// Apps returns the names of the stored apps, sorted.
func (s *Server) Apps() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.apps))
	for n := range s.apps {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Modify changes a stored app behind the provider's back (drift).
func (s *Server) Modify(name string, fn func(app map[string]any)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.apps[name]; ok {
		fn(a)
		s.bump(a)
	}
}

// SetStatus sets sync and health as Argo CD's controller would.
func (s *Server) SetStatus(name, sync, revision, health, healthMessage, opPhase string) {
	s.Modify(name, func(a map[string]any) {
		st := map[string]any{
			"sync":         map[string]any{"status": sync, "revision": revision},
			"health":       map[string]any{"status": health, "message": healthMessage},
			"reconciledAt": time.Now().UTC().Format(time.RFC3339),
		}
		if opPhase != "" {
			st["operationState"] = map[string]any{"phase": opPhase, "message": "sync " + strings.ToLower(opPhase)}
		}
		a["status"] = st
	})
}

// Deleted reports whether name was deleted and with which cascade value.
func (s *Server) Deleted(name string) (cascade string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.deleted[name]
	return c, ok
}

// SetLimitedToken makes the fake accept token as a valid session whose RBAC
// grants nothing on the apps: lists come back empty and everything else is
// PermissionDenied, as for a real account without rights.
func (s *Server) SetLimitedToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limited = token
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	// Argo CD's CSRF protection refuses any write without a JSON content
	// type before it looks at the session, also a DELETE without a body.
	if r.Method != http.MethodGet && !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		http.Error(w, "Unsupported Media Type", http.StatusUnsupportedMediaType)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.limited != "" && r.Header.Get("Authorization") == "Bearer "+s.limited {
		if r.Method == http.MethodGet && strings.TrimSuffix(r.URL.Path, "/") == "/api/v1/applications" {
			writeJSON(w, http.StatusOK, map[string]any{"metadata": map[string]any{}, "items": nil})
			return
		}
		writeErr(w, http.StatusForbidden, 7, "permission denied")
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+s.token {
		writeErr(w, http.StatusUnauthorized, 16, "invalid session: token signature is invalid")
		return
	}
	s.Counted(r.Method)
	if s.Serve(w, func(w http.ResponseWriter, status int) { writeErr(w, status, 14, http.StatusText(status)) }) {
		return
	}
	// Argo CD always has its default project, which applications use
	// unless told otherwise; no other project is served.
	if name, ok := strings.CutPrefix(r.URL.Path, "/api/v1/projects/"); ok && r.Method == http.MethodGet {
		if name != "default" {
			writeErr(w, http.StatusNotFound, 5, `appprojects.argoproj.io "`+name+`" not found`)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"metadata": map[string]any{"name": "default", "namespace": "argocd"},
			"spec": map[string]any{"sourceRepos": []string{"*"}, "destinations": []any{map[string]string{"server": "*", "namespace": "*"}},
				"clusterResourceWhitelist": []any{map[string]string{"group": "*", "kind": "*"}}}})
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/api/v1/applications")
	if !ok {
		writeErr(w, http.StatusNotFound, 5, "Not Found")
		return
	}
	rest = strings.TrimPrefix(rest, "/")
	name, action, _ := strings.Cut(rest, "/")
	switch {
	case name == "" && r.Method == http.MethodGet:
		s.list(w, r)
	case name == "" && r.Method == http.MethodPost:
		s.create(w, r)
	case action == "sync" && r.Method == http.MethodPost:
		s.withApp(w, r, name, "sync", func(a map[string]any) { writeJSON(w, http.StatusOK, a) })
	case action == "" && r.Method == http.MethodGet:
		s.withApp(w, r, name, "get", func(a map[string]any) { writeJSON(w, http.StatusOK, a) })
	case action == "" && r.Method == http.MethodPut:
		s.update(w, r, name)
	case action == "" && r.Method == http.MethodPatch:
		s.patch(w, r, name)
	case action == "" && r.Method == http.MethodDelete:
		s.withApp(w, r, name, "delete", func(_ map[string]any) {
			delete(s.apps, name)
			s.deleted[name] = r.URL.Query().Get("cascade")
			writeJSON(w, http.StatusOK, map[string]any{})
		})
	default:
		writeErr(w, http.StatusNotImplemented, 12, "method not implemented by the fake")
	}
}

// withApp answers PermissionDenied for apps that are hidden or missing, as
// Argo CD does when the request names no project: it will not tell a token
// whether an app it cannot see exists. With the project named (query
// parameter "project"), a missing app is NotFound.
func (s *Server) withApp(w http.ResponseWriter, r *http.Request, name, verb string, fn func(map[string]any)) {
	a, ok := s.apps[name]
	if !ok && !s.hidden[name] && r.URL.Query().Get("project") != "" {
		writeErr(w, http.StatusNotFound, 5, fmt.Sprintf("applications.argoproj.io %q not found", name))
		return
	}
	if !ok || s.hidden[name] {
		writeErr(w, http.StatusForbidden, 7, fmt.Sprintf("permission denied: applications, %s, default/%s", verb, name))
		return
	}
	fn(a)
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	var items []any // null when empty, as Argo CD answers
	for n, a := range s.apps {
		if s.hidden[n] || (name != "" && n != name) {
			continue
		}
		items = append(items, a)
	}
	writeJSON(w, http.StatusOK, map[string]any{"metadata": map[string]any{"resourceVersion": strconv.Itoa(s.version)}, "items": items})
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	app, ok := decode(w, r)
	if !ok {
		return
	}
	name, _ := nested(app, "metadata", "name").(string)
	if name == "" {
		writeErr(w, http.StatusBadRequest, 3, "application name is required")
		return
	}
	if existing, ok := s.apps[name]; ok {
		if s.hidden[name] {
			writeErr(w, http.StatusForbidden, 7, "permission denied: applications, create, default/"+name)
			return
		}
		// upsert=false: an identical spec is accepted, a different one refused.
		if r.URL.Query().Get("upsert") != "true" && !reflect.DeepEqual(existing["spec"], app["spec"]) {
			writeErr(w, http.StatusBadRequest, 3, "existing application spec is different, use upsert flag to force update")
			return
		}
		writeJSON(w, http.StatusOK, existing)
		return
	}
	app["status"] = map[string]any{"sync": map[string]any{"status": "OutOfSync"}, "health": map[string]any{"status": "Missing"}}
	s.store(app)
	writeJSON(w, http.StatusOK, app)
}

func (s *Server) update(w http.ResponseWriter, r *http.Request, name string) {
	app, ok := decode(w, r)
	if !ok {
		return
	}
	s.withApp(w, r, name, "update", func(existing map[string]any) {
		// Argo CD's PUT replaces the spec, labels, annotations and
		// finalizers with what the body holds.
		existing["spec"] = app["spec"]
		md := existing["metadata"].(map[string]any)
		for _, k := range []string{"labels", "annotations", "finalizers"} {
			if v := nested(app, "metadata", k); v != nil {
				md[k] = v
			} else {
				delete(md, k)
			}
		}
		s.bump(existing)
		writeJSON(w, http.StatusOK, existing)
	})
}

// patch applies a merge patch as Argo CD's PATCH does: body {"name",
// "appNamespace", "patch", "patchType"}; only "merge" is served here (Argo
// CD also takes "json").
func (s *Server) patch(w http.ResponseWriter, r *http.Request, name string) {
	var body struct {
		Patch     string `json:"patch"`
		PatchType string `json:"patchType"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeErr(w, http.StatusBadRequest, 3, "cannot decode body: "+err.Error())
		return
	}
	if body.PatchType != "merge" {
		writeErr(w, http.StatusNotImplemented, 12, "patch type "+body.PatchType+" not implemented by the fake")
		return
	}
	p := map[string]any{}
	if err := json.Unmarshal([]byte(body.Patch), &p); err != nil {
		writeErr(w, http.StatusInternalServerError, 2, "error calculating merge patch: "+err.Error())
		return
	}
	s.withApp(w, r, name, "update", func(existing map[string]any) {
		for _, k := range []string{"metadata", "spec"} {
			if v, ok := p[k]; ok {
				existing[k] = mergePatch(existing[k], v)
			}
		}
		s.bump(existing)
		writeJSON(w, http.StatusOK, existing)
	})
}

// mergePatch applies RFC 7386: objects merge key by key, null removes,
// anything else replaces.
func mergePatch(target, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	tm, ok := target.(map[string]any)
	if !ok {
		tm = map[string]any{}
	}
	for k, v := range pm {
		if v == nil {
			delete(tm, k)
			continue
		}
		tm[k] = mergePatch(tm[k], v)
	}
	return tm
}

func (s *Server) store(app map[string]any) {
	md, _ := app["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		app["metadata"] = md
	}
	md["namespace"] = "argocd"
	s.bump(app)
	s.apps[md["name"].(string)] = app
}

func (s *Server) bump(app map[string]any) {
	s.version++
	app["metadata"].(map[string]any)["resourceVersion"] = strconv.Itoa(s.version)
}

func decode(w http.ResponseWriter, r *http.Request) (map[string]any, bool) {
	app := map[string]any{}
	if err := json.NewDecoder(r.Body).Decode(&app); err != nil {
		writeErr(w, http.StatusBadRequest, 3, "cannot decode body: "+err.Error())
		return nil, false
	}
	return app, true
}

func nested(m map[string]any, keys ...string) any {
	var cur any = m
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[k]
	}
	return cur
}

func deepCopy(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	out := map[string]any{}
	_ = json.Unmarshal(b, &out)
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeErr writes a grpc-gateway error body as Argo CD does.
func writeErr(w http.ResponseWriter, status, code int, msg string) {
	writeJSON(w, status, map[string]any{"error": msg, "code": code, "message": msg})
}

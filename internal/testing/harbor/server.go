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

// Package harbor is an in-process fake of the Harbor API v2.0 endpoints the
// registry client calls, faithful to their paths, basic auth, the
// X-Is-Resource-Name header, the double-encoded repository names (a "/" is
// sent as %252F) and the error body {"errors": [{"code", "message"}]}:
//
//	GET    /api/v2.0/projects/{project}                        404 when absent
//	POST   /api/v2.0/projects                                  201; 409 when it exists
//	PUT    /api/v2.0/projects/{project}                        metadata.public
//	POST   /api/v2.0/projects/{project}/immutabletagrules      201
//	GET    /api/v2.0/projects/{project}/repositories/{repo}    404 until a push
//	PUT    /api/v2.0/projects/{project}/repositories/{repo}    {"description"}
//	DELETE /api/v2.0/projects/{project}/repositories/{repo}    200
package harbor

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/freeleaps/provider-devops/internal/testing/httpfail"
)

// Project is a stored project.
type Project struct {
	Name           string            `json:"name"`
	Metadata       map[string]string `json:"metadata"`
	CreationTime   time.Time         `json:"creation_time"`
	StorageLimit   int64             `json:"-"`
	ImmutableRules int               `json:"-"`
}

// Repository is a stored repository.
type Repository struct {
	Name          string    `json:"name"`
	Description   string    `json:"description"`
	ArtifactCount int64     `json:"artifact_count"`
	CreationTime  time.Time `json:"creation_time"`
	UpdateTime    time.Time `json:"update_time"`
}

// Server is a running fake.
type Server struct {
	*httptest.Server
	httpfail.Injector
	// Counter counts authenticated requests by method (Count, ResetCounts).
	httpfail.Counter
	user, password string
	// ReadOnly makes every write answer 403, as for a robot account
	// without project-admin rights.
	ReadOnly bool

	mu       sync.Mutex
	projects map[string]*Project
	repos    map[string]*Repository // "project/repo"
}

// New starts a fake for user:password.
func New(user, password string) *Server {
	s := &Server{user: user, password: password, projects: map[string]*Project{}, repos: map[string]*Repository{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Project returns a copy of a project, or nil.
func (s *Server) Project(name string) *Project {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.projects[name]
	if !ok {
		return nil
	}
	c := *p
	return &c
}

// AddProject creates a project, as a Harbor administrator would have an
// hour ago.
func (s *Server) AddProject(name string, public bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.projects[name] = &Project{Name: name, Metadata: map[string]string{"public": fmt.Sprint(public)}, CreationTime: time.Now().UTC().Add(-time.Hour)}
}

// SetPublic changes a project's visibility, as a user would in Harbor's UI.
func (s *Server) SetPublic(name string, public bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.projects[name]; ok {
		p.Metadata["public"] = fmt.Sprint(public)
	}
}

// Push records n artifacts pushed to project/repo, as docker push would.
func (s *Server) Push(project, repo string, n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := project + "/" + repo
	r, ok := s.repos[key]
	if !ok {
		r = &Repository{Name: key, CreationTime: time.Now().UTC()}
		s.repos[key] = r
	}
	r.ArtifactCount += n
	r.UpdateTime = time.Now().UTC().Truncate(time.Second)
}

// Repository returns a copy of project/repo, or nil.
func (s *Server) Repository(project, repo string) *Repository {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.repos[project+"/"+repo]
	if !ok {
		return nil
	}
	c := *r
	return &c
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func harborError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"errors": []map[string]string{{"code": code, "message": msg}}})
}

func failure(w http.ResponseWriter, status int) {
	code := map[int]string{http.StatusTooManyRequests: "TOO_MANY_REQUESTS", http.StatusServiceUnavailable: "SERVICE_UNAVAILABLE"}[status]
	if code == "" {
		code = "UNKNOWN"
	}
	harborError(w, status, code, strings.ToLower(http.StatusText(status)))
}

var projectName = regexp.MustCompile(`^[a-z0-9]+(?:[._-][a-z0-9]+)*$`)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if u, p, ok := r.BasicAuth(); !ok || u != s.user || p != s.password {
		harborError(w, http.StatusUnauthorized, "UNAUTHORIZED", "unauthorized")
		return
	}
	if s.Serve(w, failure) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Counted(r.Method)
	if s.ReadOnly && r.Method != http.MethodGet {
		harborError(w, http.StatusForbidden, "FORBIDDEN", "forbidden")
		return
	}
	// r.URL.Path is decoded once, as Harbor's router decodes it: a
	// repository name sent as %252F arrives as %2F and stays one segment.
	p := strings.Split(strings.TrimPrefix(r.URL.Path, "/api/v2.0/"), "/")
	switch {
	case len(p) == 1 && p[0] == "projects" && r.Method == http.MethodPost:
		s.createProject(w, r)
	case len(p) == 2 && p[0] == "projects":
		s.project(w, r, p[1])
	case len(p) == 3 && p[0] == "projects" && p[2] == "immutabletagrules" && r.Method == http.MethodPost:
		prj, ok := s.projects[p[1]]
		if !ok {
			harborError(w, http.StatusNotFound, "NOT_FOUND", "project "+p[1]+" not found")
			return
		}
		prj.ImmutableRules++
		w.WriteHeader(http.StatusCreated)
	case len(p) == 4 && p[0] == "projects" && p[2] == "repositories":
		s.repository(w, r, p[1], p[3])
	default:
		harborError(w, http.StatusNotFound, "NOT_FOUND", "the requested resource was not found")
	}
}

func (s *Server) createProject(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Name         string            `json:"project_name"`
		Metadata     map[string]string `json:"metadata"`
		StorageLimit *int64            `json:"storage_limit"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || !projectName.MatchString(in.Name) {
		harborError(w, http.StatusBadRequest, "BAD_REQUEST", "validation failure: project_name in body should match '^[a-z0-9]+(?:[._-][a-z0-9]+)*$'")
		return
	}
	if _, ok := s.projects[in.Name]; ok {
		harborError(w, http.StatusConflict, "CONFLICT", "The project named "+in.Name+" already exists")
		return
	}
	prj := &Project{Name: in.Name, Metadata: map[string]string{"public": "false"}, StorageLimit: -1, CreationTime: time.Now().UTC()}
	if v := in.Metadata["public"]; v != "" {
		prj.Metadata["public"] = v
	}
	if in.StorageLimit != nil {
		prj.StorageLimit = *in.StorageLimit
	}
	s.projects[in.Name] = prj
	w.Header().Set("Location", "/api/v2.0/projects/"+in.Name)
	w.WriteHeader(http.StatusCreated)
}

func (s *Server) project(w http.ResponseWriter, r *http.Request, name string) {
	prj, ok := s.projects[name]
	if !ok {
		harborError(w, http.StatusNotFound, "NOT_FOUND", "project "+name+" not found")
		return
	}
	switch r.Method {
	case http.MethodGet:
		writeJSON(w, http.StatusOK, prj)
	case http.MethodPut:
		var in struct {
			Metadata map[string]string `json:"metadata"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			harborError(w, http.StatusBadRequest, "BAD_REQUEST", "invalid body")
			return
		}
		for k, v := range in.Metadata {
			prj.Metadata[k] = v
		}
		w.WriteHeader(http.StatusOK)
	default:
		harborError(w, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "method not allowed")
	}
}

func (s *Server) repository(w http.ResponseWriter, r *http.Request, project, escaped string) {
	name, err := url.PathUnescape(escaped)
	if err != nil {
		harborError(w, http.StatusBadRequest, "BAD_REQUEST", "invalid repository name")
		return
	}
	if _, ok := s.projects[project]; !ok {
		harborError(w, http.StatusNotFound, "NOT_FOUND", "project "+project+" not found")
		return
	}
	key := project + "/" + name
	repo, ok := s.repos[key]
	if !ok {
		harborError(w, http.StatusNotFound, "NOT_FOUND", "repository "+key+" not found")
		return
	}
	switch r.Method {
	case http.MethodGet:
		writeJSON(w, http.StatusOK, repo)
	case http.MethodPut:
		var in struct {
			Description *string `json:"description"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			harborError(w, http.StatusBadRequest, "BAD_REQUEST", "invalid body")
			return
		}
		if in.Description != nil {
			repo.Description = *in.Description
		}
		w.WriteHeader(http.StatusOK)
	case http.MethodDelete:
		delete(s.repos, key)
		w.WriteHeader(http.StatusOK)
	default:
		harborError(w, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "method not allowed")
	}
}

// SetDescription sets a repository's description, as a user would in
// Harbor's UI.
func (s *Server) SetDescription(project, repo, description string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.repos[project+"/"+repo]; ok {
		r.Description = description
	}
}

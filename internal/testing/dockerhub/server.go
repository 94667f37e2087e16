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

// Package dockerhub is an in-process fake of the Docker Hub API endpoints the
// registry client calls, faithful to their paths, bearer auth and error
// bodies ({"message", "errinfo"}; {"detail"} from auth):
//
//	POST   /v2/auth/token                               {"identifier","secret"} -> {"access_token"}
//	POST   /v2/namespaces/{ns}/repositories             201; 409 when it exists
//	GET    /v2/namespaces/{ns}/repositories/{repo}      404 when absent
//	PATCH  /v2/repositories/{ns}/{repo}/                {"description", "full_description"}
//	POST   /v2/repositories/{ns}/{repo}/privacy/        {"is_private"}
//	DELETE /v2/repositories/{ns}/{repo}/                202
//
// A token is valid until ExpireTokens; namespaces other than the ones the
// account may write answer 403.
package dockerhub

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/freeleaps/provider-devops/internal/testing/httpfail"
)

// Repo is a stored repository.
type Repo struct {
	Name        string `json:"name"`
	Namespace   string `json:"namespace"`
	Description string `json:"description"`
	// FullDescription is the repository's README (markdown).
	FullDescription string    `json:"full_description"`
	IsPrivate       bool      `json:"is_private"`
	LastUpdated     time.Time `json:"last_updated"`
	Status          int       `json:"status"`
}

// Server is a running fake.
type Server struct {
	*httptest.Server
	httpfail.Injector
	// Counter counts authenticated requests by method (Count, ResetCounts).
	httpfail.Counter
	user, secret string
	writable     map[string]bool

	mu     sync.Mutex
	tokens map[string]bool
	repos  map[string]*Repo
	logins int
}

// New starts a fake for one account (user with access token secret) that
// may write to its own namespace and to orgs.
func New(user, secret string, orgs ...string) *Server {
	s := &Server{user: user, secret: secret, writable: map[string]bool{user: true}, tokens: map[string]bool{}, repos: map[string]*Repo{}}
	for _, o := range orgs {
		s.writable[o] = true
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Logins is how many tokens were issued.
func (s *Server) Logins() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logins
}

// ResetCounts zeroes the counters and the login count.
func (s *Server) ResetCounts() {
	s.Counter.ResetCounts()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logins = 0
}

// ExpireTokens makes every issued token invalid, as time would.
func (s *Server) ExpireTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens = map[string]bool{}
}

// Repo returns a copy of ns/name, or nil.
func (s *Server) Repo(ns, name string) *Repo {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.repos[ns+"/"+name]
	if !ok {
		return nil
	}
	c := *r
	return &c
}

// Put stores a repository as if made on hub.docker.com.
func (s *Server) Put(r Repo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[r.Namespace+"/"+r.Name] = &r
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func message(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"message": msg, "errinfo": map[string]any{}})
}

func failure(w http.ResponseWriter, status int) {
	if status == http.StatusTooManyRequests {
		w.Header().Set("X-RateLimit-Remaining", "0")
		message(w, status, "Too Many Requests")
		return
	}
	message(w, status, http.StatusText(status))
}

var validName = regexp.MustCompile(`^[a-z0-9]+(?:[._-][a-z0-9]+)*$`)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.Serve(w, failure) {
		return
	}
	if r.URL.Path == "/v2/auth/token" && r.Method == http.MethodPost {
		s.login(w, r)
		return
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ok || !s.tokens[tok] {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"detail": "Authentication credentials were not provided or the token has expired."})
		return
	}
	s.Counted(r.Method)
	p := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case len(p) == 4 && p[0] == "v2" && p[1] == "namespaces" && p[3] == "repositories" && r.Method == http.MethodPost:
		s.create(w, r, p[2])
	case len(p) == 5 && p[0] == "v2" && p[1] == "namespaces" && p[3] == "repositories" && r.Method == http.MethodGet:
		if repo, ok := s.repos[p[2]+"/"+p[4]]; ok {
			writeJSON(w, http.StatusOK, repo)
			return
		}
		message(w, http.StatusNotFound, "object not found")
	case len(p) >= 4 && p[0] == "v2" && p[1] == "repositories":
		s.repository(w, r, p[2], p[3], p[4:])
	default:
		message(w, http.StatusNotFound, "page not found")
	}
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Identifier string `json:"identifier"`
		Secret     string `json:"secret"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Identifier == "" || in.Secret == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"message": "identifier and secret are required"})
		return
	}
	if in.Identifier != s.user || in.Secret != s.secret {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"detail": "Incorrect authentication credentials", "message": "Incorrect authentication credentials"})
		return
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	tok := "dckr_jwt_" + hex.EncodeToString(b)
	s.mu.Lock()
	s.tokens[tok] = true
	s.logins++
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]string{"access_token": tok})
}

func (s *Server) create(w http.ResponseWriter, r *http.Request, ns string) {
	if !s.writable[ns] {
		message(w, http.StatusForbidden, "You do not have permission to create repositories in this namespace")
		return
	}
	var in Repo
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		message(w, http.StatusBadRequest, "Invalid JSON")
		return
	}
	if !validName.MatchString(in.Name) || len(in.Name) < 2 || len(in.Name) > 255 {
		writeJSON(w, http.StatusBadRequest, map[string]any{"message": "Invalid repository name", "errinfo": map[string]any{"name": []string{"Enter a valid value."}}})
		return
	}
	if len(in.Description) > 100 {
		writeJSON(w, http.StatusBadRequest, map[string]any{"message": "Invalid description", "errinfo": map[string]any{"description": []string{"Ensure this field has no more than 100 characters."}}})
		return
	}
	key := ns + "/" + in.Name
	if _, ok := s.repos[key]; ok {
		message(w, http.StatusConflict, "Repository with this Name and Namespace already exists.")
		return
	}
	in.Namespace, in.Status, in.LastUpdated = ns, 1, time.Now().UTC().Truncate(time.Second)
	s.repos[key] = &in
	writeJSON(w, http.StatusCreated, in)
}

func (s *Server) repository(w http.ResponseWriter, r *http.Request, ns, name string, rest []string) {
	repo, ok := s.repos[ns+"/"+name]
	if !ok {
		message(w, http.StatusNotFound, "object not found")
		return
	}
	if !s.writable[ns] {
		message(w, http.StatusForbidden, "You do not have permission to perform this action")
		return
	}
	switch {
	case len(rest) == 0 && r.Method == http.MethodPatch:
		var in struct {
			Description     *string `json:"description"`
			FullDescription *string `json:"full_description"`
		}
		_ = json.NewDecoder(r.Body).Decode(&in)
		if in.Description != nil && len(*in.Description) > 100 {
			writeJSON(w, http.StatusBadRequest, map[string]any{"message": "Invalid description", "errinfo": map[string]any{"description": []string{"Ensure this field has no more than 100 characters."}}})
			return
		}
		if in.Description != nil {
			repo.Description = *in.Description
		}
		if in.FullDescription != nil {
			repo.FullDescription = *in.FullDescription
		}
		writeJSON(w, http.StatusOK, repo)
	case len(rest) == 1 && rest[0] == "privacy" && r.Method == http.MethodPost:
		var in struct {
			IsPrivate bool `json:"is_private"`
		}
		_ = json.NewDecoder(r.Body).Decode(&in)
		repo.IsPrivate = in.IsPrivate
		writeJSON(w, http.StatusOK, map[string]bool{"is_private": repo.IsPrivate})
	case len(rest) == 0 && r.Method == http.MethodDelete:
		delete(s.repos, ns+"/"+name)
		w.WriteHeader(http.StatusAccepted)
	default:
		message(w, http.StatusMethodNotAllowed, "Method not allowed")
	}
}

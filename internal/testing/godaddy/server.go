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

// Package godaddy is an in-process fake of the GoDaddy Domains API v1 record
// endpoints, faithful to their paths, the "sso-key key:secret" header, the
// JSON shapes, the 600 s minimum TTL and the error bodies ({"code",
// "message", "fields"}; "retryAfterSec" on 429):
//
//	GET    /v1/domains/{domain}/records?offset={page}&limit={n}
//	GET    /v1/domains/{domain}/records/{type}/{name}
//	PUT    /v1/domains/{domain}/records/{type}/{name}   replaces the record set
//	DELETE /v1/domains/{domain}/records/{type}/{name}   204, 404 when absent
package godaddy

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/freeleaps/provider-devops/internal/testing/httpfail"
)

// Record is GoDaddy's DNSRecord.
type Record struct {
	Type     string `json:"type"`
	Name     string `json:"name"`
	Data     string `json:"data"`
	TTL      int    `json:"ttl"`
	Priority *int   `json:"priority,omitempty"`
	Weight   *int   `json:"weight,omitempty"`
	Port     *int   `json:"port,omitempty"`
	Service  string `json:"service,omitempty"`
	Protocol string `json:"protocol,omitempty"`
}

// Server is a running fake.
type Server struct {
	*httptest.Server
	// Injector makes requests fail on command; 429s carry retryAfterSec.
	httpfail.Injector
	// Counter counts authenticated requests by method (Count, ResetCounts).
	httpfail.Counter
	auth string

	mu      sync.Mutex
	domains map[string][]Record
}

// New starts a fake serving domains for the API key key:secret.
func New(key, secret string, domains ...string) *Server {
	s := &Server{auth: "sso-key " + key + ":" + secret, domains: map[string][]Record{}}
	for _, d := range domains {
		s.domains[d] = nil
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Put replaces a record set, as someone using GoDaddy's console would.
func (s *Server) Put(domain, typ, name string, recs ...Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replace(domain, typ, name, recs)
}

// Values returns the data of a record set, sorted.
func (s *Server) Values(domain, typ, name string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.domains[domain] {
		if r.Type == typ && r.Name == name {
			out = append(out, r.Data)
		}
	}
	sort.Strings(out)
	return out
}

// Records returns a copy of every record of domain.
func (s *Server) Records(domain string) []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Record(nil), s.domains[domain]...)
}

func (s *Server) replace(domain, typ, name string, recs []Record) {
	var keep []Record
	for _, r := range s.domains[domain] {
		if r.Type != typ || r.Name != name {
			keep = append(keep, r)
		}
	}
	for _, r := range recs {
		r.Type, r.Name = typ, name
		keep = append(keep, r)
	}
	s.domains[domain] = keep
}

type apiError struct {
	Code          string  `json:"code"`
	Message       string  `json:"message"`
	Fields        []field `json:"fields,omitempty"`
	RetryAfterSec int     `json:"retryAfterSec,omitempty"`
}

type field struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Path    string `json:"path"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func failure(w http.ResponseWriter, status int) {
	e := apiError{Code: "INTERNAL_SERVER_ERROR", Message: "An internal error occurred"}
	switch status {
	case http.StatusTooManyRequests:
		e = apiError{Code: "TOO_MANY_REQUESTS", Message: "Too many requests received within interval"}
		if s, err := strconv.Atoi(w.Header().Get("Retry-After")); err == nil {
			e.RetryAfterSec = s
		}
	case http.StatusServiceUnavailable, http.StatusBadGateway, http.StatusGatewayTimeout:
		e = apiError{Code: "SERVICE_UNAVAILABLE", Message: "The service is temporarily unavailable"}
	}
	writeJSON(w, status, e)
}

var writable = map[string]bool{"A": true, "AAAA": true, "CNAME": true, "MX": true, "NS": true, "SOA": true, "SRV": true, "TXT": true, "CAA": true}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	switch h := r.Header.Get("Authorization"); {
	case h == "":
		writeJSON(w, http.StatusUnauthorized, apiError{Code: "MALFORMED_CREDENTIALS", Message: "Unauthorized : Credentials must be specified"})
		return
	case h != s.auth:
		writeJSON(w, http.StatusUnauthorized, apiError{Code: "UNABLE_TO_AUTHENTICATE", Message: "Unauthorized : Could not authenticate API key/secret"})
		return
	}
	if s.Serve(w, failure) {
		return
	}
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/v1/domains/"), "/")
	if !strings.HasPrefix(r.URL.Path, "/v1/domains/") || len(parts) < 2 || parts[1] != "records" {
		writeJSON(w, http.StatusNotFound, apiError{Code: "NOT_FOUND", Message: "The requested resource was not found"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Counted(r.Method)
	domain := parts[0]
	recs, ok := s.domains[domain]
	if !ok {
		writeJSON(w, http.StatusNotFound, apiError{Code: "UNKNOWN_DOMAIN", Message: fmt.Sprintf("The given domain is not registered, or does not have a zone file: %s", domain)})
		return
	}
	switch {
	case len(parts) == 2 && r.Method == http.MethodGet:
		s.list(w, r, recs)
	case len(parts) == 4 && r.Method == http.MethodGet:
		out := []Record{}
		for _, rec := range recs {
			if rec.Type == parts[2] && rec.Name == parts[3] {
				out = append(out, rec)
			}
		}
		writeJSON(w, http.StatusOK, out)
	case len(parts) == 4 && r.Method == http.MethodPut:
		s.put(w, r, domain, parts[2], parts[3])
	case len(parts) == 4 && r.Method == http.MethodDelete:
		n := len(recs)
		s.replace(domain, parts[2], parts[3], nil)
		if len(s.domains[domain]) == n {
			writeJSON(w, http.StatusNotFound, apiError{Code: "NOT_FOUND", Message: fmt.Sprintf("No records found for type %s and name %s", parts[2], parts[3])})
			return
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		writeJSON(w, http.StatusMethodNotAllowed, apiError{Code: "METHOD_NOT_ALLOWED", Message: "Method not allowed"})
	}
}

// list pages the way GoDaddy does: offset is a page number, and a page past
// the last one answers 422.
func (s *Server) list(w http.ResponseWriter, r *http.Request, recs []Record) {
	page, limit := 1, 0
	if v := r.URL.Query().Get("offset"); v != "" {
		page, _ = strconv.Atoi(v)
	}
	if v := r.URL.Query().Get("limit"); v != "" {
		limit, _ = strconv.Atoi(v)
	}
	if page < 1 || limit < 0 {
		writeJSON(w, http.StatusUnprocessableEntity, apiError{Code: "INVALID_QUERY", Message: "offset and limit must be positive"})
		return
	}
	if limit == 0 {
		limit = len(recs) + 1
	}
	start := (page - 1) * limit
	if start >= len(recs) && page > 1 {
		writeJSON(w, http.StatusUnprocessableEntity, apiError{Code: "INVALID_QUERY", Message: "offset is past the last page"})
		return
	}
	out := []Record{}
	for i := start; i < len(recs) && i < start+limit; i++ {
		out = append(out, recs[i])
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) put(w http.ResponseWriter, r *http.Request, domain, typ, name string) {
	var body []Record
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Code: "INVALID_BODY", Message: "Request body doesn't fulfill schema, see details in `fields`", Fields: []field{{Code: "UNEXPECTED_TYPE", Message: "is not a valid array", Path: "records"}}})
		return
	}
	var bad []field
	if !writable[typ] {
		bad = append(bad, field{Code: "UNEXPECTED_VALUE", Message: "type is not one of the allowed values", Path: "type"})
	}
	if len(body) == 0 {
		bad = append(bad, field{Code: "MISSING_VALUE", Message: "at least one record is required", Path: "records"})
	}
	for i, rec := range body {
		p := fmt.Sprintf("records[%d]", i)
		if rec.Data == "" {
			bad = append(bad, field{Code: "MISSING_VALUE", Message: "is required", Path: p + ".data"})
		}
		if rec.TTL != 0 && rec.TTL < 600 {
			bad = append(bad, field{Code: "UNEXPECTED_VALUE", Message: "must be greater than or equal to 600", Path: p + ".ttl"})
		}
		if (typ == "MX" || typ == "SRV") && rec.Priority == nil {
			bad = append(bad, field{Code: "MISSING_VALUE", Message: "is required", Path: p + ".priority"})
		}
		if typ == "CNAME" && len(body) > 1 {
			bad = append(bad, field{Code: "UNEXPECTED_VALUE", Message: "a CNAME record set holds one record", Path: p})
		}
	}
	if len(bad) > 0 {
		writeJSON(w, http.StatusUnprocessableEntity, apiError{Code: "INVALID_BODY", Message: "Request body doesn't fulfill schema, see details in `fields`", Fields: bad})
		return
	}
	for i := range body {
		if body[i].TTL == 0 {
			body[i].TTL = 3600
		}
	}
	s.replace(domain, typ, name, body)
	w.WriteHeader(http.StatusOK)
}

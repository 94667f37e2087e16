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

package controller_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// countingTransport counts the provider's requests to the API server, by
// verb and resource ("POST events", "PUT jenkinspipelines/status", ...).
type countingTransport struct {
	rt    http.RoundTripper
	reads atomic.Int64
	write atomic.Int64
	mu    sync.Mutex
	by    map[string]int64
	// ok counts the requests the API server accepted (2xx), by verb and
	// resource: not the conflicts a stale cache makes and retries, nor an
	// Update that changed nothing, of which the API server makes no write
	// (noop counts those).
	ok   map[string]int64
	noop map[string]int64
	// creating counts the status writes that carry a Ready condition of
	// reason Creating.
	creating atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet {
		c.reads.Add(1)
	} else {
		c.write.Add(1)
	}
	c.mu.Lock()
	if c.by == nil {
		c.by = map[string]int64{}
	}
	key := r.Method + " " + resourceOf(r.URL.Path)
	c.by[key]++
	c.mu.Unlock()
	var sent string
	if r.Method == http.MethodPut && r.Body != nil {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		if strings.HasSuffix(r.URL.Path, "/status") && bytes.Contains(b, []byte(`"reason":"Creating"`)) {
			c.creating.Add(1)
		}
		sent = versionOf(b)
	}
	rsp, err := c.rt.RoundTrip(r)
	if err == nil && rsp.StatusCode < 300 {
		noop := false
		if sent != "" && rsp.Body != nil {
			b, rerr := io.ReadAll(rsp.Body)
			if rerr != nil {
				return nil, rerr
			}
			rsp.Body = io.NopCloser(bytes.NewReader(b))
			noop = versionOf(b) == sent
		}
		c.mu.Lock()
		if c.ok == nil {
			c.ok, c.noop = map[string]int64{}, map[string]int64{}
		}
		if noop {
			c.noop[key]++
		} else {
			c.ok[key]++
		}
		c.mu.Unlock()
	}
	return rsp, err
}

// versionOf is the metadata.resourceVersion of a JSON object.
func versionOf(b []byte) string {
	var o struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if json.Unmarshal(b, &o) != nil {
		return ""
	}
	return o.Metadata.ResourceVersion
}

// accepted is a copy of the accepted requests' counts.
func (c *countingTransport) accepted() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.ok)
}

// snapshot is a copy of the counts by verb and resource.
func (c *countingTransport) snapshot() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.by)
}

// resourceOf is the resource (and subresource) an API path names:
// /apis/g/v/namespaces/ns/things/name/status is "things/status".
func resourceOf(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) > 0 && parts[0] == "api":
		parts = parts[min(2, len(parts)):]
	case len(parts) > 0 && parts[0] == "apis":
		parts = parts[min(3, len(parts)):]
	}
	if len(parts) >= 2 && parts[0] == "namespaces" && len(parts) > 2 {
		parts = parts[2:]
	}
	switch len(parts) {
	case 0:
		return path
	case 1, 2:
		return parts[0]
	default:
		return parts[0] + "/" + parts[2]
	}
}

// breakdown is the counts that grew between two snapshots, per MR, most
// first: where the writes go.
func breakdown(before, after map[string]int64, per float64) string {
	type kv struct {
		k string
		v int64
	}
	var l []kv
	for k, v := range after {
		if d := v - before[k]; d > 0 {
			l = append(l, kv{k, d})
		}
	}
	sort.Slice(l, func(i, j int) bool { return l[i].v > l[j].v })
	var b strings.Builder
	for _, x := range l {
		fmt.Fprintf(&b, "  %-48s %8d  %6.2f per MR\n", x.k, x.v, float64(x.v)/per)
	}
	return b.String()
}

// countingProxy forwards to a fake backend and counts the requests.
type countingProxy struct {
	*httptest.Server
	n atomic.Int64
}

func newCountingProxy(b testing.TB, target string) *countingProxy {
	u, err := url.Parse(target)
	if err != nil {
		b.Fatal(err)
	}
	p := &countingProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.n.Add(1)
		rp.ServeHTTP(w, r)
	}))
	b.Cleanup(p.Close)
	return p
}

// externalNameField is the forProvider field naming each kind's external
// object, but ArgoApplication's, which is its metadata name.
var externalNameField = map[string]string{"JenkinsPipeline": "name", "DNSRecord": "name", "RegistryRepo": "name"}

// procStatusBytes is the field of a /proc status file, in bytes; 0 when it
// cannot be read.
func procStatusBytes(file, field string) int64 {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

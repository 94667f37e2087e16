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

// Package godaddy is a libdns provider for the GoDaddy Domains API v1
// (https://developer.godaddy.com/doc/endpoint/domains).
//
// It replaces github.com/libdns/godaddy v1.1.0, which this project cannot
// run in production: that package ignores the context and uses a client
// without a timeout (a hung API blocks a reconcile worker for good), writes
// one value per PUT so every value replaces the one before (an A record with
// two addresses ends with one), prints every call and record with
// log.Println, and has its host fixed (no OTE environment, no test server).
// This one sends a record set in one PUT, honours contexts and timeouts,
// logs nothing, and returns typed errors.
package godaddy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/retryafter"
	"github.com/libdns/libdns"
)

// DefaultURL is GoDaddy's production API.
const DefaultURL = "https://api.godaddy.com"

// pageSize is the largest page GoDaddy returns.
const pageSize = 500

// Provider manages records through the GoDaddy API.
type Provider struct {
	// URL of the API; DefaultURL when empty.
	URL string
	// Key and Secret of the API key ("sso-key key:secret").
	Key, Secret string
	// HTTP is the client; one with a 30 s timeout when nil.
	HTTP *http.Client
}

// record is GoDaddy's DNSRecord.
type record struct {
	Type     string `json:"type,omitempty"`
	Name     string `json:"name,omitempty"`
	Data     string `json:"data"`
	TTL      int    `json:"ttl,omitempty"`
	Priority *int   `json:"priority,omitempty"`
	Weight   *int   `json:"weight,omitempty"`
	Port     *int   `json:"port,omitempty"`
	Service  string `json:"service,omitempty"`
	Protocol string `json:"protocol,omitempty"`
}

// api names GoDaddy in errors.
var api = httpapi.Options{Backend: "GoDaddy", Section: "dns"} //nolint:gochecknoglobals // read-only names for errors, copied before use

// errorBody is GoDaddy's error answer.
type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Fields  []struct {
		Path    string `json:"path"`
		Message string `json:"message"`
	} `json:"fields"`
	// RetryAfterSec is the wait a 429 asks for, besides or instead of
	// the Retry-After header.
	RetryAfterSec int `json:"retryAfterSec"`
}

// decodeError reads a failed answer.
func decodeError(resp *http.Response) error {
	var body errorBody
	e := httpapi.FromResponse(resp, api, func(b []byte) string {
		if json.Unmarshal(b, &body) != nil {
			return ""
		}
		msg := strings.TrimSpace(body.Code + " " + body.Message)
		for _, f := range body.Fields {
			msg += fmt.Sprintf("; %s: %s", f.Path, f.Message)
		}
		return msg
	})
	e.Denied = "the API key may not manage this domain"
	if body.RetryAfterSec > 0 {
		e.RetryAfter = min(time.Duration(body.RetryAfterSec)*time.Second, retryafter.MaxWait)
	}
	return e
}

// MaxRecords bounds the records a zone read may carry, as for RFC 2136
// (dns.MaxZoneRecords): the API's URL is a ProviderConfig's to set, and a
// server that answers full pages for ever must not fill the provider's
// memory.
const MaxRecords = 200_000

// errTooManyRecords is a terminal error: the same zone answers the same.
type errTooManyRecords struct{ domain string }

func (e errTooManyRecords) Error() string {
	return fmt.Sprintf("the records of %s run past %d: the server is not one this provider can manage a zone on", e.domain, MaxRecords)
}

// Terminal is true: reading again gets the same.
func (e errTooManyRecords) Terminal() bool { return true }

// GetRecords lists every record of the zone, page by page. GoDaddy reads
// offset as a page number and answers 422 past the last page.
func (p *Provider) GetRecords(ctx context.Context, zone string) ([]libdns.Record, error) {
	domain := domainOf(zone)
	var out []libdns.Record
	for page := 1; ; page++ {
		var recs []record
		q := url.Values{"offset": {strconv.Itoa(page)}, "limit": {strconv.Itoa(pageSize)}}
		err := p.do(ctx, http.MethodGet, "/v1/domains/"+url.PathEscape(domain)+"/records?"+q.Encode(), nil, &recs)
		if page > 1 && httpapi.StatusOf(err) == http.StatusUnprocessableEntity {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(out)+len(recs) > MaxRecords {
			return nil, errTooManyRecords{domain: domain}
		}
		for _, r := range recs {
			out = append(out, r.toRR(domain))
		}
		if len(recs) < pageSize {
			break
		}
	}
	return out, nil
}

// SetRecords makes each named record set (name and type) hold exactly the
// given records: one PUT per record set.
func (p *Provider) SetRecords(ctx context.Context, zone string, recs []libdns.Record) ([]libdns.Record, error) {
	domain := domainOf(zone)
	var done []libdns.Record
	for _, set := range group(recs) {
		body := make([]record, 0, len(set.recs))
		for _, r := range set.recs {
			gr, err := fromRR(r, domain)
			if err != nil {
				return done, err
			}
			body = append(body, gr)
		}
		if err := p.do(ctx, http.MethodPut, rrsetPath(domain, set.typ, set.name), body, nil); err != nil {
			return done, err
		}
		for _, r := range set.recs {
			done = append(done, r)
		}
	}
	return done, nil
}

// DeleteRecords removes the given records. A record with empty data removes
// every value of its name and type. Values that remain in a record set are
// written back in one PUT; an emptied record set is deleted.
func (p *Provider) DeleteRecords(ctx context.Context, zone string, recs []libdns.Record) ([]libdns.Record, error) {
	domain := domainOf(zone)
	var done []libdns.Record
	for _, set := range group(recs) {
		path := rrsetPath(domain, set.typ, set.name)
		var have []record
		if err := p.do(ctx, http.MethodGet, path, nil, &have); err != nil {
			return done, err
		}
		drop := map[string]bool{}
		for _, r := range set.recs {
			if r.Data == "" {
				drop[""] = true
				continue
			}
			gr, err := fromRR(r, domain)
			if err != nil {
				return done, err
			}
			drop[gr.key(set.typ)] = true
		}
		var keep []record
		for _, h := range have {
			if drop[""] || drop[h.key(set.typ)] {
				done = append(done, h.toRR(domain))
				continue
			}
			h.Type, h.Name = "", ""
			keep = append(keep, h)
		}
		switch {
		case len(keep) == len(have):
			continue // nothing of ours is there
		case len(keep) == 0:
			err := p.do(ctx, http.MethodDelete, path, nil, nil)
			if err != nil && !httpapi.IsNotFound(err) {
				return done, err
			}
		default:
			if err := p.do(ctx, http.MethodPut, path, keep, nil); err != nil {
				return done, err
			}
		}
	}
	return done, nil
}

type rrset struct {
	name, typ string
	recs      []libdns.RR
}

// group collects records by name and type, in a stable order.
func group(recs []libdns.Record) []rrset {
	idx := map[string]int{}
	var out []rrset
	for _, r := range recs {
		rr := r.RR()
		rr.Name = nameOf(rr.Name)
		k := rr.Name + "/" + rr.Type
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, rrset{name: rr.Name, typ: rr.Type})
		}
		out[i].recs = append(out[i].recs, rr)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].name+out[i].typ < out[j].name+out[j].typ })
	return out
}

func rrsetPath(domain, typ, name string) string {
	return "/v1/domains/" + url.PathEscape(domain) + "/records/" + url.PathEscape(typ) + "/" + url.PathEscape(name)
}

func domainOf(zone string) string { return strings.ToLower(strings.TrimSuffix(zone, ".")) }

// nameOf is GoDaddy's relative name: "@" for the apex.
func nameOf(n string) string {
	if n = strings.TrimSuffix(n, "."); n == "" {
		return "@"
	}
	return n
}

// toRR turns GoDaddy's record into libdns's presentation form: priority,
// weight and port go in front of the target, "@" targets become the domain.
func (r record) toRR(domain string) libdns.RR {
	data := r.Data
	if targetsHost(r.Type) && data == "@" {
		data = domain
	}
	switch r.Type {
	case typeMX:
		data = fmt.Sprintf("%d %s", deref(r.Priority), data)
	case typeSRV:
		data = fmt.Sprintf("%d %d %d %s", deref(r.Priority), deref(r.Weight), deref(r.Port), data)
	}
	return libdns.RR{Name: r.Name, Type: r.Type, TTL: time.Duration(r.TTL) * time.Second, Data: data}
}

// fromRR is the inverse of toRR. SRV records carry their service and
// protocol in the name's first labels (_sip._tcp.name).
func fromRR(rr libdns.RR, domain string) (record, error) {
	out := record{Data: rr.Data, TTL: int(rr.TTL / time.Second)}
	bad := func() (record, error) {
		return record{}, fmt.Errorf("cannot write %s record %q: GoDaddy needs %s", rr.Type, rr.Data, map[string]string{typeMX: `"priority host"`, typeSRV: `"priority weight port target"`}[rr.Type])
	}
	switch rr.Type {
	case typeMX:
		f := strings.Fields(rr.Data)
		if len(f) != 2 {
			return bad()
		}
		prio, err := strconv.Atoi(f[0])
		if err != nil {
			return bad()
		}
		out.Priority, out.Data = &prio, f[1]
	case typeSRV:
		f := strings.Fields(rr.Data)
		if len(f) != 4 {
			return bad()
		}
		var n [3]int
		for i := range n {
			v, err := strconv.Atoi(f[i])
			if err != nil {
				return bad()
			}
			n[i] = v
		}
		out.Priority, out.Weight, out.Port, out.Data = &n[0], &n[1], &n[2], f[3]
		labels := strings.SplitN(nameOf(rr.Name), ".", 3)
		if len(labels) < 2 {
			return record{}, fmt.Errorf("SRV record name %q must start with _service._protocol", rr.Name)
		}
		out.Service, out.Protocol = labels[0], labels[1]
	}
	if targetsHost(rr.Type) {
		out.Data = strings.TrimSuffix(out.Data, ".")
		if strings.EqualFold(out.Data, domain) {
			out.Data = "@"
		}
	}
	return out, nil
}

// key identifies a record's value within its record set.
// Host names compare without case; text does not.
func (r record) key(typ string) string {
	d := r.Data
	if targetsHost(typ) {
		d = strings.ToLower(strings.TrimSuffix(d, "."))
	}
	return fmt.Sprintf("%s|%d|%d|%d", d, deref(r.Priority), deref(r.Weight), deref(r.Port))
}

// Record types GoDaddy stores with a priority, weight or port apart.
const (
	typeMX  = "MX"
	typeSRV = "SRV"
)

// targetsHost is true for the record types whose value is a host name.
func targetsHost(typ string) bool {
	switch typ {
	case "CNAME", "NS", typeMX, typeSRV:
		return true
	}
	return false
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// do sends one request and decodes a JSON answer into out.
func (p *Provider) do(ctx context.Context, method, path string, in, out any) error {
	base := p.URL
	if base == "" {
		base = DefaultURL
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(base, "/")+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "sso-key "+p.Key+":"+p.Secret)
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := p.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: httpapi.DefaultTimeout}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return httpapi.Unreached(err, api)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return decodeError(resp)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return httpapi.Unreached(err, api)
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("cannot decode GoDaddy's answer to %s %s: %w", method, path, err)
		}
	}
	return nil
}

var (
	_ libdns.RecordGetter  = (*Provider)(nil)
	_ libdns.RecordSetter  = (*Provider)(nil)
	_ libdns.RecordDeleter = (*Provider)(nil)
)

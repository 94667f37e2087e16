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

// Package jenkins manages Pipeline jobs in Jenkins through its REST API,
// on package httpapi like the Argo CD client: bounded reads, Retry-After,
// errors classed as transient, terminal or denied. It renders and parses
// the job's config.xml itself.
//
// It used github.com/bndr/gojenkins until this package made only five
// calls through it (read and write config.xml, create an item, read JSON)
// and had to work around it for each: a transport faking the crumb issuer
// (the library fetches a crumb before every POST and dereferences a nil
// answer when that fails), a check of every status before the library
// decoded error pages as answers, its own POSTs where Jenkins answers with
// a redirect the library followed and decoded, an extra read after each
// create, and an overwrite of the library's package-level loggers, shared
// by every client in the process. With API-token authentication Jenkins
// needs no crumb (2.96+), so each call is one plain request here.
package jenkins

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	stdpath "path"
	"strconv"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/retryafter"
)

const (
	errBadURL         = "invalid Jenkins URL"
	errBadCredentials = `the Jenkins credentials must be JSON {"username": "...", "token": "<API token>"} with both fields set`
	errNotFolder      = "%q exists in Jenkins and is not a folder, so the job cannot be created inside it"
	errReadStatus     = "cannot read the job's build status"
	errReadQueue      = "cannot read the Jenkins queue"
	errReadConfig     = "cannot read the job's config.xml"
	errCreateFolder   = "cannot create folder %q"
	errRootMissing    = "the root folder %q does not exist in Jenkins: the provider creates folders only below it (spec.jenkins.rootFolder of the ProviderConfig); ask the Jenkins administrators to create it"
	errCreateJob      = "cannot create the job"
	errUpdateJob      = "cannot update the job's config.xml"
	errDeleteJob      = "cannot delete the job"
	errDeleteFolder   = "cannot delete folder %q"
	errBuild          = "cannot queue a build"
)

// Config of a Client.
type Config struct {
	URL      string
	Username string
	Token    string
	// TLS is how Jenkins' certificate is verified.
	TLS     httpapi.TLS
	Timeout time.Duration
	// Transport overrides the HTTP transport (tests).
	Transport http.RoundTripper
	// RetryAfter, when set, holds calls to a server that asked for a wait;
	// share one Gate between the clients of one controller.
	RetryAfter *retryafter.Gate
	// Transports, when set, is the controller's pool of HTTP transports
	// (connections reused across reconciles); nil: one of its own.
	Transports *httpapi.Transports
	// Root is a folder path the client never creates, nor any folder above
	// it: jobs and folders are made only below it. Empty: no root.
	Root string
}

// ParseCredentials reads the ProviderConfig's credentials JSON. Its errors
// never quote the secret.
func ParseCredentials(data []byte) (username, token string, err error) {
	var c struct {
		Username string `json:"username"`
		Token    string `json:"token"`
	}
	if json.Unmarshal(data, &c) != nil || strings.TrimSpace(c.Username) == "" || strings.TrimSpace(c.Token) == "" {
		return "", "", errors.New(errBadCredentials)
	}
	return strings.TrimSpace(c.Username), strings.TrimSpace(c.Token), nil
}

// Client manages Pipeline jobs on one Jenkins controller.
type Client struct {
	// http's transport turns every error status into an *httpapi.Error.
	http *http.Client
	// noRedirect sends the POSTs Jenkins answers with a redirect to an
	// HTML page (createItem?mode=, doDelete): that page is no answer.
	noRedirect            *http.Client
	base, username, token string
	root                  string
}

// New returns a client. It does no I/O.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimSuffix(cfg.URL, "/"))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, errors.New(errBadURL)
	}
	if cfg.Username == "" || cfg.Token == "" {
		return nil, errors.New(errBadCredentials)
	}
	o := api
	o.TLS, o.Timeout, o.Gate, o.Transport, o.Transports = cfg.TLS, cfg.Timeout, cfg.RetryAfter, cfg.Transport, cfg.Transports
	o.Identity = cfg.Username + "\x00" + cfg.Token
	hc, err := httpapi.NewClient(o)
	if err != nil {
		return nil, err
	}
	hc.Transport = transport{next: hc.Transport}
	noRedirect := *hc
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &Client{
		http: hc, noRedirect: &noRedirect, base: u.String(), username: cfg.Username, token: cfg.Token, root: strings.Trim(cfg.Root, "/"),
	}, nil
}

// do sends one request to endpoint (a path below the base URL) and returns
// the answer's body, which httpapi bounds. Error statuses come back as
// *httpapi.Error from the transport.
func (c *Client) do(ctx context.Context, method, endpoint string, query url.Values, contentType string, body []byte) ([]byte, error) {
	u := c.base + endpoint
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.SetBasicAuth(c.username, c.token)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	return io.ReadAll(resp.Body)
}

// xmlType is the content type of a config.xml sent to Jenkins.
const xmlType = "application/xml;charset=utf-8"

// createItem creates the item config describes, named name, in the folder
// dir ("" for the root).
func (c *Client) createItem(ctx context.Context, dir, name string, config []byte) error {
	_, err := c.do(ctx, http.MethodPost, parentEndpoint(parents(dir))+"/createItem", url.Values{"name": {name}}, xmlType, config)
	return err
}

// post sends a form POST whose success Jenkins answers with a redirect,
// and does not follow it. Error statuses come back as *httpapi.Error from the
// transport.
func (c *Client) post(ctx context.Context, endpoint string, form url.Values) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(c.username, c.token)
	resp, err := c.noRedirect.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	return resp.Body.Close()
}

// Job is what one observation of a Pipeline job returns.
type Job struct {
	Pipeline *Pipeline
	Status   Status
	// Config is config.xml as read, for Update to change only the
	// managed elements of it.
	Config []byte
}

// Status is the job's build state.
type Status struct {
	URL       string
	InQueue   bool
	LastBuild *Build
}

// Build is one run of the job.
type Build struct {
	Number    int64
	Result    string
	Building  bool
	URL       string
	Timestamp time.Time
}

// endpoint is the URL path of an item: a/b/c -> /job/a/job/b/job/c.
func endpoint(path string) string {
	return "/job/" + strings.ReplaceAll(path, "/", "/job/")
}

// parentEndpoint is the URL path of the folder made of segs, "" for the
// root.
func parentEndpoint(segs []string) string {
	if len(segs) == 0 {
		return ""
	}
	return endpoint(strings.Join(segs, "/"))
}

// folderClass is the item type of a folder (createItem's mode).
const folderClass = "com.cloudbees.hudson.plugins.folder.Folder"

// Get reads the job: its config.xml (the managed fields) and its build
// state. Jenkins serves those from two resources, so this is two requests.
func (c *Client) Get(ctx context.Context, path string) (*Job, error) {
	raw, err := c.do(ctx, http.MethodGet, endpoint(path)+"/config.xml", nil, "", nil)
	if err != nil {
		return nil, errors.Wrap(err, errReadConfig)
	}
	p, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	var st struct {
		URL       string `json:"url"`
		InQueue   bool   `json:"inQueue"`
		LastBuild *struct {
			Number    int64  `json:"number"`
			Result    string `json:"result"`
			Building  bool   `json:"building"`
			URL       string `json:"url"`
			Timestamp int64  `json:"timestamp"`
		} `json:"lastBuild"`
	}
	if err := c.getJSON(ctx, endpoint(path), "url,inQueue,lastBuild[number,result,building,url,timestamp]", &st); err != nil {
		return nil, errors.Wrap(err, errReadStatus)
	}
	job := &Job{Pipeline: p, Status: Status{URL: st.URL, InQueue: st.InQueue}, Config: raw}
	if b := st.LastBuild; b != nil {
		job.Status.LastBuild = &Build{Number: b.Number, Result: b.Result, Building: b.Building, URL: b.URL, Timestamp: time.UnixMilli(b.Timestamp).UTC()}
	}
	return job, nil
}

// Create creates the job, and first any missing folder on its path. It
// returns the folders it created so Delete can remove only those.
func (c *Client) Create(ctx context.Context, path string, p Pipeline) ([]string, error) {
	config, err := Render(p)
	if err != nil {
		return nil, err
	}
	dir, name := split(path)
	err = c.createItem(ctx, dir, name, config)
	if !IsNotFound(err) {
		return nil, errors.Wrap(err, errCreateJob)
	}
	// The parent folder is missing: create the folders, then the job.
	created, err := c.ensureFolders(ctx, dir)
	if err != nil {
		return created, err
	}
	return created, errors.Wrap(c.createItem(ctx, dir, name, config), errCreateJob)
}

func (c *Client) ensureFolders(ctx context.Context, dir string) ([]string, error) {
	var created []string
	segs := parents(dir)
	for i := range segs {
		folder := strings.Join(segs[:i+1], "/")
		var it struct {
			Class string `json:"_class"`
		}
		err := c.getJSON(ctx, endpoint(folder), "_class", &it)
		switch {
		case err == nil && !strings.Contains(it.Class, "Folder"):
			return created, errors.Errorf(errNotFolder, folder)
		case err == nil:
			continue
		case !IsNotFound(err):
			return created, errors.Wrapf(err, errCreateFolder, folder)
		case c.root != "" && !strings.HasPrefix(folder, c.root+"/"):
			return created, errors.Errorf(errRootMissing, c.root)
		}
		// The form Jenkins' "New Item" page posts: 302 to the folder's
		// configure page.
		form := url.Values{"name": {segs[i]}, "mode": {folderClass}}
		if err := c.post(ctx, parentEndpoint(segs[:i])+"/createItem", form); err != nil && !IsAlreadyExists(err) {
			return created, errors.Wrapf(err, errCreateFolder, folder)
		}
		created = append(created, folder)
	}
	return created, nil
}

// Below is true when path is root or inside it, segment by segment
// ("teams/shop2" is not below "teams/shop").
func Below(path, root string) bool {
	path, root = strings.Trim(path, "/"), strings.Trim(root, "/")
	return root == "" || path == root || strings.HasPrefix(path, root+"/")
}

// Update writes the job's config.xml with one POST: observed (the file as
// Get read it) with only the managed elements changed (Merge), so what
// others configured survives; nil observed writes p alone.
func (c *Client) Update(ctx context.Context, path string, p Pipeline, observed []byte) error {
	var (
		config []byte
		err    error
	)
	if observed != nil {
		config, err = Merge(observed, p)
	} else {
		config, err = Render(p)
	}
	if err != nil {
		return err
	}
	_, err = c.do(ctx, http.MethodPost, endpoint(path)+"/config.xml", nil, xmlType, config)
	return errors.Wrap(err, errUpdateJob)
}

// Delete deletes the job, then each folder in createdFolders (deepest
// first) that is now empty. A folder that holds anything else stays.
func (c *Client) Delete(ctx context.Context, path string, createdFolders []string) error {
	if err := c.post(ctx, endpoint(path)+"/doDelete", nil); err != nil && !IsNotFound(err) {
		return errors.Wrap(err, errDeleteJob)
	}
	for i := len(createdFolders) - 1; i >= 0; i-- {
		f := strings.Trim(createdFolders[i], "/")
		// The list comes from the resource's status, which its editors
		// can write: only a folder above this job and below the root is
		// ever deleted, and only a folder (a job has no jobs either).
		if !isAncestor(f, path) || (c.root != "" && !strings.HasPrefix(f, c.root+"/")) {
			continue
		}
		var it struct {
			Class string `json:"_class"`
			Jobs  []struct {
				Name string `json:"name"`
			} `json:"jobs"`
		}
		err := c.getJSON(ctx, endpoint(f), "jobs[name]", &it)
		if IsNotFound(err) {
			continue
		}
		if err != nil {
			return errors.Wrapf(err, errDeleteFolder, f)
		}
		if it.Class != folderClass || len(it.Jobs) > 0 {
			continue
		}
		if err := c.post(ctx, endpoint(f)+"/doDelete", nil); err != nil && !IsNotFound(err) {
			return errors.Wrapf(err, errDeleteFolder, f)
		}
	}
	return nil
}

// getJSON reads the fields tree names of a Jenkins JSON API resource into
// out.
func (c *Client) getJSON(ctx context.Context, path, tree string, out any) error {
	body, err := c.do(ctx, http.MethodGet, path+"/api/json", url.Values{"tree": {tree}}, "", nil)
	if err != nil {
		return err
	}
	return errors.Wrap(json.Unmarshal(body, out), "cannot decode Jenkins' answer")
}

// isJob is true when the absolute URL Jenkins gives for an item is job's:
// the whole path is compared (x/shop/prod is not shop/prod), not the host,
// which Jenkins writes from its own configured root URL.
// jobOf is the full path of the job at itemURL (…/job/a/job/b/), or ""
// when it is not a job's URL below this client's Jenkins.
func (c *Client) jobOf(itemURL string) string {
	u, err := url.Parse(itemURL)
	if err != nil {
		return ""
	}
	prefix := ""
	if base, err := url.Parse(c.base); err == nil {
		prefix = strings.TrimSuffix(base.Path, "/")
	}
	rest, ok := strings.CutPrefix(strings.TrimSuffix(u.Path, "/"), prefix+"/")
	if !ok {
		return ""
	}
	segs := strings.Split(rest, "/")
	if len(segs)%2 != 0 {
		return ""
	}
	var names []string
	for i := 0; i < len(segs); i += 2 {
		if segs[i] != "job" || segs[i+1] == "" {
			return ""
		}
		names = append(names, segs[i+1])
	}
	return strings.Join(names, "/")
}

func (c *Client) isJob(itemURL, job string) bool {
	u, err := url.Parse(itemURL)
	if err != nil {
		return false
	}
	base, _ := url.Parse(c.base)
	prefix := ""
	if base != nil {
		prefix = strings.TrimSuffix(base.Path, "/")
	}
	return strings.TrimSuffix(u.Path, "/") == prefix+endpoint(job)
}

// isAncestor is true when folder is a folder on job's path, above it.
func isAncestor(folder, job string) bool {
	return folder != "" && strings.HasPrefix(strings.Trim(job, "/"), folder+"/")
}

// Build queues one build with params overriding the job's parameter
// defaults (none: the defaults); parameterized says the job declares
// parameters. It returns the queue item id: a new one, or that of a queued
// build with the same parameters, which Jenkins merges the request into.
func (c *Client) Build(ctx context.Context, path string, parameterized bool, params map[string]string) (int64, error) {
	// Not gojenkins' BuildJob: it reads the job twice first and, when a
	// build is already queued, queues nothing and reports no error, so a
	// deploy of a new revision was dropped while an older one waited.
	// Jenkins itself merges a request into a queued item with the same
	// parameters (303 to it) and queues one with other parameters.
	ep := endpoint(path) + "/build"
	if parameterized {
		ep = endpoint(path) + "/buildWithParameters"
	}
	// Without a delay Jenkins holds the build for the job's quiet period
	// (5s by default), which exists to gather SCM commits into one build:
	// a deployment asked for now would wait it out for nothing. Jenkins
	// reads the query and the form as one list, so a build given a
	// parameter named delay keeps its value alone (two would be refused).
	if _, own := params["delay"]; !own {
		ep += "?delay=0sec"
	}
	form := url.Values{}
	for k, v := range params {
		form.Set(k, v)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+ep, strings.NewReader(form.Encode()))
	if err != nil {
		return 0, errors.Wrap(err, errBuild)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(c.username, c.token)
	resp, err := c.noRedirect.Do(req)
	if err != nil {
		err = httpapi.Unreached(err, api)
		if s := httpapi.StatusOf(err); s >= 400 && s < 500 {
			// Refused: Jenkins queued nothing.
			return 0, errors.Wrap(err, errBuild)
		}
		// No answer, or a 5xx from a proxy in front of Jenkins: Jenkins
		// may have queued the build before the connection failed.
		return 0, ambiguous{errors.Wrap(err, errBuild)}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusSeeOther && resp.StatusCode != http.StatusOK {
		return 0, errors.Errorf("%s: Jenkins answered %s", errBuild, resp.Status)
	}
	// A success without a queue item: queued, but which item is unknown.
	u, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return 0, ambiguous{errors.Wrap(err, errBuild)}
	}
	id, err := strconv.ParseInt(stdpath.Base(strings.TrimSuffix(u.Path, "/")), 10, 64)
	if err != nil {
		return 0, ambiguous{errors.Errorf("%s: no queue item in the answer's Location %q", errBuild, resp.Header.Get("Location"))}
	}
	return id, nil
}

// ambiguous is an error after which the request may have taken effect.
type ambiguous struct{ error }

func (a ambiguous) Unwrap() error { return a.error }

// IsAmbiguous is true for a Build error after which the build may have
// been queued (the request was sent and no answer came): check with
// FindBuild before queueing again.
func IsAmbiguous(err error) bool {
	var a ambiguous
	return errors.As(err, &a)
}

// buildParams is the parameters action of a queue item or build.
type buildActions []struct {
	Parameters []struct {
		Name  string `json:"name"`
		Value any    `json:"value"`
	} `json:"parameters"`
}

// carries is true when every one of params has its value in the actions.
func (a buildActions) carries(params map[string]string) bool {
	got := map[string]string{}
	for _, act := range a {
		for _, p := range act.Parameters {
			got[p.Name] = fmt.Sprint(p.Value)
		}
	}
	for k, v := range params {
		if got[k] != v {
			return false
		}
	}
	return true
}

// FindBuild reports where a build of the job with params is that Jenkins
// queued after build number after started: "queue" (an item waiting with
// those parameters, which Jenkins would have merged the request into), "#N"
// (a later build with them), or "" when there is none. Two reads: the
// queue, and the job's last builds.
func (c *Client) FindBuild(ctx context.Context, path string, params map[string]string, after int64) (string, error) {
	var q struct {
		Items []struct {
			Task    struct{ URL string } `json:"task"`
			Actions buildActions         `json:"actions"`
		} `json:"items"`
	}
	if err := c.getJSON(ctx, "/queue", "items[task[url],actions[parameters[name,value]]]", &q); err != nil {
		return "", errors.Wrap(err, errReadQueue)
	}
	for _, it := range q.Items {
		if c.isJob(it.Task.URL, path) && it.Actions.carries(params) {
			return "queue", nil
		}
	}
	var j struct {
		Builds []struct {
			Number  int64        `json:"number"`
			Actions buildActions `json:"actions"`
		} `json:"builds"`
	}
	if err := c.getJSON(ctx, endpoint(path), "builds[number,actions[parameters[name,value]]]{0,10}", &j); err != nil {
		return "", errors.Wrap(err, errReadStatus)
	}
	for _, b := range j.Builds {
		if b.Number > after && b.Actions.carries(params) {
			return fmt.Sprintf("#%d", b.Number), nil
		}
	}
	return "", nil
}

func split(path string) (dir, name string) {
	if i := strings.LastIndex(path, "/"); i >= 0 {
		return path[:i], path[i+1:]
	}
	return "", path
}

func parents(dir string) []string {
	if dir == "" {
		return nil
	}
	return strings.Split(dir, "/")
}

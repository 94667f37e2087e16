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

package jenkins_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
	fake "github.com/freeleaps/provider-devops/internal/testing/jenkins"
)

const (
	user  = "crossplane"
	token = "11aa-jenkins-api-token-never-printed"
)

func newClient(t *testing.T, url, tok string) *jenkins.Client {
	t.Helper()
	c, err := jenkins.New(jenkins.Config{URL: url, Username: user, Token: tok, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func pipeline() jenkins.Pipeline {
	return jenkins.Pipeline{
		Owner:       "ns/alpha",
		Description: "alpha",
		SCM:         &jenkins.SCM{URL: "https://git.example.com/shop.git", Branch: "main", ScriptPath: "Jenkinsfile", Lightweight: true},
		Parameters:  []jenkins.Parameter{{Name: "TAG", Default: "latest"}},
	}
}

func TestCreateGetUpdateDelete(t *testing.T) {
	srv := fake.New(user, token)
	defer srv.Close()
	c := newClient(t, srv.URL, token)
	ctx := context.Background()

	if _, err := c.Get(ctx, "team/shop/alpha"); !jenkins.IsNotFound(err) {
		t.Fatalf("a missing job must be NotFound, got %v", err)
	}

	created, err := c.Create(ctx, "team/shop/alpha", pipeline())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"team", "team/shop"}, created); diff != "" {
		t.Errorf("created folders: -want +got:\n%s", diff)
	}
	if !srv.IsFolder("team/shop") {
		t.Error("folder team/shop was not created as a folder")
	}
	cfg, _ := srv.Config("team/shop/alpha")
	if !strings.HasPrefix(cfg, "<?xml version='1.1'") {
		t.Errorf("the fake must store config.xml the way Jenkins rewrites it, got %.60q", cfg)
	}

	job, err := c.Get(ctx, "team/shop/alpha")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(jenkins.Normalize(pipeline()), jenkins.Normalize(*job.Pipeline)); diff != "" {
		t.Errorf("Get after Create: -want +got:\n%s", diff)
	}
	if want := srv.URL + "/job/team/job/shop/job/alpha/"; job.Status.URL != want || job.Status.LastBuild != nil || job.Status.InQueue {
		t.Errorf("status of a new job: got %+v, want URL %s and no build", job.Status, want)
	}

	// A second job in the same folder creates no folder.
	other := pipeline()
	other.Owner = "ns/beta"
	if created, err := c.Create(ctx, "team/shop/beta", other); err != nil || len(created) != 0 {
		t.Errorf("create in existing folders: created %v, err %v", created, err)
	}
	// Creating an existing job is reported as such, not overwritten.
	if _, err := c.Create(ctx, "team/shop/beta", pipeline()); !jenkins.IsAlreadyExists(err) {
		t.Errorf("duplicate create: want AlreadyExists, got %v", err)
	}

	changed := pipeline()
	changed.SCM.Branch = "release"
	if err := c.Update(ctx, "team/shop/alpha", changed, nil); err != nil {
		t.Fatal(err)
	}
	if job, _ := c.Get(ctx, "team/shop/alpha"); job.Pipeline.SCM.Branch != "*/release" {
		t.Errorf("update not applied: branch %q", job.Pipeline.SCM.Branch)
	}

	// Deleting alpha keeps the folders: beta still lives in team/shop.
	if err := c.Delete(ctx, "team/shop/alpha", []string{"team", "team/shop"}); err != nil {
		t.Fatal(err)
	}
	if srv.Exists("team/shop/alpha") || !srv.Exists("team/shop") {
		t.Errorf("delete must remove the job and keep a non-empty folder")
	}
	// Deleting beta (whose resource did not create the folders) keeps them.
	if err := c.Delete(ctx, "team/shop/beta", nil); err != nil {
		t.Fatal(err)
	}
	if !srv.Exists("team/shop") {
		t.Errorf("a folder this resource did not create must stay")
	}
	// Deleting again is fine and removes now-empty folders it created.
	if err := c.Delete(ctx, "team/shop/alpha", []string{"team", "team/shop"}); err != nil {
		t.Fatal(err)
	}
	if srv.Exists("team") {
		t.Errorf("empty folders this resource created must go")
	}
}

func TestCreateRefusesNonFolderParent(t *testing.T) {
	srv := fake.New(user, token)
	defer srv.Close()
	srv.SetConfig("team", "<?xml version='1.1' encoding='UTF-8'?><flow-definition><definition class='org.jenkinsci.plugins.workflow.cps.CpsFlowDefinition'><script>x</script></definition></flow-definition>")
	_, err := newClient(t, srv.URL, token).Create(context.Background(), "team/alpha", pipeline())
	if err == nil || !strings.Contains(err.Error(), `"team" exists in Jenkins and is not a folder`) {
		t.Errorf("want a not-a-folder error, got %v", err)
	}
}

func TestBuild(t *testing.T) {
	srv := fake.New(user, token)
	defer srv.Close()
	c := newClient(t, srv.URL, token)
	ctx := context.Background()
	if _, err := c.Create(ctx, "alpha", pipeline()); err != nil {
		t.Fatal(err)
	}
	id, err := c.Build(ctx, "alpha", true, nil)
	if err != nil || id == 0 {
		t.Fatalf("first build: id %d, err %v", id, err)
	}
	if id2, err := c.Build(ctx, "alpha", true, nil); err != nil || id2 != id {
		t.Errorf("a build like the queued one is merged into it by Jenkins (id %d), got %d, %v", id, id2, err)
	}
	if srv.Queued("alpha") != 1 {
		t.Errorf("want exactly one queued build, got %d", srv.Queued("alpha"))
	}
	if srv.Buildable("alpha") != 1 {
		t.Error("the build must skip the job's quiet period (delay=0sec): an executor may start it at once")
	}
	if job, _ := c.Get(ctx, "alpha"); !job.Status.InQueue {
		t.Error("status must show the queued build")
	}
	srv.RunQueue()
	srv.Finish("alpha", "SUCCESS")
	job, err := c.Get(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	b := job.Status.LastBuild
	if b == nil || b.Number != 1 || b.Result != "SUCCESS" || b.Building || b.URL != srv.URL+"/job/alpha/1/" || b.Timestamp.IsZero() {
		t.Errorf("last build: got %+v", b)
	}
	if got := srv.Builds("alpha")[0].Params.Get("TAG"); got != "" {
		t.Errorf("no parameter is sent: Jenkins applies the defaults, got TAG=%q", got)
	}
	// While a build waits, one with other parameters is queued as its own
	// item (a client that queues nothing while the job is in the queue
	// would drop it silently).
	first, _ := c.Build(ctx, "alpha", true, map[string]string{"TAG": "v1"})
	if second, err := c.Build(ctx, "alpha", true, map[string]string{"TAG": "v2"}); err != nil || second == first || second == 0 {
		t.Errorf("a build with other parameters is queued as its own item, got %d (first %d), %v", second, first, err)
	}
	if srv.Queued("alpha") != 2 {
		t.Errorf("want two queued builds, got %d", srv.Queued("alpha"))
	}
}

func TestErrors(t *testing.T) {
	cases := map[string]struct {
		reason    string
		setup     func(*fake.Server)
		tok       string
		url       string
		transient bool
		retry     time.Duration
		want      string
	}{
		"BadToken": {
			reason: "a wrong token says which setting to fix",
			tok:    "wrong", want: "401 Unauthorized",
		},
		"ServerError": {
			reason: "a 503 is transient and keeps Retry-After",
			setup:  func(s *fake.Server) { s.FailNext(1, http.StatusServiceUnavailable, 7) },
			tok:    token, transient: true, retry: 7 * time.Second, want: "Jenkins answered 503",
		},
		"TooManyRequests": {
			reason: "a 429 is transient",
			setup:  func(s *fake.Server) { s.FailNext(1, http.StatusTooManyRequests, 0) },
			tok:    token, transient: true, want: "Jenkins is rate limiting (429)",
		},
		"Unreachable": {
			reason: "a refused connection is transient, not a panic",
			url:    "http://127.0.0.1:1", tok: token, transient: true, want: "cannot reach Jenkins",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := fake.New(user, token)
			defer srv.Close()
			if tc.setup != nil {
				tc.setup(srv)
			}
			url := srv.URL
			if tc.url != "" {
				url = tc.url
			}
			c := newClient(t, url, tc.tok)
			// Create exercises a POST.
			_, err := c.Create(context.Background(), "alpha", pipeline())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%s: want error containing %q, got %v", tc.reason, tc.want, err)
			}
			if httpapi.IsTransient(err) != tc.transient || httpapi.RetryAfter(err) != tc.retry {
				t.Errorf("%s: transient %v retry %v, want %v %v", tc.reason, httpapi.IsTransient(err), httpapi.RetryAfter(err), tc.transient, tc.retry)
			}
			if strings.Contains(err.Error(), token) || strings.Contains(err.Error(), "wrong") {
				t.Errorf("the error leaks the credentials: %v", err)
			}
		})
	}
}

// TestFakeEnforcesCrumbForPasswordSessions: the fake, like Jenkins, lets
// API-token requests POST without a crumb and refuses password sessions
// that do not send one.
func TestFakeEnforcesCrumbForPasswordSessions(t *testing.T) {
	srv := fake.New(user, token)
	defer srv.Close()
	srv.SetPassword("pw")
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(secret string) int {
		req := httptest.NewRequest(http.MethodPost, srv.URL+"/createItem?name=x&mode=com.cloudbees.hudson.plugins.folder.Folder", nil)
		req.RequestURI = ""
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(user, secret)
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	if got := post("pw"); got != http.StatusForbidden {
		t.Errorf("password POST without crumb: want 403, got %d", got)
	}
	// Created: 302 to the new folder's configure page.
	if got := post(token); got != http.StatusFound {
		t.Errorf("token POST without crumb: want 302, got %d", got)
	}
}

func TestParseCredentials(t *testing.T) {
	cases := map[string]struct {
		in       string
		user, ok bool
	}{
		"Valid":   {in: `{"username":"u","token":"t"}`, ok: true},
		"NoToken": {in: `{"username":"u"}`},
		"NotJSON": {in: `u:t`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, err := jenkins.ParseCredentials([]byte(tc.in))
			if (err == nil) != tc.ok {
				t.Errorf("ParseCredentials(%q): err %v", tc.in, err)
			}
			if err != nil && strings.Contains(err.Error(), tc.in) {
				t.Errorf("the error quotes the secret: %v", err)
			}
		})
	}
}

// A build request whose answer is lost is ambiguous, and FindBuild tells
// whether Jenkins queued it: in the queue, then among the builds after the
// last one seen, by its parameters; nothing when it was never queued.
func TestFindBuildAfterLostAnswer(t *testing.T) {
	srv := fake.New(user, token)
	defer srv.Close()
	c := newClient(t, srv.URL, token)
	ctx := context.Background()
	if _, err := c.Create(ctx, "team/alpha", pipeline()); err != nil {
		t.Fatal(err)
	}
	const since = 0 // the job's last build number when the request was sent
	v1 := map[string]string{"TAG": "v1"}

	srv.LoseNextBuildAnswer(false)
	if _, err := c.Build(ctx, "team/alpha", true, v1); !jenkins.IsAmbiguous(err) {
		t.Fatalf("a lost answer must be ambiguous, got %v", err)
	}
	if where, err := c.FindBuild(ctx, "team/alpha", v1, since); err != nil || where != "" {
		t.Errorf("nothing was queued: got %q, %v", where, err)
	}

	srv.LoseNextBuildAnswer(true)
	if _, err := c.Build(ctx, "team/alpha", true, v1); !jenkins.IsAmbiguous(err) {
		t.Fatalf("a lost answer must be ambiguous, got %v", err)
	}
	if where, err := c.FindBuild(ctx, "team/alpha", v1, since); err != nil || where != "#1" {
		t.Errorf("started: want build #1, got %q, %v", where, err)
	}
	if where, _ := c.FindBuild(ctx, "team/alpha", v1, 1); where != "" {
		t.Errorf("a build started before the request was sent is not it: got %q", where)
	}
	if where, _ := c.FindBuild(ctx, "team/alpha", map[string]string{"TAG": "v2"}, since); where != "" {
		t.Errorf("other parameters are another build: got %q", where)
	}
	if _, err := c.Build(ctx, "team/alpha", true, map[string]string{"TAG": "v3"}); err != nil || jenkins.IsAmbiguous(err) {
		t.Errorf("an answered request is not ambiguous: %v", err)
	}
	if where, err := c.FindBuild(ctx, "team/alpha", map[string]string{"TAG": "v3"}, 1); err != nil || where != "queue" {
		t.Errorf("waiting: want it found in the queue, got %q, %v", where, err)
	}
}

// The folders to delete come from the resource's status, which its editors
// can write: only empty folders above the job's own path are deleted,
// never another job, another path's folder, or a folder with jobs.
func TestDeleteTouchesOnlyItsOwnFolders(t *testing.T) {
	srv := fake.New(user, token)
	defer srv.Close()
	c := newClient(t, srv.URL, token)
	ctx := context.Background()
	for _, p := range []string{"team-a/shop/prod", "team-b/x/job", "team-a-empty/y"} {
		if _, err := c.Create(ctx, p, pipeline()); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Delete(ctx, "team-a-empty/y", nil); err != nil { // leaves team-a-empty empty
		t.Fatal(err)
	}
	forged := []string{"team-a/shop/prod", "team-a/shop", "team-a", "team-a-empty", "team-b", "team-b/x"}
	if err := c.Delete(ctx, "team-b/x/job", forged); err != nil {
		t.Fatal(err)
	}
	for _, kept := range []string{"team-a/shop/prod", "team-a/shop", "team-a", "team-a-empty"} {
		if !srv.Exists(kept) {
			t.Errorf("%s was deleted: it is not above the job team-b/x/job", kept)
		}
	}
	for _, gone := range []string{"team-b/x/job", "team-b/x", "team-b"} {
		if srv.Exists(gone) {
			t.Errorf("%s is still there: the job and its own empty folders go", gone)
		}
	}
}

// TestCreateAnswerHeld holds the fake to its crash fault: a create whose
// answer never comes has still made the job, once, and a client that
// gives up (a provider killed mid-create) finds it there.
func TestCreateAnswerHeld(t *testing.T) {
	srv := fake.New(user, token)
	defer srv.Close()
	c := newClient(t, srv.URL, token)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv.HoldNextCreate()
	done := make(chan error, 1)
	go func() {
		_, err := c.Create(ctx, "team/alpha", pipeline())
		done <- err
	}()
	// The folder's create is answered; the job's is held.
	deadline := time.Now().Add(30 * time.Second)
	for srv.Held() != "team/alpha" {
		select {
		case err := <-done:
			t.Fatalf("Create returned %v before its answer was released", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no create held; created %v", srv.Created())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("Create succeeded without an answer")
	}
	srv.ReleaseHeld()
	if _, err := c.Get(context.Background(), "team/alpha"); err != nil {
		t.Errorf("the held create made no job: %v", err)
	}
	if got, want := srv.Created(), map[string]int{"team": 1, "team/alpha": 1}; !cmp.Equal(got, want) {
		t.Errorf("created %v, want %v", got, want)
	}
	if _, err := c.Create(context.Background(), "team/alpha", pipeline()); err == nil {
		t.Error("a second create of team/alpha succeeded")
	}
	if got := srv.Refused(); got["team/alpha"] != 1 {
		t.Errorf("refused %v, want team/alpha once", got)
	}
	if err := c.Delete(context.Background(), "team/alpha", nil); err != nil {
		t.Fatal(err)
	}
	if got := srv.Deleted(); got["team/alpha"] != 1 {
		t.Errorf("deleted %v, want team/alpha once", got)
	}

	// A client still waiting when the answer is released gets it.
	srv.HoldNextCreate()
	go func() {
		_, err := c.Create(context.Background(), "team/beta", pipeline())
		done <- err
	}()
	for srv.Held() != "team/beta" {
		if time.Now().After(deadline) {
			t.Fatalf("no create held; created %v", srv.Created())
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("Create returned %v while its answer was held", err)
	case <-time.After(100 * time.Millisecond):
	}
	srv.ReleaseHeld()
	if err := <-done; err != nil {
		t.Errorf("released, the create failed: %v", err)
	}
}

// TestBuildDelayParameter: Jenkins reads the query and the form as one
// list of parameters, so a build given a parameter named delay is asked
// for without the quiet-period delay, and one without it with delay=0sec.
func TestBuildDelayParameter(t *testing.T) {
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		queries = append(queries, r.URL.RawQuery)
		w.Header().Set("Location", "http://"+r.Host+"/queue/item/7/")
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, token)
	for _, params := range []map[string]string{{"REVISION": "main"}, {"delay": "30", "REVISION": "main"}} {
		if _, err := c.Build(context.Background(), "alpha", true, params); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"delay=0sec", ""}; !slices.Equal(queries, want) {
		t.Errorf("queries %q, want %q", queries, want)
	}
}

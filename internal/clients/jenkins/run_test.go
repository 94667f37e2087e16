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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
	fake "github.com/freeleaps/provider-devops/internal/testing/jenkins"
)

// queued creates job alpha and queues one build of it, returning the
// client and the queue item id.
func queued(t *testing.T, srv *fake.Server) (*jenkins.Client, int64) {
	t.Helper()
	c := newClient(t, srv.URL, token)
	if _, err := c.Create(context.Background(), "alpha", pipeline()); err != nil {
		t.Fatal(err)
	}
	id, err := c.Build(context.Background(), "alpha", true, map[string]string{"TAG": "v1"})
	if err != nil {
		t.Fatal(err)
	}
	return c, id
}

func TestQueueItem(t *testing.T) {
	cases := map[string]struct {
		reason string
		// setup acts on the queued item and returns the id to read.
		setup    func(t *testing.T, c *jenkins.Client, srv *fake.Server, id int64) int64
		want     *jenkins.QueueItem
		waiting  bool
		notFound bool
		wantErr  string
	}{
		"Waiting": {
			reason:  "an item in its quiet period has no build yet and says why it waits",
			want:    &jenkins.QueueItem{Job: "alpha"},
			waiting: true,
		},
		"Started": {
			reason: "an item an executor took names its build's number",
			setup: func(_ *testing.T, _ *jenkins.Client, srv *fake.Server, id int64) int64 {
				srv.RunQueue()
				return id
			},
			want: &jenkins.QueueItem{Number: 1, Job: "alpha"},
		},
		"Cancelled": {
			reason: "a cancelled item stays readable as cancelled, without a build",
			setup: func(t *testing.T, c *jenkins.Client, _ *fake.Server, id int64) int64 {
				if err := c.CancelQueueItem(context.Background(), id); err != nil {
					t.Fatal(err)
				}
				return id
			},
			want: &jenkins.QueueItem{Cancelled: true, Job: "alpha"},
		},
		"Forgotten": {
			reason: "Jenkins forgets an item some minutes after it left the queue: NotFound",
			setup: func(_ *testing.T, _ *jenkins.Client, srv *fake.Server, id int64) int64 {
				srv.RunQueue()
				srv.ForgetLeftItems()
				return id
			},
			notFound: true,
		},
		"Unknown": {
			reason:   "an id Jenkins never gave is NotFound",
			setup:    func(*testing.T, *jenkins.Client, *fake.Server, int64) int64 { return 999 },
			notFound: true,
		},
		"InvalidID": {
			reason:  "an id below 1 is refused before any request",
			setup:   func(*testing.T, *jenkins.Client, *fake.Server, int64) int64 { return 0 },
			wantErr: "invalid queue item id 0",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := fake.New(user, token)
			defer srv.Close()
			c, id := queued(t, srv)
			if tc.setup != nil {
				id = tc.setup(t, c, srv, id)
			}
			got, err := c.QueueItem(context.Background(), id)
			switch {
			case tc.notFound:
				if !jenkins.IsNotFound(err) {
					t.Fatalf("%s: want NotFound, got %+v, %v", tc.reason, got, err)
				}
				return
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || jenkins.IsNotFound(err) {
					t.Fatalf("%s: want an error containing %q, got %v", tc.reason, tc.wantErr, err)
				}
				return
			case err != nil:
				t.Fatalf("%s: %v", tc.reason, err)
			}
			if tc.waiting != (got.Why != "") {
				t.Errorf("%s: why %q", tc.reason, got.Why)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(jenkins.QueueItem{}, "Why")); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestGetBuild(t *testing.T) {
	cases := map[string]struct {
		reason   string
		setup    func(srv *fake.Server)
		path     string
		number   int64
		want     jenkins.BuildInfo
		notFound bool
		wantErr  string
	}{
		"Running": {
			reason: "a running build has no result and names the queue item it came from",
			path:   "alpha", number: 1,
			want: jenkins.BuildInfo{Number: 1, Building: true},
		},
		"FinishedWithDescription": {
			reason: "a finished build reports its result and the description set on it",
			setup: func(srv *fake.Server) {
				srv.Finish("alpha", "FAILURE")
				srv.SetDescription("alpha", 1, "deployed shop v1 to staging")
			},
			path: "alpha", number: 1,
			want: jenkins.BuildInfo{Number: 1, Result: "FAILURE", Description: "deployed shop v1 to staging"},
		},
		"MissingBuild": {
			reason: "a build the job does not have is NotFound",
			path:   "alpha", number: 99,
			notFound: true,
		},
		"MissingJob": {
			reason: "a build of a job that does not exist is NotFound",
			path:   "team/nope", number: 1,
			notFound: true,
		},
		"InvalidNumber": {
			reason: "a number below 1 is refused before any request",
			path:   "alpha", number: -1,
			wantErr: "invalid build number -1",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := fake.New(user, token)
			defer srv.Close()
			c, id := queued(t, srv)
			srv.RunQueue()
			if tc.setup != nil {
				tc.setup(srv)
			}
			got, err := c.GetBuild(context.Background(), tc.path, tc.number)
			switch {
			case tc.notFound:
				if !jenkins.IsNotFound(err) {
					t.Fatalf("%s: want NotFound, got %+v, %v", tc.reason, got, err)
				}
				return
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s: want an error containing %q, got %v", tc.reason, tc.wantErr, err)
				}
				return
			case err != nil:
				t.Fatalf("%s: %v", tc.reason, err)
			}
			want := tc.want
			want.URL, want.QueueID = srv.URL+"/job/alpha/1/", id
			if got.Timestamp.IsZero() || !got.Timestamp.Equal(srv.Builds("alpha")[0].Timestamp) {
				t.Errorf("%s: timestamp %v, want the build's %v", tc.reason, got.Timestamp, srv.Builds("alpha")[0].Timestamp)
			}
			if diff := cmp.Diff(&want, got, cmpopts.IgnoreFields(jenkins.BuildInfo{}, "Timestamp")); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestStopBuild(t *testing.T) {
	cases := map[string]struct {
		reason   string
		setup    func(t *testing.T, c *jenkins.Client, srv *fake.Server)
		path     string
		number   int64
		result   string // the build's result afterwards
		notFound bool
	}{
		"Running": {
			reason: "a running build is aborted",
			path:   "alpha", number: 1,
			result: "ABORTED",
		},
		"Finished": {
			reason: "stopping a finished build is no error and changes nothing",
			setup:  func(_ *testing.T, _ *jenkins.Client, srv *fake.Server) { srv.Finish("alpha", "SUCCESS") },
			path:   "alpha", number: 1,
			result: "SUCCESS",
		},
		"Twice": {
			reason: "stopping an aborted build again is no error",
			setup: func(t *testing.T, c *jenkins.Client, _ *fake.Server) {
				if err := c.StopBuild(context.Background(), "alpha", 1); err != nil {
					t.Fatal(err)
				}
			},
			path: "alpha", number: 1,
			result: "ABORTED",
		},
		"MissingBuild": {
			reason: "a build the job does not have is NotFound",
			path:   "alpha", number: 2,
			notFound: true,
		},
		"MissingJob": {
			reason: "a build of a job that does not exist is NotFound",
			path:   "nope", number: 1,
			notFound: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := fake.New(user, token)
			defer srv.Close()
			c, _ := queued(t, srv)
			srv.RunQueue()
			if tc.setup != nil {
				tc.setup(t, c, srv)
			}
			err := c.StopBuild(context.Background(), tc.path, tc.number)
			if tc.notFound {
				if !jenkins.IsNotFound(err) {
					t.Fatalf("%s: want NotFound, got %v", tc.reason, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			b, err := c.GetBuild(context.Background(), "alpha", 1)
			if err != nil {
				t.Fatal(err)
			}
			if b.Building || b.Result != tc.result {
				t.Errorf("%s: building %v, result %q, want finished with %q", tc.reason, b.Building, b.Result, tc.result)
			}
		})
	}
}

func TestCancelQueueItem(t *testing.T) {
	cases := map[string]struct {
		reason string
		// setup acts on the queued item and returns the id to cancel.
		setup     func(t *testing.T, c *jenkins.Client, srv *fake.Server, id int64) int64
		wantErr   string
		transient bool
		cancelled bool // the item reads as cancelled afterwards
	}{
		"Waiting": {
			reason:    "a waiting item is taken out of the queue",
			cancelled: true,
		},
		"AlreadyCancelled": {
			reason: "cancelling twice is no error (Jenkins answers 500 the second time)",
			setup: func(t *testing.T, c *jenkins.Client, _ *fake.Server, id int64) int64 {
				if err := c.CancelQueueItem(context.Background(), id); err != nil {
					t.Fatal(err)
				}
				return id
			},
			cancelled: true,
		},
		"Unknown": {
			reason: "an id Jenkins does not hold is already gone",
			setup:  func(*testing.T, *jenkins.Client, *fake.Server, int64) int64 { return 999 },
		},
		"Forgotten": {
			reason: "an item Jenkins forgot is already gone",
			setup: func(_ *testing.T, c *jenkins.Client, srv *fake.Server, id int64) int64 {
				_ = c.CancelQueueItem(context.Background(), id)
				srv.ForgetLeftItems()
				return id
			},
		},
		"Started": {
			reason: "an item that became a build cannot be cancelled: the error names the build to stop",
			setup: func(_ *testing.T, _ *jenkins.Client, srv *fake.Server, id int64) int64 {
				srv.RunQueue()
				return id
			},
			wantErr: "already left the queue as build #1: stop the build",
		},
		"ServerError": {
			reason: "a failing Jenkins (500 while the item still waits) is not taken for a left item",
			setup: func(_ *testing.T, _ *jenkins.Client, srv *fake.Server, id int64) int64 {
				srv.FailNext(1, http.StatusInternalServerError, 0)
				return id
			},
			wantErr:   "Jenkins answered 500",
			transient: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := fake.New(user, token)
			defer srv.Close()
			c, id := queued(t, srv)
			if tc.setup != nil {
				id = tc.setup(t, c, srv, id)
			}
			err := c.CancelQueueItem(context.Background(), id)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || httpapi.IsTransient(err) != tc.transient {
					t.Fatalf("%s: want an error containing %q (transient %v), got %v", tc.reason, tc.wantErr, tc.transient, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			if !tc.cancelled {
				return
			}
			q, err := c.QueueItem(context.Background(), id)
			if err != nil || !q.Cancelled || q.Number != 0 {
				t.Errorf("%s: item after cancel: %+v, %v", tc.reason, q, err)
			}
			if srv.Queued("alpha") != 0 {
				t.Errorf("%s: %d items still wait", tc.reason, srv.Queued("alpha"))
			}
		})
	}
}

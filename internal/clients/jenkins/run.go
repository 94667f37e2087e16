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
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

const (
	errBadQueueID     = "invalid queue item id %d: Jenkins numbers queue items from 1 (take it from the answer to the build request)"
	errBadBuildNumber = "invalid build number %d: Jenkins numbers builds from 1"
	errReadQueueItem  = "cannot read queue item %d"
	errReadBuild      = "cannot read build %s #%d"
	errStopBuild      = "cannot stop build %s #%d"
	errCancelItem     = "cannot cancel queue item %d"
	errItemStarted    = "queue item %d already left the queue as build #%d: stop the build instead of cancelling the item"
)

// QueueItem is what Jenkins reports about one build request: waiting in the
// queue, or left it (started as a build, or cancelled). Jenkins forgets an
// item about five minutes after it left the queue.
type QueueItem struct {
	// Number is the build's number once the item left the queue for an
	// executor (executable.number); 0 while it waits, when it was
	// cancelled, and for the moment between leaving the queue and the
	// executor creating the build.
	Number int64
	// Cancelled is true when the item left the queue without a build.
	Cancelled bool
	// Why is why the item waits (quiet period, no free executor...); empty
	// once it left the queue.
	Why string
	// Job is the full path of the job the item builds (from its task's
	// URL); empty when the URL is not one of a job below this client's
	// Jenkins. Queue ids are global to a Jenkins: check it before acting
	// on an item.
	Job string
}

// BuildInfo is one build as its own page reports it.
type BuildInfo struct {
	Number int64
	// Result is SUCCESS, UNSTABLE, FAILURE, NOT_BUILT or ABORTED; empty
	// while the build runs.
	Result   string
	Building bool
	URL      string
	// Description is what a user or the Pipeline (currentBuild.description)
	// set; empty when unset.
	Description string
	// Timestamp is when the build was scheduled to start.
	Timestamp time.Time
	// Duration is how long the build ran; 0 while it runs.
	Duration time.Duration
	// QueueID is the id of the queue item the build came from.
	QueueID int64
}

// queueItemEndpoint is the URL path of a queue item.
func queueItemEndpoint(id int64) string {
	return "/queue/item/" + strconv.FormatInt(id, 10)
}

// buildEndpoint is the URL path of build number of the job at path.
func buildEndpoint(path string, number int64) string {
	return endpoint(path) + "/" + strconv.FormatInt(number, 10)
}

// QueueItem reads the queue item id (the one Build returned). It is
// NotFound (IsNotFound) for an id Jenkins never gave or has forgotten: it
// keeps an item about five minutes after it left the queue, so a build is
// best followed by its number once QueueItem reported it.
func (c *Client) QueueItem(ctx context.Context, id int64) (*QueueItem, error) {
	if id <= 0 {
		return nil, errors.Errorf(errBadQueueID, id)
	}
	var q struct {
		Cancelled  bool                 `json:"cancelled"`
		Why        string               `json:"why"`
		Task       struct{ URL string } `json:"task"`
		Executable *struct {
			Number int64 `json:"number"`
		} `json:"executable"`
	}
	// Only a left item (Queue$LeftItem) has cancelled and executable; why
	// is null once the item left.
	if err := c.getJSON(ctx, queueItemEndpoint(id), "cancelled,why,task[url],executable[number]", &q); err != nil {
		return nil, errors.Wrapf(err, errReadQueueItem, id)
	}
	item := &QueueItem{Cancelled: q.Cancelled, Why: q.Why, Job: c.jobOf(q.Task.URL)}
	if q.Executable != nil {
		item.Number = q.Executable.Number
	}
	return item, nil
}

// GetBuild reads build number of the job at path. It is NotFound
// (IsNotFound) when the job or the build does not exist (a build that
// the job's build discarder deleted, for one).
func (c *Client) GetBuild(ctx context.Context, path string, number int64) (*BuildInfo, error) {
	if number <= 0 {
		return nil, errors.Errorf(errBadBuildNumber, number)
	}
	var b struct {
		Number      int64   `json:"number"`
		Result      *string `json:"result"`
		Building    bool    `json:"building"`
		URL         string  `json:"url"`
		Description *string `json:"description"`
		Timestamp   int64   `json:"timestamp"`
		Duration    int64   `json:"duration"`
		QueueID     int64   `json:"queueId"`
	}
	if err := c.getJSON(ctx, buildEndpoint(path, number), "number,result,building,url,description,timestamp,duration,queueId", &b); err != nil {
		return nil, errors.Wrapf(err, errReadBuild, path, number)
	}
	info := &BuildInfo{Number: b.Number, Building: b.Building, URL: b.URL, Timestamp: time.UnixMilli(b.Timestamp).UTC(), Duration: time.Duration(b.Duration) * time.Millisecond, QueueID: b.QueueID}
	if b.Result != nil {
		info.Result = *b.Result
	}
	if b.Description != nil {
		info.Description = *b.Description
	}
	return info, nil
}

// StopBuild aborts build number of the job at path, as its page's stop
// button does. Stopping a build that already finished does nothing and is
// not an error. Jenkins only asks the build to stop: a Pipeline may run a
// little longer (its steps clean up), so read GetBuild until Building is
// false. It is NotFound (IsNotFound) when the job or the build does not
// exist.
func (c *Client) StopBuild(ctx context.Context, path string, number int64) error {
	if number <= 0 {
		return errors.Errorf(errBadBuildNumber, number)
	}
	// Jenkins answers 302 to the build (or to the Referer), for a finished
	// build too.
	return errors.Wrapf(c.post(ctx, buildEndpoint(path, number)+"/stop", nil), errStopBuild, path, number)
}

// CancelQueueItem takes queue item id out of the queue before it starts.
// An item already cancelled, or one Jenkins does not know (never given,
// its job deleted, or forgotten five minutes after it left the queue,
// which may mean it started: FindBuild tells), is not an error. An item
// that already started is: the error names the build, which StopBuild
// aborts.
func (c *Client) CancelQueueItem(ctx context.Context, id int64) error {
	if id <= 0 {
		return errors.Errorf(errBadQueueID, id)
	}
	// Jenkins 2.211 and later answer 204, or 404 for an id the queue does
	// not hold, or 500 for an item that already left the queue (started,
	// or cancelled before); older ones answer 302 to the previous page
	// whatever happened, so there a started item goes unreported.
	err := c.post(ctx, "/queue/cancelItem?id="+strconv.FormatInt(id, 10), nil)
	switch {
	case err == nil, IsNotFound(err):
		return nil
	case httpapi.StatusOf(err) != http.StatusInternalServerError:
		return errors.Wrapf(err, errCancelItem, id)
	}
	// A 500 is the answer for a left item, and for a failing Jenkins: the
	// item tells which.
	q, qerr := c.QueueItem(ctx, id)
	switch {
	case IsNotFound(qerr) || (qerr == nil && q.Cancelled):
		return nil
	case qerr == nil && q.Number > 0:
		return errors.Errorf(errItemStarted, id, q.Number)
	}
	return errors.Wrapf(err, errCancelItem, id)
}

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

package main

import (
	"context"
	"time"

	"github.com/crossplane/function-sdk-go/errors"
	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/response"
)

// Function expands a DevOpsProject into managed resources.
type Function struct {
	fnv1.UnimplementedFunctionRunnerServiceServer

	// now is the clock: fixed by --now for reproducible render output.
	now func() time.Time
	// log says why a project could not be composed and, with debug,
	// what each run composed; nil logs nothing.
	log   logging.Logger
	debug bool
	// patterns are the preview patterns this function compiled.
	patterns patternCache
	// metrics keeps what each project's last run planned; nil keeps
	// nothing.
	metrics *environmentMetrics
	// composeWhole composes every new kind at once instead of its first
	// resource first (firstOfNewKinds): the unit tests' view of a run.
	composeWhole bool
}

// RunFunction composes one project in three steps: read and validate the
// request (request.go), plan each environment's phase and expiry
// (plan.go: pure, tested without protobuf), write the response
// (respond.go). Bad input becomes a Fatal result naming the field.
func (f *Function) RunFunction(_ context.Context, req *fnv1.RunFunctionRequest) (rsp *fnv1.RunFunctionResponse, err error) {
	rsp = response.To(req, defaultPollInterval)
	defer func() {
		// A bug must fail this run, not every project's: the SDK's server
		// does not recover, so a panic would stop the function.
		if p := recover(); p != nil {
			rsp = response.To(req, defaultPollInterval)
			perr := errors.Errorf("internal error composing this project (please report it): %v", p)
			f.info(req, "Cannot compose the project", perr)
			response.Fatal(rsp, perr)
			err = nil
		}
	}()
	now := f.now().UTC()
	rs, err := readRequest(req, &f.patterns, now)
	if err != nil {
		f.info(req, "Cannot compose the project", err)
		response.Fatal(rsp, err)
		return rsp, nil
	}
	pl := planRun(rs, now)
	if err := respond(rsp, rs, pl, !f.composeWhole); err != nil {
		f.info(req, "Cannot compose the project", err)
		response.Fatal(rsp, err)
		return rsp, nil
	}
	if f.metrics != nil {
		ns, name := xrName(req)
		f.metrics.record(ns, name, pl, now)
	}
	if f.debug && f.log != nil {
		ns, name := xrName(req)
		f.log.Debug("Composed the project", "namespace", ns, "name", name, "environments", len(pl.envs), "requeueAfter", pl.ttl.String())
	}
	return rsp, nil
}

// info logs why the project of req could not be composed.
func (f *Function) info(req *fnv1.RunFunctionRequest, msg string, err error) {
	if f.log == nil {
		return
	}
	ns, name := xrName(req)
	f.log.Info(msg, "namespace", ns, "name", name, "error", err.Error())
}

// xrName is the composite resource's namespace and name, as the request
// carries them.
func xrName(req *fnv1.RunFunctionRequest) (namespace, name string) {
	md := req.GetObserved().GetComposite().GetResource().GetFields()["metadata"].GetStructValue().GetFields()
	return md["namespace"].GetStringValue(), md["name"].GetStringValue()
}

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

// Command sandbox serves the fake backends that cannot run here for real —
// Jenkins, GoDaddy, Docker Hub and Harbor — on loopback ports, for
// the local demo and the end-to-end test. The fakes are the same ones the
// provider's tests use: faithful to the real APIs' paths, status codes and
// error bodies.
//
// It writes their addresses and freshly generated credentials as JSON to
// --out, then plays the part of a Jenkins executor (queued builds start
// after --build-delay and succeed after another). With --gitops-repo, a
// build with a REVISION parameter ends as a deployment pipeline does: it
// commits its number to the environment's ConfigMap in that repository, on
// --gitops-branch, and reports the commit as "revision=<commit id>" in its
// description; --gitops-skip names jobs whose builds commit nothing (a
// preview's, whose DeployRun syncs the head it built). GET /state on
// --control reports jobs, builds and request
// counts. It stops on SIGINT or SIGTERM. Argo CD is not here: the demo and
// the end-to-end test run the real one.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"syscall"
	"time"

	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/testing/dockerhub"
	"github.com/freeleaps/provider-devops/internal/testing/godaddy"
	"github.com/freeleaps/provider-devops/internal/testing/harbor"
	"github.com/freeleaps/provider-devops/internal/testing/jenkins"
	"github.com/freeleaps/provider-devops/internal/testing/sandbox"
)

func main() {
	out := flag.String("out", "", "File the endpoints and credentials are written to (JSON).")
	control := flag.String("control", "127.0.0.1:0", "Address of the /state endpoint.")
	domains := flag.String("godaddy-domain", "example.com", "Domain the fake GoDaddy account owns.")
	org := flag.String("dockerhub-org", "team", "Namespace the fake Docker Hub user may push to.")
	buildDelay := flag.Duration("build-delay", 5*time.Second, "How long a queued build waits for an executor, and then runs.")
	g := &gitops{}
	flag.StringVar(&g.repo, "gitops-repo", "", "Git repository (a path or URL) builds with a REVISION parameter commit to; empty: builds commit nothing.")
	flag.StringVar(&g.branch, "gitops-branch", "main", "Branch of --gitops-repo the applications track, which builds commit on.")
	flag.StringVar(&g.manifest, "gitops-manifest", "deploy/"+EnvironmentVar+"/configmap.yaml", "The ConfigMap in --gitops-repo a build bumps; "+EnvironmentVar+" is the last segment of the job's path.")
	skip := flag.String("gitops-skip", "", "Regular expression of the jobs (full paths) whose builds commit nothing to --gitops-repo: they build what they are given, as a preview's build does. Empty: every build commits.")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "sandbox: --out is required")
		os.Exit(2)
	}
	if g.repo == "" {
		g = nil
	} else {
		if *skip != "" {
			re, err := regexp.Compile(*skip)
			if err != nil {
				fmt.Fprintln(os.Stderr, "sandbox: --gitops-skip:", err)
				os.Exit(2)
			}
			g.skip = re
		}
		// Next to --out, so that it goes with the caller's directory.
		g.work = filepath.Join(filepath.Dir(*out), "gitops-builds")
		if err := os.MkdirAll(g.work, 0o750); err != nil {
			fmt.Fprintln(os.Stderr, "sandbox:", err)
			os.Exit(1)
		}
	}
	if err := run(*out, *control, *domains, *org, *buildDelay, g); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox:", err)
		os.Exit(1)
	}
}

func secret() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

type fakes struct {
	jenkins *jenkins.Server
	godaddy *godaddy.Server
	hub     *dockerhub.Server
	harbor  *harbor.Server
	// gitops is where builds commit what they produce; nil: nowhere.
	gitops *gitops
}

func run(out, control, domain, org string, buildDelay time.Duration, g *gitops) error {
	ep := sandbox.Endpoints{
		Jenkins: sandbox.Backend{User: "devops-bot", Secret: secret()},
		GoDaddy: sandbox.Backend{Key: secret(), Secret: secret()},
		Hub:     sandbox.Backend{User: "devops-bot", Secret: secret()},
		Harbor:  sandbox.Backend{User: "robot$devops", Secret: secret()},
	}
	f := fakes{
		jenkins: jenkins.New(ep.Jenkins.User, ep.Jenkins.Secret),
		godaddy: godaddy.New(ep.GoDaddy.Key, ep.GoDaddy.Secret, domain),
		hub:     dockerhub.New(ep.Hub.User, ep.Hub.Secret, org),
		harbor:  harbor.New(ep.Harbor.User, ep.Harbor.Secret),
		gitops:  g,
	}
	defer f.jenkins.Close()
	defer f.godaddy.Close()
	defer f.hub.Close()
	defer f.harbor.Close()
	ep.Jenkins.URL, ep.GoDaddy.URL, ep.Hub.URL, ep.Harbor.URL = f.jenkins.URL, f.godaddy.URL, f.hub.URL, f.harbor.URL

	l, err := net.Listen("tcp", control)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == sandbox.HoldNextCreate:
			f.jenkins.HoldNextCreate()
		case r.Method == http.MethodPost && r.URL.Path == sandbox.ReleaseHeld:
			f.jenkins.ReleaseHeld()
		case r.Method != http.MethodGet || r.URL.Path != "/":
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(f.state())
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	defer func() { _ = srv.Close() }()
	ep.Control = "http://" + l.Addr().String()

	b, err := json.MarshalIndent(ep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(out+".tmp", b, 0o600); err != nil {
		return err
	}
	if err := os.Rename(out+".tmp", out); err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	f.simulate(ctx, buildDelay)
	return nil
}

// simulate plays Jenkins' executors until ctx ends.
func (f fakes) simulate(ctx context.Context, buildDelay time.Duration) {
	seenQueued := map[string]time.Time{}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			for _, job := range f.jenkins.Jobs() {
				f.advanceJob(ctx, job, now, buildDelay, seenQueued)
			}
		}
	}
}

func (f fakes) advanceJob(ctx context.Context, job string, now time.Time, delay time.Duration, seen map[string]time.Time) {
	if f.jenkins.Queued(job) > 0 {
		if _, ok := seen[job]; !ok {
			seen[job] = now
		}
		if now.Sub(seen[job]) >= delay {
			// As Jenkins' executors: only what is past its quiet period.
			f.jenkins.RunBuildable()
			if f.jenkins.Queued(job) == 0 {
				delete(seen, job)
			}
		}
	}
	due, result := false, "SUCCESS"
	for _, b := range f.jenkins.Builds(job) {
		if !b.Building || now.Sub(b.Timestamp) < delay {
			continue
		}
		due = true
		if !f.produce(ctx, job, b) {
			result = "FAILURE"
		}
	}
	if due {
		f.jenkins.Finish(job, result)
	}
}

// produce is the last step of a build with a REVISION parameter, with
// --gitops-repo: the commit of what it built, reported on its description
// as the DeployRun controller reads it. False when the build failed there
// (its console says why).
func (f fakes) produce(ctx context.Context, job string, b jenkins.Build) bool {
	source := b.Params.Get(jenkinsv1alpha1.RevisionParameter)
	if !f.gitops.commits(job) || source == "" {
		return true
	}
	sha, err := f.gitops.commit(ctx, job, b.Number, source)
	if err != nil {
		f.jenkins.Log(job, "cannot commit the build to the GitOps repository: "+err.Error()+"\n")
		fmt.Fprintf(os.Stderr, "sandbox: %s #%d: %v\n", job, b.Number, err)
		return false
	}
	f.jenkins.Log(job, fmt.Sprintf("committed %s on %s\n", sha, f.gitops.branch))
	f.jenkins.SetDescription(job, b.Number, "revision="+sha)
	return true
}

func (f fakes) state() sandbox.State {
	s := sandbox.State{Jobs: map[string]sandbox.Job{}, Requests: map[string]int{},
		Created: f.jenkins.Created(), Deleted: f.jenkins.Deleted(), Refused: f.jenkins.Refused(), Held: f.jenkins.Held()}
	for _, job := range f.jenkins.Jobs() {
		j := sandbox.Job{Queued: f.jenkins.Queued(job)}
		for _, b := range f.jenkins.Builds(job) {
			p := map[string]string{}
			for k := range b.Params {
				p[k] = b.Params.Get(k)
			}
			build := sandbox.Build{Number: b.Number, Result: b.Result, Building: b.Building, Params: p}
			if b.Description != nil {
				build.Description = *b.Description
			}
			j.Builds = append(j.Builds, build)
		}
		s.Jobs[job] = j
	}
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete} {
		s.Requests["jenkins "+m] = f.jenkins.Count(m)
		s.Requests["godaddy "+m] = f.godaddy.Count(m)
		s.Requests["dockerhub "+m] = f.hub.Count(m)
		s.Requests["harbor "+m] = f.harbor.Count(m)
	}
	return s
}

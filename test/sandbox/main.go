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
// after --build-delay and succeed after another). GET /state on --control
// reports jobs, builds and request counts. It stops on SIGINT or SIGTERM.
// Argo CD is not here: the demo and the end-to-end test run the real one.
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
	"syscall"
	"time"

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
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "sandbox: --out is required")
		os.Exit(2)
	}
	if err := run(*out, *control, *domains, *org, *buildDelay); err != nil {
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
}

func run(out, control, domain, org string, buildDelay time.Duration) error {
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
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
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
				f.advanceJob(job, now, buildDelay, seenQueued)
			}
		}
	}
}

func (f fakes) advanceJob(job string, now time.Time, delay time.Duration, seen map[string]time.Time) {
	if f.jenkins.Queued(job) > 0 {
		if _, ok := seen[job]; !ok {
			seen[job] = now
		}
		if now.Sub(seen[job]) >= delay {
			f.jenkins.RunQueue()
			delete(seen, job)
		}
	}
	for _, b := range f.jenkins.Builds(job) {
		if b.Building && now.Sub(b.Timestamp) >= delay {
			f.jenkins.Finish(job, "SUCCESS")
		}
	}
}

func (f fakes) state() sandbox.State {
	s := sandbox.State{Jobs: map[string]sandbox.Job{}, Requests: map[string]int{}}
	for _, job := range f.jenkins.Jobs() {
		j := sandbox.Job{Queued: f.jenkins.Queued(job)}
		for _, b := range f.jenkins.Builds(job) {
			p := map[string]string{}
			for k := range b.Params {
				p[k] = b.Params.Get(k)
			}
			j.Builds = append(j.Builds, sandbox.Build{Number: b.Number, Result: b.Result, Building: b.Building, Params: p})
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

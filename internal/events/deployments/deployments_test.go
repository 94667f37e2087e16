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

package deployments_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/events"
	"github.com/freeleaps/provider-devops/internal/events/deployments"
)

// sink records what the watcher sends, in order.
type sink struct {
	mu   sync.Mutex
	evs  []events.Event
	msgs []events.Message
	all  []string
}

func (s *sink) Publish(e events.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evs = append(s.evs, e)
	s.all = append(s.all, fmt.Sprintf("ce %s %s/%s %s %s", e.What(), e.Data.Namespace, e.Data.Name, e.Data.Phase, e.Data.Status))
	return nil
}

func (s *sink) PublishMessage(m events.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgs = append(s.msgs, m)
	s.all = append(s.all, "legacy "+string(m.Body))
	return nil
}

// take returns what was sent since the last take.
func (s *sink) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.all
	s.all, s.evs, s.msgs = nil, nil, nil
	return out
}

func (s *sink) events() []events.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]events.Event(nil), s.evs...)
}

func (s *sink) messages() []events.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]events.Message(nil), s.msgs...)
}

func run(name, requestID string) *v1alpha1.DeployRun {
	return &v1alpha1.DeployRun{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-a", UID: types.UID("uid-team-a-" + name)},
		Spec:       v1alpha1.DeployRunSpec{Project: "shop", Environment: "dev", RequestID: requestID},
	}
}

func with(dr *v1alpha1.DeployRun, p v1alpha1.DeployPhase, msg string) *v1alpha1.DeployRun {
	n := dr.DeepCopy()
	n.Status.Phase, n.Status.Message = p, msg
	return n
}

// A deployment's life: one event per phase it enters, creation included
// (with no status yet: Pending), none for a change within a phase, and a
// completed event when it succeeds, in both formats.
func TestPhaseEvents(t *testing.T) {
	s := &sink{}
	w := deployments.New(s, deployments.Options{Source: "test", Format: deployments.Both})
	cur := run("shop-dev-1", "req-42")
	w.Added(cur, false)

	step := func(name string, next *v1alpha1.DeployRun, want ...string) {
		t.Helper()
		w.Changed(cur, next)
		cur = next
		if diff := cmp.Diff(want, s.take()); diff != "" {
			t.Errorf("%s: -want +got:\n%s", name, diff)
		}
	}
	if diff := cmp.Diff([]string{
		"ce phase team-a/shop-dev-1 Pending Running",
		`legacy {"operation": "heartbeat", "id": "req-42", "status": "running", "phase": "initializing", "phase_message": "", "url": null}`,
	}, s.take()); diff != "" {
		t.Errorf("creation: -want +got:\n%s", diff)
	}
	step("the controller sets Pending", with(cur, v1alpha1.DeployPending, "waiting for shop-dev-0"))
	step("a message within the phase", with(cur, v1alpha1.DeployPending, "still waiting"))
	step("Building", with(cur, v1alpha1.DeployBuilding, "build #12 queued"),
		"ce phase team-a/shop-dev-1 Building Running",
		`legacy {"operation": "heartbeat", "id": "req-42", "status": "running", "phase": "building", "phase_message": "build #12 queued", "url": null}`)
	step("build runs", with(cur, v1alpha1.DeployBuilding, "build #12 running"))
	step("Deploying", with(cur, v1alpha1.DeployDeploying, "syncing shop-dev"),
		"ce phase team-a/shop-dev-1 Deploying Running",
		`legacy {"operation": "heartbeat", "id": "req-42", "status": "running", "phase": "deploying", "phase_message": "syncing shop-dev", "url": null}`)
	step("Verifying", with(cur, v1alpha1.DeployVerifying, "waiting for Healthy"),
		"ce phase team-a/shop-dev-1 Verifying Running",
		`legacy {"operation": "heartbeat", "id": "req-42", "status": "running", "phase": "verifying", "phase_message": "waiting for Healthy", "url": null}`)
	done := with(cur, v1alpha1.DeploySucceeded, "deployed abc123")
	done.Status.URL = "https://shop-dev.example.com"
	step("Succeeded", done,
		"ce completed team-a/shop-dev-1 Verifying Succeeded",
		`legacy {"operation": "heartbeat", "id": "req-42", "status": "success", "phase": "verifying", "phase_message": "deployed abc123", "url": "https://shop-dev.example.com"}`)
	step("a resync of the final state", done.DeepCopy())
}

// The CloudEvents: types, subject, routing key and data.
func TestCloudEvent(t *testing.T) {
	s := &sink{}
	w := deployments.New(s, deployments.Options{Source: "/provider-devops/test"})
	dr := with(run("shop-dev-1", ""), v1alpha1.DeployBuilding, "build #12 running")
	w.Added(dr, false)
	w.Beat(time.Now())
	failed := with(dr, v1alpha1.DeployFailed, "build #12 failed")
	failed.Status.FailedPhase = v1alpha1.DeployBuilding
	w.Changed(dr, failed)

	got := s.events()
	if len(got) != 3 {
		t.Fatalf("got %d events, want 3 (phase, heartbeat, completed)", len(got))
	}
	if m := s.messages(); len(m) != 0 {
		t.Errorf("format cloudevents sent %d legacy messages", len(m))
	}
	for i, want := range []struct{ typ, key string }{
		{"io.freeleaps.devops.work.phase", "deployrun.team-a.shop-dev-1.phase"},
		{"io.freeleaps.devops.work.heartbeat", "deployrun.team-a.shop-dev-1.heartbeat"},
		{"io.freeleaps.devops.work.completed", "deployrun.team-a.shop-dev-1.completed"},
	} {
		if got[i].Type != want.typ || got[i].RoutingKey() != want.key || got[i].Subject != "deployrun/team-a/shop-dev-1" || got[i].Source != "/provider-devops/test" {
			t.Errorf("event %d: type %q, routing key %q, subject %q, source %q; want %q, %q", i, got[i].Type, got[i].RoutingKey(), got[i].Subject, got[i].Source, want.typ, want.key)
		}
	}
	want := events.Data{Project: "shop", Environment: "dev", Kind: "DeployRun", Namespace: "team-a", Name: "shop-dev-1",
		Phase: "Building", Status: events.StatusFailed, Message: "build #12 failed", Deployment: "team-a/shop-dev-1"}
	if diff := cmp.Diff(want, got[2].Data); diff != "" {
		t.Errorf("completed data: -want +got:\n%s", diff)
	}
	body, err := got[2].Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `"deployment":"team-a/shop-dev-1"`) {
		t.Errorf("the event's JSON has no deployment id: %s", body)
	}
}

// Heartbeats go to running deployments only, stop once final, and resume
// for running ones of the informer's initial list (a restart) without a
// phase event.
func TestHeartbeats(t *testing.T) {
	s := &sink{}
	w := deployments.New(s, deployments.Options{Format: deployments.Legacy})
	a := with(run("a", "req-a"), v1alpha1.DeployBuilding, "build #1 running")
	b := with(run("b", "req-b"), v1alpha1.DeployDeploying, "syncing")
	old := with(run("c", "req-c"), v1alpha1.DeploySucceeded, "done")
	w.Added(a, true)
	w.Added(b, true)
	w.Added(old, true)
	if got := s.take(); len(got) != 0 {
		t.Fatalf("the initial list sent %v, want nothing", got)
	}
	w.Beat(time.Now())
	if diff := cmp.Diff([]string{
		`legacy {"operation": "heartbeat", "id": "req-a", "status": "running", "phase": "building", "phase_message": "build #1 running", "url": null}`,
		`legacy {"operation": "heartbeat", "id": "req-b", "status": "running", "phase": "deploying", "phase_message": "syncing", "url": null}`,
	}, s.take()); diff != "" {
		t.Errorf("heartbeats of the re-tracked: -want +got:\n%s", diff)
	}

	a2 := with(a, v1alpha1.DeployBuilding, "build #1 at 80%")
	w.Changed(a, a2)
	fb := with(b, v1alpha1.DeployFailed, "sync failed")
	fb.Status.FailedPhase = v1alpha1.DeployDeploying
	w.Changed(b, fb)
	if diff := cmp.Diff([]string{
		`legacy {"operation": "heartbeat", "id": "req-b", "status": "failed", "phase": "deploying", "phase_message": "sync failed", "url": null}`,
	}, s.take()); diff != "" {
		t.Errorf("b failed: -want +got:\n%s", diff)
	}
	w.Beat(time.Now())
	if diff := cmp.Diff([]string{
		`legacy {"operation": "heartbeat", "id": "req-a", "status": "running", "phase": "building", "phase_message": "build #1 at 80%", "url": null}`,
	}, s.take()); diff != "" {
		t.Errorf("heartbeats after b failed: -want +got:\n%s", diff)
	}
	w.Changed(a2, with(a2, v1alpha1.DeploySucceeded, "deployed"))
	s.take()
	w.Beat(time.Now())
	if got := s.take(); len(got) != 0 {
		t.Errorf("heartbeats with nothing running: %v", got)
	}
}

// Deleting a running DeployRun cancels the deployment: a final terminated
// event with its last phase, and no more heartbeats. Deleting a finished
// one says nothing.
func TestTerminated(t *testing.T) {
	s := &sink{}
	w := deployments.New(s, deployments.Options{Format: deployments.Both})
	h := w.Handler()
	a := with(run("a", ""), v1alpha1.DeployVerifying, "waiting for Healthy")
	fresh := run("fresh", "") // deleted before its controller set a phase
	done := with(run("done", ""), v1alpha1.DeployFailed, "build failed")
	for _, dr := range []*v1alpha1.DeployRun{a, fresh, done} {
		h.OnAdd(dr, true)
	}
	h.OnDelete(a)
	h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "team-a/fresh", Obj: fresh})
	h.OnDelete(done)
	if diff := cmp.Diff([]string{
		"ce completed team-a/a Verifying Terminated",
		`legacy {"operation": "heartbeat", "id": "team-a/a", "status": "terminated", "phase": "verifying", "phase_message": "deployment cancelled: its DeployRun was deleted before it finished", "url": null}`,
		"ce completed team-a/fresh Pending Terminated",
		`legacy {"operation": "heartbeat", "id": "team-a/fresh", "status": "terminated", "phase": "initializing", "phase_message": "deployment cancelled: its DeployRun was deleted before it finished", "url": null}`,
	}, s.take()); diff != "" {
		t.Errorf("deletes: -want +got:\n%s", diff)
	}
	w.Beat(time.Now())
	if got := s.take(); len(got) != 0 {
		t.Errorf("heartbeats after the deletes: %v", got)
	}
}

// The handler tells a new DeployRun (phase event) from one of the initial
// list (none), and passes updates on.
func TestHandler(t *testing.T) {
	s := &sink{}
	w := deployments.New(s, deployments.Options{})
	h := w.Handler()
	a := run("a", "")
	h.OnAdd(a, true)
	if got := s.take(); len(got) != 0 {
		t.Errorf("initial list: %v", got)
	}
	b := run("b", "")
	h.OnAdd(b, false)
	h.OnUpdate(b, with(b, v1alpha1.DeployBuilding, ""))
	if diff := cmp.Diff([]string{"ce phase team-a/b Pending Running", "ce phase team-a/b Building Running"}, s.take()); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
	h.OnAdd("not a DeployRun", false)
	if got := s.take(); len(got) != 0 {
		t.Errorf("another type: %v", got)
	}
}

func TestDeploymentID(t *testing.T) {
	if got := deployments.DeploymentID(run("shop-dev-1", "amqp-7f3c")); got != "amqp-7f3c" {
		t.Errorf("with a request id: %q", got)
	}
	if got := deployments.DeploymentID(run("shop-dev-1", "")); got != "team-a/shop-dev-1" {
		t.Errorf("without a request id: %q", got)
	}
}

// The legacy body, byte for byte, for every status; url only once
// succeeded; strings escaped as Python's json.dumps does.
func TestLegacyBody(t *testing.T) {
	cases := map[string]struct {
		status, message, url string
		phase                v1alpha1.DeployPhase
		want                 string
	}{
		"Running": {status: events.StatusRunning, phase: v1alpha1.DeployPending, message: "waiting",
			want: `{"operation": "heartbeat", "id": "req-1", "status": "running", "phase": "initializing", "phase_message": "waiting", "url": null}`},
		"RunningIgnoresURL": {status: events.StatusRunning, phase: v1alpha1.DeployVerifying, url: "https://x.example",
			want: `{"operation": "heartbeat", "id": "req-1", "status": "running", "phase": "verifying", "phase_message": "", "url": null}`},
		"Succeeded": {status: events.StatusSucceeded, phase: v1alpha1.DeployVerifying, message: "deployed", url: "https://shop-dev.example.com/",
			want: `{"operation": "heartbeat", "id": "req-1", "status": "success", "phase": "verifying", "phase_message": "deployed", "url": "https://shop-dev.example.com/"}`},
		"SucceededNoURL": {status: events.StatusSucceeded, phase: v1alpha1.DeployVerifying, message: "deployed",
			want: `{"operation": "heartbeat", "id": "req-1", "status": "success", "phase": "verifying", "phase_message": "deployed", "url": null}`},
		"Failed": {status: events.StatusFailed, phase: v1alpha1.DeployBuilding, message: "build #3 failed",
			want: `{"operation": "heartbeat", "id": "req-1", "status": "failed", "phase": "building", "phase_message": "build #3 failed", "url": null}`},
		"FailedDeploying": {status: events.StatusFailed, phase: v1alpha1.DeployDeploying, message: "sync failed", url: "https://x.example",
			want: `{"operation": "heartbeat", "id": "req-1", "status": "failed", "phase": "deploying", "phase_message": "sync failed", "url": null}`},
		"Terminated": {status: events.StatusTerminated, phase: v1alpha1.DeployBuilding, message: "cancelled",
			want: `{"operation": "heartbeat", "id": "req-1", "status": "terminated", "phase": "building", "phase_message": "cancelled", "url": null}`},
		"Escaped": {status: events.StatusRunning, phase: v1alpha1.DeployBuilding, message: "say \"hi\" \\ <b>&\n\tcafé 😀\x7f",
			want: `{"operation": "heartbeat", "id": "req-1", "status": "running", "phase": "building", "phase_message": "say \"hi\" \\ <b>&\n\tcaf\u00e9 \ud83d\ude00\u007f", "url": null}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := deployments.LegacyBody("req-1", tc.status, tc.phase, tc.message, tc.url)
			if string(got) != tc.want {
				t.Errorf("LegacyBody:\n got %s\nwant %s", got, tc.want)
			}
			var v map[string]any
			if err := json.Unmarshal(got, &v); err != nil {
				t.Fatalf("not JSON: %v", err)
			}
			if v["phase_message"] != tc.message {
				t.Errorf("phase_message decodes to %q, want %q", v["phase_message"], tc.message)
			}
		})
	}
}

// The legacy message's properties.
func TestLegacyMessage(t *testing.T) {
	s := &sink{}
	w := deployments.New(s, deployments.Options{Format: deployments.Legacy, LegacyRoutingKey: "ui.heartbeats"})
	w.Added(run("a", ""), false)
	ms := s.messages()
	if len(ms) != 1 || len(s.events()) != 0 {
		t.Fatalf("got %d messages and %d events, want 1 and 0", len(ms), len(s.events()))
	}
	m := ms[0]
	if m.RoutingKey != "ui.heartbeats" || m.Type != "DevOpsReconcileJobHeartbeat" || m.ContentType != "application/json" || m.Time.IsZero() {
		t.Errorf("message: routing key %q, type %q, content type %q, time %v", m.RoutingKey, m.Type, m.ContentType, m.Time)
	}
	s.take()
	deployments.New(s, deployments.Options{Format: deployments.Legacy}).Added(run("b", ""), false)
	if ms := s.messages(); len(ms) != 1 || ms[0].RoutingKey != deployments.DefaultLegacyRoutingKey {
		t.Errorf("default routing key: %+v", ms)
	}
}

// Start beats every interval until its context ends.
func TestStart(t *testing.T) {
	s := &sink{}
	w := deployments.New(s, deployments.Options{Heartbeat: 20 * time.Millisecond})
	w.Added(with(run("a", ""), v1alpha1.DeployBuilding, ""), true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Start(ctx) }()
	deadline := time.Now().Add(5 * time.Second)
	for len(s.events()) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("%d heartbeats within 5s at a 20ms interval", len(s.events()))
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Start: %v", err)
	}
	for _, e := range s.events() {
		if e.What() != events.Heartbeat || e.Data.Status != events.StatusRunning {
			t.Errorf("unexpected %s %s", e.What(), e.Data.Status)
		}
	}
}

// mgr records the runnables added to it.
type mgr struct {
	manager.Manager
	added []manager.Runnable
}

func (m *mgr) Add(r manager.Runnable) error {
	m.added = append(m.added, r)
	return nil
}

// Only the leader watches and beats, so only the leader publishes.
func TestLeaderOnly(t *testing.T) {
	w := deployments.New(&sink{}, deployments.Options{})
	m := &mgr{}
	if err := w.Watch(m); err != nil {
		t.Fatal(err)
	}
	for _, r := range append(m.added, w) {
		le, ok := r.(manager.LeaderElectionRunnable)
		if !ok || !le.NeedLeaderElection() {
			t.Errorf("%T runs without leader election", r)
		}
	}
}

func TestFormat(t *testing.T) {
	for f, want := range map[deployments.Format][3]bool{
		deployments.CloudEvents: {true, true, false},
		deployments.Legacy:      {true, false, true},
		deployments.Both:        {true, true, true},
		"":                      {false, false, false},
		"json":                  {false, false, false},
	} {
		if got := [3]bool{f.Valid(), f.CloudEvents(), f.Legacy()}; got != want {
			t.Errorf("%q: valid, cloudevents, legacy = %v, want %v", f, got, want)
		}
	}
}

// A deployment that failed without saying in which phase failed while
// initializing (Pending).
func TestFailedWithoutPhase(t *testing.T) {
	s := &sink{}
	w := deployments.New(s, deployments.Options{Format: deployments.Both})
	w.Added(with(run("a", ""), v1alpha1.DeployFailed, "project shop not found"), false)
	if diff := cmp.Diff([]string{
		"ce completed team-a/a Pending Failed",
		`legacy {"operation": "heartbeat", "id": "team-a/a", "status": "failed", "phase": "initializing", "phase_message": "project shop not found", "url": null}`,
	}, s.take()); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
	w.Beat(time.Now())
	if got := s.take(); len(got) != 0 {
		t.Errorf("heartbeats of a failed deployment: %v", got)
	}
}

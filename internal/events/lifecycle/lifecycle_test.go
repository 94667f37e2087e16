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

package lifecycle_test

import (
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/controller/jenkinspipeline"
	"github.com/freeleaps/provider-devops/internal/events"
	"github.com/freeleaps/provider-devops/internal/events/lifecycle"
	"github.com/freeleaps/provider-devops/internal/events/vocab"
)

type sink struct {
	mu  sync.Mutex
	got []events.Event
}

func (s *sink) Publish(e events.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, e)
	return nil
}

func (s *sink) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, e := range s.got {
		out = append(out, e.What()+":"+e.Data.Status)
	}
	s.got = nil
	return out
}

func pipeline() *v1alpha1.JenkinsPipeline {
	p := &v1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: "shop-dev", Namespace: "team-a", UID: "u1",
		Labels: map[string]string{contract.LabelProject: "shop", contract.LabelEnvironment: "dev"}}}
	p.Status.AtProvider.URL = "https://jenkins.example/job/shop-dev/"
	return p
}

// Each step changes a pipeline the way the reconciler would and says which
// events must follow: exactly one per real change, none per poll.
func TestChanged(t *testing.T) {
	s := &sink{}
	w := lifecycle.New(s, lifecycle.Options{Source: "test"})
	k := jenkinspipeline.Descriptor.Lifecycle()
	cur := pipeline()
	w.Added(k, cur)

	step := func(name string, mutate func(p *v1alpha1.JenkinsPipeline), want ...string) {
		t.Helper()
		next := cur.DeepCopy()
		mutate(next)
		w.Changed(k, cur, next)
		cur = next
		if got := s.take(); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: events %v, want %v", name, got, want)
		}
	}
	step("Creating", func(p *v1alpha1.JenkinsPipeline) { p.SetConditions(xpv2.Creating()) })
	// The create is recorded with the first observed status.
	step("CreatedAndReady", func(p *v1alpha1.JenkinsPipeline) {
		p.SetConditions(vocab.Created(time.Now()), xpv2.Available(), xpv2.ReconcileSuccess())
	}, "created:Created", "ready:Ready")
	step("PollNoChange", func(p *v1alpha1.JenkinsPipeline) { p.SetResourceVersion("2") })
	step("Failing", func(p *v1alpha1.JenkinsPipeline) {
		p.SetConditions(xpv2.ReconcileError(errors.New("cannot observe the Jenkins job: 503")))
	}, "failed:Failed")
	step("StillFailingOtherMessage", func(p *v1alpha1.JenkinsPipeline) {
		p.SetConditions(xpv2.ReconcileError(errors.New("cannot observe the Jenkins job: timeout")))
	})
	step("Recovered", func(p *v1alpha1.JenkinsPipeline) { p.SetConditions(xpv2.ReconcileSuccess()) })
	step("Queued", func(p *v1alpha1.JenkinsPipeline) { p.Status.AtProvider.InQueue = true })
	step("Building", func(p *v1alpha1.JenkinsPipeline) {
		p.Status.AtProvider.InQueue = false
		p.Status.AtProvider.LastBuild = &v1alpha1.BuildObservation{Number: 1, Building: true, URL: "https://jenkins.example/job/shop-dev/1/"}
	})
	step("Finished", func(p *v1alpha1.JenkinsPipeline) {
		p.Status.AtProvider.LastBuild = &v1alpha1.BuildObservation{Number: 1, Result: "FAILURE", URL: "https://jenkins.example/job/shop-dev/1/"}
	}, "completed:Failed")
	// Created again (its job deleted behind its back): a new record.
	step("CreatedAgain", func(p *v1alpha1.JenkinsPipeline) {
		p.SetConditions(vocab.Created(time.Now().Add(time.Minute)))
	}, "created:Created")
	// An earlier version's annotation, older than the record: nothing new.
	step("AnEarlierRecord", func(p *v1alpha1.JenkinsPipeline) {
		meta.SetExternalCreateSucceeded(p, time.Now().Add(-time.Hour))
	})
	step("PollAfterFinish", func(p *v1alpha1.JenkinsPipeline) { p.SetResourceVersion("3") })
	step("BuildSeenOnlyFinished", func(p *v1alpha1.JenkinsPipeline) {
		p.Status.AtProvider.LastBuild = &v1alpha1.BuildObservation{Number: 2, Result: "SUCCESS", URL: "https://jenkins.example/job/shop-dev/2/"}
	}, "completed:Succeeded")
}

func TestDeleted(t *testing.T) {
	k := jenkinspipeline.Descriptor.Lifecycle()
	past := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	cases := map[string]struct {
		expiresAt string
		pols      xpv2.ManagementPolicies
		what, msg string
	}{
		"Deleted":         {what: events.Deleted, msg: "external object deleted"},
		"BeforeExpiry":    {expiresAt: future, what: events.Deleted, msg: "external object deleted"},
		"Expired":         {expiresAt: past, what: events.Expired, msg: "environment expired at " + past + "; external object deleted"},
		"ExpiredRetained": {expiresAt: past, pols: xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionUpdate}, what: events.Expired, msg: "environment expired at " + past + "; external object kept: managementPolicies omit Delete"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := &sink{}
			w := lifecycle.New(s, lifecycle.Options{Source: "test"})
			p := pipeline()
			now := metav1.Now()
			p.SetDeletionTimestamp(&now)
			if tc.expiresAt != "" {
				p.SetAnnotations(map[string]string{contract.AnnotationExpiresAt: tc.expiresAt})
			}
			p.SetManagementPolicies(tc.pols)
			w.Deleted(k, p)
			if len(s.got) != 1 {
				t.Fatalf("got %d events, want 1", len(s.got))
			}
			e := s.got[0]
			if e.What() != tc.what || e.Data.Message != tc.msg {
				t.Errorf("got %s %q, want %s %q", e.What(), e.Data.Message, tc.what, tc.msg)
			}
			if e.Data.Project != "shop" || e.Data.Environment != "dev" || e.Subject != "jenkinspipeline/team-a/shop-dev" || e.Data.URL != "https://jenkins.example/job/shop-dev/" {
				t.Errorf("event data: %+v subject %s", e.Data, e.Subject)
			}
		})
	}
}

// BenchmarkChangedNoEvent is what every status write of a managed resource
// costs the watcher when nothing it reports changed (the steady state).
func BenchmarkChangedNoEvent(b *testing.B) {
	s := &sink{}
	w := lifecycle.New(s, lifecycle.Options{Source: "bench"})
	old := pipeline()
	old.SetConditions(xpv2.Available(), xpv2.ReconcileSuccess())
	old.Status.AtProvider.LastBuild = &v1alpha1.BuildObservation{Number: 3, Result: "SUCCESS"}
	cur := old.DeepCopy()
	cur.SetResourceVersion("2")
	b.ReportAllocs()
	for range b.N {
		w.Changed(jenkinspipeline.Descriptor.Lifecycle(), old, cur)
	}
	if len(s.got) != 0 {
		b.Fatalf("%d events for no change", len(s.got))
	}
}

// TestReplay is a leader change: the new leader's watcher finds every
// resource (Added) and sends again what happened within the replay window,
// with the ids the old leader sent it with, and nothing older.
func TestReplay(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	k := jenkinspipeline.Descriptor.Lifecycle()

	old := &sink{}
	w := lifecycle.New(old, lifecycle.Options{Source: "test", Now: clock})
	before := pipeline()
	cur := before.DeepCopy()
	meta.SetExternalCreateSucceeded(cur, now.Add(-time.Minute))
	ready := xpv2.Available()
	ready.LastTransitionTime = metav1.NewTime(now.Add(-time.Minute))
	cur.SetConditions(ready)
	w.Changed(k, before, cur)

	ids := func(s *sink) map[string]string {
		s.mu.Lock()
		defer s.mu.Unlock()
		out := map[string]string{}
		for _, e := range s.got {
			out[e.What()] = e.ID
		}
		s.got = nil
		return out
	}
	sent := ids(old)
	if len(sent) != 2 {
		t.Fatalf("the old leader sent %v, want created and ready", sent)
	}

	cases := map[string]struct {
		replay  time.Duration
		max     int
		age     time.Duration
		want    map[string]string
		dropped float64
	}{
		"Recent":      {age: 0, want: sent},
		"OlderThanIt": {age: lifecycle.DefaultReplay, want: map[string]string{}},
		"Disabled":    {replay: -1, age: 0, want: map[string]string{}},
		"Limited":     {max: 1, age: 0, want: map[string]string{"created": sent["created"]}, dropped: 1},
		// Recorded times ahead of the clock are anyone's to write.
		"FromTheFuture": {age: -time.Hour, want: map[string]string{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := &sink{}
			at := now.Add(tc.age)
			dropped := prometheus.NewCounter(prometheus.CounterOpts{Name: "dropped"})
			nw := lifecycle.New(s, lifecycle.Options{Source: "test", Replay: tc.replay, ReplayMax: tc.max, ReplayDropped: dropped, Now: func() time.Time { return at }})
			nw.Added(k, cur)
			if got := ids(s); !maps.Equal(got, tc.want) {
				t.Errorf("replayed %v, want %v", got, tc.want)
			}
			if got := testutil.ToFloat64(dropped); got != tc.dropped {
				t.Errorf("counted %v events not replayed, want %v", got, tc.dropped)
			}
		})
	}

	// Another transition at another time is another event.
	again := cur.DeepCopy()
	notReady := xpv2.Unavailable()
	notReady.LastTransitionTime = metav1.NewTime(now)
	again.SetConditions(notReady)
	back := again.DeepCopy()
	ready.LastTransitionTime = metav1.NewTime(now.Add(time.Second))
	back.SetConditions(ready)
	w.Changed(k, again, back)
	if got := ids(old); got["ready"] == "" || got["ready"] == sent["ready"] {
		t.Errorf("a second Ready got id %q, the first had %q", got["ready"], sent["ready"])
	}
}

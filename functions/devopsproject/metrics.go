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
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/crossplane/function-sdk-go/resource"
)

// forgetAfter is how long a project's last run counts in the metrics:
// Crossplane runs the function for every project at least every
// input.pollInterval (at most a few minutes), so one not run for this
// long is gone.
const forgetAfter = 15 * time.Minute

// environmentMetrics are the projects' environments as the last run of
// each planned them, summed by namespace when scraped: how many are in
// each phase, and how long the most overdue one has been past its expiry
// with its resources still there (an environment failing to expire: its
// deletion stuck on a finalizer, a backend refusing it). The labels are
// the namespace and the phase, never a project's or an environment's name.
type environmentMetrics struct {
	mu       sync.Mutex
	projects map[string]projectSeen // by namespace/name
	now      func() time.Time

	phases, overdue *prometheus.Desc
}

// projectSeen is what one project's last run planned.
type projectSeen struct {
	at        time.Time
	namespace string
	phases    map[Phase]int
	// expiredAt is the earliest expiry of its environments that are past
	// it and still have resources; zero when none.
	expiredAt time.Time
}

func newEnvironmentMetrics(now func() time.Time) *environmentMetrics {
	return &environmentMetrics{
		projects: map[string]projectSeen{},
		now:      now,
		phases: prometheus.NewDesc("function_devopsproject_environments",
			"Environments of the projects run in the last 15 minutes, by namespace and phase (Provisioning, Ready, ExpiringSoon, Expiring, Expired).", []string{"namespace", "phase"}, nil),
		overdue: prometheus.NewDesc("function_devopsproject_environment_expiry_overdue_seconds",
			"How long the most overdue environment of the namespace has been past its expiry with its resources still composed or observed; 0 when none is.", []string{"namespace"}, nil),
	}
}

// record keeps what a run of the project planned.
func (m *environmentMetrics) record(namespace, name string, pl plan, observed map[resource.Name]*structpb.Struct, now time.Time) {
	p := projectSeen{at: now, namespace: namespace, phases: map[Phase]int{}}
	for _, ep := range pl.envs {
		p.phases[ep.phase]++
		at := ep.expiry.at
		if at.IsZero() || now.Before(at) || !anyObserved(ep.env.Name, observed) {
			continue
		}
		if p.expiredAt.IsZero() || at.Before(p.expiredAt) {
			p.expiredAt = at
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.projects[namespace+"/"+name] = p
}

// anyObserved is true while one of env's resources is observed.
func anyObserved(env string, observed map[resource.Name]*structpb.Struct) bool {
	for _, n := range []resource.Name{namePipeline(env), nameApp(env), nameDNS(env)} {
		if _, ok := observed[n]; ok {
			return true
		}
	}
	return false
}

func (m *environmentMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.phases
	ch <- m.overdue
}

func (m *environmentMetrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	count := map[string]map[Phase]int{}
	overdue := map[string]time.Duration{}
	for k, p := range m.projects {
		if now.Sub(p.at) > forgetAfter {
			delete(m.projects, k)
			continue
		}
		if count[p.namespace] == nil {
			count[p.namespace] = map[Phase]int{}
		}
		for ph, n := range p.phases {
			count[p.namespace][ph] += n
		}
		o := overdue[p.namespace]
		if !p.expiredAt.IsZero() {
			o = max(o, now.Sub(p.expiredAt))
		}
		overdue[p.namespace] = o
	}
	for ns, byPhase := range count {
		for _, ph := range []Phase{PhaseProvisioning, PhaseReady, PhaseExpiringSoon, PhaseExpiring, PhaseExpired} {
			ch <- prometheus.MustNewConstMetric(m.phases, prometheus.GaugeValue, float64(byPhase[ph]), ns, string(ph))
		}
		ch <- prometheus.MustNewConstMetric(m.overdue, prometheus.GaugeValue, overdue[ns].Seconds(), ns)
	}
}

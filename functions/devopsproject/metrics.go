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
)

// forgetAfter is how long a project's last run counts in the metrics:
// Crossplane runs the function for every project at least every
// input.pollInterval (at most a few minutes), so one not run for this
// long is gone.
const forgetAfter = 15 * time.Minute

// environmentMetrics are the projects' environments by phase as the last
// run of each planned them, summed by namespace when scraped. The labels
// are the namespace and the phase, never a project's or an environment's
// name. (Resources an expired environment leaves behind, held by a
// finalizer, are the provider's provider_devops_managed_deleting_seconds:
// once an environment is Expired its resources are no longer composed,
// and Crossplane no longer shows them to the function.)
type environmentMetrics struct {
	mu       sync.Mutex
	projects map[string]projectSeen // by namespace/name
	now      func() time.Time

	phases *prometheus.Desc
	expiry *prometheus.Desc
}

// projectSeen is what one project's last run planned.
type projectSeen struct {
	at        time.Time
	namespace string
	phases    map[Phase]int
	// expires is when the first of its environments that expire and have
	// not yet expires; zero when none does.
	expires time.Time
}

func newEnvironmentMetrics(now func() time.Time) *environmentMetrics {
	return &environmentMetrics{
		projects: map[string]projectSeen{},
		now:      now,
		phases: prometheus.NewDesc("function_devopsproject_environments",
			"Environments of the projects run in the last 15 minutes, by namespace and phase (Provisioning, Ready, ExpiringSoon, Expiring, Expired).", []string{"namespace", "phase"}, nil),
		expiry: prometheus.NewDesc("function_devopsproject_next_expiry_seconds",
			"Seconds until the namespace's next environment with a time-to-live expires (negative: overdue, not yet seen expired); absent when none will.", []string{"namespace"}, nil),
	}
}

// record keeps what a run of the project planned, and forgets the
// projects not run for forgetAfter.
func (m *environmentMetrics) record(namespace, name string, pl plan, now time.Time) {
	p := projectSeen{at: now, namespace: namespace, phases: map[Phase]int{}}
	for _, ep := range pl.envs {
		p.phases[ep.phase]++
		if at := ep.expiry.at; !at.IsZero() && ep.phase != PhaseExpired && (p.expires.IsZero() || at.Before(p.expires)) {
			p.expires = at
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.projects[namespace+"/"+name] = p
	m.forget(now)
}

// forget drops the projects not run for forgetAfter; m.mu is held.
func (m *environmentMetrics) forget(now time.Time) {
	for k, p := range m.projects {
		if now.Sub(p.at) > forgetAfter {
			delete(m.projects, k)
		}
	}
}

func (m *environmentMetrics) Describe(ch chan<- *prometheus.Desc) { ch <- m.phases; ch <- m.expiry }

func (m *environmentMetrics) Collect(ch chan<- prometheus.Metric) {
	// Summed under the lock, sent after it: a slow scrape must not hold
	// the runs.
	m.mu.Lock()
	now := m.now()
	m.forget(now)
	count := map[string]map[Phase]int{}
	next := map[string]time.Time{}
	for _, p := range m.projects {
		if count[p.namespace] == nil {
			count[p.namespace] = map[Phase]int{}
		}
		for ph, n := range p.phases {
			count[p.namespace][ph] += n
		}
		if n, ok := next[p.namespace]; !p.expires.IsZero() && (!ok || p.expires.Before(n)) {
			next[p.namespace] = p.expires
		}
	}
	m.mu.Unlock()
	for ns, at := range next {
		ch <- prometheus.MustNewConstMetric(m.expiry, prometheus.GaugeValue, at.Sub(now).Seconds(), ns)
	}
	for ns, byPhase := range count {
		for _, ph := range []Phase{PhaseProvisioning, PhaseReady, PhaseExpiringSoon, PhaseExpiring, PhaseExpired} {
			ch <- prometheus.MustNewConstMetric(m.phases, prometheus.GaugeValue, float64(byPhase[ph]), ns, string(ph))
		}
	}
}

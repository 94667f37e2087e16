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

package deployrun

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
)

// OutcomeCanceled is the outcome of a deployment deleted before it ended.
const OutcomeCanceled = "Canceled"

// The deployments' metrics. Labels are bounded: the namespace, the four
// running phases and three outcomes. One per process, like
// controller-runtime's own metrics, registered with its registry.
//
//nolint:gochecknoglobals // one per process, as controller-runtime's
var (
	finishedRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "provider_devops_deployruns_finished_total",
		Help: "Deployments that ended, by namespace and outcome (Succeeded, Failed, Canceled: deleted while running).",
	}, []string{"namespace", "outcome"})
	phaseDurations = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "provider_devops_deployrun_phase_duration_seconds",
		Help:    "How long the deployments that ended spent in each phase (Pending, Building, Deploying, Verifying), by the deployment's outcome.",
		Buckets: []float64{0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600},
	}, []string{"phase", "outcome"})
	ages = &phaseAges{desc: prometheus.NewDesc("provider_devops_deployrun_phase_age_seconds",
		"The longest any running deployment of the namespace has been in its phase, by namespace and phase; 0 when none is in it.", []string{"namespace", "phase"}, nil)}
)

func init() { metrics.Registry.MustRegister(finishedRuns, phaseDurations, ages) }

// runningPhases are the phases a deployment moves through before its end.
var runningPhases = []v1alpha1.DeployPhase{v1alpha1.DeployPending, v1alpha1.DeployBuilding, v1alpha1.DeployDeploying, v1alpha1.DeployVerifying} //nolint:gochecknoglobals // read-only

// ended counts a deployment that has just ended with outcome, and the time
// it spent in each phase its timeline still holds.
func ended(d *v1alpha1.DeployRun, outcome string, now time.Time) {
	finishedRuns.WithLabelValues(d.Namespace, outcome).Inc()
	tl := d.Status.Timeline
	for i, t := range tl {
		if t.Phase.Final() {
			continue
		}
		end := now
		if i+1 < len(tl) {
			end = tl[i+1].At.Time
		}
		phaseDurations.WithLabelValues(string(t.Phase), outcome).Observe(end.Sub(t.At.Time).Seconds())
	}
}

// phaseAges reads, when scraped, how long the running deployments have
// been in their phases, from the manager's cache: a deployment stuck in a
// phase shows before its timeout ends it.
type phaseAges struct {
	desc    *prometheus.Desc
	mu      sync.Mutex
	kube    client.Reader
	now     func() time.Time
	elected <-chan struct{}
}

// use makes the collector read kube once its manager leads (elected
// closed): a standby's cache holds no DeployRuns, and a list would make
// it start watching them. The last manager set up wins (one per process
// outside tests).
func (p *phaseAges) use(kube client.Reader, now func() time.Time, elected <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.kube, p.now, p.elected = kube, now, elected
}

func (p *phaseAges) Describe(ch chan<- *prometheus.Desc) { ch <- p.desc }

func (p *phaseAges) Collect(ch chan<- prometheus.Metric) {
	p.mu.Lock()
	kube, now, elected := p.kube, p.now, p.elected
	p.mu.Unlock()
	if kube == nil {
		return
	}
	select {
	case <-elected:
	default:
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	l := &v1alpha1.DeployRunList{}
	// Read only, so the cache's own objects: no copy of every DeployRun
	// at each scrape.
	if err := kube.List(ctx, l, client.UnsafeDisableDeepCopy); err != nil {
		return
	}
	oldest := map[string]map[v1alpha1.DeployPhase]time.Duration{}
	for i := range l.Items {
		d := &l.Items[i]
		if oldest[d.Namespace] == nil {
			oldest[d.Namespace] = map[v1alpha1.DeployPhase]time.Duration{}
		}
		if d.Status.Phase.Final() || len(d.Status.Timeline) == 0 {
			continue
		}
		last := d.Status.Timeline[len(d.Status.Timeline)-1]
		if last.Phase == d.Status.Phase {
			oldest[d.Namespace][last.Phase] = max(oldest[d.Namespace][last.Phase], now().Sub(last.At.Time))
		}
	}
	// Every namespace with DeployRuns, every running phase: a series that
	// goes to 0 rather than away when the stuck one ends.
	for ns, byPhase := range oldest {
		for _, ph := range runningPhases {
			ch <- prometheus.MustNewConstMetric(p.desc, prometheus.GaugeValue, byPhase[ph].Seconds(), ns, string(ph))
		}
	}
}

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

package mrcontroller

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

// observations counts the Observes of external objects by kind and
// outcome: how often the provider looks at its backends, which the
// reconcile counters cannot tell (a reconcile told to wait by the rate
// limiter counts as one too). The labels are bounded: the provider's kinds
// and four outcomes. One per process, like controller-runtime's own
// metrics, registered with its registry.
//
//nolint:gochecknoglobals // one per process, as controller-runtime's
var observations = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "provider_devops_observations_total",
	Help: "Observations of external objects, by managed-resource kind and outcome (exists, absent, transient error, terminal error).",
}, []string{"kind", "outcome"})

func init() { metrics.Registry.MustRegister(observations, deleting) }

// deleting reports, when scraped, how long the managed resources being
// deleted have been so, read from the cache: an environment that expired,
// or a project deleted, whose resources stay (a finalizer the provider
// cannot remove because its backend refuses the delete, another
// controller's finalizer) shows there. The labels are the namespace and
// the kind.
//
//nolint:gochecknoglobals // one per process, as controller-runtime's
var deleting = &deletingCollector{
	desc: prometheus.NewDesc("provider_devops_managed_deleting_seconds",
		"The longest any managed resource of the kind in the namespace has been deleting (deletion requested, still there), by namespace and kind; 0 when none is.", []string{"namespace", "kind"}, nil),
	kinds: map[string]kindList{},
	now:   time.Now,
}

// kindList lists one managed kind from a manager's cache, once that
// manager leads: a standby's cache holds no managed resources, and a list
// would make it start watching them all.
type kindList struct {
	kube    client.Reader
	newList func() resource.ManagedList
	elected <-chan struct{}
}

type deletingCollector struct {
	desc  *prometheus.Desc
	mu    sync.Mutex
	kinds map[string]kindList
	now   func() time.Time
}

// add makes the collector read kind from kube; the last manager set up
// wins (one per process outside tests).
func (d *deletingCollector) add(kind string, kube client.Reader, newList func() resource.ManagedList, elected <-chan struct{}) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.kinds[kind] = kindList{kube: kube, newList: newList, elected: elected}
}

func (d *deletingCollector) Describe(ch chan<- *prometheus.Desc) { ch <- d.desc }

func (d *deletingCollector) Collect(ch chan<- prometheus.Metric) {
	d.mu.Lock()
	kinds := maps.Clone(d.kinds)
	d.mu.Unlock()
	now := d.now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for kind, k := range kinds {
		select {
		case <-k.elected:
		default:
			continue
		}
		l := k.newList()
		// Read only: the cache's own objects, no copy of each at a scrape.
		if err := k.kube.List(ctx, l, client.UnsafeDisableDeepCopy); err != nil {
			continue
		}
		longest := map[string]time.Duration{}
		for _, mg := range l.GetItems() {
			ns := mg.GetNamespace()
			since := time.Duration(0)
			if ts := mg.GetDeletionTimestamp(); ts != nil {
				since = now.Sub(ts.Time)
			}
			longest[ns] = max(longest[ns], since)
		}
		for ns, since := range longest {
			ch <- prometheus.MustNewConstMetric(d.desc, prometheus.GaugeValue, since.Seconds(), ns, kind)
		}
	}
}

// observed counts one Observe of kind's external object.
func observed(kind string, exists bool, err error) {
	outcome := "exists"
	switch {
	case err != nil && httpapi.IsTerminal(err):
		outcome = "terminal"
	case err != nil:
		outcome = "error"
	case !exists:
		outcome = "absent"
	}
	observations.WithLabelValues(kind, outcome).Inc()
}

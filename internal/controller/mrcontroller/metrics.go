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
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

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

func init() { metrics.Registry.MustRegister(observations) }

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

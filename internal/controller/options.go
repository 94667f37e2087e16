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

package controller

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/feature"
	"github.com/crossplane/crossplane-runtime/v2/pkg/gate"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"

	"github.com/freeleaps/provider-devops/internal/controller/fairrate"
)

// Defaults of the provider's --max-reconcile-rate and --poll flags, here
// so that the scale benchmark runs the provider as it runs by default.
//
// The rate is 100 reconciles per second, Crossplane core's default, not
// crossplane-runtime's 10. At 10 the provider cannot keep its own 5-minute
// poll beyond 3,000 resources (10,000 need 33 polls a second), and a
// restart re-observes every resource at this rate: 10,000 take 100 s at
// 100, 200 s at 50 (BenchmarkScale). A new resource takes one token (its
// create; the look that confirms it is free, fairrate.FollowUp). Steady
// state makes no writes and reads from the cache, so the rate (and the API
// client's 5 requests per second per reconcile it implies) is only reached
// in bursts; each backend is held down by its own Retry-After gate, not by
// this rate.
const (
	DefaultMaxReconcileRate = 100
	DefaultPollInterval     = 5 * time.Minute
)

// PerNamespaceShare is the part of --max-reconcile-rate one namespace may
// use, and of each kind's workers it may keep busy: one team's resources,
// however many are due or however slowly its backends answer, leave half
// to the others (fairrate; BenchmarkNoisyNeighbour).
const PerNamespaceShare = 2

// Options are the controller options the provider runs with at rate
// reconciles per second (all kinds together; one namespace's at most
// rate/PerNamespaceShare) and the given poll interval: as many concurrent
// reconciles per kind as the rate, management policies honoured when
// managementPolicies is true.
func Options(log logging.Logger, rate int, poll time.Duration, managementPolicies bool) controller.Options {
	o := controller.Options{
		Logger:                  log,
		MaxConcurrentReconciles: rate,
		PollInterval:            poll,
		GlobalRateLimiter:       fairrate.New(rate, max(rate/PerNamespaceShare, 1), max(rate/PerNamespaceShare, 1)),
		Features:                &feature.Flags{},
		Gate:                    new(gate.Gate[schema.GroupVersionKind]),
	}
	if managementPolicies {
		o.Features.Enable(feature.EnableBetaManagementPolicies)
	}
	return o
}

// RESTConfig is cfg limited as the provider limits it at rate reconciles
// per second (crossplane-runtime's 5 requests per second per reconcile).
func RESTConfig(cfg *rest.Config, rate int) *rest.Config {
	return ratelimiter.LimitRESTConfig(cfg, rate)
}

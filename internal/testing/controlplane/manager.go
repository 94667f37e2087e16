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

package controlplane

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/feature"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
)

var setLoggerOnce sync.Once

// StartManager runs a controller manager against e with the controllers
// setup adds, configured as cmd/provider configures them but with the given
// poll interval. It stops when the test ends.
func StartManager(t testing.TB, e *Env, poll time.Duration, setup func(ctrl.Manager, controller.Options) error) {
	t.Helper()
	StartManagerLogging(t, e, poll, nil, setup)
}

// StartManagerLogging is StartManager with the controllers' debug logs
// written to logs (nil: discarded), so tests can check what they say.
func StartManagerLogging(t testing.TB, e *Env, poll time.Duration, logs io.Writer, setup func(ctrl.Manager, controller.Options) error) {
	t.Helper()
	log := logging.NewNopLogger()
	if logs != nil {
		log = logging.NewLogrLogger(zap.New(zap.WriteTo(logs), zap.UseDevMode(true)))
	}
	o := controller.Options{
		Logger:                  log,
		MaxConcurrentReconciles: 4,
		PollInterval:            poll,
		GlobalRateLimiter:       ratelimiter.NewGlobal(100),
		Features:                &feature.Flags{},
	}
	o.Features.Enable(feature.EnableBetaManagementPolicies)
	StartManagerWith(t, e.Config, e, o, setup)
}

// Quiet discards controller-runtime's own logs, which are not the
// provider's (instead of a warning with a stack trace that no logger was
// set), for tests that use its caches or managers.
func Quiet() { setLoggerOnce.Do(func() { ctrl.SetLogger(logr.Discard()) }) }

// StartManagerWith runs a controller manager against e, talking to its API
// server with cfg (limited or counted as the caller wants), with the
// controllers setup adds given o. It stops when the test ends.
func StartManagerWith(t testing.TB, cfg *rest.Config, e *Env, o controller.Options, setup func(ctrl.Manager, controller.Options) error) {
	t.Helper()
	Quiet()
	// Tests in one package start several managers in one process; their
	// controllers share names, which controller-runtime refuses by default.
	// Secrets are read and cached as the provider does.
	skip := true
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: e.Scheme, Cache: mrcontroller.CacheOptions(nil), Client: mrcontroller.ClientOptions(), Metrics: metricsserver.Options{BindAddress: "0"}, Controller: config.Controller{SkipNameValidation: &skip}})
	if err != nil {
		t.Fatal(err)
	}
	if err := setup(mgr, o); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = mgr.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

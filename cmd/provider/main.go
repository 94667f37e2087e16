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

// Command provider runs the provider-devops controllers.
package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	changelogsv1alpha1 "github.com/crossplane/crossplane-runtime/v2/apis/changelogs/proto/v1alpha1"
	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/feature"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/customresourcesgate"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/statemetrics"

	"github.com/freeleaps/provider-devops/apis"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
	devops "github.com/freeleaps/provider-devops/internal/controller"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/events/stream"
	"github.com/freeleaps/provider-devops/internal/health"
	"github.com/freeleaps/provider-devops/internal/tracing"
	"github.com/freeleaps/provider-devops/internal/version"
)

func main() {
	app := kingpin.New(filepath.Base(os.Args[0]), "Crossplane provider for Jenkins, Argo CD, DNS and container registries.").DefaultEnvars()
	f := registerFlags(app)
	kingpin.MustParse(app.Parse(os.Args[1:]))
	if err := f.validate(); err != nil {
		app.Fatalf("invalid flags: %v", err)
	}
	guard, err := backendconfig.NewGuard(splitAll(f.tenantBackendHosts), splitAll(f.tenantBackendNetworks))
	if err != nil {
		app.Fatalf("invalid flags: %v", err)
	}

	zl := zap.New(zap.UseDevMode(f.debug))
	log := logging.NewLogrLogger(zl.WithName("provider-devops"))
	// controller-runtime is very verbose at info level: give it a real logger
	// only in debug mode.
	if f.debug {
		ctrl.SetLogger(zl)
	} else {
		ctrl.SetLogger(zap.New(zap.WriteTo(io.Discard)))
	}
	log.Info("starting", "version", version.Version, "poll", f.pollInterval, "sync", f.syncInterval, "maxReconcileRate", f.maxReconcileRate)

	cfg, err := ctrl.GetConfig()
	kingpin.FatalIfError(err, "cannot get the API server's REST config")

	stopTracing, rc := setupTracing(log, cfg, f.maxReconcileRate)

	writes := devops.NewWrites()
	mgr, err := ctrl.NewManager(rc, ctrl.Options{
		NewClient: writes.NewClient,
		// Secrets are read straight from the API server, and cached only by
		// their metadata (--watch-credential-secrets).
		Cache:                  mrcontroller.CacheOptions(&f.syncInterval),
		Client:                 mrcontroller.ClientOptions(),
		Metrics:                metricsserver.Options{BindAddress: f.metricsAddr},
		HealthProbeBindAddress: f.healthAddr,
		// Leases only, and by default longer than controller-runtime's:
		// leader loss under load was seen with 15 s leases in other
		// Crossplane providers.
		LeaderElection:             f.leaderElection,
		LeaderElectionID:           leaseName,
		LeaderElectionResourceLock: resourcelock.LeasesResourceLock,
		LeaseDuration:              ptr(f.leaseDuration),
		RenewDeadline:              ptr(renewDeadline(f.leaseDuration)),
		// A replica that stops (a rolling update, a drain) hands the lease
		// over at once instead of making the standby wait the lease out;
		// nothing runs after the manager stops.
		LeaderElectionReleaseOnCancel: true,
	})
	kingpin.FatalIfError(err, "cannot create the controller manager")
	kingpin.FatalIfError(apis.AddToScheme(mgr.GetScheme()), "cannot add the provider's APIs to the scheme")
	kingpin.FatalIfError(apiextensionsv1.AddToScheme(mgr.GetScheme()), "cannot add CustomResourceDefinitions to the scheme")
	kingpin.FatalIfError(mgr.AddHealthzCheck("healthz", healthz.Ping), "cannot add the health check")
	kingpin.FatalIfError(addReadyzChecks(mgr, cfg, f.leaderElection), "cannot add the readiness checks")

	mrMetrics := managed.NewMRMetricRecorder()
	stateMetrics := statemetrics.NewMRStateMetrics()
	metrics.Registry.MustRegister(mrMetrics, stateMetrics, writes)

	o := devops.Options(log, f.maxReconcileRate, f.pollInterval, f.managementPolicies)
	o.MetricOptions = &controller.MetricOptions{
		PollStateMetricInterval: f.pollStateMetricInterval,
		MRMetrics:               mrMetrics,
		MRStateMetrics:          stateMetrics,
	}
	if f.changeLogs {
		// As provider-template wires them: every external create, update
		// and delete is sent to the change-logs sidecar over its socket.
		o.Features.Enable(feature.EnableAlphaChangeLogs)
		conn, err := grpc.NewClient("unix://"+f.changeLogsSocket, grpc.WithTransportCredentials(insecure.NewCredentials()))
		kingpin.FatalIfError(err, "cannot create the change-logs client")
		o.ChangeLogOptions = &controller.ChangeLogOptions{
			ChangeLogger: managed.NewGRPCChangeLogger(changelogsv1alpha1.NewChangeLogServiceClient(conn), managed.WithProviderVersion(version.Version)),
		}
	}

	kingpin.FatalIfError(customresourcesgate.Setup(mgr, o), "cannot set up the CRD gate")
	// The one list of managed kinds, for their controllers and their events.
	kindsCfg := devops.Config{OwnerID: f.ownerID, DeployHistory: f.deployHistory, DeployHTTPCheck: f.deployHTTPCheck, WatchCredentialSecrets: f.watchCredentialSecrets, Guard: guard}
	kinds := devops.Kinds(kindsCfg)
	kingpin.FatalIfError(devops.SetupKinds(mgr, o, kindsCfg, kinds), "cannot set up the controllers")
	kingpin.FatalIfError(stream.Setup(mgr, o, *f.events, devops.Events(kinds), log), "cannot set up the event stream")
	err = mgr.Start(ctrl.SetupSignalHandler())
	// The spans of what ended before the stop are sent before exiting.
	flush, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if serr := stopTracing(flush); serr != nil {
		log.Info("cannot send the last traces", "error", serr)
	}
	kingpin.FatalIfError(err, "cannot start the controller manager")
}

func ptr[T any](v T) *T { return &v }

// leaseName is the leader election's Lease.
const leaseName = "crossplane-leader-election-provider-devops"

// addReadyzChecks makes /readyz say the replica can do its work: it
// reaches the API server (asked at most every 5s), its caches have synced,
// and with leader election it leads or a leader holds the lease.
// setupTracing exports traces when an OTLP endpoint is configured, and
// returns the manager's REST config, whose requests in a deployment's
// trace are spans of it.
func setupTracing(log logging.Logger, cfg *rest.Config, maxReconcileRate int) (func(context.Context) error, *rest.Config) {
	stop, err := tracing.Setup(context.Background(), "provider-devops", version.Version, func(err error, suppressed int) {
		log.Info("cannot send traces to the OTLP endpoint; the spans are dropped", "error", err.Error(), "errorsSinceLastLogged", suppressed)
	})
	if err != nil {
		// Tracing is optional: a mistake in its settings must not stop
		// the provider's work.
		log.Info("tracing is off: its settings are wrong", "error", err.Error())
		stop = func(context.Context) error { return nil }
	}
	if tracing.Enabled() {
		log.Info("exporting deployment traces over OTLP")
	}
	rc := devops.RESTConfig(cfg, maxReconcileRate)
	rc.Wrap(func(rt http.RoundTripper) http.RoundTripper { return tracing.Transport("kubernetes", rt) })
	return stop, rc
}

func addReadyzChecks(mgr ctrl.Manager, cfg *rest.Config, leaderElection bool) error {
	// Its own client, out of the controllers' rate limit: a busy replica
	// must not look unready for waiting on its own limiter.
	pc := rest.CopyConfig(cfg)
	pc.RateLimiter, pc.QPS, pc.Burst, pc.Timeout = nil, 5, 10, 2*time.Second
	dc, err := discovery.NewDiscoveryClientForConfig(pc)
	if err != nil {
		return err
	}
	ping := func(ctx context.Context) error {
		return dc.RESTClient().Get().AbsPath("/readyz").Do(ctx).Error()
	}
	if err := mgr.AddReadyzCheck("apiserver", health.APIServer(ping, 5*time.Second, time.Now)); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("informers", health.CacheSynced(mgr.GetCache())); err != nil {
		return err
	}
	if !leaderElection {
		return nil
	}
	// The namespace controller-runtime's leader election uses in a cluster.
	ns, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
	if err != nil {
		return errors.Wrap(err, "leader election needs the Pod's namespace")
	}
	return mgr.AddReadyzCheck("leader", health.Leader(mgr.Elected(), mgr.GetAPIReader(), types.NamespacedName{Namespace: strings.TrimSpace(string(ns)), Name: leaseName}, time.Now))
}

// renewDeadline is how long a leader keeps trying to renew its lease
// before it gives up leading: five sixths of the lease, but leaving a
// standby at least two of its 2s retries to take over before the lease
// runs out.
func renewDeadline(lease time.Duration) time.Duration {
	return lease - max(lease/6, 4*time.Second)
}

// splitAll splits each comma-separated value of a repeatable flag.
func splitAll(values []string) []string {
	out := make([]string, 0, len(values))
	for _, v := range values {
		out = append(out, strings.Split(v, ",")...)
	}
	return out
}

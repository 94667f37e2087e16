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
	"net"
	"regexp"
	"strconv"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	devops "github.com/freeleaps/provider-devops/internal/controller"
	"github.com/freeleaps/provider-devops/internal/events/stream"
)

// flags of the provider. Values are checked by validate before anything
// starts, so a typo fails at once with a message instead of a crash loop.
type flags struct {
	debug                   bool
	leaderElection          bool
	leaseDuration           time.Duration
	syncInterval            time.Duration
	pollInterval            time.Duration
	pollStateMetricInterval time.Duration
	maxReconcileRate        int
	managementPolicies      bool
	changeLogs              bool
	changeLogsSocket        string
	metricsAddr             string
	healthAddr              string
	tenantBackendHosts      []string
	tenantBackendNetworks   []string
	ownerID                 string
	deployHistory           int
	deployHTTPCheck         bool
	watchCredentialSecrets  bool
	events                  *stream.Config
}

func registerFlags(app *kingpin.Application) *flags {
	f := &flags{}
	app.Flag("debug", "Run with debug logging.").Short('d').BoolVar(&f.debug)
	app.Flag("leader-election", "Use leader election for the controller manager.").Short('l').Default("false").Envar("LEADER_ELECTION").BoolVar(&f.leaderElection)
	app.Flag("leader-election-lease-duration", "How long a replica waits before it takes over the lease of a leader that stopped renewing it (crashed, cut off); the leader gives the lease up at once when it stops in order. The leader gives up leading when it could not renew within five sixths of it (at most the lease less 4s).").Default("60s").Envar("LEADER_ELECTION_LEASE_DURATION").DurationVar(&f.leaseDuration)
	app.Flag("sync", "How often all resources are re-listed from the API server (cache resync).").Short('s').Default("1h").DurationVar(&f.syncInterval)
	app.Flag("poll", "How often each resource is checked for drift against its backend.").Default(devops.DefaultPollInterval.String()).DurationVar(&f.pollInterval)
	app.Flag("poll-state-metric", "How often the managed-resource state metrics are recorded.").Default("5s").DurationVar(&f.pollStateMetricInterval)
	app.Flag("max-reconcile-rate", "The global maximum rate per second at which resources may be checked for drift.").Default(strconv.Itoa(devops.DefaultMaxReconcileRate)).IntVar(&f.maxReconcileRate)
	app.Flag("enable-management-policies", "Honour spec.managementPolicies (Observe-only, no Delete, ...).").Default("true").Envar("ENABLE_MANAGEMENT_POLICIES").BoolVar(&f.managementPolicies)
	app.Flag("metrics-bind-address", "Address the Prometheus metrics endpoint listens on; 0 disables it.").Default(":8080").Envar("METRICS_BIND_ADDRESS").StringVar(&f.metricsAddr)
	app.Flag("health-probe-bind-address", "Address the /healthz and /readyz probes listen on.").Default(":8081").Envar("HEALTH_PROBE_BIND_ADDRESS").StringVar(&f.healthAddr)
	app.Flag("tenant-backend-hosts", "Host patterns (shell globs, e.g. *.corp.example.com) that namespaced ProviderConfigs may point the provider at; repeat or comma-separate. Empty (the default): any host whose addresses are public. ClusterProviderConfigs are not limited.").Envar("TENANT_BACKEND_HOSTS").StringsVar(&f.tenantBackendHosts)
	app.Flag("tenant-backend-networks", "Internal networks (CIDRs, e.g. 10.20.0.0/16) that namespaced ProviderConfigs may reach; repeat or comma-separate. Empty (the default): public addresses only; loopback, link-local (cloud metadata), private and reserved addresses are refused when dialled. ClusterProviderConfigs are not limited.").Envar("TENANT_BACKEND_NETWORKS").StringsVar(&f.tenantBackendNetworks)
	app.Flag("enable-changelogs", "Send a change log entry for every change made to an external object to the change-logs sidecar (Crossplane's alpha change logs).").Default("false").Envar("ENABLE_CHANGELOGS").BoolVar(&f.changeLogs)
	app.Flag("changelogs-socket", "Unix socket of the change-logs sidecar, with --enable-changelogs.").Default("/var/run/changelogs/changelogs.sock").Envar("CHANGELOGS_SOCKET").StringVar(&f.changeLogsSocket)
	app.Flag("owner-id", "Identifies this control plane in the ownership records it writes next to DNS record sets (like external-dns's --txt-owner-id). Give each control plane that shares a DNS zone its own id: a record set owned by another id is never changed or deleted.").Default("default").Envar("OWNER_ID").StringVar(&f.ownerID)
	app.Flag("deploy-http-check", "A DeployRun also GETs the environment's live URL before it succeeds (2xx or 3xx; a URL that does not answer on this network is not checked). Off by default: the name and its address are the tenant's, so the check is a request from the provider's network to wherever they point.").Default("false").Envar("DEPLOY_HTTP_CHECK").BoolVar(&f.deployHTTPCheck)
	app.Flag("watch-credential-secrets", "Reconcile a JenkinsCredential as soon as its Secret changes, by watching the metadata of every Secret in the cluster (needs list and watch on Secrets; their annotations are not kept). Off: a rotated Secret is written to Jenkins at the next --poll.").Default("false").Envar("WATCH_CREDENTIAL_SECRETS").BoolVar(&f.watchCredentialSecrets)
	app.Flag("deploy-history", "How many finished DeployRuns of each environment are kept; older ones are deleted.").Default("10").Envar("DEPLOY_HISTORY").IntVar(&f.deployHistory)
	f.events = registerEventFlags(app)
	return f
}

func (f *flags) validate() error {
	switch {
	case f.leaseDuration < 10*time.Second || f.leaseDuration > 10*time.Minute:
		return errors.Errorf("--leader-election-lease-duration must be between 10s and 10m, got %s", f.leaseDuration)
	case f.pollInterval < time.Second:
		return errors.Errorf("--poll must be at least 1s, got %s", f.pollInterval)
	case f.syncInterval < f.pollInterval:
		return errors.Errorf("--sync (%s) must not be shorter than --poll (%s)", f.syncInterval, f.pollInterval)
	case f.pollStateMetricInterval < time.Second:
		return errors.Errorf("--poll-state-metric must be at least 1s, got %s", f.pollStateMetricInterval)
	case f.maxReconcileRate < 1 || f.maxReconcileRate > 1000:
		return errors.Errorf("--max-reconcile-rate must be between 1 and 1000, got %d", f.maxReconcileRate)
	case f.deployHistory < 1 || f.deployHistory > 1000:
		return errors.Errorf("--deploy-history must be between 1 and 1000, got %d", f.deployHistory)
	case !ownerIDPattern.MatchString(f.ownerID):
		return errors.Errorf("--owner-id must be 1-63 letters, digits, '-', '_' or '.', got %q", f.ownerID)
	}
	if err := f.events.Validate(); err != nil {
		return err
	}
	if err := checkAddr("--metrics-bind-address", f.metricsAddr, true); err != nil {
		return err
	}
	return checkAddr("--health-probe-bind-address", f.healthAddr, false)
}

// ownerIDPattern keeps the owner id readable in a TXT record and free of
// the ',' and '=' that separate its fields.
var ownerIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,63}$`)

func checkAddr(flag, addr string, mayDisable bool) error {
	if mayDisable && addr == "0" {
		return nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return errors.Errorf("%s must be host:port (e.g. :8080), got %q", flag, addr)
	}
	return nil
}

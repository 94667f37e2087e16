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

// Package stream wires the RabbitMQ event stream into the provider's
// manager: the publisher, the lifecycle watcher of every managed kind, the
// watcher of deployments (DeployRuns) and the consumer of requests (deploy
// requests and DevOpsInitialize messages), from a Config the provider's
// flags fill.
package stream

import (
	"context"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
	"github.com/freeleaps/provider-devops/internal/events"
	"github.com/freeleaps/provider-devops/internal/events/deployments"
	"github.com/freeleaps/provider-devops/internal/events/deployrequest"
	"github.com/freeleaps/provider-devops/internal/events/lifecycle"
	"github.com/freeleaps/provider-devops/internal/events/operatorrequest"
	"github.com/freeleaps/provider-devops/internal/events/projectrequest"
	"github.com/freeleaps/provider-devops/internal/events/vocab"
)

// DefaultHeartbeat is the heartbeat interval while work is in progress.
const DefaultHeartbeat = lifecycle.DefaultHeartbeat

// DefaultReplay is how far back a new leader sends lifecycle events again.
const DefaultReplay = lifecycle.DefaultReplay

// Config configures the event stream. It is off unless a broker is named,
// by a Secret or by a ClusterProviderConfig's events section.
type Config struct {
	// Secret (namespace/name) and SecretKey hold the AMQP URL; or
	// ProviderConfig names a ClusterProviderConfig with an events section.
	Secret, SecretKey, ProviderConfig string
	// Exchange events go to, with Secret.
	Exchange string
	// Source is the CloudEvents source attribute.
	Source    string
	Heartbeat time.Duration
	// Replay is how far back a new leader sends again the lifecycle
	// events of what it finds (lifecycle.Options.Replay); 0 none.
	Replay time.Duration
	// Outbox is how many events are held while the broker is unreachable.
	Outbox int
	// Format of deployment events: cloudevents, legacy or both.
	Format string
	// LegacyRoutingKey of deployment events in the legacy format.
	LegacyRoutingKey string
	// DeployExchange, DeployQueue and DeployBinding: where deploy
	// requests arrive ("" queue: none are consumed).
	DeployExchange, DeployQueue, DeployBinding string
	DeployPrefetch, DeployMaxLen               int
	// DeployPerPublisher bounds the requests one broker user has
	// delivered and not yet settled.
	DeployPerPublisher int
	// DeployLanes bounds the users whose requests get a queue of their
	// own (events.Lanes); 0: none, every request goes to DeployQueue.
	DeployLanes int
	// DeployLaneMaxLength bounds each of those queues.
	DeployLaneMaxLength int
	// LegacyQueue is the queue of the replaced operator's own
	// DevOpsReconcile and DevOpsInitialize messages ("": none are
	// consumed); LegacyBinding binds it to DeployExchange ("": not bound,
	// published to by name); LegacyProjects (namespace/name) is the
	// platform's ConfigMap mapping operator project ids to DevOpsProjects.
	LegacyQueue, LegacyBinding, LegacyProjects string
}

// Enabled is true when a broker is named.
func (f *Config) Enabled() bool { return f.Secret != "" || f.ProviderConfig != "" }

// Validate returns an error naming the flag of the first bad setting.
func (f *Config) Validate() error {
	for _, validate := range []func() error{f.validateBroker, f.validateEvents, f.validateDeploy, f.validateDeployExchange, f.validateLegacy} {
		if err := validate(); err != nil {
			return err
		}
	}
	return nil
}

// validateBroker checks how the broker is named.
func (f *Config) validateBroker() error {
	switch {
	case f.Secret != "" && f.ProviderConfig != "":
		return errors.New("set one of --events-secret and --events-provider-config, not both")
	case f.Secret != "" && len(strings.Split(f.Secret, "/")) != 2:
		return errors.Errorf("--events-secret must be namespace/name, got %q", f.Secret)
	}
	return nil
}

// validateEvents checks the settings of the events sent.
func (f *Config) validateEvents() error {
	switch {
	case f.Heartbeat < time.Second:
		return errors.Errorf("--events-heartbeat must be at least 1s, got %s", f.Heartbeat)
	case f.Replay < 0 || f.Replay > 24*time.Hour:
		return errors.Errorf("--events-replay must be between 0 and 24h, got %s", f.Replay)
	case f.Outbox < 1 || f.Outbox > 1000000:
		return errors.Errorf("--events-outbox must be between 1 and 1000000, got %d", f.Outbox)
	case !deployments.Format(f.Format).Valid():
		return errors.Errorf("--events-format must be %s, %s or %s, got %q", deployments.CloudEvents, deployments.Legacy, deployments.Both, f.Format)
	case deployments.Format(f.Format).Legacy() && (f.LegacyRoutingKey == "" || len(f.LegacyRoutingKey) > 255):
		return errors.Errorf("--events-legacy-routing-key must be 1 to 255 bytes with --events-format=%s, got %q", f.Format, f.LegacyRoutingKey)
	}
	return nil
}

// validateDeploy checks the bounds of the deploy-request queues.
func (f *Config) validateDeploy() error {
	switch {
	case f.DeployPrefetch < 1 || f.DeployPrefetch > 1000:
		return errors.Errorf("--events-deploy-prefetch must be between 1 and 1000, got %d", f.DeployPrefetch)
	case f.DeployPerPublisher < 1 || f.DeployPerPublisher > f.DeployPrefetch:
		return errors.Errorf("--events-deploy-per-publisher must be between 1 and --events-deploy-prefetch (%d), got %d", f.DeployPrefetch, f.DeployPerPublisher)
	case f.DeployMaxLen < 1 || f.DeployMaxLen > 10000000:
		return errors.Errorf("--events-deploy-max-length must be between 1 and 10000000, got %d", f.DeployMaxLen)
	case f.DeployLanes < 0 || f.DeployLanes > 10000:
		return errors.Errorf("--events-deploy-user-queues must be between 0 and 10000, got %d", f.DeployLanes)
	case f.DeployLaneMaxLength < 1 || f.DeployLaneMaxLength > 10000000:
		return errors.Errorf("--events-deploy-user-queue-max-length must be between 1 and 10000000, got %d", f.DeployLaneMaxLength)
	}
	return nil
}

// validateDeployExchange checks that deploy requests arrive on an
// exchange of their own.
func (f *Config) validateDeployExchange() error {
	if f.DeployExchange != "" && f.DeployExchange == f.Exchange {
		return errors.Errorf("--events-deploy-exchange must differ from --events-exchange (%q): deploy requests and the event stream need separate permissions", f.Exchange)
	}
	return nil
}

// validateLegacy checks the legacy queue's settings: it needs the table
// of projects, and heartbeats in the operator's format, which its UI reads.
func (f *Config) validateLegacy() error {
	if f.LegacyQueue == "" {
		if f.LegacyBinding != "" || f.LegacyProjects != "" {
			return errors.New("--events-legacy-binding and --events-legacy-projects need --events-legacy-queue")
		}
		return nil
	}
	switch {
	case f.LegacyQueue == f.DeployQueue:
		return errors.Errorf("--events-legacy-queue must differ from --events-deploy-queue (%q): the operator's messages have their own shape", f.DeployQueue)
	case strings.HasPrefix(f.LegacyQueue, f.DeployQueue+".") && f.DeployQueue != "":
		return errors.Errorf("--events-legacy-queue %q is under --events-deploy-queue's names (%s.…), which its user and dead-letter queues use", f.LegacyQueue, f.DeployQueue)
	case len(strings.Split(f.LegacyProjects, "/")) != 2 || strings.HasPrefix(f.LegacyProjects, "/") || strings.HasSuffix(f.LegacyProjects, "/"):
		return errors.Errorf("--events-legacy-projects must name the ConfigMap mapping operator project ids to DevOpsProjects as namespace/name, got %q", f.LegacyProjects)
	case !deployments.Format(f.Format).Legacy():
		return errors.Errorf("--events-legacy-queue needs --events-format=%s or %s: the operator's UI reads its heartbeats in its own format", deployments.Legacy, deployments.Both)
	}
	return f.validateLegacyBinding()
}

// validateLegacyBinding checks that the legacy queue's binding takes
// nobody else's requests.
func (f *Config) validateLegacyBinding() error {
	switch {
	case f.LegacyBinding == "":
		return nil
	case f.DeployExchange == "":
		return errors.New("--events-legacy-binding needs --events-deploy-exchange to bind to")
	case strings.HasPrefix(f.LegacyBinding, "user.") || f.LegacyBinding == "#":
		return errors.Errorf("--events-legacy-binding %q would take the requests of the users' own queues (user.<user>.…)", f.LegacyBinding)
	}
	return nil
}

// brokerSource reads the broker URL and exchange before every connection,
// through the uncached reader: the provider does not watch Secrets.
func (f *Config) brokerSource(kube client.Reader) events.Source {
	if f.Secret != "" {
		ns, name, _ := strings.Cut(f.Secret, "/")
		return func(ctx context.Context) (events.Broker, error) {
			s := &corev1.Secret{}
			if err := kube.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, s); err != nil {
				return events.Broker{}, errors.Wrapf(err, "cannot get the Secret %s named by --events-secret", f.Secret)
			}
			u := strings.TrimSpace(string(s.Data[f.SecretKey]))
			if u == "" {
				return events.Broker{}, errors.Errorf("Secret %s has no key %q (--events-secret-key) with the AMQP URL", f.Secret, f.SecretKey)
			}
			return events.Broker{URL: u, Exchange: f.Exchange}, nil
		}
	}
	return func(ctx context.Context) (events.Broker, error) {
		cpc := &v1alpha1.ClusterProviderConfig{}
		if err := kube.Get(ctx, types.NamespacedName{Name: f.ProviderConfig}, cpc); err != nil {
			return events.Broker{}, errors.Wrapf(err, "cannot get the ClusterProviderConfig %s named by --events-provider-config", f.ProviderConfig)
		}
		s := cpc.Spec.Events
		if s == nil {
			return events.Broker{}, errors.Errorf("ClusterProviderConfig %s has no events section", f.ProviderConfig)
		}
		pc := &backendconfig.Config{Spec: cpc.Spec, Kind: v1alpha1.ClusterProviderConfigKind, Name: cpc.Name}
		u, err := pc.Credentials(ctx, kube, "spec.events.credentials", s.Credentials)
		if err != nil {
			return events.Broker{}, err
		}
		tc, err := pc.TLS(s.TLSConfig).Config()
		if err != nil {
			return events.Broker{}, errors.Wrapf(err, "ClusterProviderConfig %s: spec.events.caBundle", f.ProviderConfig)
		}
		ex := s.Exchange
		if ex == "" {
			ex = "devops.events"
		}
		return events.Broker{URL: strings.TrimSpace(string(u)), Exchange: ex, TLS: tc}, nil
	}
}

// Setup adds the publisher, the lifecycle watcher of kinds, the deployment
// watcher and the deploy-request consumer to the manager; nothing when no
// broker is named.
func Setup(mgr ctrl.Manager, o controller.Options, f Config, kinds []vocab.Kind, log logging.Logger) error {
	if !f.Enabled() {
		log.Info("event stream disabled: set --events-secret or --events-provider-config to enable it")
		return nil
	}
	src := f.brokerSource(mgr.GetAPIReader())
	m := events.NewMetrics(metrics.Registry)
	pub := events.NewPublisher(events.PublisherOptions{Source: src, OutboxSize: f.Outbox, Log: log.WithValues("component", "events"), Metrics: m})
	if err := mgr.Add(pub); err != nil {
		return err
	}
	w := lifecycle.New(pub, lifecycle.Options{Source: f.Source, Heartbeat: f.Heartbeat, Replay: replay(f.Replay), ReplayMax: f.Outbox / 4,
		ReplayDropped: m.Dropped.WithLabelValues(events.DropReplayLimit), Log: log})
	if err := w.Setup(mgr, o.Gate, kinds); err != nil {
		return err
	}
	if err := setupDeployments(mgr, o, f, pub, log); err != nil {
		return err
	}
	if err := setupRequests(mgr, f, src, m, log); err != nil {
		return err
	}
	return setupLegacy(mgr, f, src, m, log)
}

// setupRequests adds the consumer of the request queue and, with user
// queues, their lanes; nothing without a queue.
func setupRequests(mgr ctrl.Manager, f Config, src events.Source, m *events.Metrics, log logging.Logger) error {
	if f.DeployQueue == "" {
		return nil
	}
	h, err := RequestHandler(mgr.GetClient(), mgr.GetAPIReader(), mgr.GetConfig())
	if err != nil {
		return err
	}
	lanes := f.lanes()
	shared := events.ConsumerOptions{
		Source: src, Exchange: f.DeployExchange, Queue: f.DeployQueue, BindingKey: f.DeployBinding, Prefetch: f.DeployPrefetch, PerPublisher: f.DeployPerPublisher, MaxLength: f.DeployMaxLen,
		Alternate: lanes, Handler: h, Log: log.WithValues("component", "deploy-requests"), Metrics: m,
	}
	if err := mgr.Add(events.NewConsumer(shared)); err != nil || !lanes {
		return err
	}
	reader := mgr.GetClient()
	return mgr.Add(events.NewLanes(events.LaneOptions{
		Shared: shared, Max: f.DeployLanes, MaxLength: f.DeployLaneMaxLength,
		Users: func(ctx context.Context) ([]string, error) { return LaneUsers(ctx, reader) },
	}))
}

// lanes is true when users get queues of their own (the request exchange
// then has an alternate exchange, which every consumer declares alike).
func (f *Config) lanes() bool { return f.DeployLanes > 0 && f.DeployExchange != "" }

// setupLegacy adds the consumer of the operator's own messages, with the
// same bounds as the request queue; nothing without a legacy queue.
func setupLegacy(mgr ctrl.Manager, f Config, src events.Source, m *events.Metrics, log logging.Logger) error {
	if f.LegacyQueue == "" {
		return nil
	}
	h, err := LegacyHandler(mgr.GetClient(), mgr.GetAPIReader(), mgr.GetConfig(), f.LegacyProjects)
	if err != nil {
		return err
	}
	// One publisher, the UI, sends every team's requests here: it may hold
	// the whole prefetch, so a burst waits on the queue rather than being
	// dead-lettered as one publisher's flood.
	o := events.ConsumerOptions{
		Source: src, Queue: f.LegacyQueue, Prefetch: f.DeployPrefetch, PerPublisher: f.DeployPrefetch, MaxLength: f.DeployMaxLen,
		Handler: h, Log: log.WithValues("component", "legacy-requests"), Metrics: m,
	}
	if f.LegacyBinding != "" {
		o.Exchange, o.BindingKey, o.Alternate, o.Separate = f.DeployExchange, f.LegacyBinding, f.lanes(), true
	}
	return mgr.Add(events.NewConsumer(o))
}

// LegacyHandler handles the legacy queue's messages: the operator's own
// DevOpsReconcile and DevOpsInitialize, mapped by the ConfigMap table
// (namespace/name, read uncached from reader) and submitted as the
// request queue's requests are.
func LegacyHandler(kube client.Client, reader client.Reader, cfg *rest.Config, table string) (events.Handler, error) {
	projects, err := projectrequest.NewProjects(cfg)
	if err != nil {
		return nil, errors.Wrap(err, "cannot make a client of DevOpsProjects")
	}
	ns, name, _ := strings.Cut(table, "/")
	return operatorrequest.Handler(operatorrequest.ConfigMapTable{Reader: reader, Namespace: ns, Name: name}, operatorrequest.Submitters{
		Deploy: func(ctx context.Context, req *deployrequest.Request, d amqp.Delivery) error {
			return deployrequest.Submit(ctx, kube, req, d)
		},
		Initialize: func(ctx context.Context, req *projectrequest.Request, d amqp.Delivery) error {
			return projectrequest.Submit(ctx, projects, reader, req, d)
		},
	}), nil
}

// RequestHandler handles the messages of the request queue: DevOpsInitialize
// messages (by their AMQP or CloudEvent type) create or update
// DevOpsProjects through cfg, with ProviderConfigs read uncached from
// reader; everything else is a deploy request, as before messages had
// types, creating DeployRuns through kube.
func RequestHandler(kube client.Client, reader client.Reader, cfg *rest.Config) (events.Handler, error) {
	projects, err := projectrequest.NewProjects(cfg)
	if err != nil {
		return nil, errors.Wrap(err, "cannot make a client of DevOpsProjects")
	}
	deploy := deployrequest.Handler(kube)
	return events.Router(deploy, deployrequest.MaxBody,
		events.Route{Types: []string{projectrequest.LegacyType, projectrequest.Type}, Handler: projectrequest.Handler(projects, reader)},
		events.Route{Types: []string{deployrequest.LegacyType, deployrequest.Type}, Handler: deploy},
	), nil
}

// setupDeployments adds the watcher of DeployRuns (its heartbeats) and has
// it watch them once their CRD is established.
func setupDeployments(mgr ctrl.Manager, o controller.Options, f Config, pub *events.Publisher, log logging.Logger) error {
	dw := deployments.New(pub, deployments.Options{
		Source: f.Source, Heartbeat: f.Heartbeat, Format: deployments.Format(f.Format), LegacyRoutingKey: f.LegacyRoutingKey,
		Log: log.WithValues("component", "deployment-events"),
	})
	if err := mgr.Add(dw); err != nil {
		return err
	}
	if o.Gate == nil {
		return dw.Watch(mgr)
	}
	o.Gate.Register(func() {
		if err := dw.Watch(mgr); err != nil {
			panic(errors.Wrap(err, "cannot watch DeployRuns for deployment events"))
		}
	}, v1alpha1.DeployRunGroupVersionKind)
	return nil
}

// replay maps the flag (0: none) to lifecycle.Options.Replay (0: the
// default, negative: none).
func replay(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

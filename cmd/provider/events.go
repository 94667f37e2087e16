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
	"context"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	devops "github.com/freeleaps/provider-devops/internal/controller"
	"github.com/freeleaps/provider-devops/internal/controller/deployrequest"
	"github.com/freeleaps/provider-devops/internal/controller/lifecycle"
	"github.com/freeleaps/provider-devops/internal/events"
	"github.com/freeleaps/provider-devops/internal/providerconfig"
)

// eventFlags configure the RabbitMQ event stream. It is off unless a broker
// is named, by a Secret or by a ClusterProviderConfig's events section.
type eventFlags struct {
	secret         string
	secretKey      string
	providerConfig string
	exchange       string
	source         string
	heartbeat      time.Duration
	outbox         int
	deployExchange string
	deployQueue    string
	deployBinding  string
	deployPrefetch int
	deployMaxLen   int
}

func registerEventFlags(app *kingpin.Application) *eventFlags {
	f := &eventFlags{}
	app.Flag("events-secret", "Publish events to the RabbitMQ broker whose AMQP URL is in this Secret (namespace/name).").PlaceHolder("NAMESPACE/NAME").StringVar(&f.secret)
	app.Flag("events-secret-key", "Key of the AMQP URL in --events-secret.").Default("url").StringVar(&f.secretKey)
	app.Flag("events-provider-config", "Publish events to the broker of this ClusterProviderConfig's events section (instead of --events-secret).").PlaceHolder("NAME").StringVar(&f.providerConfig)
	app.Flag("events-exchange", "Durable topic exchange events go to, with --events-secret (a ProviderConfig names its own).").Default("devops.events").StringVar(&f.exchange)
	app.Flag("events-source", "CloudEvents source attribute of every event.").Default("provider-devops").StringVar(&f.source)
	app.Flag("events-heartbeat", "Interval of heartbeat events while a build or sync is in progress.").Default(lifecycle.DefaultHeartbeat.String()).DurationVar(&f.heartbeat)
	app.Flag("events-outbox", "Events held while the broker is unreachable; more are dropped (counted and logged).").Default("10000").IntVar(&f.outbox)
	app.Flag("events-deploy-exchange", "Durable topic exchange deploy requests are published to: its own, so that who may request deploys needs no right on the event stream. Empty binds the queue to nothing.").Default("devops.deploy").StringVar(&f.deployExchange)
	app.Flag("events-deploy-queue", "Durable queue of DevOpsReconcile deploy requests; empty consumes none.").Default("devops.deploy-requests").StringVar(&f.deployQueue)
	app.Flag("events-deploy-binding", "Routing key binding the deploy queue to --events-deploy-exchange.").Default("deploy.#").StringVar(&f.deployBinding)
	app.Flag("events-deploy-max-length", "Ready deploy requests the queue holds (more are refused: publishers with confirms get a nack), and dead letters kept (the oldest are dropped).").Default("10000").IntVar(&f.deployMaxLen)
	app.Flag("events-deploy-prefetch", "Deploy requests delivered and not yet acknowledged, at most.").Default("16").IntVar(&f.deployPrefetch)
	return f
}

func (f *eventFlags) enabled() bool { return f.secret != "" || f.providerConfig != "" }

func (f *eventFlags) validate() error {
	switch {
	case f.secret != "" && f.providerConfig != "":
		return errors.New("set one of --events-secret and --events-provider-config, not both")
	case f.secret != "" && len(strings.Split(f.secret, "/")) != 2:
		return errors.Errorf("--events-secret must be namespace/name, got %q", f.secret)
	case f.heartbeat < time.Second:
		return errors.Errorf("--events-heartbeat must be at least 1s, got %s", f.heartbeat)
	case f.outbox < 1 || f.outbox > 1000000:
		return errors.Errorf("--events-outbox must be between 1 and 1000000, got %d", f.outbox)
	case f.deployPrefetch < 1 || f.deployPrefetch > 1000:
		return errors.Errorf("--events-deploy-prefetch must be between 1 and 1000, got %d", f.deployPrefetch)
	case f.deployMaxLen < 1 || f.deployMaxLen > 10000000:
		return errors.Errorf("--events-deploy-max-length must be between 1 and 10000000, got %d", f.deployMaxLen)
	case f.deployExchange != "" && f.deployExchange == f.exchange:
		return errors.Errorf("--events-deploy-exchange must differ from --events-exchange (%q): deploy requests and the event stream need separate permissions", f.exchange)
	}
	return nil
}

// brokerSource reads the broker URL and exchange before every connection, through
// the uncached reader: the provider does not watch Secrets.
func (f *eventFlags) brokerSource(kube client.Reader) events.Source {
	if f.secret != "" {
		ns, name, _ := strings.Cut(f.secret, "/")
		return func(ctx context.Context) (string, string, error) {
			s := &corev1.Secret{}
			if err := kube.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, s); err != nil {
				return "", "", errors.Wrapf(err, "cannot get the Secret %s named by --events-secret", f.secret)
			}
			u := strings.TrimSpace(string(s.Data[f.secretKey]))
			if u == "" {
				return "", "", errors.Errorf("Secret %s has no key %q (--events-secret-key) with the AMQP URL", f.secret, f.secretKey)
			}
			return u, f.exchange, nil
		}
	}
	return func(ctx context.Context) (string, string, error) {
		cpc := &v1alpha1.ClusterProviderConfig{}
		if err := kube.Get(ctx, types.NamespacedName{Name: f.providerConfig}, cpc); err != nil {
			return "", "", errors.Wrapf(err, "cannot get the ClusterProviderConfig %s named by --events-provider-config", f.providerConfig)
		}
		s := cpc.Spec.Events
		if s == nil {
			return "", "", errors.Errorf("ClusterProviderConfig %s has no events section", f.providerConfig)
		}
		pc := &providerconfig.Config{Spec: cpc.Spec, Kind: v1alpha1.ClusterProviderConfigKind, Name: cpc.Name}
		u, err := pc.Credentials(ctx, kube, "spec.events.credentials", s.Credentials)
		if err != nil {
			return "", "", err
		}
		ex := s.Exchange
		if ex == "" {
			ex = "devops.events"
		}
		return strings.TrimSpace(string(u)), ex, nil
	}
}

// setup adds the publisher, the lifecycle watcher and the deploy-request
// consumer to the manager.
func (f *eventFlags) setup(mgr ctrl.Manager, o controller.Options, log logging.Logger) error {
	if !f.enabled() {
		log.Info("event stream disabled: set --events-secret or --events-provider-config to enable it")
		return nil
	}
	src := f.brokerSource(mgr.GetAPIReader())
	m := events.NewMetrics(metrics.Registry)
	pub := events.NewPublisher(events.PublisherOptions{Source: src, OutboxSize: f.outbox, Log: log.WithValues("component", "events"), Metrics: m})
	if err := mgr.Add(pub); err != nil {
		return err
	}
	w := lifecycle.New(pub, lifecycle.Options{Source: f.source, Heartbeat: f.heartbeat, Log: log})
	if err := devops.SetupLifecycleEvents(mgr, o, w); err != nil {
		return err
	}
	if f.deployQueue == "" {
		return nil
	}
	return mgr.Add(events.NewConsumer(events.ConsumerOptions{
		Source: src, Exchange: f.deployExchange, Queue: f.deployQueue, BindingKey: f.deployBinding, Prefetch: f.deployPrefetch, MaxLength: f.deployMaxLen,
		Handler: deployrequest.Handler(mgr.GetClient()), Log: log.WithValues("component", "deploy-requests"), Metrics: m,
	}))
}

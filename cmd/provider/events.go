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
	"github.com/alecthomas/kingpin/v2"

	"github.com/freeleaps/provider-devops/internal/events/deployments"
	"github.com/freeleaps/provider-devops/internal/events/stream"
)

// registerEventFlags binds the event stream's flags to a stream.Config.
func registerEventFlags(app *kingpin.Application) *stream.Config {
	f := &stream.Config{}
	app.Flag("events-secret", "Publish events to the RabbitMQ broker whose AMQP URL is in this Secret (namespace/name).").PlaceHolder("NAMESPACE/NAME").StringVar(&f.Secret)
	app.Flag("events-secret-key", "Key of the AMQP URL in --events-secret.").Default("url").StringVar(&f.SecretKey)
	app.Flag("events-provider-config", "Publish events to the broker of this ClusterProviderConfig's events section (instead of --events-secret).").PlaceHolder("NAME").StringVar(&f.ProviderConfig)
	app.Flag("events-exchange", "Durable topic exchange events go to, with --events-secret (a ProviderConfig names its own).").Default("devops.events").StringVar(&f.Exchange)
	app.Flag("events-source", "CloudEvents source attribute of every event.").Default("provider-devops").StringVar(&f.Source)
	app.Flag("events-heartbeat", "Interval of heartbeat events while a build, sync or deployment (DeployRun) is in progress.").Default(stream.DefaultHeartbeat.String()).DurationVar(&f.Heartbeat)
	app.Flag("events-replay", "A new leader sends again the created, ready and failed events of resources that changed less than this long ago, with their first ids (consumers dedupe on id): the leader before may have died before sending them. 0 sends none again.").Default(stream.DefaultReplay.String()).DurationVar(&f.Replay)
	app.Flag("events-format", "Wire format of deployment (DeployRun) events: cloudevents (CloudEvents like every other event), legacy (the replaced operator's DevOpsReconcileJobHeartbeat JSON, which its UI reads), or both.").Default(string(deployments.CloudEvents)).StringVar(&f.Format)
	app.Flag("events-legacy-routing-key", "Routing key of legacy deployment events on the events exchange, with --events-format=legacy or both.").Default(deployments.DefaultLegacyRoutingKey).StringVar(&f.LegacyRoutingKey)
	app.Flag("events-outbox", "Events held while the broker is unreachable; more are dropped (counted and logged).").Default("10000").IntVar(&f.Outbox)
	app.Flag("events-deploy-exchange", "Durable topic exchange deploy requests are published to: its own, so that who may request deploys needs no right on the event stream. Empty binds the queue to nothing.").Default("devops.deploy").StringVar(&f.DeployExchange)
	app.Flag("events-deploy-queue", "Durable queue of DevOpsReconcile deploy requests; empty consumes none.").Default("devops.deploy-requests").StringVar(&f.DeployQueue)
	app.Flag("events-deploy-binding", "Routing key binding the deploy queue to --events-deploy-exchange.").Default("deploy.#").StringVar(&f.DeployBinding)
	app.Flag("events-deploy-max-length", "Ready deploy requests the queue holds (more are refused: publishers with confirms get a nack), and dead letters kept (the oldest are dropped).").Default("10000").IntVar(&f.DeployMaxLen)
	app.Flag("events-deploy-prefetch", "Deploy requests delivered and not yet settled, of all publishers, at most.").Default("512").IntVar(&f.DeployPrefetch)
	app.Flag("events-deploy-user-queues", "Broker users whose deploy requests get a queue of their own (routing key user.<user>.…), on a connection of their own, so that one user's unreadable or flooding requests hold up no other user's; the platform's users (ClusterProviderConfig deployUsers) first, then at most 8 per namespace. 0: every request goes to --events-deploy-queue.").Default("256").IntVar(&f.DeployLanes)
	app.Flag("events-deploy-user-queue-max-length", "Ready deploy requests each user's own queue holds (more are refused).").Default("1000").IntVar(&f.DeployLaneMaxLength)
	app.Flag("events-deploy-per-publisher", "Deploy requests one broker user has delivered and not yet settled, at most: its further requests are dead-lettered as they arrive, so that one publisher's flood cannot fill the queue for the others.").Default("32").IntVar(&f.DeployPerPublisher)
	app.Flag("events-legacy-queue", "Durable queue of the replaced operator's own DevOpsReconcile and DevOpsInitialize messages, which its UI sends (docs/events.md). Empty (the default): none are consumed. Needs --events-legacy-projects and --events-format=legacy or both.").PlaceHolder("QUEUE").StringVar(&f.LegacyQueue)
	app.Flag("events-legacy-binding", "Routing key binding --events-legacy-queue to --events-deploy-exchange. Empty: not bound; the UI publishes to the queue by name.").PlaceHolder("KEY").StringVar(&f.LegacyBinding)
	app.Flag("events-legacy-projects", "ConfigMap (namespace/name, the provider's namespace) mapping the operator's project ids to DevOpsProjects: each key an id, each value <namespace>/<project>.").PlaceHolder("NAMESPACE/NAME").StringVar(&f.LegacyProjects)
	return f
}

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

package controller_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	amqp "github.com/rabbitmq/amqp091-go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/gate"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/customresourcesgate"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/contract"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	devops "github.com/freeleaps/provider-devops/internal/controller"
	"github.com/freeleaps/provider-devops/internal/events"
	"github.com/freeleaps/provider-devops/internal/events/deployrequest"
	"github.com/freeleaps/provider-devops/internal/events/lifecycle"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	fakejenkins "github.com/freeleaps/provider-devops/internal/testing/jenkins"
	"github.com/freeleaps/provider-devops/internal/testing/rabbitmq"
)

const (
	exchange       = "devops.events"
	deployExchange = "devops.deploy"
	deployQueue    = "devops.deploy-requests"
	heartbeat      = time.Second
)

// brokerUsers creates the RabbitMQ users docs/events.md's permissions describe
// and returns their URLs: the provider (declares its exchanges and queues,
// publishes events and dead letters, consumes requests), a CI system that
// may only publish requests, and a second CI system of another team.
func brokerUsers(t *testing.T, b *rabbitmq.Broker) (provider, ciShop, ciOther string) {
	t.Helper()
	var err error
	provider, err = b.AddUserWith("provider", "provider-pw", rabbitmq.ProviderPermissions)
	controlplane.Must(t, err)
	ciShop, err = b.AddUserWith("ci-shop", "ci-shop-pw", rabbitmq.DeployerPermissions)
	controlplane.Must(t, err)
	ciOther, err = b.AddUserWith("ci-other", "ci-other-pw", rabbitmq.DeployerPermissions)
	controlplane.Must(t, err)
	return provider, ciShop, ciOther
}

// publisher is a channel of one broker user.
func publisher(t *testing.T, url string) *amqp.Channel {
	t.Helper()
	conn, err := amqp.Dial(url)
	controlplane.Must(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	controlplane.Must(t, err)
	return ch
}

// waitConsuming waits until the provider consumes queue: it declares the
// dead-letter queue, then the queue and its binding, then consumes, and a
// message published before the binding is dropped by the exchange.
func waitConsuming(t *testing.T, url, queue string) {
	t.Helper()
	ch := publisher(t, url)
	controlplane.Eventually(t, "the provider consuming "+queue, func() bool {
		q, err := ch.QueueDeclarePassive(queue, true, false, false, false, nil)
		if err != nil {
			// A failed passive declare closes the channel.
			ch = publisher(t, url)
			return false
		}
		return q.Consumers > 0
	})
}

// stream collects every event published to the exchange.
type stream struct {
	mu  sync.Mutex
	got []events.Event
}

func listenAll(t *testing.T, url string) *stream {
	t.Helper()
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	controlplane.Must(t, ch.ExchangeDeclare(exchange, amqp.ExchangeTopic, true, false, false, false, nil))
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	controlplane.Must(t, err)
	// Every resource event; deploy requests share the exchange and are not events.
	for _, key := range []string{"jenkinspipeline.#", "argoapplication.#", "dnsrecord.#", "registryrepo.#"} {
		controlplane.Must(t, ch.QueueBind(q.Name, key, exchange, false, nil))
	}
	ds, err := ch.Consume(q.Name, "", true, true, false, false, nil)
	controlplane.Must(t, err)
	s := &stream{}
	go func() {
		for d := range ds {
			var e events.Event
			if err := json.Unmarshal(d.Body, &e); err != nil {
				t.Errorf("event is not JSON: %v: %s", err, d.Body)
				continue
			}
			s.mu.Lock()
			s.got = append(s.got, e)
			s.mu.Unlock()
		}
	}()
	return s
}

// of returns the events about namespace/name of what, in arrival order.
func (s *stream) of(ns, name, what string) []events.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []events.Event
	for _, e := range s.got {
		if e.Data.Namespace == ns && e.Data.Name == name && (what == "" || e.What() == what) {
			out = append(out, e)
		}
	}
	return out
}

// startProviderWithEvents wires the controllers and the event stream as
// cmd/provider does with --events-secret. wrap, if set, wraps the deploy
// request handler.
func startProviderWithEvents(t *testing.T, env *controlplane.Env, url string, m *events.Metrics, wrap func(events.Handler) events.Handler) {
	t.Helper()
	if wrap == nil {
		wrap = func(h events.Handler) events.Handler { return h }
	}
	src := func(context.Context) (events.Broker, error) { return events.Broker{URL: url, Exchange: exchange}, nil }
	controlplane.StartManager(t, env, time.Second, func(mgr ctrl.Manager, o controller.Options) error {
		o.Gate = new(gate.Gate[schema.GroupVersionKind])
		if err := customresourcesgate.Setup(mgr, o); err != nil {
			return err
		}
		if err := devops.SetupGated(mgr, o, devops.Config{Guard: controlplane.TenantGuard()}); err != nil {
			return err
		}
		pub := events.NewPublisher(events.PublisherOptions{Source: src, Metrics: m})
		if err := mgr.Add(pub); err != nil {
			return err
		}
		if err := lifecycle.New(pub, lifecycle.Options{Source: "test", Heartbeat: heartbeat}).Setup(mgr, o.Gate, devops.Events(devops.Kinds(devops.Config{Guard: controlplane.TenantGuard()}))); err != nil {
			return err
		}
		return mgr.Add(events.NewConsumer(events.ConsumerOptions{Source: src, Exchange: deployExchange, Queue: deployQueue, BindingKey: "deploy.#",
			RetryDelay: 100 * time.Millisecond, Metrics: m, Handler: wrap(deployrequest.Handler(mgr.GetClient()))}))
	})
}

// A JenkinsPipeline's whole life on the event stream against a real
// RabbitMQ: created and ready; a deploy request that queues exactly one
// build, even when delivered twice; poison and unknown-target requests
// dead-lettered with their reason while the provider keeps going;
// heartbeats while the build runs, then a completed event with the build's
// URL; deleted.
func TestEventStream(t *testing.T) {
	env := controlplane.Shared(t)
	broker := rabbitmq.Start(t)
	providerURL, ciShopURL, _ := brokerUsers(t, broker)
	jenkins := fakejenkins.New("ci", secretText)
	defer jenkins.Close()
	c := env.Client
	ctx := context.Background()
	ns := controlplane.Unique("events")
	create(t, c,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "jenkins", Namespace: ns}, StringData: map[string]string{"credentials": `{"username": "ci", "token": "` + secretText + `"}`}},
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: v1alpha1.ProviderConfigSpec{
			Jenkins: &v1alpha1.JenkinsConfig{URL: jenkins.URL, DeployUsers: []string{"ci-shop"}, Credentials: v1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.SecretKeySelector{Name: "jenkins", Key: "credentials"}}},
		}},
	)
	s := listenAll(t, broker.URL)
	m := events.NewMetrics(nil)
	startProviderWithEvents(t, env, providerURL, m, nil)

	p := &jenkinsv1alpha1.JenkinsPipeline{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-dev", Namespace: ns, Labels: map[string]string{contract.LabelProject: "shop", contract.LabelEnvironment: "dev"}},
		Spec: jenkinsv1alpha1.JenkinsPipelineSpec{ForProvider: jenkinsv1alpha1.JenkinsPipelineParameters{
			Source:     jenkinsv1alpha1.PipelineSource{Script: ptr("node { echo 'deploy' }")},
			Parameters: []jenkinsv1alpha1.Parameter{{Name: deployrequest.RevisionParameter, Type: "string", Default: ptr("main")}},
		}},
	}
	p.SetProviderConfigReference(&xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"})
	create(t, c, p)
	const path = "shop-dev"

	controlplane.Eventually(t, "created and ready events", func() bool {
		return len(s.of(ns, p.Name, events.Created)) == 1 && len(s.of(ns, p.Name, events.Ready)) == 1
	})
	ready := s.of(ns, p.Name, events.Ready)[0]
	if ready.Data.Project != "shop" || ready.Data.Environment != "dev" || ready.Data.Kind != "JenkinsPipeline" || ready.Data.URL != jenkins.URL+"/job/shop-dev/" {
		t.Errorf("ready event data: %+v", ready.Data)
	}

	conn, err := amqp.Dial(broker.URL)
	controlplane.Must(t, err)
	defer func() { _ = conn.Close() }()
	ch, err := conn.Channel()
	controlplane.Must(t, err)
	controlplane.Eventually(t, "the deploy queue declared by the provider", func() bool {
		c2, err := conn.Channel()
		if err != nil {
			return false
		}
		defer func() { _ = c2.Close() }()
		_, err = c2.QueueDeclarePassive(deployQueue, true, false, false, false, events.QueueArgs(deployQueue, events.DefaultMaxLength))
		return err == nil
	})
	// Consuming: the queue's binding, made before, routes what is sent.
	waitConsuming(t, broker.URL, deployQueue)
	ci := publisher(t, ciShopURL)
	send := func(id, body string) {
		t.Helper()
		controlplane.Must(t, ci.PublishWithContext(ctx, deployExchange, "deploy.shop.dev", true, false, amqp.Publishing{
			MessageId: id, UserId: "ci-shop", Timestamp: time.Now(), ContentType: "application/json", Body: []byte(body)}))
	}

	// One request, delivered twice (at least once): one build.
	send("req-1", `{"project": "shop", "environment": "dev", "namespace": "`+ns+`", "revision": "abc123"}`)
	controlplane.Eventually(t, "the request queued a build", func() bool { return jenkins.Queued(path) == 1 })
	send("req-1", `{"project": "shop", "environment": "dev", "namespace": "`+ns+`", "revision": "abc123"}`)
	// Poison and unknown targets go to the dead-letter queue.
	send("bad-json", `{"project": "shop", `)
	send("typo", `{"project": "shop", "enviroment": "dev"}`) //nolint:misspell // the misspelt field is the test
	send("nobody", `{"project": "nope", "environment": "dev", "namespace": "`+ns+`"}`)
	controlplane.Eventually(t, "five requests settled", func() bool {
		return testutil.ToFloat64(m.Requests.WithLabelValues("done"))+testutil.ToFloat64(m.Requests.WithLabelValues("dead-lettered")) == 5
	})
	controlplane.Must(t, c.Get(ctx, client.ObjectKeyFromObject(p), p))
	runs := &v1alpha1.DeployRunList{}
	controlplane.Must(t, c.List(ctx, runs, client.InNamespace(ns)))
	if len(runs.Items) != 1 || runs.Items[0].Spec.RequestID != ns+"/req-1" || runs.Items[0].Spec.RequestedBy != "amqp:ci-shop" || runs.Items[0].Spec.Revision != "abc123" {
		t.Errorf("DeployRuns %+v, want one, for req-1 by amqp:ci-shop", runs.Items)
	}
	if got := p.Spec.ForProvider.BuildRequest; len(runs.Items) == 1 && got != "deployrun-"+string(runs.Items[0].UID) {
		t.Errorf("buildRequest %q, want the DeployRun's", got)
	}
	dead, err := ch.Consume(events.DeadLetter(deployQueue), "", true, false, false, false, nil)
	controlplane.Must(t, err)
	reasons := map[string]string{}
	for len(reasons) < 3 {
		select {
		case d := <-dead:
			reasons[d.MessageId], _ = d.Headers[events.HeaderReason].(string)
		case <-time.After(30 * time.Second):
			t.Fatalf("dead letters so far: %v", reasons)
		}
	}
	for id, want := range map[string]string{
		"bad-json": "malformed message: not a JSON object",
		"typo":     `malformed DevOpsReconcile: json: unknown field "enviroment"`, //nolint:misspell // the misspelt field is the test
		"nobody":   "unknown target: no JenkinsPipeline is labelled devops.freeleaps.io/project=nope, devops.freeleaps.io/environment=dev in namespace events",
	} {
		if !strings.Contains(reasons[id], want) {
			t.Errorf("dead letter %s: reason %q, want it to contain %q", id, reasons[id], want)
		}
	}

	// The build runs: heartbeats at the interval, then completed with its URL.
	jenkins.RunQueue()
	controlplane.Eventually(t, "three heartbeats", func() bool { return len(s.of(ns, p.Name, events.Heartbeat)) >= 3 })
	beats := s.of(ns, p.Name, events.Heartbeat)
	for i := 1; i < len(beats); i++ {
		if gap := beats[i].Time.Sub(beats[i-1].Time); gap < heartbeat/2 {
			t.Errorf("heartbeats %s apart, want about %s", gap, heartbeat)
		}
	}
	if b := beats[len(beats)-1].Data; b.Status != events.StatusRunning || b.Phase != "BUILDING" || b.URL != jenkins.URL+"/job/shop-dev/1/" {
		t.Errorf("heartbeat data: %+v", b)
	}
	builds := jenkins.Builds(path)
	if len(builds) != 1 || strings.Join(builds[0].Params[deployrequest.RevisionParameter], ",") != "abc123" {
		t.Fatalf("builds: %+v; want exactly one, with REVISION=abc123", builds)
	}
	jenkins.Finish(path, "SUCCESS")
	controlplane.Eventually(t, "completed event", func() bool { return len(s.of(ns, p.Name, events.Completed)) == 1 })
	done := s.of(ns, p.Name, events.Completed)[0].Data
	if done.Status != events.StatusSucceeded || done.URL != jenkins.URL+"/job/shop-dev/1/" {
		t.Errorf("completed event data: %+v", done)
	}
	nBeats := len(s.of(ns, p.Name, events.Heartbeat))
	time.Sleep(3 * heartbeat)
	if n := len(s.of(ns, p.Name, events.Heartbeat)); n != nBeats {
		t.Errorf("%d heartbeats after the build finished", n-nBeats)
	}
	if n := len(jenkins.Builds(path)); n != 1 {
		t.Errorf("%d builds; the redelivered request must not build again", n)
	}

	controlplane.Must(t, c.Delete(ctx, p))
	controlplane.Eventually(t, "deleted event", func() bool { return len(s.of(ns, p.Name, events.Deleted)) == 1 })
	for what, n := range map[string]int{events.Created: 1, events.Ready: 1, events.Failed: 0} {
		if got := len(s.of(ns, p.Name, what)); got != n {
			t.Errorf("%d %s events over the whole life, want %d", got, what, n)
		}
	}
	t.Logf("event stream: %d events for %s, %d heartbeats; metrics published %v confirmed %v returned %v",
		len(s.of(ns, p.Name, "")), p.Name, nBeats, testutil.ToFloat64(m.Published), testutil.ToFloat64(m.Confirmed), testutil.ToFloat64(m.Returned))
}

func ptr[T any](v T) *T { return &v }

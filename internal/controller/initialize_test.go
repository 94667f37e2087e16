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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/events"
	"github.com/freeleaps/provider-devops/internal/events/projectrequest"
	eventstream "github.com/freeleaps/provider-devops/internal/events/stream"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	"github.com/freeleaps/provider-devops/internal/testing/rabbitmq"
)

// initSpec is a DevOpsProject spec with the given branch and environments.
func initSpec(branch string, envs ...string) string {
	list := make([]string, len(envs))
	for i, e := range envs {
		list[i] = fmt.Sprintf(`{"name": %q, "domain": "%s.shop.example.com"}`, e, e)
	}
	return fmt.Sprintf(`{"git": {"url": "https://git.example.com/team/shop.git", "branch": %q}, "registry": {"namespace": "team", "name": "shop"}, "dns": {"zone": "example.com", "target": "ingress.example.com."}, "environments": [%s]}`,
		branch, strings.Join(list, ", "))
}

// identity returns a REST config for user, bound to the ClusterRole of
// examples/events/initialize-rbac.yaml when bind is true: the provider's
// rights on DevOpsProjects are then exactly what docs/events.md tells a
// platform team to grant.
func identity(t *testing.T, env *controlplane.Env, user string, bind bool) *rest.Config {
	t.Helper()
	if bind {
		var role *rbacv1.ClusterRole
		for _, d := range loadExample(t, "events/initialize-rbac.yaml") {
			if d.GetKind() == "ClusterRole" {
				role = &rbacv1.ClusterRole{}
				controlplane.Must(t, runtime.DefaultUnstructuredConverter.FromUnstructured(d.Object, role))
			}
		}
		if role == nil {
			t.Fatal("examples/events/initialize-rbac.yaml has no ClusterRole")
		}
		create(t, env.Client, role, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}})
	}
	kc, err := env.KubeConfigFor(user)
	controlplane.Must(t, err)
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kc)
	controlplane.Must(t, err)
	return cfg
}

// TestInitializeTenancy plays DevOpsInitialize messages on a real RabbitMQ
// into a real API server holding the DevOpsProject XRD, the provider
// applying them with only the RBAC docs/events.md asks for. Each namespace's
// own ProviderConfig says which broker user may write its projects
// ("ci-{namespace}"): a stranger, the user of another namespace and a
// ClusterProviderConfig never authorise. A create and an update are
// applied (the update redelivered once, applied once), an older message is
// superseded, a field a person set with kubectl is never overwritten, and
// the API server's validation is the reason of a refusal.
//
// The test speaks of namespaces init-a, init-b and init-c and of
// ClusterProviderConfig init-cluster; rename makes each name unique to the
// run where it meets the API server or the broker, so a second run in the
// same process (-count=2) finds none of the first's objects.
func TestInitializeTenancy(t *testing.T) {
	env := controlplane.Shared(t)
	rename := strings.NewReplacer("init-cluster", controlplane.Unique("init-cluster"),
		"init-a", controlplane.Unique("init-a"), "init-b", controlplane.Unique("init-b"), "init-c", controlplane.Unique("init-c")).Replace
	broker := rabbitmq.Start(t)
	controlplane.InstallXRD(t, env, "package/configuration/xrd.yaml")
	c := env.Client
	ctx := context.Background()
	urls := map[string]string{}
	for _, u := range []string{"ci-init-a", "ci-init-b", "ci-stranger"} {
		url, err := broker.AddUserWith(rename(u), u+"-pw", rabbitmq.DeployerPermissions)
		controlplane.Must(t, err)
		urls[u] = url
	}
	providerURL, err := broker.AddUserWith("provider", "provider-pw", rabbitmq.ProviderPermissions)
	controlplane.Must(t, err)

	none := &v1alpha1.EventsConfig{Credentials: v1alpha1.Credentials{Source: xpv2.CredentialsSourceNone}}
	for _, ns := range []string{"init-a", "init-b", "init-c"} {
		create(t, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: rename(ns)}})
		if ns != "init-c" {
			create(t, c, &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: rename(ns)},
				Spec: v1alpha1.ProviderConfigSpec{Events: none, InitializeUsers: []string{"ci-{namespace}"}}})
		}
	}
	// A ClusterProviderConfig serving init-a but not init-c. It may not
	// list initializeUsers at all: the API server says why.
	cpc := &v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: rename("init-cluster")},
		Spec: v1alpha1.ProviderConfigSpec{Events: none, AllowedNamespaces: []string{rename("init-a")}, InitializeUsers: []string{rename("ci-init-a")}}}
	if err := c.Create(ctx, cpc); err == nil || !strings.Contains(err.Error(), "initializeUsers is for a namespaced ProviderConfig") {
		t.Fatalf("a ClusterProviderConfig with initializeUsers: got %v, want it refused", err)
	}
	cpc.Spec.InitializeUsers = nil
	create(t, c, cpc)

	// "update" fails once after it was applied, as if the connection were
	// lost before the ack, and is handled again.
	var mu sync.Mutex
	seen := map[string]bool{}
	wrap := func(h events.Handler) events.Handler {
		return func(ctx context.Context, d amqp.Delivery) error {
			err := h(ctx, d)
			mu.Lock()
			defer mu.Unlock()
			if d.MessageId == "update" && err == nil && !seen["failed"] {
				seen["failed"] = true
				return errors.New("connection lost before the ack")
			}
			if d.MessageId == "update" && seen["failed"] {
				seen["redelivered"] = true
			}
			return err
		}
	}
	providerCfg := identity(t, env, "provider-devops-initialize", true)
	src := func(context.Context) (events.Broker, error) {
		return events.Broker{URL: providerURL, Exchange: exchange}, nil
	}
	controlplane.StartManager(t, env, time.Second, func(mgr ctrl.Manager, _ controller.Options) error {
		h, err := eventstream.RequestHandler(mgr.GetClient(), mgr.GetAPIReader(), providerCfg)
		if err != nil {
			return err
		}
		return mgr.Add(events.NewConsumer(events.ConsumerOptions{Source: src, Exchange: deployExchange, Queue: deployQueue, BindingKey: "deploy.#",
			RetryDelay: 100 * time.Millisecond, Handler: wrap(h)}))
	})

	// Every dead letter's reason, by message id, as they come.
	var deadMu sync.Mutex
	reasons := map[string]string{}
	deadLetters := func() map[string]string {
		deadMu.Lock()
		defer deadMu.Unlock()
		out := make(map[string]string, len(reasons))
		for k, v := range reasons {
			out[k] = v
		}
		return out
	}
	dl := publisher(t, broker.URL)
	var dead <-chan amqp.Delivery
	controlplane.Eventually(t, "the provider declared the dead-letter queue", func() bool {
		ch := publisher(t, broker.URL)
		_, err := ch.QueueDeclarePassive(events.DeadLetter(deployQueue), true, false, false, false, events.QueueArgs(deployQueue, events.DefaultMaxLength))
		return err == nil
	})
	waitConsuming(t, broker.URL, deployQueue)
	dead, err = dl.Consume(events.DeadLetter(deployQueue), "", true, false, false, false, nil)
	controlplane.Must(t, err)
	go func() {
		for d := range dead {
			deadMu.Lock()
			reasons[d.MessageId], _ = d.Headers[events.HeaderReason].(string)
			deadMu.Unlock()
		}
	}()

	dyn, err := dynamic.NewForConfig(env.Config)
	controlplane.Must(t, err)
	projects := func(ns string) dynamic.ResourceInterface {
		return dyn.Resource(projectrequest.GroupVersionResource).Namespace(rename(ns))
	}
	get := func(ns, name string) *unstructured.Unstructured {
		u, err := projects(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil
		}
		return u
	}
	branch := func(u *unstructured.Unstructured) string {
		s, _, _ := unstructured.NestedString(u.Object, "spec", "git", "branch")
		return s
	}
	envNames := func(u *unstructured.Unstructured) []string {
		l, _, _ := unstructured.NestedSlice(u.Object, "spec", "environments")
		var out []string
		for _, e := range l {
			out = append(out, e.(map[string]any)["name"].(string))
		}
		return out
	}

	channels := map[string]*amqp.Channel{}
	for u, url := range urls {
		channels[u] = publisher(t, url)
	}
	t0 := time.Now().UTC()
	message := func(ns, project, spec string, at time.Time) string {
		return fmt.Sprintf(`{"namespace": %q, "project": %q, "requestedAt": %q, "spec": %s}`, ns, project, at.Format(time.RFC3339Nano), spec)
	}
	publish := func(user, id, typ, body string) {
		t.Helper()
		ch := channels[user]
		if ch == nil {
			ch = channels["ci-init-a"]
		}
		controlplane.Must(t, ch.PublishWithContext(ctx, deployExchange, "deploy.initialize", false, false, amqp.Publishing{
			MessageId: id, UserId: rename(strings.TrimPrefix(user, "anonymous")), Type: typ, ContentType: "application/json", Body: []byte(rename(body))}))
	}

	// Create, then update (dropping pr-1, moving to another branch),
	// delivered twice.
	publish("ci-init-a", "create", projectrequest.LegacyType, message("init-a", "shop", initSpec("main", "prod", "staging", "pr-1"), t0))
	controlplane.Eventually(t, "init-a/shop created", func() bool {
		if r := deadLetters()["create"]; r != "" {
			t.Fatalf("create dead-lettered: %s", r)
		}
		return get("init-a", "shop") != nil
	})
	created := get("init-a", "shop")
	if got := envNames(created); !slices.Equal(got, []string{"prod", "staging", "pr-1"}) || branch(created) != "main" {
		t.Fatalf("created with environments %v, branch %q", got, branch(created))
	}
	publish("ci-init-a", "update", projectrequest.LegacyType, message("init-a", "shop", initSpec("release", "prod", "staging"), t0.Add(2*time.Second)))
	controlplane.Eventually(t, "the update handled again", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return seen["redelivered"]
	})
	updated := get("init-a", "shop")
	if got := envNames(updated); !slices.Equal(got, []string{"prod", "staging"}) || branch(updated) != "release" {
		t.Fatalf("updated to environments %v, branch %q; want prod, staging on release", got, branch(updated))
	}
	want := map[string]string{
		projectrequest.AnnotationRequestedAt: t0.Add(2 * time.Second).Format(time.RFC3339Nano), projectrequest.AnnotationRequestKey: "amqp-update",
		projectrequest.AnnotationRequestedBy: rename("amqp:ci-init-a"),
	}
	for k, v := range want {
		if got := updated.GetAnnotations()[k]; got != v {
			t.Errorf("annotation %s = %q, want %q", k, got, v)
		}
	}
	managers := map[string]metav1.ManagedFieldsOperationType{}
	for _, m := range updated.GetManagedFields() {
		managers[m.Manager] = m.Operation
	}
	if managers[projectrequest.FieldManager] != metav1.ManagedFieldsOperationApply {
		t.Errorf("field managers %v, want %s applying", managers, projectrequest.FieldManager)
	}

	// A person sets the branch with kubectl edit: that field is theirs now.
	updated.Object["spec"].(map[string]any)["git"].(map[string]any)["branch"] = "hotfix"
	_, err = projects("init-a").Update(ctx, updated, metav1.UpdateOptions{FieldManager: "kubectl-edit"})
	controlplane.Must(t, err)
	edited := get("init-a", "shop")

	// The namespace init-b's own user writes there: the shipped example,
	// as a CloudEvent.
	example, err := os.ReadFile(filepath.Join(controlplane.RepoRoot(), "examples", "events", "initialize-request.json"))
	controlplane.Must(t, err)
	data := map[string]any{}
	controlplane.Must(t, json.Unmarshal(example, &data))
	data["namespace"] = "init-b"
	example, err = json.Marshal(map[string]any{"specversion": "1.0", "type": projectrequest.Type, "id": "ce-b", "source": "ci", "data": data})
	controlplane.Must(t, err)
	publish("ci-init-b", "ce-b", "", string(example))

	later := t0.Add(4 * time.Second)
	rejected := map[string]struct {
		user, typ, body, reason string
	}{
		"conflict": {"ci-init-a", projectrequest.LegacyType, message("init-a", "shop", initSpec("main", "prod", "staging"), later),
			`conflict: DevOpsProject init-a/shop: the message changes .spec.git.branch (set by kubectl-edit)`},
		"older": {"ci-init-a", projectrequest.LegacyType, message("init-a", "shop", initSpec("old", "prod"), t0.Add(time.Second)),
			"superseded: requested at " + t0.Add(time.Second).Format(time.RFC3339Nano)},
		"stranger": {"ci-stranger", projectrequest.LegacyType, message("init-a", "shop", initSpec("main", "prod"), later),
			`unauthorised: broker user "ci-stranger" may not write DevOpsProject init-a/shop in namespace init-a: it is not in spec.initializeUsers of ProviderConfig init-a/default`},
		"other-namespace": {"ci-init-a", projectrequest.LegacyType, message("init-b", "shop", initSpec("main", "prod"), later),
			`unauthorised: broker user "ci-init-a" may not write DevOpsProject init-b/shop in namespace init-b: it is not in spec.initializeUsers of ProviderConfig init-b/default`},
		"cluster-excluded": {"ci-init-a", projectrequest.LegacyType, message("init-c", "shop", strings.Replace(initSpec("main", "prod"), "{", `{"providerConfigName": "init-cluster", `, 1), later),
			"DevOpsProject init-c/shop would use ProviderConfig init-c/init-cluster (spec.providerConfigName), which does not exist"},
		"cluster-allowed": {"ci-init-a", projectrequest.LegacyType, message("init-a", "other", strings.Replace(initSpec("main", "prod"), "{", `{"providerConfigName": "init-cluster", `, 1), later),
			"DevOpsProject init-a/other would use ProviderConfig init-a/init-cluster (spec.providerConfigName), which does not exist"},
		"invalid": {"ci-init-a", projectrequest.Type, message("init-a", "bad", strings.Replace(initSpec("main", "prod"), "prod.shop.example.com", "prod.elsewhere.org", 1), later),
			`DevOpsProject init-a/bad: refused by the API server: DevOpsProject.platform.freeleaps.io "bad" is invalid: spec.environments: Invalid value: every environments[].domain must be inside dns.zone`},
		"unknown-field": {"ci-init-a", projectrequest.LegacyType, message("init-a", "typo", strings.Replace(initSpec("main", "prod"), `"branch"`, `"brnach"`, 1), later),
			`DevOpsProject init-a/typo: refused by the API server: failed to create typed patch object (init-a/typo; platform.freeleaps.io/v1alpha1, Kind=DevOpsProject): .spec.git.brnach: field not declared in schema`},
		"unknown-spec-field": {"ci-init-a", projectrequest.LegacyType, message("init-a", "extra", strings.Replace(initSpec("main", "prod"), "{", `{"enviroments": [], `, 1), later), //nolint:misspell // the misspelt field is the test
			`DevOpsProject init-a/extra: refused by the API server: failed to create typed patch object (init-a/extra; platform.freeleaps.io/v1alpha1, Kind=DevOpsProject): .spec.enviroments: field not declared in schema`},
		"crossplane": {"ci-init-a", projectrequest.LegacyType, message("init-a", "shop", strings.Replace(initSpec("main", "prod"), "{", `{"crossplane": {"compositionRef": {"name": "other"}}, `, 1), later),
			"spec.crossplane is not a field a message may set"},
		"anonymous": {"anonymous", projectrequest.LegacyType, message("init-a", "shop", initSpec("main", "prod"), later),
			"unauthenticated DevOpsInitialize: no AMQP user_id"},
		"deploy": {"ci-init-a", "", `{"project": "shop", "environment": "prod", "namespace": "init-a", "requestedAt": "` + later.Format(time.RFC3339Nano) + `"}`,
			"unknown target: no JenkinsPipeline is labelled"},
	}
	for id, r := range rejected {
		publish(r.user, id, r.typ, r.body)
	}
	for deadline := time.Now().Add(60 * time.Second); len(deadLetters()) < len(rejected); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("dead letters so far: %v", deadLetters())
		}
	}
	got := deadLetters()
	for id, r := range rejected {
		if !strings.Contains(got[id], rename(r.reason)) {
			t.Errorf("%s: reason %q, want it to contain %q", id, got[id], r.reason)
		}
	}

	// The CloudEvent for init-b came on another channel than the rejected
	// messages: it may be handled after them.
	controlplane.Eventually(t, "init-b/shop written by ci-init-b from examples/events/initialize-request.json", func() bool {
		if r := deadLetters()["ce-b"]; r != "" {
			t.Fatalf("ce-b dead-lettered: %s", r)
		}
		b := get("init-b", "shop")
		return b != nil && b.GetAnnotations()[projectrequest.AnnotationRequestedBy] == rename("amqp:ci-init-b") && b.GetAnnotations()[projectrequest.AnnotationRequestID] == "init-shop-7"
	})

	after := get("init-a", "shop")
	if after.GetResourceVersion() != edited.GetResourceVersion() || branch(after) != "hotfix" {
		t.Errorf("init-a/shop changed after the person's edit: branch %q", branch(after))
	}
	list, err := projects("init-a").List(ctx, metav1.ListOptions{})
	controlplane.Must(t, err)
	if len(list.Items) != 1 {
		t.Errorf("%d DevOpsProjects in init-a, want shop only", len(list.Items))
	}
	if l, err := projects("init-c").List(ctx, metav1.ListOptions{}); err != nil || len(l.Items) != 0 {
		t.Errorf("DevOpsProjects in init-c: %v %v, want none", l, err)
	}

	// Without the ClusterRole the provider cannot write projects, and says
	// what it needs rather than retrying for ever.
	t.Run("NoRBAC", func(t *testing.T) {
		p, err := projectrequest.NewProjects(identity(t, env, "provider-devops-unbound", false))
		controlplane.Must(t, err)
		err = projectrequest.Handler(p, c)(ctx, amqp.Delivery{UserId: rename("ci-init-a"), MessageId: "no-rbac", Body: []byte(rename(message("init-a", "norbac", initSpec("main", "prod"), time.Now())))})
		var rej *events.RejectError
		if !errors.As(err, &rej) || !strings.Contains(rej.Reason, "needs get, create and patch on devopsprojects.platform.freeleaps.io") {
			t.Errorf("got %v, want a rejection saying which permissions are missing", err)
		}
	})
}

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
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

// TestRequestedByPolicy installs the shipped ValidatingAdmissionPolicy
// example (its binding scoped to the test's namespace) and creates DeployRuns as a tenant and as the
// provider's service account: a tenant may only name itself and may not
// choose the id the legacy heartbeats carry.
func TestRequestedByPolicy(t *testing.T) {
	env := controlplane.Shared(t)
	ctx := context.Background()
	raw, err := os.ReadFile("../../examples/deployments/requested-by-policy.yaml")
	controlplane.Must(t, err)
	ns := controlplane.Unique("requested-by")
	var names []string
	for _, doc := range strings.Split(string(raw), "\n---\n") {
		u := &unstructured.Unstructured{}
		controlplane.Must(t, yaml.Unmarshal([]byte(doc), &u.Object))
		if u.GetKind() == "ValidatingAdmissionPolicyBinding" {
			// Bound to this test's namespace only: the other tests share
			// the API server and create DeployRuns as its admin.
			controlplane.Must(t, unstructured.SetNestedStringMap(u.Object, map[string]string{"kubernetes.io/metadata.name": ns}, "spec", "matchResources", "namespaceSelector", "matchLabels"))
		}
		controlplane.Must(t, env.Client.Create(ctx, u))
		names = append(names, u.GetKind()+"/"+u.GetName())
		t.Cleanup(func() { _ = env.Client.Delete(ctx, u) })
	}
	controlplane.Must(t, env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	as := func(user string) client.Client {
		cfg := rest.CopyConfig(env.Config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:masters", "system:authenticated"}}
		c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
		controlplane.Must(t, err)
		return c
	}
	const provider = "system:serviceaccount:crossplane-system:provider-devops-1a2b3c"
	const crossplane = "system:serviceaccount:crossplane-system:crossplane"
	run := func(name, by, id string) *v1alpha1.DeployRun {
		return &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: v1alpha1.DeployRunSpec{Project: "shop", Environment: "dev", RequestedBy: by, RequestID: id}}
	}
	cases := map[string]struct {
		user string
		run  *v1alpha1.DeployRun
		want string // "" allowed, else part of the refusal
	}{
		"TenantAsItself":       {"alice", run("alice", "alice", ""), ""},
		"TenantAsAnother":      {"alice", run("bob", "bob", ""), "spec.requestedBy must be your user name, alice"},
		"TenantAsBroker":       {"alice", run("broker", "amqp:ci", ""), "spec.requestedBy must be your user name"},
		"TenantChoosesID":      {"alice", run("id", "alice", "4f1c2b7e-deploy"), "spec.requestID is set by the provider"},
		"ProviderForBroker":    {provider, run("amqp", "amqp:ci-shop", "4f1c2b7e-deploy"), ""},
		"ProviderAsNonBroker":  {provider, run("sa", "alice", ""), "spec.requestedBy must be your user name"},
		"TenantWithoutWhoAsks": {"alice", run("nobody", "", ""), "spec.requestedBy must be your user name"},
		"CrossplaneForPreview": {crossplane, run("preview", "forge:team/shop/pulls/7", ""), ""},
		"CrossplaneForgeID":    {crossplane, run("xp-forge-id", "forge:team/shop/pulls/7", "forge:team/shop/pulls/7/"+strings.Repeat("a", 40)), "spec.requestID is set by the provider"},
		"CrossplaneAsBroker":   {crossplane, run("xp-broker", "amqp:ci", ""), "spec.requestedBy must be your user name"},
		"CrossplaneChoosesID":  {crossplane, run("xp-id", "forge:team/shop/pulls/7", "4f1c2b7e-deploy"), "spec.requestID is set by the provider"},
		"TenantAsForge":        {"alice", run("forge", "forge:team/shop/pulls/7", ""), "spec.requestedBy must be your user name"},
	}
	// The policy takes a moment to be enforced after it is created.
	controlplane.EventuallyWithin(t, time.Minute, "the policy enforced", func() bool {
		err := as("alice").Create(ctx, run("probe", "bob", ""))
		if err == nil {
			_ = env.Client.Delete(ctx, run("probe", "bob", ""))
		}
		return kerrors.IsInvalid(err) || kerrors.IsForbidden(err)
	})
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := as(tc.user).Create(ctx, tc.run)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%s: want allowed, got %v", tc.user, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("%s: want refused with %q, got %v", tc.user, tc.want, err)
			}
		})
	}
	t.Logf("installed %v", names)
}

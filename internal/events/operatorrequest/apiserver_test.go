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

package operatorrequest_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	amqp "github.com/rabbitmq/amqp091-go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/events/deployrequest"
	"github.com/freeleaps/provider-devops/internal/events/operatorrequest"
	"github.com/freeleaps/provider-devops/internal/events/projectrequest"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

func TestMain(m *testing.M) { controlplane.Main(m) }

// TestInitializeOnAPIServer: examples/events/operator-initialize.json,
// translated, is a DevOpsProject the real API server accepts under the
// XRD's schema, written through projectrequest.Submit for the namespace
// the platform's table maps the operator's project to, by a user that
// namespace's ProviderConfig lists in initializeUsers.
func TestInitializeOnAPIServer(t *testing.T) {
	env := controlplane.Shared(t)
	controlplane.InstallXRD(t, env, "package/configuration/xrd.yaml")
	c := env.Client
	ctx := context.Background()
	ns := controlplane.Unique("operator-init")
	controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	controlplane.Must(t, c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "operator-projects", Namespace: ns},
		Data: map[string]string{"65f1c0ffee0123456789abcd": ns + "/shop"}}))
	controlplane.Must(t, c.Create(ctx, &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns},
		Spec: v1alpha1.ProviderConfigSpec{Events: &v1alpha1.EventsConfig{Credentials: v1alpha1.Credentials{Source: xpv2.CredentialsSourceNone}}, InitializeUsers: []string{"operator-ui"}}}))
	projects, err := projectrequest.NewProjects(env.Config)
	controlplane.Must(t, err)
	h := operatorrequest.Handler(operatorrequest.ConfigMapTable{Reader: c, Namespace: ns, Name: "operator-projects"}, operatorrequest.Submitters{
		Deploy: func(context.Context, *deployrequest.Request, amqp.Delivery) error {
			t.Error("no DevOpsReconcile was sent")
			return nil
		},
		Initialize: func(ctx context.Context, req *projectrequest.Request, d amqp.Delivery) error {
			return projectrequest.Submit(ctx, projects, c, req, d)
		},
	})
	controlplane.Must(t, h(ctx, amqp.Delivery{Type: operatorrequest.TypeInitialize, UserId: "operator-ui", MessageId: "m-1", Body: readExample(t, "operator-initialize.json")}))

	p := &unstructured.Unstructured{}
	p.SetGroupVersionKind(deployrequest.ProjectKind)
	controlplane.Must(t, c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop"}, p))
	envs, _, _ := unstructured.NestedSlice(p.Object, "spec", "environments")
	want := []any{
		map[string]any{"name": "prod", "domain": "shop.example.com", "namespace": "team-shop--prod"},
		map[string]any{"name": "pr-42", "domain": "pr-42.shop.example.com", "ttl": "10800s"},
	}
	if diff := cmp.Diff(want, envs); diff != "" {
		t.Errorf("spec.environments -want +got:\n%s", diff)
	}
	if got := p.GetAnnotations()[projectrequest.AnnotationRequestID]; got != "init-65f1c0ffee" {
		t.Errorf("request id annotation %q, want the operator's id", got)
	}
	if got := p.GetAnnotations()[projectrequest.AnnotationRequestedBy]; got != "amqp:operator-ui" {
		t.Errorf("requested-by annotation %q", got)
	}
}

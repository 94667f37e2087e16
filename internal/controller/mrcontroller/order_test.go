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

package mrcontroller

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis"
	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	dnsv1alpha1 "github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
)

// counting is the managed reconciler: it counts its reconciles.
type counting struct{ n int }

func (c *counting) Reconcile(context.Context, reconcile.Request) (reconcile.Result, error) {
	c.n++
	return reconcile.Result{}, nil
}

func TestDeleteInOrder(t *testing.T) {
	s := runtime.NewScheme()
	if err := apis.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	xr := metav1.OwnerReference{APIVersion: "platform.freeleaps.io/v1alpha1", Kind: "DevOpsProject", Name: "shop", UID: "xr-1", Controller: ptr.To(true)}
	other := xr
	other.UID = "xr-2"
	labels := map[string]string{contract.LabelProject: "shop", contract.LabelEnvironment: "prod"}
	app := func(annotation string, deletedAgo time.Duration) *argov1alpha1.ArgoApplication {
		a := &argov1alpha1.ArgoApplication{ObjectMeta: metav1.ObjectMeta{Name: "prod-app", Namespace: "team", Labels: labels, Finalizers: []string{"finalizer.managedresource.crossplane.io"},
			OwnerReferences: []metav1.OwnerReference{xr}, Annotations: map[string]string{contract.AnnotationDeleteAfter: annotation}}}
		if deletedAgo > 0 {
			a.DeletionTimestamp = &metav1.Time{Time: now.Add(-deletedAgo)}
		}
		return a
	}
	dns := func(ns string, owner metav1.OwnerReference, env string) *dnsv1alpha1.DNSRecord {
		l := map[string]string{contract.LabelProject: "shop", contract.LabelEnvironment: env}
		return &dnsv1alpha1.DNSRecord{ObjectMeta: metav1.ObjectMeta{Name: "dns-" + ns + "-" + env + "-" + string(owner.UID), Namespace: ns, Labels: l, OwnerReferences: []metav1.OwnerReference{owner}}}
	}
	cases := map[string]struct {
		reason  string
		app     *argov1alpha1.ArgoApplication
		others  []client.Object
		waitFor string // "" : not held
	}{
		"Held": {
			reason:  "The environment's DNS record of the same composite exists: the application waits, naming it.",
			app:     app("DNSRecord", time.Second),
			others:  []client.Object{dns("team", xr, "prod")},
			waitFor: "DNSRecord/dns-team-prod-xr-1",
		},
		"NotDeleted": {
			reason: "A resource not being deleted is reconciled as ever.",
			app:    app("DNSRecord", 0),
			others: []client.Object{dns("team", xr, "prod")},
		},
		"OtherNamespace": {
			reason: "A record of another namespace, with the same labels and owner, holds nothing.",
			app:    app("DNSRecord", time.Second),
			others: []client.Object{dns("other", xr, "prod")},
		},
		"OtherComposite": {
			reason: "A record of another composite in the namespace holds nothing.",
			app:    app("DNSRecord", time.Second),
			others: []client.Object{dns("team", other, "prod")},
		},
		"OtherEnvironment": {
			reason: "A record of another environment holds nothing.",
			app:    app("DNSRecord", time.Second),
			others: []client.Object{dns("team", xr, "dev")},
		},
		"UnknownKind": {
			reason: "A kind that is not the provider's is ignored: nothing of it could ever be deleted by the provider.",
			app:    app("Secret, ConfigMap", time.Second),
			others: []client.Object{dns("team", xr, "prod")},
		},
		"ListTrimmed": {
			reason:  "Spaces around the kinds do not matter.",
			app:     app(" JenkinsPipeline , DNSRecord ", time.Second),
			others:  []client.Object{dns("team", xr, "prod")},
			waitFor: "DNSRecord/dns-team-prod-xr-1",
		},
		"ItselfOnly": {
			reason: "A resource whose annotation names its own kind does not wait for itself.",
			app:    app("ArgoApplication", time.Second),
		},
		"NotAManagedKind": {
			reason: "Every group also holds WatchEvent and the options kinds: they are not kinds a resource could wait for.",
			app:    app("WatchEvent,ListOptions", time.Second),
			others: []client.Object{dns("team", xr, "prod")},
		},
		"Mutual": {
			reason: "A record being deleted that waits for applications in turn is not waited for: neither would ever go first.",
			app:    app("DNSRecord", time.Second),
			others: []client.Object{func() client.Object {
				d := dns("team", xr, "prod")
				d.Annotations = map[string]string{contract.AnnotationDeleteAfter: "ArgoApplication"}
				d.Finalizers = []string{"finalizer.managedresource.crossplane.io"}
				d.DeletionTimestamp = &metav1.Time{Time: now.Add(-time.Second)}
				return d
			}()},
		},
		"KeepsExternal": {
			reason: "A resource whose policies keep its external object deletes nothing in the backend: it waits for nothing.",
			app: func() *argov1alpha1.ArgoApplication {
				a := app("DNSRecord", time.Second)
				a.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionUpdate}
				return a
			}(),
			others: []client.Object{dns("team", xr, "prod")},
		},
		"Duplicates": {
			reason:  "A kind listed many times is listed once.",
			app:     app(strings.Repeat("DNSRecord,", 2000), time.Second),
			others:  []client.Object{dns("team", xr, "prod")},
			waitFor: "DNSRecord/dns-team-prod-xr-1",
		},
		"WaitedLongEnough": {
			reason: "Past MaxDeleteWait the deletion goes on: a blocker that never goes (or waits for this one) cannot hold it forever.",
			app:    app("DNSRecord", MaxDeleteWait),
			others: []client.Object{dns("team", xr, "prod")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kube := fake.NewClientBuilder().WithScheme(s).WithObjects(append(tc.others, tc.app)...).WithStatusSubresource(tc.app).Build()
			inner := &counting{}
			d := deleteInOrder[*argov1alpha1.ArgoApplication]{Reconciler: inner, kube: kube, new: func() *argov1alpha1.ArgoApplication { return &argov1alpha1.ArgoApplication{} }, kind: "ArgoApplication", kinds: ownKinds(s), now: func() time.Time { return now }}
			res, err := d.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "team", Name: "prod-app"}})
			if err != nil {
				t.Fatal(err)
			}
			got := &argov1alpha1.ArgoApplication{}
			if err := kube.Get(context.Background(), client.ObjectKeyFromObject(tc.app), got); err != nil {
				t.Fatal(err)
			}
			msg := got.GetCondition(xpv2.TypeReady).Message
			if tc.waitFor == "" {
				if inner.n != 1 || msg != "" {
					t.Errorf("%s\nheld: reconciled %d times, Ready says %q", tc.reason, inner.n, msg)
				}
				return
			}
			if inner.n != 0 || !strings.Contains(msg, "waiting for "+tc.waitFor+" to be deleted first") || strings.Contains(msg, "more") || res.RequeueAfter != MinAfterDeletion {
				t.Errorf("%s\nnot held: reconciled %d times, requeued after %s, Ready says %q", tc.reason, inner.n, res.RequeueAfter, msg)
			}
		})
	}
}

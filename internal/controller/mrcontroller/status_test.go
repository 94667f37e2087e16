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
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/events/vocab"
)

func TestNoopStatusUpdatesAreSkipped(t *testing.T) {
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}
	writes := 0
	kube := fake.NewClientBuilder().WithObjects(ns).WithStatusSubresource(ns).WithInterceptorFuncs(interceptor.Funcs{
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			writes++
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
	}).Build()
	c := noopStatusClient{Client: kube}

	got := &corev1.Namespace{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(ns), got); err != nil {
		t.Fatal(err)
	}
	if err := c.Status().Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	if writes != 0 {
		t.Fatalf("an unchanged status was written %d times", writes)
	}
	got.Status.Phase = corev1.NamespaceTerminating
	if err := c.Status().Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	if writes != 1 {
		t.Fatalf("a changed status must be written once, got %d writes", writes)
	}
}

// TestProgressCoalesced: while a resource is young and not Ready, a status
// write that only reports progress (messages, atProvider) is made at most
// every progressEvery; a changed condition status or reason, Ready, and
// any write of an older resource are made at once.
func TestProgressCoalesced(t *testing.T) {
	s := runtime.NewScheme()
	if err := argov1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	unready := func(msg string) xpv2.Condition { return xpv2.Unavailable().WithMessage(msg) }
	cases := map[string]struct {
		age   time.Duration
		since time.Duration
		edit  func(a *argov1alpha1.ArgoApplication)
		want  bool
	}{
		"ProgressSoon": {age: 10 * time.Second, since: time.Second, want: false, edit: func(a *argov1alpha1.ArgoApplication) {
			a.SetConditions(unready("Argo CD reports Progressing"))
			a.Status.AtProvider.HealthStatus = "Progressing"
		}},
		"ProgressLater": {age: 10 * time.Second, since: progressEvery, want: true, edit: func(a *argov1alpha1.ArgoApplication) {
			a.SetConditions(unready("Argo CD reports Progressing"))
		}},
		"ProgressOfAnOlderResource": {age: progressYoung, since: time.Second, want: true, edit: func(a *argov1alpha1.ArgoApplication) {
			a.SetConditions(unready("Argo CD reports Progressing"))
		}},
		"Ready": {age: 10 * time.Second, since: time.Second, want: true, edit: func(a *argov1alpha1.ArgoApplication) {
			a.SetConditions(xpv2.Available())
		}},
		"SyncFailed": {age: 10 * time.Second, since: time.Second, want: true, edit: func(a *argov1alpha1.ArgoApplication) {
			a.SetConditions(xpv2.ReconcileError(errors.New("boom")))
		}},
		// A spec change handled: the function waits on that.
		"SpecHandled": {age: 10 * time.Second, since: time.Second, want: true, edit: func(a *argov1alpha1.ArgoApplication) {
			a.SetConditions(xpv2.ReconcileSuccess().WithObservedGeneration(2))
		}},
		"CreatedAgain": {age: 10 * time.Second, since: time.Second, want: true, edit: func(a *argov1alpha1.ArgoApplication) {
			a.SetConditions(vocab.Created(now))
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			app := &argov1alpha1.ArgoApplication{ObjectMeta: metav1.ObjectMeta{Name: "shop-dev", Namespace: "team", CreationTimestamp: metav1.NewTime(now.Add(-tc.age))}}
			app.SetConditions(unready("Argo CD reports Missing"), xpv2.ReconcileSuccess().WithObservedGeneration(1))
			writes := 0
			kube := fake.NewClientBuilder().WithScheme(s).WithObjects(app).WithStatusSubresource(app).WithInterceptorFuncs(interceptor.Funcs{
				SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
					writes++
					return c.SubResource(sub).Update(ctx, obj, opts...)
				},
			}).Build()
			p := newProgress()
			p.now = func() time.Time { return now.Add(-tc.since) }
			p.wrote(client.ObjectKeyFromObject(app))
			p.now = func() time.Time { return now }
			c := noopStatusClient{Client: kube, p: p}
			got := &argov1alpha1.ArgoApplication{}
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(app), got); err != nil {
				t.Fatal(err)
			}
			tc.edit(got)
			if err := c.Status().Update(context.Background(), got); err != nil {
				t.Fatal(err)
			}
			if wrote := writes == 1; wrote != tc.want {
				t.Errorf("written %t, want %t", wrote, tc.want)
			}
			// A write held back plans the next look for when it is due.
			next := p.PollInterval(func(resource.Managed, time.Duration) time.Duration { return time.Minute })(got, time.Minute)
			if want := map[bool]time.Duration{true: time.Minute, false: progressEvery - tc.since}[tc.want]; next != want {
				t.Errorf("next look in %v, want %v", next, want)
			}
		})
	}
}

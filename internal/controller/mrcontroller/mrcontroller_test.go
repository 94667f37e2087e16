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
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
)

func TestPollInterval(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	ready := func() *jenkinsv1alpha1.JenkinsPipeline {
		p := &jenkinsv1alpha1.JenkinsPipeline{}
		p.SetConditions(xpv2.Available())
		return p
	}
	busyReady := func() *jenkinsv1alpha1.JenkinsPipeline {
		p := ready()
		p.Status.AtProvider.InQueue = true
		return p
	}
	// created ago, and not Ready since changed ago (0: no condition).
	notReady := func(created, changed time.Duration) *jenkinsv1alpha1.JenkinsPipeline {
		p := &jenkinsv1alpha1.JenkinsPipeline{}
		p.SetCreationTimestamp(metav1.NewTime(now.Add(-created)))
		if changed != 0 {
			c := xpv2.Unavailable()
			c.LastTransitionTime = metav1.NewTime(now.Add(-changed))
			p.SetConditions(c)
		}
		return p
	}
	cases := map[string]struct {
		reason   string
		mg       *jenkinsv1alpha1.JenkinsPipeline
		interval time.Duration
		rnd      float64
		want     time.Duration
	}{
		"ReadyNoJitter":     {reason: "rnd 0.5 adds no jitter", mg: ready(), interval: 5 * time.Minute, rnd: 0.5, want: 5 * time.Minute},
		"ReadyMaxJitter":    {reason: "rnd near 1 adds the full jitter", mg: ready(), interval: 5 * time.Minute, rnd: 1, want: 5*time.Minute + 30*time.Second},
		"ReadyMinJitter":    {reason: "rnd 0 subtracts the full jitter", mg: ready(), interval: 5 * time.Minute, rnd: 0, want: 5*time.Minute - 30*time.Second},
		"NotReadyNew":       {reason: "a resource created 2s ago is polled again in 500ms, not sooner", mg: notReady(2*time.Second, 0), interval: 5 * time.Minute, rnd: 0.5, want: 500 * time.Millisecond},
		"NotReadySixth":     {reason: "created 30s ago: a sixth of that, 5s, with ±10% jitter", mg: notReady(30*time.Second, 0), interval: 5 * time.Minute, rnd: 1, want: 5*time.Second + 500*time.Millisecond},
		"NotReadyChurn":     {reason: "a Ready condition that changed 8s ago (a new message each poll) does not make an hour-old resource young", mg: notReady(time.Hour, 8*time.Second), interval: 5 * time.Minute, rnd: 1, want: NotReadyPollInterval + NotReadyPollInterval/10},
		"NotReadyFuture":    {reason: "a transition time in the future changes nothing", mg: notReady(time.Hour, -100*365*24*time.Hour), interval: 5 * time.Minute, rnd: 1, want: NotReadyPollInterval + NotReadyPollInterval/10},
		"NotReadyCapped":    {reason: "a resource not Ready for long is polled every 15s", mg: notReady(time.Hour, 0), interval: 5 * time.Minute, rnd: 1, want: NotReadyPollInterval + NotReadyPollInterval/10},
		"BusyCapped":        {reason: "a Ready resource with work in progress is polled every 15s", mg: busyReady(), interval: 5 * time.Minute, rnd: 0.5, want: NotReadyPollInterval},
		"NotReadyShortPoll": {reason: "a poll already shorter is kept", mg: notReady(time.Hour, 0), interval: 10 * time.Second, rnd: 0.5, want: 10 * time.Second},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			hook := PollInterval(30*time.Second, func() float64 { return tc.rnd }, func() time.Time { return now }, func(mg resource.Managed) bool { return mg.(*jenkinsv1alpha1.JenkinsPipeline).Status.AtProvider.InQueue })
			if diff := cmp.Diff(tc.want, hook(tc.mg, tc.interval)); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
	// The hook must not carry state from one call to the next.
	hook := PollInterval(30*time.Second, func() float64 { return 1 }, func() time.Time { return now }, nil)
	_ = hook(notReady(time.Second, 0), 5*time.Minute)
	if got := hook(ready(), 5*time.Minute); got != 5*time.Minute+30*time.Second {
		t.Errorf("a not-Ready call changed the jitter of later calls: got %s", got)
	}
}

func TestMayWrite(t *testing.T) {
	cases := map[string]struct {
		reason string
		pols   xpv2.ManagementPolicies
		want   bool
	}{
		"Default":        {reason: "no policies means full management", want: true},
		"All":            {reason: "* writes", pols: xpv2.ManagementPolicies{xpv2.ManagementActionAll}, want: true},
		"ObserveOnly":    {reason: "Observe only never writes", pols: xpv2.ManagementPolicies{xpv2.ManagementActionObserve}},
		"ObserveLateIni": {reason: "late-initialize writes only the resource, not the external object", pols: xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionLateInitialize}},
		"NoDelete":       {reason: "Observe+Update writes", pols: xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionUpdate}, want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := &jenkinsv1alpha1.JenkinsPipeline{}
			p.SetManagementPolicies(tc.pols)
			if got := MayWrite(p); got != tc.want {
				t.Errorf("%s: got %v, want %v", tc.reason, got, tc.want)
			}
		})
	}
}

type connectorFunc[T resource.Managed] func(context.Context, T) (managed.TypedExternalClient[T], error)

func (f connectorFunc[T]) Connect(ctx context.Context, cr T) (managed.TypedExternalClient[T], error) {
	return f(ctx, cr)
}

// A resource being deleted whose namespace took its ProviderConfig or
// Secret with it is let go (its backend object orphaned) instead of keeping
// its finalizer, and the namespace, forever; any other failure, or a
// resource not being deleted, still reports the error.
func TestLetGoUnconfigured(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := pcv1alpha1.SchemeBuilder.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	k8sClient := fake.NewClientBuilder().WithScheme(scheme).Build()
	_, unconfiguredErr := backendconfig.Resolve(context.Background(), k8sClient, func() *jenkinsv1alpha1.JenkinsPipeline {
		p := &jenkinsv1alpha1.JenkinsPipeline{}
		p.SetNamespace("gone")
		p.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
		return p
	}())
	if !backendconfig.IsUnconfigured(unconfiguredErr) {
		t.Fatalf("a missing ProviderConfig must be unconfigured: %v", unconfiguredErr)
	}
	readErr := errors.New("the API server is unreachable")
	deleted := func() *jenkinsv1alpha1.JenkinsPipeline {
		p := &jenkinsv1alpha1.JenkinsPipeline{}
		p.SetDeletionTimestamp(&metav1.Time{Time: time.Now()})
		return p
	}
	cases := map[string]struct {
		cr         *jenkinsv1alpha1.JenkinsPipeline
		err        error
		wantLetGo  bool
		wantErrMsg string
	}{
		"DeletedUnconfigured": {cr: deleted(), err: unconfiguredErr, wantLetGo: true},
		"DeletedReadError":    {cr: deleted(), err: readErr, wantErrMsg: "unreachable"},
		"LiveUnconfigured":    {cr: &jenkinsv1alpha1.JenkinsPipeline{}, err: unconfiguredErr, wantErrMsg: "not found"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			l := letGoUnconfigured[*jenkinsv1alpha1.JenkinsPipeline]{connectorFunc[*jenkinsv1alpha1.JenkinsPipeline](func(context.Context, *jenkinsv1alpha1.JenkinsPipeline) (managed.TypedExternalClient[*jenkinsv1alpha1.JenkinsPipeline], error) {
				return nil, tc.err
			})}
			c, err := l.Connect(context.Background(), tc.cr)
			if tc.wantLetGo {
				if err != nil {
					t.Fatalf("want a client that lets go, got %v", err)
				}
				obs, err := c.Observe(context.Background(), tc.cr)
				if err != nil || obs.ResourceExists {
					t.Errorf("want the resource let go (not existing), got %+v, %v", obs, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErrMsg) {
				t.Errorf("want the error %q, got %v", tc.wantErrMsg, err)
			}
		})
	}
}

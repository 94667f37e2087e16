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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
)

func TestPollInterval(t *testing.T) {
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
		"NotReadyCapped":    {reason: "a resource not yet Ready is polled every 15s", mg: &jenkinsv1alpha1.JenkinsPipeline{}, interval: 5 * time.Minute, rnd: 1, want: NotReadyPollInterval + NotReadyPollInterval/10},
		"BusyCapped":        {reason: "a Ready resource with work in progress is polled every 15s", mg: busyReady(), interval: 5 * time.Minute, rnd: 0.5, want: NotReadyPollInterval},
		"NotReadyShortPoll": {reason: "a poll already shorter than the cap is kept", mg: &jenkinsv1alpha1.JenkinsPipeline{}, interval: 10 * time.Second, rnd: 0.5, want: 10 * time.Second},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			hook := PollInterval(30*time.Second, func() float64 { return tc.rnd }, func(mg resource.Managed) bool { return mg.(*jenkinsv1alpha1.JenkinsPipeline).Status.AtProvider.InQueue })
			if diff := cmp.Diff(tc.want, hook(tc.mg, tc.interval)); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
	// The hook must not carry state from one call to the next.
	hook := PollInterval(30*time.Second, func() float64 { return 1 }, nil)
	_ = hook(&jenkinsv1alpha1.JenkinsPipeline{}, 5*time.Minute)
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

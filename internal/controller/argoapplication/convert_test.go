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

package argoapplication

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
)

func TestNormalize(t *testing.T) {
	cases := map[string]struct {
		reason   string
		desired  argocd.ApplicationSpec
		observed argocd.ApplicationSpec
		equal    bool
	}{
		"Defaults": {
			reason:   "Argo CD fills in project default and revision HEAD",
			desired:  argocd.ApplicationSpec{Source: &argocd.ApplicationSource{RepoURL: "r"}},
			observed: argocd.ApplicationSpec{Project: "default", Source: &argocd.ApplicationSource{RepoURL: "r", TargetRevision: "HEAD"}},
			equal:    true,
		},
		"SyncOptionOrder": {
			reason:   "sync options are a set",
			desired:  argocd.ApplicationSpec{SyncPolicy: &argocd.SyncPolicy{SyncOptions: []string{"B=1", "A=1"}}},
			observed: argocd.ApplicationSpec{SyncPolicy: &argocd.SyncPolicy{SyncOptions: []string{"A=1", "B=1"}}},
			equal:    true,
		},
		"EmptySyncPolicy": {
			reason:   "an empty sync policy is no sync policy",
			desired:  argocd.ApplicationSpec{SyncPolicy: &argocd.SyncPolicy{}},
			observed: argocd.ApplicationSpec{},
			equal:    true,
		},
		"RevisionChanged": {
			reason:   "a different revision is drift",
			desired:  argocd.ApplicationSpec{Source: &argocd.ApplicationSource{RepoURL: "r", TargetRevision: "main"}},
			observed: argocd.ApplicationSpec{Source: &argocd.ApplicationSource{RepoURL: "r", TargetRevision: "HEAD"}},
		},
		"SourcesOverride": {
			reason:   "sources set in Argo CD replace our source: drift",
			desired:  argocd.ApplicationSpec{Source: &argocd.ApplicationSource{RepoURL: "r"}},
			observed: argocd.ApplicationSpec{Source: &argocd.ApplicationSource{RepoURL: "r"}, Sources: []byte(`[{"repoURL":"x"}]`)},
		},
		"ValuesObjectOverride": {
			reason:   "helm valuesObject takes precedence over our values: drift",
			desired:  argocd.ApplicationSpec{Source: &argocd.ApplicationSource{RepoURL: "r", Helm: &argocd.HelmSource{Values: "a: 1"}}},
			observed: argocd.ApplicationSpec{Source: &argocd.ApplicationSource{RepoURL: "r", Helm: &argocd.HelmSource{Values: "a: 1", ValuesObject: []byte(`{"a":2}`)}}},
		},
		"AutomationDisabled": {
			reason:   "automated.enabled false turns our automation off: drift",
			desired:  argocd.ApplicationSpec{SyncPolicy: &argocd.SyncPolicy{Automated: &argocd.SyncPolicyAutomated{Prune: true}}},
			observed: argocd.ApplicationSpec{SyncPolicy: &argocd.SyncPolicy{Automated: &argocd.SyncPolicyAutomated{Prune: true, Enabled: new(bool)}}},
		},
		"AutomationRemoved": {
			reason:   "automated sync turned off in Argo CD is drift",
			desired:  argocd.ApplicationSpec{SyncPolicy: &argocd.SyncPolicy{Automated: &argocd.SyncPolicyAutomated{Prune: true}}},
			observed: argocd.ApplicationSpec{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			before := tc.desired.SyncPolicy
			got := cmp.Equal(Normalize(tc.desired), Normalize(tc.observed), cmpopts.EquateEmpty())
			if got != tc.equal {
				t.Errorf("%s: equal = %v, want %v\n%s", tc.reason, got, tc.equal, cmp.Diff(Normalize(tc.desired), Normalize(tc.observed)))
			}
			if tc.desired.SyncPolicy != before {
				t.Errorf("%s: Normalize changed its input", tc.reason)
			}
		})
	}
}

func TestReadiness(t *testing.T) {
	app := func(health, msg, sync string) *argocd.Application {
		a := &argocd.Application{}
		a.Status.Health.Status, a.Status.Health.Message, a.Status.Sync.Status = health, msg, sync
		return a
	}
	selfHeal := func(a *argocd.Application, enabled *bool) *argocd.Application {
		a.Spec.SyncPolicy = &argocd.SyncPolicy{Automated: &argocd.SyncPolicyAutomated{Prune: true, SelfHeal: true, Enabled: enabled}}
		return a
	}
	failedSync := app("Missing", "", "OutOfSync")
	failedSync.Status.OperationState = &argocd.OperationState{Phase: "Failed", Message: "one or more objects failed to apply"}
	compareError := app("Healthy", "", "Unknown")
	compareError.Status.Conditions = []argocd.ApplicationCondition{{Type: "ComparisonError", Message: "repository not found"}}
	cases := map[string]struct {
		reason string
		app    *argocd.Application
		status corev1.ConditionStatus
		msg    string
		// why is the condition's reason, when it is not Available or
		// Unavailable: a failure, written at once.
		why xpv2.ConditionReason
	}{
		"Healthy":  {reason: "Healthy is Ready", app: app("Healthy", "", "Synced"), status: corev1.ConditionTrue},
		"Degraded": {reason: "Degraded says why", app: app("Degraded", "Deployment shop has 0/2 ready", "Synced"), status: corev1.ConditionFalse, msg: "Argo CD reports health Degraded: Deployment shop has 0/2 ready (sync Synced)", why: ReasonDegraded},
		"SyncFailed": {reason: "a failed sync says so, with Argo CD's message", app: failedSync, status: corev1.ConditionFalse,
			msg: "Argo CD reports health Missing (sync OutOfSync); sync failed: one or more objects failed to apply", why: ReasonSyncFailed},
		"ComparisonError": {reason: "Argo CD cannot compare: not Ready, whatever the health", app: compareError, status: corev1.ConditionFalse,
			msg: "Argo CD reports ComparisonError (sync Unknown): repository not found", why: ReasonArgoCDError},
		"Progressing":            {reason: "Progressing is not Ready yet", app: app("Progressing", "", "OutOfSync"), status: corev1.ConditionFalse, msg: "Argo CD reports health Progressing (sync OutOfSync)"},
		"Unknown":                {reason: "no health yet is said plainly", app: app("", "", ""), status: corev1.ConditionFalse, msg: "Argo CD has not reported health yet"},
		"HealthyOutOfSyncManual": {reason: "without self-heal, drift is the user's to sync: Healthy is Ready", app: app("Healthy", "", "OutOfSync"), status: corev1.ConditionTrue},
		"HealthyOutOfSyncSelfHeal": {reason: "a self-healing application is Ready only once Argo CD synced it", app: selfHeal(app("Healthy", "", "OutOfSync"), nil), status: corev1.ConditionFalse,
			msg: "Argo CD is bringing the application in sync (sync OutOfSync, health Healthy)"},
		"HealthySyncedSelfHeal":   {reason: "a synced self-healing application is Ready", app: selfHeal(app("Healthy", "", "Synced"), nil), status: corev1.ConditionTrue},
		"HealthyOutOfSyncAutoOff": {reason: "automated sync turned off is manual", app: selfHeal(app("Healthy", "", "OutOfSync"), new(bool)), status: corev1.ConditionTrue},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := Readiness(tc.app)
			if c.Status != tc.status || c.Message != tc.msg {
				t.Errorf("%s: got %s %q, want %s %q", tc.reason, c.Status, c.Message, tc.status, tc.msg)
			}
			want := map[corev1.ConditionStatus]xpv2.ConditionReason{corev1.ConditionTrue: xpv2.ReasonAvailable, corev1.ConditionFalse: xpv2.ReasonUnavailable}[tc.status]
			if tc.why != "" {
				want = tc.why
			}
			if c.Reason != want {
				t.Errorf("%s: reason %s, want %s", tc.reason, c.Reason, want)
			}
		})
	}
}

func TestDesired(t *testing.T) {
	cr := &v1alpha1.ArgoApplication{ObjectMeta: metav1.ObjectMeta{Name: "shop-alpha", Namespace: "team"}}
	meta.SetExternalName(cr, "shop-alpha-app")
	cr.Spec.ForProvider = v1alpha1.ArgoApplicationParameters{
		Project:     "shop",
		Source:      v1alpha1.ApplicationSource{RepoURL: "https://git.example.com/shop.git", Path: "deploy"},
		Destination: v1alpha1.ApplicationDestination{Server: "https://kubernetes.default.svc", Namespace: "shop"},
	}
	got := Desired(cr)
	if got.Metadata.Name != "shop-alpha-app" || got.Metadata.Labels[contract.LabelOwner] != "team.shop-alpha" {
		t.Errorf("name and owner label: got %+v", got.Metadata)
	}
	if diff := cmp.Diff([]string{finalizerCascade}, got.Metadata.Finalizers); diff != "" {
		t.Errorf("cascade is the default: finalizers -want +got:\n%s", diff)
	}
	no := false
	cr.Spec.ForProvider.Cascade = &no
	if got := Desired(cr); len(got.Metadata.Finalizers) != 0 {
		t.Errorf("cascade false must not add Argo CD's finalizer, got %v", got.Metadata.Finalizers)
	}

	long := &v1alpha1.ArgoApplication{ObjectMeta: metav1.ObjectMeta{Name: strings.Repeat("n", 60), Namespace: strings.Repeat("s", 60)}}
	if o := Owner(long); len(o) > 63 || o == Owner(&v1alpha1.ArgoApplication{ObjectMeta: metav1.ObjectMeta{Name: strings.Repeat("n", 61), Namespace: strings.Repeat("s", 60)}}) {
		t.Errorf("a long owner must fit a label value and stay distinct, got %q", o)
	}
}

func TestMergePatch(t *testing.T) {
	no := false
	base := func(mutate func(p *v1alpha1.ArgoApplicationParameters)) *v1alpha1.ArgoApplication {
		cr := &v1alpha1.ArgoApplication{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team"}}
		meta.SetExternalName(cr, "shop")
		cr.Spec.ForProvider = v1alpha1.ArgoApplicationParameters{
			Project:     "default",
			Source:      v1alpha1.ApplicationSource{RepoURL: "https://git.example.com/shop.git", Path: "deploy", TargetRevision: "main"},
			Destination: v1alpha1.ApplicationDestination{Server: "https://kubernetes.default.svc", Namespace: "shop"},
		}
		if mutate != nil {
			mutate(&cr.Spec.ForProvider)
		}
		return cr
	}
	observed := func(finalizers ...string) *argocd.Application {
		return &argocd.Application{Metadata: argocd.ObjectMeta{Name: "shop", Finalizers: finalizers}}
	}
	unsetSpec := map[string]any{
		"project": "default",
		"source": map[string]any{
			"repoURL": "https://git.example.com/shop.git", "path": "deploy", "chart": nil, "targetRevision": "main",
			"helm": nil, "kustomize": nil,
		},
		"sources": nil, "sourceHydrator": nil,
		"destination": map[string]any{"server": "https://kubernetes.default.svc", "name": nil, "namespace": "shop"},
		"syncPolicy":  nil,
	}
	labels := map[string]any{contract.LabelOwner: "team.shop"}

	cases := map[string]struct {
		reason   string
		cr       *v1alpha1.ArgoApplication
		observed *argocd.Application
		want     map[string]any
	}{
		"CascadeFinalizerAlreadyThere": {
			reason:   "the finalizers are not sent when ours is already there, so others' stay whatever Argo CD's copy says",
			cr:       base(nil),
			observed: observed("example.com/hold", finalizerCascade+"/foreground"),
			want:     map[string]any{"metadata": map[string]any{"labels": labels}, "spec": unsetSpec},
		},
		"CascadeFinalizerAdded": {
			reason:   "ours is added after the others",
			cr:       base(nil),
			observed: observed("example.com/hold"),
			want:     map[string]any{"metadata": map[string]any{"labels": labels, "finalizers": []any{"example.com/hold", finalizerCascade}}, "spec": unsetSpec},
		},
		"CascadeFinalizerRemoved": {
			reason:   "cascade false removes Argo CD's resources finalizer in every form and keeps the others",
			cr:       base(func(p *v1alpha1.ArgoApplicationParameters) { p.Cascade = &no }),
			observed: observed("example.com/hold", finalizerCascade, finalizerCascade+"/background"),
			want:     map[string]any{"metadata": map[string]any{"labels": labels, "finalizers": []any{"example.com/hold"}}, "spec": unsetSpec},
		},
		"RetryFieldsRemovedAreNulled": {
			reason: "a retry without limit or backoff nulls both, so values set before go in Argo CD too",
			cr: base(func(p *v1alpha1.ArgoApplicationParameters) {
				p.SyncPolicy = &v1alpha1.SyncPolicy{Retry: &v1alpha1.RetryStrategy{}}
			}),
			observed: observed(finalizerCascade),
			want: map[string]any{"metadata": map[string]any{"labels": labels}, "spec": merged(unsetSpec, "syncPolicy", map[string]any{
				"automated": nil, "syncOptions": nil, "retry": map[string]any{"limit": nil, "backoff": nil},
			})},
		},
		"HelmManagedKeysOnly": {
			reason: "helm options name only the keys we manage, null when unset",
			cr: base(func(p *v1alpha1.ArgoApplicationParameters) {
				p.Source.Helm = &v1alpha1.HelmSource{Values: "replicas: 2"}
			}),
			observed: observed(finalizerCascade),
			want: map[string]any{"metadata": map[string]any{"labels": labels}, "spec": merged(unsetSpec, "source", merged(unsetSpec["source"].(map[string]any), "helm", map[string]any{
				"releaseName": nil, "valueFiles": nil, "values": "replicas: 2", "parameters": nil, "valuesObject": nil,
			}))},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b, err := MergePatch(tc.cr, tc.observed)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]any{}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// merged is m with key set to v, on a copy.
func merged(m map[string]any, key string, v any) map[string]any {
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = x
	}
	out[key] = v
	return out
}

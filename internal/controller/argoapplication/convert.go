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
	"cmp"
	"encoding/json"
	"sort"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/controller/argoaccess"
)

const (
	// finalizerCascade is Argo CD's finalizer that deletes an application's
	// resources with it. Argo CD's delete with a propagation policy adds the
	// same finalizer with a /foreground or /background suffix.
	finalizerCascade = "resources-finalizer.argocd.argoproj.io"
)

// isCascadeFinalizer is true for Argo CD's resources finalizer in any of its
// propagation forms.
func isCascadeFinalizer(f string) bool {
	return f == finalizerCascade || strings.HasPrefix(f, finalizerCascade+"/")
}

// hasCascadeFinalizer is true when finalizers make Argo CD delete the app's
// resources with it.
func hasCascadeFinalizer(finalizers []string) bool {
	for _, f := range finalizers {
		if isCascadeFinalizer(f) {
			return true
		}
	}
	return false
}

// Owner is the contract.LabelOwner value of cr (argoaccess.Owner).
func Owner(cr *v1alpha1.ArgoApplication) string {
	return argoaccess.Owner(cr.GetNamespace(), cr.GetName())
}

func cascade(cr *v1alpha1.ArgoApplication) bool {
	return cr.Spec.ForProvider.Cascade == nil || *cr.Spec.ForProvider.Cascade
}

// Desired is the application cr asks for.
func Desired(cr *v1alpha1.ArgoApplication) *argocd.Application {
	p := cr.Spec.ForProvider
	app := &argocd.Application{
		Metadata: argocd.ObjectMeta{Name: meta.GetExternalName(cr), Labels: map[string]string{contract.LabelOwner: Owner(cr)}},
		Spec: argocd.ApplicationSpec{
			Project: p.Project,
			Source: &argocd.ApplicationSource{
				RepoURL: p.Source.RepoURL, Path: p.Source.Path, Chart: p.Source.Chart, TargetRevision: p.Source.TargetRevision,
			},
			Destination: argocd.ApplicationDestination{Server: p.Destination.Server, Name: p.Destination.Name, Namespace: p.Destination.Namespace},
		},
	}
	if cascade(cr) {
		app.Metadata.Finalizers = []string{finalizerCascade}
	}
	if h := p.Source.Helm; h != nil {
		app.Spec.Source.Helm = &argocd.HelmSource{ReleaseName: h.ReleaseName, ValueFiles: h.ValueFiles, Values: h.Values}
		for _, hp := range h.Parameters {
			app.Spec.Source.Helm.Parameters = append(app.Spec.Source.Helm.Parameters, argocd.HelmParameter{Name: hp.Name, Value: hp.Value, ForceString: hp.ForceString})
		}
	}
	if k := p.Source.Kustomize; k != nil {
		app.Spec.Source.Kustomize = &argocd.KustomizeSource{NamePrefix: k.NamePrefix, NameSuffix: k.NameSuffix, Images: k.Images}
		for _, kp := range k.Patches {
			out := argocd.KustomizePatch{Patch: kp.Patch}
			if t := kp.Target; t != nil {
				out.Target = &argocd.KustomizeSelector{Group: t.Group, Version: t.Version, Kind: t.Kind, Name: t.Name, Namespace: t.Namespace,
					LabelSelector: t.LabelSelector, AnnotationSelector: t.AnnotationSelector}
			}
			app.Spec.Source.Kustomize.Patches = append(app.Spec.Source.Kustomize.Patches, out)
		}
	}
	if sp := p.SyncPolicy; sp != nil {
		app.Spec.SyncPolicy = &argocd.SyncPolicy{SyncOptions: sp.SyncOptions}
		if a := sp.Automated; a != nil {
			app.Spec.SyncPolicy.Automated = &argocd.SyncPolicyAutomated{Prune: a.Prune, SelfHeal: a.SelfHeal, AllowEmpty: a.AllowEmpty}
		}
		if r := sp.Retry; r != nil {
			app.Spec.SyncPolicy.Retry = &argocd.RetryStrategy{Limit: r.Limit}
			if b := r.Backoff; b != nil {
				app.Spec.SyncPolicy.Retry.Backoff = &argocd.Backoff{Duration: b.Duration, Factor: b.Factor, MaxDuration: b.MaxDuration}
			}
		}
	}
	return app
}

// Normalize removes differences Argo CD introduces without meaning a change:
// defaults ("" project and revision), ordering of sync options and value
// files, and an empty sync policy. It works on a copy.
func Normalize(s argocd.ApplicationSpec) argocd.ApplicationSpec {
	if s.Project == "" {
		s.Project = "default"
	}
	if s.Source != nil {
		s.Source = normalSource(*s.Source)
	}
	if sp := s.SyncPolicy; sp != nil {
		cp := *sp
		cp.SyncOptions = sorted(cp.SyncOptions)
		if cp.Automated == nil && len(cp.SyncOptions) == 0 && cp.Retry == nil {
			s.SyncPolicy = nil
		} else {
			s.SyncPolicy = &cp
		}
	}
	return s
}

// normalSource is src as Argo CD stores it: HEAD for no revision, and
// without option blocks that set nothing (helm: {}), which it drops.
func normalSource(src argocd.ApplicationSource) *argocd.ApplicationSource {
	if src.TargetRevision == "" {
		src.TargetRevision = "HEAD"
	}
	if h := src.Helm; h != nil && h.ReleaseName == "" && len(h.ValueFiles) == 0 && h.Values == "" && len(h.Parameters) == 0 && len(h.ValuesObject) == 0 {
		src.Helm = nil
	}
	if k := src.Kustomize; k != nil && k.NamePrefix == "" && k.NameSuffix == "" && len(k.Images) == 0 && len(k.Patches) == 0 {
		src.Kustomize = nil
	}
	return &src
}

func sorted(in []string) []string {
	out := append([]string(nil), in...)
	sort.Strings(out)
	return out
}

// Observation is the small part of the application a user acts on.
func Observation(app *argocd.Application) v1alpha1.ArgoApplicationObservation {
	o := v1alpha1.ArgoApplicationObservation{
		SyncStatus:    app.Status.Sync.Status,
		Revision:      app.Status.Sync.Revision,
		HealthStatus:  app.Status.Health.Status,
		HealthMessage: app.Status.Health.Message,
	}
	if op := app.Status.OperationState; op != nil {
		o.OperationPhase, o.OperationMessage = op.Phase, op.Message
	}
	// ReconciledAt is left out: it moves on every Argo CD resync, so
	// surfacing it would write the resource's status with nothing changed.
	return o
}

// errorConditions are Argo CD's application conditions that mean it cannot
// tell what is deployed: its health then describes stale or no manifests.
var errorConditions = map[string]bool{"ComparisonError": true, "InvalidSpecError": true} //nolint:gochecknoglobals // read-only set

// Reasons of a Ready condition that is False because something failed,
// not because the application is still on its way: a status write that
// changes the reason is made at once, also while the resource is young
// (mrcontroller holds back progress that changes only messages).
const (
	// ReasonArgoCDError: Argo CD cannot compare the application.
	ReasonArgoCDError xpv2.ConditionReason = "ArgoCDError"
	// ReasonDegraded: Argo CD reports health Degraded.
	ReasonDegraded xpv2.ConditionReason = "Degraded"
	// ReasonSyncFailed: Argo CD's last sync failed.
	ReasonSyncFailed xpv2.ConditionReason = "SyncFailed"
)

// unavailable is a Ready condition False for reason, saying msg.
func unavailable(reason xpv2.ConditionReason, msg string) xpv2.Condition {
	c := xpv2.Unavailable().WithMessage(msg)
	c.Reason = reason
	return c
}

// Readiness maps Argo CD health to the Ready condition: Healthy is
// Available unless Argo CD reports it cannot compare the application, or
// the application self-heals and is not Synced yet (a change on its way);
// anything else says what Argo CD reports, with a reason of its own for a
// failure (an error, Degraded, a failed sync).
func Readiness(app *argocd.Application) xpv2.Condition {
	for _, c := range app.Status.Conditions {
		if errorConditions[c.Type] {
			return unavailable(ReasonArgoCDError, "Argo CD reports "+c.Type+" (sync "+cmp.Or(app.Status.Sync.Status, "Unknown")+"): "+c.Message)
		}
	}
	h := app.Status.Health
	if h.Status == "Healthy" {
		if selfHeals(app) && app.Status.Sync.Status != "Synced" {
			// Argo CD is to keep this application in sync: until it is,
			// what is healthy is not yet what was asked for.
			return xpv2.Unavailable().WithMessage("Argo CD is bringing the application in sync (sync " + cmp.Or(app.Status.Sync.Status, "Unknown") + ", health Healthy)")
		}
		return xpv2.Available()
	}
	msg := "Argo CD reports health " + h.Status
	if h.Status == "" {
		msg = "Argo CD has not reported health yet"
	}
	if h.Message != "" {
		msg += ": " + h.Message
	}
	if app.Status.Sync.Status != "" {
		msg += " (sync " + app.Status.Sync.Status + ")"
	}
	switch op := app.Status.OperationState; {
	case h.Status == "Degraded":
		return unavailable(ReasonDegraded, msg)
	case op != nil && (op.Phase == "Failed" || op.Phase == "Error"):
		return unavailable(ReasonSyncFailed, msg+"; sync "+strings.ToLower(op.Phase)+messageSuffix(op.Message))
	}
	return xpv2.Unavailable().WithMessage(msg)
}

// selfHeals is true when Argo CD syncs the application whenever it drifts:
// automated sync, not turned off, with selfHeal.
func selfHeals(app *argocd.Application) bool {
	sp := app.Spec.SyncPolicy
	if sp == nil || sp.Automated == nil || !sp.Automated.SelfHeal {
		return false
	}
	return sp.Automated.Enabled == nil || *sp.Automated.Enabled
}

// MergePatch is the JSON merge patch (RFC 7386) that sets the fields cr
// manages on the observed application and nothing else: others'
// annotations, labels, finalizers and the spec fields we do not manage stay.
// A managed field cr leaves unset is removed (null).
func MergePatch(cr *v1alpha1.ArgoApplication, observed *argocd.Application) ([]byte, error) {
	want := Desired(cr)
	metadata := map[string]any{"labels": want.Metadata.Labels}
	// A merge patch replaces a list whole, and Argo CD's copy of the app may
	// be a moment old: the finalizers are sent only when ours must change,
	// so one another tool just added is not dropped on every drift fix.
	if cascade(cr) != hasCascadeFinalizer(observed.Metadata.Finalizers) {
		finalizers := make([]string, 0, len(observed.Metadata.Finalizers)+1)
		for _, f := range observed.Metadata.Finalizers {
			if !isCascadeFinalizer(f) {
				finalizers = append(finalizers, f)
			}
		}
		if cascade(cr) {
			finalizers = append(finalizers, finalizerCascade)
		}
		metadata["finalizers"] = finalizers
	}
	src := want.Spec.Source
	source := map[string]any{
		"repoURL":        src.RepoURL,
		"path":           orNull(src.Path),
		"chart":          orNull(src.Chart),
		"targetRevision": orNull(src.TargetRevision),
		"helm":           nil,
		"kustomize":      nil,
	}
	if h := src.Helm; h != nil {
		source["helm"] = map[string]any{"releaseName": orNull(h.ReleaseName), "valueFiles": listOrNull(h.ValueFiles), "values": orNull(h.Values), "parameters": listOrNull(h.Parameters), "valuesObject": nil}
	}
	if k := src.Kustomize; k != nil {
		source["kustomize"] = map[string]any{"namePrefix": orNull(k.NamePrefix), "nameSuffix": orNull(k.NameSuffix), "images": listOrNull(k.Images), "patches": listOrNull(k.Patches)}
	}
	d := want.Spec.Destination
	// sources and sourceHydrator would replace source, valuesObject values
	// and enabled: false the automation: they are ours to clear.
	spec := map[string]any{
		"project":        want.Spec.Project,
		"source":         source,
		"sources":        nil,
		"sourceHydrator": nil,
		"destination":    map[string]any{"server": orNull(d.Server), "name": orNull(d.Name), "namespace": orNull(d.Namespace)},
		"syncPolicy":     nil,
	}
	if sp := want.Spec.SyncPolicy; sp != nil {
		policy := map[string]any{"automated": nil, "syncOptions": listOrNull(sp.SyncOptions), "retry": nil}
		if a := sp.Automated; a != nil {
			policy["automated"] = map[string]any{"prune": a.Prune, "selfHeal": a.SelfHeal, "allowEmpty": a.AllowEmpty, "enabled": nil}
		}
		if r := sp.Retry; r != nil {
			// Every managed key named, null when unset, so a removed
			// limit or backoff is removed in Argo CD too.
			retry := map[string]any{"limit": r.Limit, "backoff": nil}
			if r.Limit == 0 {
				retry["limit"] = nil
			}
			if b := r.Backoff; b != nil {
				backoff := map[string]any{"duration": orNull(b.Duration), "maxDuration": orNull(b.MaxDuration), "factor": nil}
				if b.Factor != nil {
					backoff["factor"] = *b.Factor
				}
				retry["backoff"] = backoff
			}
			policy["retry"] = retry
		}
		spec["syncPolicy"] = policy
	}
	return json.Marshal(map[string]any{
		"metadata": metadata,
		"spec":     spec,
	})
}

func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func listOrNull[T any](l []T) any {
	if len(l) == 0 {
		return nil
	}
	return l
}

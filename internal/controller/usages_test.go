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
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

// ProviderConfigUsages are namespaced, so any namespace admin can write
// one. A hand-made usage must not pin the platform's ClusterProviderConfig
// (or another config) against deletion: only a usage a managed resource
// of the provider really holds counts — its controller exists with that
// UID, references that config, and for a ClusterProviderConfig sits in a
// namespace the config serves. A real usage still blocks deletion.
func TestHandMadeUsagesPinNothing(t *testing.T) {
	env := controlplane.Shared(t)
	startProvider(t, env)
	c := env.Client
	ctx := context.Background()
	allowed, tenant := controlplane.Unique("pin-allowed"), controlplane.Unique("pin-tenant")
	cpcName := controlplane.Unique("pin-platform")
	for _, ns := range []string{allowed, tenant} {
		create(t, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	cpc := &v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: cpcName}, Spec: v1alpha1.ProviderConfigSpec{AllowedNamespaces: []string{allowed},
		Registry: &v1alpha1.RegistryConfig{Kind: v1alpha1.RegistryOCI, URL: "https://registry.example.com", Credentials: v1alpha1.Credentials{Source: xpv2.CredentialsSourceNone}}}}
	own := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "own", Namespace: tenant}, Spec: v1alpha1.ProviderConfigSpec{
		Jenkins: &v1alpha1.JenkinsConfig{URL: "https://jenkins.example.com", Credentials: v1alpha1.Credentials{Source: xpv2.CredentialsSourceNone}}}}
	create(t, c, cpc, own)

	// The tenant's own pipelines: one on its own config, one naming the
	// platform's config, which does not serve its namespace.
	pipeline := func(name, kind, config string) *jenkinsv1alpha1.JenkinsPipeline {
		script := "pipeline { agent any }"
		p := &jenkinsv1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: tenant}}
		p.Spec.ProviderConfigReference = ref(kind, config)
		p.Spec.ForProvider.Source.Script = &script
		create(t, c, p)
		controlplane.Must(t, c.Get(ctx, client.ObjectKeyFromObject(p), p))
		return p
	}
	onOwn := pipeline("on-own", "ProviderConfig", "own")
	onPlatform := pipeline("on-platform", "ClusterProviderConfig", cpcName)
	usage := func(name string, owner *jenkinsv1alpha1.JenkinsPipeline, uid types.UID) {
		u := &v1alpha1.ProviderConfigUsage{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: tenant,
			Labels:          map[string]string{xpv2.LabelKeyProviderKind: v1alpha1.ClusterProviderConfigKind, xpv2.LabelKeyProviderName: cpcName},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: jenkinsv1alpha1.SchemeGroupVersion.String(), Kind: "JenkinsPipeline", Name: owner.Name, UID: uid, Controller: ptr(true)}}}}
		u.ProviderConfigReference = xpv2.ProviderConfigReference{Kind: v1alpha1.ClusterProviderConfigKind, Name: cpcName}
		u.ResourceReference = xpv2.TypedReference{APIVersion: jenkinsv1alpha1.SchemeGroupVersion.String(), Kind: "JenkinsPipeline", Name: owner.Name}
		create(t, c, u)
	}
	usage("pin-other-config", onOwn, onOwn.UID)                  // its controller uses another config
	usage("pin-not-served", onPlatform, onPlatform.UID)          // the platform's config does not serve this namespace
	usage("pin-wrong-uid", onPlatform, types.UID("not-the-uid")) // not its controller's UID

	controlplane.Must(t, c.Delete(ctx, cpc))
	controlplane.Eventually(t, "the ClusterProviderConfig deleted despite the hand-made usages", func() bool {
		return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(cpc), &v1alpha1.ClusterProviderConfig{}))
	})

	// A real usage, made by the provider for the pipeline on its own
	// config, still keeps that config.
	controlplane.Eventually(t, "the provider records the pipeline's usage of its config", func() bool {
		l := &v1alpha1.ProviderConfigUsageList{}
		return c.List(ctx, l, client.InNamespace(tenant), client.MatchingLabels{xpv2.LabelKeyProviderName: "own", xpv2.LabelKeyProviderKind: v1alpha1.ProviderConfigKind}) == nil && len(l.Items) == 1
	})
	controlplane.Must(t, c.Delete(ctx, own))
	// This test's provider reconciles every resource the package's other
	// tests left in the shared control plane, and the config controller
	// shares the global reconcile rate with them: on a loaded machine
	// (two CI runs at once) its turn took over a minute.
	controlplane.EventuallyWithin(t, 3*time.Minute, "deleting a config in use is blocked", func() bool {
		pc := &v1alpha1.ProviderConfig{}
		return c.Get(ctx, client.ObjectKeyFromObject(own), pc) == nil && pc.Status.Users == 1 && pc.GetCondition("Terminating").Status == corev1.ConditionTrue
	})
}

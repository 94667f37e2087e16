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

package jenkinscredential

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

func TestUsersOfSecret(t *testing.T) {
	using := func(ns, name, secret string) client.Object {
		cr := &v1alpha1.JenkinsCredential{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
		cr.Spec.ForProvider.SecretRef.Name = secret
		return cr
	}
	kube := fake.NewClientBuilder().WithScheme(controlplane.Scheme()).WithObjects(
		using("team-a", "git", "git"), using("team-a", "git-too", "git"), using("team-a", "token", "token"), using("team-b", "git", "git"),
	).Build()
	cases := map[string]struct {
		reason string
		secret client.Object
		want   []reconcile.Request
	}{
		"Referenced": {
			reason: "Every JenkinsCredential of the Secret's namespace that names it is reconciled, none of another namespace.",
			secret: &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "git", Namespace: "team-a"}},
			want: []reconcile.Request{
				{NamespacedName: types.NamespacedName{Namespace: "team-a", Name: "git"}},
				{NamespacedName: types.NamespacedName{Namespace: "team-a", Name: "git-too"}},
			},
		},
		"Unreferenced": {
			reason: "A Secret no JenkinsCredential names reconciles nothing.",
			secret: &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "team-a"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := UsersOfSecret(context.Background(), kube, tc.secret)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nUsersOfSecret(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

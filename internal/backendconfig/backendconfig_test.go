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

package backendconfig

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	registryv1alpha1 "github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
)

const secret = "hunter2-do-not-print"

func TestCredentials(t *testing.T) {
	dir := t.TempDir()
	credFile := filepath.Join(dir, "creds")
	if err := os.WriteFile(credFile, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DEVOPS_TEST_CREDS", secret)
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	kube := fake.NewClientBuilder().WithScheme(s).WithObjects(
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "creds"}, Data: map[string][]byte{"token": []byte(secret), "empty": {}}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "creds"}, Data: map[string][]byte{"token": []byte(secret)}},
	).Build()
	namespaced := &Config{Kind: "ProviderConfig", Name: "default", Namespace: "team-a"}
	cluster := &Config{Kind: "ClusterProviderConfig", Name: "platform"}
	ref := func(name, ns, key string) v1alpha1.Credentials {
		return v1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.SecretKeySelector{Name: name, Namespace: ns, Key: key}}
	}
	cases := map[string]struct {
		reason  string
		pc      *Config
		creds   v1alpha1.Credentials
		want    string
		wantErr string
	}{
		"OwnNamespaceDefault":  {reason: "a namespaced config reads its own namespace by default", pc: namespaced, creds: ref("creds", "", "token"), want: secret},
		"OwnNamespaceExplicit": {reason: "naming its own namespace is fine", pc: namespaced, creds: ref("creds", "team-a", "token"), want: secret},
		"ForeignNamespace": {reason: "a namespaced config cannot read another namespace", pc: namespaced, creds: ref("creds", "team-b", "token"),
			wantErr: `ProviderConfig team-a/default spec.jenkins.credentials: a ProviderConfig may only read Secrets in its own namespace "team-a", not "team-b"`},
		"ClusterNamed":     {reason: "a cluster config reads the namespace it names", pc: cluster, creds: ref("creds", "team-b", "token"), want: secret},
		"ClusterUnnamedNS": {reason: "a cluster config must name the namespace", pc: cluster, creds: ref("creds", "", "token"), wantErr: "secretRef.namespace is required in a ClusterProviderConfig"},
		"MissingKey":       {reason: "a missing key is named", pc: namespaced, creds: ref("creds", "", "password"), wantErr: `credentials Secret team-a/creds has no key "password"`},
		"EmptyValue":       {reason: "empty credentials are refused, not sent", pc: namespaced, creds: ref("creds", "", "empty"), wantErr: "credentials are empty"},
		"Environment": {reason: "a cluster config may use the provider's environment", pc: cluster,
			creds: v1alpha1.Credentials{Source: xpv2.CredentialsSourceEnvironment, Env: &xpv2.EnvSelector{Name: "DEVOPS_TEST_CREDS"}}, want: secret},
		"EnvironmentUnset": {reason: "an unset variable is named", pc: cluster,
			creds: v1alpha1.Credentials{Source: xpv2.CredentialsSourceEnvironment, Env: &xpv2.EnvSelector{Name: "DEVOPS_TEST_UNSET"}}, wantErr: `environment variable "DEVOPS_TEST_UNSET" of the provider is not set`},
		"Filesystem": {reason: "a cluster config may use a mounted file", pc: cluster,
			creds: v1alpha1.Credentials{Source: xpv2.CredentialsSourceFilesystem, Fs: &xpv2.FsSelector{Path: credFile}}, want: secret},
		"TenantEnvironment": {reason: "a tenant's ProviderConfig cannot read the provider's environment", pc: namespaced,
			creds:   v1alpha1.Credentials{Source: xpv2.CredentialsSourceEnvironment, Env: &xpv2.EnvSelector{Name: "DEVOPS_TEST_CREDS"}},
			wantErr: "a namespaced ProviderConfig takes credentials only from a Secret in its own namespace (or None), not from source Environment"},
		"TenantServiceAccountToken": {reason: "a tenant's ProviderConfig cannot read the provider's files, such as its service-account token", pc: namespaced,
			creds:   v1alpha1.Credentials{Source: xpv2.CredentialsSourceFilesystem, Fs: &xpv2.FsSelector{Path: credFile}},
			wantErr: "a namespaced ProviderConfig takes credentials only from a Secret in its own namespace (or None), not from source Filesystem"},
		"None": {reason: "source None means anonymous access", pc: namespaced, creds: v1alpha1.Credentials{Source: xpv2.CredentialsSourceNone}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := tc.pc.Credentials(context.Background(), kube, "spec.jenkins.credentials", tc.creds)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s: want error containing %q, got %v", tc.reason, tc.wantErr, err)
				}
				if strings.Contains(err.Error(), secret) {
					t.Fatalf("%s: error leaks the secret: %v", tc.reason, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	s := runtime.NewScheme()
	_ = v1alpha1.SchemeBuilder.AddToScheme(s)
	kube := fake.NewClientBuilder().WithScheme(s).WithObjects(
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "default"}, Spec: v1alpha1.ProviderConfigSpec{Registry: &v1alpha1.RegistryConfig{Kind: "oci"}}},
		&v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: v1alpha1.ProviderConfigSpec{AllowedNamespaces: []string{"team-*"}, Registry: &v1alpha1.RegistryConfig{Kind: "harbor"}}},
		&v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "platform"}, Spec: v1alpha1.ProviderConfigSpec{Registry: &v1alpha1.RegistryConfig{Kind: "harbor"}}},
	).Build()
	mr := func(ns, kind, name string) *registryv1alpha1.RegistryRepo {
		r := &registryv1alpha1.RegistryRepo{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "repo"}}
		if kind != "" {
			r.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: kind, Name: name}
		}
		return r
	}
	cases := map[string]struct {
		reason   string
		mr       *registryv1alpha1.RegistryRepo
		wantKind v1alpha1.RegistryKind
		wantErr  string
	}{
		"Namespaced":     {reason: "a ProviderConfig is found in the MR's namespace", mr: mr("team-a", "ProviderConfig", "default"), wantKind: "oci"},
		"OtherNamespace": {reason: "a ProviderConfig of another namespace is not visible", mr: mr("team-b", "ProviderConfig", "default"), wantErr: `ProviderConfig "default" not found in namespace "team-b"`},
		"Cluster":        {reason: "a ClusterProviderConfig is found from a namespace it allows", mr: mr("team-b", "ClusterProviderConfig", "default"), wantKind: "harbor"},
		"ClusterDenied":  {reason: "a tenant outside allowedNamespaces cannot use the platform's config", mr: mr("crossplane-system", "ClusterProviderConfig", "default"), wantErr: `ClusterProviderConfig "default" may not be used from namespace "crossplane-system": it is not in the config's spec.allowedNamespaces (team-*)`},
		"ClusterNoList":  {reason: "no allowedNamespaces means no namespace", mr: mr("team-a", "ClusterProviderConfig", "platform"), wantErr: "spec.allowedNamespaces (empty: no namespace)"},
		"UnknownKind":    {reason: "an unknown kind is named", mr: mr("team-a", "Config", "default"), wantErr: `spec.providerConfigRef.kind "Config" is not supported`},
		"NoRef":          {reason: "a missing reference is reported, not a panic", mr: mr("team-a", "", ""), wantErr: "spec.providerConfigRef is not set"},
		"MissingCluster": {reason: "a missing cluster config is named", mr: mr("team-a", "ClusterProviderConfig", "nope"), wantErr: `ClusterProviderConfig "nope" not found`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			pc, err := Resolve(context.Background(), kube, tc.mr)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s: want error containing %q, got %v", tc.reason, tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.wantKind, pc.Spec.Registry.Kind); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

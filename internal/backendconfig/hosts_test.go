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
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	registryv1alpha1 "github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
)

type noTracking struct{}

func (noTracking) Track(context.Context, resource.ModernManaged) error { return nil }

// TestTenantHosts: with --tenant-backend-hosts set, a namespaced
// ProviderConfig may point the provider only at matching hosts; a
// ClusterProviderConfig is the platform's and is not limited.
func TestTenantHosts(t *testing.T) {
	guard, err := NewGuard([]string{"*.corp.example", "127.0.0.1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := runtime.NewScheme()
	_ = v1alpha1.SchemeBuilder.AddToScheme(s)
	spec := func(registryURL string) v1alpha1.ProviderConfigSpec {
		return v1alpha1.ProviderConfigSpec{Registry: &v1alpha1.RegistryConfig{Kind: "harbor", URL: registryURL}}
	}
	kube := fake.NewClientBuilder().WithScheme(s).WithObjects(
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "allowed"}, Spec: spec("https://harbor.corp.example/")},
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "loopback"}, Spec: spec("http://127.0.0.1:8080")},
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "attacker"}, Spec: spec("https://collect.attacker.example/harbor")},
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "lookalike"}, Spec: spec("https://harbor.corp.example.attacker.example")},
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "rfc2136"}, Spec: v1alpha1.ProviderConfigSpec{
			DNS: &v1alpha1.DNSConfig{Provider: v1alpha1.DNSProviderRFC2136, RFC2136: &v1alpha1.RFC2136Options{Server: "ns1.attacker.example:53"}}}},
		&v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "platform"}, Spec: func() v1alpha1.ProviderConfigSpec {
			s := spec("https://registry.elsewhere.example")
			s.AllowedNamespaces = []string{"*"}
			return s
		}()},
	).Build()
	mr := func(kind, name string) *registryv1alpha1.RegistryRepo {
		r := &registryv1alpha1.RegistryRepo{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "repo"}}
		r.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: kind, Name: name}
		return r
	}
	r := Resolver{Kube: kube, Usage: noTracking{}, Guard: guard}
	registry := func(s *v1alpha1.ProviderConfigSpec) *v1alpha1.RegistryConfig { return s.Registry }
	dns := func(s *v1alpha1.ProviderConfigSpec) *v1alpha1.DNSConfig { return s.DNS }

	cases := map[string]struct {
		reason  string
		section func() error
		wantErr string
	}{
		"AllowedHost": {reason: "a host matching a pattern is allowed",
			section: func() error {
				_, _, err := Section(context.Background(), r, mr("ProviderConfig", "allowed"), "registry", registry)
				return err
			}},
		"AllowedIPWithPort": {reason: "the port does not matter, the host does",
			section: func() error {
				_, _, err := Section(context.Background(), r, mr("ProviderConfig", "loopback"), "registry", registry)
				return err
			}},
		"OtherHost": {reason: "a tenant cannot point the provider at a server of its own",
			section: func() error {
				_, _, err := Section(context.Background(), r, mr("ProviderConfig", "attacker"), "registry", registry)
				return err
			},
			wantErr: `ProviderConfig team-a/attacker spec.registry: host "collect.attacker.example" is not among the backend hosts`},
		"LookalikeHost": {reason: "a suffix of the pattern's domain inside another host does not match",
			section: func() error {
				_, _, err := Section(context.Background(), r, mr("ProviderConfig", "lookalike"), "registry", registry)
				return err
			},
			wantErr: `host "harbor.corp.example.attacker.example" is not among`},
		"RFC2136Server": {reason: "a name server host:port is checked too",
			section: func() error {
				_, _, err := Section(context.Background(), r, mr("ProviderConfig", "rfc2136"), "dns", dns)
				return err
			},
			wantErr: `host "ns1.attacker.example" is not among`},
		"ClusterNotLimited": {reason: "a ClusterProviderConfig is the platform's own",
			section: func() error {
				_, _, err := Section(context.Background(), r, mr("ClusterProviderConfig", "platform"), "registry", registry)
				return err
			}},
	}
	// The flags are checked at start, each named.
	if _, err := NewGuard([]string{"[bad"}, nil); err == nil || !strings.Contains(err.Error(), "--tenant-backend-hosts") {
		t.Errorf("a bad host pattern: got %v", err)
	}
	if _, err := NewGuard(nil, []string{"not-a-network"}); err == nil || !strings.Contains(err.Error(), "--tenant-backend-networks") {
		t.Errorf("a bad network: got %v", err)
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := tc.section()
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("%s: %v", tc.reason, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("%s: want error containing %q, got %v", tc.reason, tc.wantErr, err)
			}
		})
	}
}

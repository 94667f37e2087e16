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

package apis_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

func TestMain(m *testing.M) { controlplane.Main(m) }

// TestCRDsEstablished checks every CRD the provider package ships is served.
func TestCRDsEstablished(t *testing.T) {
	env := controlplane.Shared(t)
	files, err := filepath.Glob(filepath.Join(controlplane.RepoRoot(), "package", "provider", "crds", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs found in package/provider/crds: %v", err)
	}
	if len(env.CRDs) != len(files) {
		t.Fatalf("installed %d CRDs, package has %d files", len(env.CRDs), len(files))
	}
	for _, c := range env.CRDs {
		got := &apiextensionsv1.CustomResourceDefinition{}
		if err := env.Client.Get(context.Background(), client.ObjectKey{Name: c.Name}, got); err != nil {
			t.Fatalf("get CRD %s: %v", c.Name, err)
		}
		established := false
		for _, cond := range got.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				established = true
			}
		}
		if !established {
			t.Errorf("CRD %s is not Established: %+v", c.Name, got.Status.Conditions)
		}
	}
}

// TestExamplesDryRun sends every object under examples/ to the API server as
// a server-side dry run: a user applying them gets no validation error.
func TestExamplesDryRun(t *testing.T) {
	env := controlplane.Shared(t)
	ensureNamespace(t, env.Client, "crossplane-system")
	files, err := filepath.Glob(filepath.Join(controlplane.RepoRoot(), "examples", "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.Contains(f, string(filepath.Separator)+"devopsproject"+string(filepath.Separator)) {
			continue // composition inputs, validated by the function's render tests
		}
		if strings.Contains(f, string(filepath.Separator)+"install"+string(filepath.Separator)) {
			continue // Crossplane's own kinds, which the end-to-end test installs with
		}
		for _, u := range readObjects(t, f) {
			n++
			if err := env.Client.Create(context.Background(), u, client.DryRunAll); err != nil {
				t.Errorf("%s: %s %s refused: %v", filepath.Base(f), u.GetKind(), u.GetName(), err)
			}
		}
	}
	if n < 6 {
		t.Fatalf("expected at least 6 example objects, found %d", n)
	}
}

// TestInvalidObjectsRefused checks realistic mistakes are refused by the API
// server itself, with a message naming the field.
func TestInvalidObjectsRefused(t *testing.T) {
	env := controlplane.Shared(t)
	ex := func(p string) string { return filepath.Join(controlplane.RepoRoot(), "examples", p) }
	cases := map[string]struct {
		reason  string
		file    string
		kind    string
		mutate  func(u map[string]any)
		field   string
		message string
	}{
		"DNSBadLabel": {
			reason: "a record name must be lower-case DNS labels",
			file:   ex("dns/dnsrecord.yaml"), mutate: set("spec.forProvider.name", "Alpha_Shop!"),
			field: "spec.forProvider.name", message: "should match",
		},
		"PCAllowedNamespaces": {
			reason: "allowedNamespaces on a ProviderConfig would suggest it can serve other namespaces",
			file:   ex("providerconfig/providerconfig.yaml"), kind: "ProviderConfig", mutate: set("spec.allowedNamespaces", []any{"*"}),
			field: "spec.allowedNamespaces", message: "allowedNamespaces is for a ClusterProviderConfig",
		},
		"DNSOwnershipName": {
			reason: "an ownership record's name, written with adoptExisting, would take over another resource's record set",
			file:   ex("dns/dnsrecord.yaml"), mutate: multi(set("spec.forProvider.name", "_devops-owner-a.www"), set("spec.forProvider.type", "TXT"), set("spec.forProvider.values", []any{"heritage=provider-devops,resource=me/www"}), set("spec.forProvider.adoptExisting", true)),
			field: "spec.forProvider.name", message: "label starting with _devops-owner are refused",
		},
		"DNSOwnershipNameWildcard": {
			reason: "the wildcard's ownership record is refused too",
			file:   ex("dns/dnsrecord.yaml"), mutate: multi(set("spec.forProvider.name", "_devops-owner-a-wildcard.preview"), set("spec.forProvider.type", "TXT"), set("spec.forProvider.values", []any{"x"})),
			field: "spec.forProvider.name", message: "label starting with _devops-owner are refused",
		},
		"DNSUnknownType": {
			reason: "only known record types are accepted",
			file:   ex("dns/dnsrecord.yaml"), mutate: set("spec.forProvider.type", "MXX"),
			field: "spec.forProvider.type", message: "Unsupported value",
		},
		"DNSCNAMETwoValues": {
			reason: "a CNAME has exactly one value",
			file:   ex("dns/dnsrecord.yaml"), mutate: set("spec.forProvider.values", []any{"a.example.com.", "b.example.com."}),
			field: "spec.forProvider.values", message: "exactly one value",
		},
		"DNSNegativeTTL": {
			reason: "a TTL is positive",
			file:   ex("dns/dnsrecord.yaml"), mutate: set("spec.forProvider.ttl", int64(-5)),
			field: "spec.forProvider.ttl", message: "greater than or equal to 1",
		},
		"DNSBadIPv4": {
			reason: "an A record's values are IPv4 addresses",
			file:   ex("dns/dnsrecord.yaml"), mutate: multi(set("spec.forProvider.type", "A"), set("spec.forProvider.values", []any{"999.1.1.1"})),
			field: "spec.forProvider.values", message: "IPv4",
		},
		"DNSIPv4InAAAA": {
			reason: "an AAAA record's values are IPv6 addresses",
			file:   ex("dns/dnsrecord.yaml"), mutate: multi(set("spec.forProvider.type", "AAAA"), set("spec.forProvider.values", []any{"10.0.0.1"})),
			field: "spec.forProvider.values", message: "IPv6",
		},
		"DNSBadZone": {
			reason: "a zone is a domain name",
			file:   ex("dns/dnsrecord.yaml"), mutate: set("spec.forProvider.zone", "example..com"),
			field: "spec.forProvider.zone", message: "should match",
		},
		"DNSCNAMEAtApex": {
			reason: "a CNAME cannot sit at the zone apex",
			file:   ex("dns/dnsrecord.yaml"), mutate: set("spec.forProvider.name", "@"),
			field: "spec.forProvider.name", message: "zone apex",
		},
		"JenkinsEmptyName": {
			reason: "a Jenkins job name cannot be empty",
			file:   ex("jenkins/jenkinspipeline.yaml"), mutate: set("spec.forProvider.name", ""),
			field: "spec.forProvider.name", message: "at least 1 chars long",
		},
		"JenkinsFolderDotDot": {
			reason: "a folder path cannot climb out with ..",
			file:   ex("jenkins/jenkinspipeline.yaml"), mutate: set("spec.forProvider.folder", "team/../admin"),
			field: "spec.forProvider.folder", message: "must not contain '..'",
		},
		"CredentialFileWithoutName": {
			reason: "a secret file needs the name builds see it under",
			file:   ex("jenkins/credential.yaml"), kind: "JenkinsCredential", mutate: set("spec.forProvider.type", "file"),
			field: "spec.forProvider", message: "a file credential needs fileName",
		},
		"CredentialUnknownType": {
			reason: "only the four supported credential types are accepted",
			file:   ex("jenkins/credential.yaml"), kind: "JenkinsCredential", mutate: set("spec.forProvider.type", "certificate"),
			field: "spec.forProvider.type", message: "Unsupported value",
		},
		"CredentialBadID": {
			reason: "a credential id is what Jenkins accepts as one, nothing that would change its URL",
			file:   ex("jenkins/credential.yaml"), kind: "JenkinsCredential", mutate: set("spec.forProvider.id", "git/shop"),
			field: "spec.forProvider.id", message: "should match",
		},
		"CredentialIDDotDot": {
			reason: "a credential id of '..' climbs out of the credential's URL (…/credential/../config.xml is the store's domain)",
			file:   ex("jenkins/credential.yaml"), kind: "JenkinsCredential", mutate: set("spec.forProvider.id", ".."),
			field: "spec.forProvider.id", message: "id must not be '.' or '..'",
		},
		"CredentialIDDot": {
			reason: "a credential id of '.' is the store's own URL segment",
			file:   ex("jenkins/credential.yaml"), kind: "JenkinsCredential", mutate: set("spec.forProvider.id", "."),
			field: "spec.forProvider.id", message: "id must not be '.' or '..'",
		},
		"PipelineURLWithPassword": {
			reason: "a password in the checkout URL would be written into the job's config.xml and the build log in clear",
			file:   ex("jenkins/jenkinspipeline.yaml"), kind: "JenkinsPipeline", mutate: set("spec.forProvider.source.scm.url", "https://ci:hunter2@git.example.com/team/shop.git"),
			field: "spec.forProvider.source.scm.url", message: "should match",
		},
		"PipelineSSHURLWithPassword": {
			reason: "a password in an ssh:// URL is as clear as in an https one",
			file:   ex("jenkins/jenkinspipeline.yaml"), kind: "JenkinsPipeline", mutate: set("spec.forProvider.source.scm.url", "ssh://git:hunter2@git.example.com/team/shop.git"),
			field: "spec.forProvider.source.scm.url", message: "should match",
		},
		"BuildCheckoutURLWithPassword": {
			reason: "a password in a declared build's checkout URL would be written into the job's script in clear",
			file:   ex("jenkins/declared-build.yaml"), kind: "JenkinsPipeline", mutate: setStage(0, "checkout", map[string]any{"url": "https://ci:hunter2@git.example.com/team/shop.git"}),
			field: "spec.forProvider.source.build.stages[0].checkout.url", message: "should match",
		},
		"CredentialFolderDotDot": {
			reason: "a credential's folder cannot climb out with ..",
			file:   ex("jenkins/credential.yaml"), kind: "JenkinsCredential", mutate: set("spec.forProvider.folder", "team/../admin"),
			field: "spec.forProvider.folder", message: "must not contain '..'",
		},
		"JenkinsTwoSources": {
			reason: "a pipeline has one source",
			file:   ex("jenkins/jenkinspipeline.yaml"), mutate: set("spec.forProvider.source.script", "pipeline {}"),
			field: "spec.forProvider.source", message: "exactly one of source.scm, source.script, source.build or source.buildFile",
		},
		"JenkinsRelativeRepoURL": {
			reason: "a Git URL is absolute",
			file:   ex("jenkins/jenkinspipeline.yaml"), mutate: set("spec.forProvider.source.scm.url", "git.example.com/team/shop"),
			field: "spec.forProvider.source.scm.url", message: "should match",
		},
		"JenkinsChoiceWithoutChoices": {
			reason: "a choice parameter needs choices",
			file:   ex("jenkins/jenkinspipeline.yaml"), mutate: set("spec.forProvider.parameters", []any{map[string]any{"name": "ENV", "type": "choice"}}),
			field: "spec.forProvider.parameters[0]", message: "needs choices",
		},
		"JenkinsBadCron": {
			reason: "a cron spec has five fields",
			file:   ex("jenkins/jenkinspipeline.yaml"), mutate: set("spec.forProvider.triggers.cron", "H 2 *"),
			field: "spec.forProvider.triggers.cron", message: "should match",
		},
		"ArgoFTPRepo": {
			reason: "a repository URL is https, ssh, oci or scp-like",
			file:   ex("argocd/argoapplication.yaml"), mutate: set("spec.forProvider.source.repoURL", "ftp://git.example.com/shop"),
			field: "spec.forProvider.source.repoURL", message: "should match",
		},
		"ArgoServerAndName": {
			reason: "a destination names a cluster once",
			file:   ex("argocd/argoapplication.yaml"), mutate: set("spec.forProvider.destination.name", "in-cluster"),
			field: "spec.forProvider.destination", message: "exactly one of destination.server or destination.name",
		},
		"ArgoRelativeServer": {
			reason: "a destination server is an absolute URL",
			file:   ex("argocd/argoapplication.yaml"), mutate: set("spec.forProvider.destination.server", "kubernetes.default.svc"),
			field: "spec.forProvider.destination.server", message: "should match",
		},
		"RegistryUpperCase": {
			reason: "repository names are lower case",
			file:   ex("registry/registryrepo.yaml"), mutate: set("spec.forProvider.name", "Shop"),
			field: "spec.forProvider.name", message: "should match",
		},
		"RegistryUnknownVisibility": {
			reason: "visibility is public or private",
			file:   ex("registry/registryrepo.yaml"), mutate: set("spec.forProvider.visibility", "internal"),
			field: "spec.forProvider.visibility", message: "Unsupported value",
		},
		"ManagedUnknownPolicy": {
			reason: "management policies are Crossplane's actions",
			file:   ex("registry/registryrepo.yaml"), mutate: set("spec.managementPolicies", []any{"Frobnicate"}),
			field: "spec.managementPolicies[0]", message: "Unsupported value",
		},
		"ConfigRelativeJenkinsURL": {
			reason: "a Jenkins URL is absolute http(s)",
			file:   ex("providerconfig/providerconfig.yaml"), kind: "ProviderConfig", mutate: set("spec.jenkins.url", "jenkins.example.com"),
			field: "spec.jenkins.url", message: "should match",
		},
		"ConfigRFC2136WithoutOptions": {
			reason: "rfc2136 needs its server and key",
			file:   ex("providerconfig/providerconfig.yaml"), kind: "ProviderConfig", mutate: set("spec.dns.provider", "rfc2136"),
			field: "spec.dns", message: "rfc2136 options are required",
		},
		"ConfigTLSBothWays": {
			reason: "a section verifies against a CA bundle or not at all, not both",
			file:   ex("providerconfig/providerconfig.yaml"), kind: "ProviderConfig",
			mutate: func(u map[string]any) {
				set("spec.registry.insecureSkipTLSVerify", true)(u)
				set("spec.registry.caBundle", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")(u)
			},
			field: "spec.registry", message: "set either insecureSkipTLSVerify or caBundle, not both",
		},
		"ConfigCABundleNotPEM": {
			reason: "a CA bundle holds PEM certificates",
			file:   ex("providerconfig/providerconfig.yaml"), kind: "ProviderConfig", mutate: set("spec.jenkins.caBundle", "MIIBxyz"),
			field: "spec.jenkins.caBundle", message: "caBundle must hold PEM certificates",
		},
		"ConfigRFC2136WithTLS": {
			reason: "RFC 2136 updates are not sent over TLS: a CA bundle there would be silently ignored",
			file:   ex("providerconfig/providerconfig.yaml"), kind: "ProviderConfig",
			mutate: func(u map[string]any) {
				set("spec.dns.provider", "rfc2136")(u)
				set("spec.dns.rfc2136", map[string]any{"server": "127.0.0.1:53", "keyName": "k"})(u)
				set("spec.dns.insecureSkipTLSVerify", true)(u)
			},
			field: "spec.dns", message: "insecureSkipTLSVerify and caBundle are for HTTPS providers",
		},
		"ConfigSecretSourceWithoutRef": {
			reason: "a Secret source needs a secretRef",
			file:   ex("providerconfig/providerconfig.yaml"), kind: "ProviderConfig", mutate: del("spec.argocd.credentials.secretRef"),
			field: "spec.argocd.credentials", message: "secretRef is required",
		},
		"ConfigTenantFilesystemCredentials": {
			reason: "a namespaced ProviderConfig cannot read the provider's files (its service-account token)",
			file:   ex("providerconfig/providerconfig.yaml"), kind: "ProviderConfig",
			mutate: set("spec.argocd.credentials", map[string]any{"source": "Filesystem", "fs": map[string]any{"path": "/var/run/secrets/kubernetes.io/serviceaccount/token"}}),
			field:  "spec.argocd.credentials.source", message: "a namespaced ProviderConfig takes credentials only from a Secret",
		},
		"ConfigTenantEnvironmentCredentials": {
			reason: "a namespaced ProviderConfig cannot read the provider's environment",
			file:   ex("providerconfig/providerconfig.yaml"), kind: "ProviderConfig",
			mutate: set("spec.jenkins.credentials", map[string]any{"source": "Environment", "env": map[string]any{"name": "ARGOCD_TOKEN"}}),
			field:  "spec.jenkins.credentials.source", message: "allowed only in a ClusterProviderConfig",
		},
		"ConfigTenantArgoTenancy": {
			reason: "argocd.tenancy bounds the platform's token; in a namespace's own ProviderConfig it would suggest a limit that binds nobody",
			file:   ex("providerconfig/providerconfig.yaml"), kind: "ProviderConfig",
			mutate: set("spec.argocd.tenancy", map[string]any{"destinationNamespaces": []any{"*"}}),
			field:  "spec.argocd.tenancy", message: "argocd.tenancy is for a ClusterProviderConfig",
		},
		"RepositoryURLWithPassword": {
			reason: "a password in the repository URL would be stored and shown in clear",
			file:   ex("argocd/argorepository.yaml"), kind: "ArgoRepository", mutate: set("spec.forProvider.url", "https://ci:hunter2@git.example.com/team/shop.git"),
			field: "spec.forProvider.url", message: "should match",
		},
		"RepositoryEscapedHost": {
			reason: "git decodes a URL before it dials: an escaped / before the host would make it dial evil.example.net",
			file:   ex("argocd/argorepository.yaml"), kind: "ArgoRepository", mutate: set("spec.forProvider.url", "ssh://git@evil.example.net%2F@git.example.com/team/shop.git"),
			field: "spec.forProvider.url", message: "should match",
		},
		"RepositoryHelmOverSSH": {
			reason: "Argo CD reads helm repositories over https only",
			file:   ex("argocd/argorepository.yaml"), kind: "ArgoRepository", mutate: multi(set("spec.forProvider.type", "helm"), set("spec.forProvider.url", "ssh://git@git.example.com/team/charts.git")),
			field: "spec.forProvider.url", message: "a helm repository URL must be https://",
		},
		"RepositoryWithoutProject": {
			reason: "a repository registered for every project would lend its credentials to every team",
			file:   ex("argocd/argorepository.yaml"), kind: "ArgoRepository", mutate: del("spec.forProvider.project"),
			field: "spec.forProvider.project", message: "Required value",
		},
		"ClusterConfigInitializeUsers": {
			reason: "a DevOpsProject's resources use a namespaced ProviderConfig only: initializeUsers on a ClusterProviderConfig would authorise nothing",
			file:   ex("providerconfig/clusterproviderconfig.yaml"), kind: "ClusterProviderConfig", mutate: set("spec.initializeUsers", []any{"ci-{namespace}"}),
			field: "spec.initializeUsers", message: "initializeUsers is for a namespaced ProviderConfig",
		},
		"ConfigInitializeUserList": {
			reason: "a user name with a comma or a space is a list written as one name: nobody would match it",
			file:   ex("providerconfig/providerconfig.yaml"), kind: "ProviderConfig", mutate: set("spec.initializeUsers", []any{"ci-a, ci-b"}),
			field: "spec.initializeUsers[0]", message: "should match",
		},
		"ConfigEmpty": {
			reason: "a config with no backend is a mistake",
			file:   ex("providerconfig/providerconfig.yaml"), kind: "ProviderConfig", mutate: set("spec", map[string]any{}),
			field: "spec", message: "configure at least one of",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := pick(t, readObjects(t, tc.file), tc.kind)
			u.SetName("invalid-" + strings.ToLower(name))
			tc.mutate(u.Object)
			err := env.Client.Create(context.Background(), u, client.DryRunAll)
			if !kerrors.IsInvalid(err) {
				t.Fatalf("%s: want an Invalid error, got %v", tc.reason, err)
			}
			msg := err.Error()
			t.Log(msg)
			if !strings.Contains(msg, tc.field+":") && !strings.Contains(msg, tc.field+" ") {
				t.Errorf("%s: error does not name field %s:\n%s", tc.reason, tc.field, msg)
			}
			if !strings.Contains(msg, tc.message) {
				t.Errorf("%s: error does not say %q:\n%s", tc.reason, tc.message, msg)
			}
		})
	}
}

func readObjects(t *testing.T, file string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []*unstructured.Unstructured
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := d.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			t.Fatalf("%s: %v", file, err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

func pick(t *testing.T, objs []*unstructured.Unstructured, kind string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if kind == "" || o.GetKind() == kind {
			return o
		}
	}
	t.Fatalf("no %s in example", kind)
	return nil
}

func set(path string, v any) func(map[string]any) {
	return func(u map[string]any) {
		if err := unstructured.SetNestedField(u, v, strings.Split(path, ".")...); err != nil {
			panic(err)
		}
	}
}

// setStage sets one field of the declared build's stage i.
func setStage(i int, field string, v any) func(map[string]any) {
	return func(u map[string]any) {
		stages, _, _ := unstructured.NestedSlice(u, "spec", "forProvider", "source", "build", "stages")
		stages[i].(map[string]any)[field] = v
		if err := unstructured.SetNestedSlice(u, stages, "spec", "forProvider", "source", "build", "stages"); err != nil {
			panic(err)
		}
	}
}

func del(path string) func(map[string]any) {
	return func(u map[string]any) { unstructured.RemoveNestedField(u, strings.Split(path, ".")...) }
}

func multi(fs ...func(map[string]any)) func(map[string]any) {
	return func(u map[string]any) {
		for _, f := range fs {
			f(u)
		}
	}
}

func ensureNamespace(t *testing.T, c client.Client, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Create(context.Background(), ns); err != nil && !kerrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

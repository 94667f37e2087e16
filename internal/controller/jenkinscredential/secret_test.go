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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
)

func TestDesired(t *testing.T) {
	data := map[string][]byte{
		"username": []byte("ci-bot"), "password": []byte(password), "secret": []byte("text"),
		"ssh-privatekey": []byte("KEY"), "phrase": []byte("pp"), "content": []byte("file"), "kubeconfig": []byte("kc"), "empty": nil,
	}
	typed := func(t v1alpha1.CredentialType, mod ...func(*v1alpha1.JenkinsCredentialParameters)) *v1alpha1.JenkinsCredential {
		return credential(func(cr *v1alpha1.JenkinsCredential) {
			cr.Spec.ForProvider.Type = t
			for _, f := range mod {
				f(&cr.Spec.ForProvider)
			}
		})
	}
	base := jenkins.Credential{ID: "shop-git", Description: "git", Owner: "team-a/shop-git"}
	with := func(f func(*jenkins.Credential)) jenkins.Credential { c := base; f(&c); return c }
	cases := map[string]struct {
		reason string
		cr     *v1alpha1.JenkinsCredential
		want   jenkins.Credential
		errHas string
	}{
		"UsernamePasswordDefaults": {
			reason: "The keys of a kubernetes.io/basic-auth Secret are the defaults.",
			cr:     typed(v1alpha1.CredentialUsernamePassword),
			want: with(func(c *jenkins.Credential) {
				c.Type, c.Username, c.Secrets.Password = "usernamePassword", "ci-bot", password
			}),
		},
		"SecretText": {
			reason: "Secret text reads the key secret.",
			cr:     typed(v1alpha1.CredentialSecretText),
			want:   with(func(c *jenkins.Credential) { c.Type, c.Secrets.Text = "secretText", "text" }),
		},
		"SSHWithSpecUsername": {
			reason: "An SSH key takes its username from the spec when set, the key from ssh-privatekey, the passphrase from its key.",
			cr: typed(v1alpha1.CredentialSSHPrivateKey, func(p *v1alpha1.JenkinsCredentialParameters) {
				p.Username, p.SecretRef.PassphraseKey = "git", "phrase"
			}),
			want: with(func(c *jenkins.Credential) {
				c.Type, c.Username, c.Secrets.PrivateKey, c.Secrets.Passphrase = "sshPrivateKey", "git", "KEY", "pp"
			}),
		},
		"FileOtherKey": {
			reason: "A file reads the key contentKey names, and keeps its fileName.",
			cr: typed(v1alpha1.CredentialFile, func(p *v1alpha1.JenkinsCredentialParameters) {
				p.FileName, p.SecretRef.ContentKey = "config", "kubeconfig"
			}),
			want: with(func(c *jenkins.Credential) { c.Type, c.FileName, c.Secrets.Content = "file", "config", []byte("kc") }),
		},
		"EmptyPassword": {
			reason: "An empty password is an error naming the key, not a credential without one.",
			cr:     typed(v1alpha1.CredentialUsernamePassword, func(p *v1alpha1.JenkinsCredentialParameters) { p.SecretRef.PasswordKey = "empty" }),
			errHas: `key "empty" of Secret "git" is empty (spec.forProvider.secretRef.passwordKey)`,
		},
		"MissingPassphrase": {
			reason: "A passphrase key that is named must exist.",
			cr: typed(v1alpha1.CredentialSSHPrivateKey, func(p *v1alpha1.JenkinsCredentialParameters) {
				p.SecretRef.PassphraseKey = "nope"
			}),
			errHas: `has no key "nope" (spec.forProvider.secretRef.passphraseKey)`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kc := kube(t, tc.cr, gitSecret("", func(s *corev1.Secret) { s.Data = data }))
			got, err := Desired(context.Background(), kc, tc.cr)
			noSecret(t, err)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Errorf("%s\nDesired(...): error %v, want one with %q", tc.reason, err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nDesired(...): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nDesired(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

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

package jenkins_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
	fake "github.com/freeleaps/provider-devops/internal/testing/jenkins"
)

// secretValue holds characters XML gives a meaning to: written unescaped,
// they would change the document.
const secretValue = `s3cr<et>&"never-printed`

func TestCredentialRoundTrip(t *testing.T) {
	cases := map[string]struct {
		reason string
		cred   jenkins.Credential
		// stored must appear in the credential as Jenkins stores it.
		stored string
	}{
		"UsernamePassword": {
			reason: "A username with password is a UsernamePasswordCredentialsImpl with the password escaped.",
			cred:   jenkins.Credential{ID: "git", Type: jenkins.CredentialUsernamePassword, Username: "ci-bot", Secrets: jenkins.CredentialSecrets{Password: secretValue}},
			stored: "<password>s3cr&lt;et&gt;&amp;&#34;never-printed</password>",
		},
		"SecretText": {
			reason: "Secret text is a StringCredentialsImpl.",
			cred:   jenkins.Credential{ID: "token", Type: jenkins.CredentialSecretText, Secrets: jenkins.CredentialSecrets{Text: secretValue}},
			stored: "<secret>s3cr&lt;et&gt;&amp;&#34;never-printed</secret>",
		},
		"SSHPrivateKey": {
			reason: "An SSH key is a BasicSSHUserPrivateKey with a directly entered key and its passphrase.",
			cred:   jenkins.Credential{ID: "ssh", Type: jenkins.CredentialSSHPrivateKey, Username: "git", Secrets: jenkins.CredentialSecrets{PrivateKey: "-----BEGIN KEY-----\n" + secretValue, Passphrase: "pass"}},
			stored: "$DirectEntryPrivateKeySource",
		},
		"File": {
			reason: "A file is a FileCredentialsImpl with its content as base64 secretBytes.",
			cred:   jenkins.Credential{ID: "kubeconfig", Type: jenkins.CredentialFile, FileName: "config", Secrets: jenkins.CredentialSecrets{Content: []byte(secretValue)}},
			stored: "<secretBytes>" + base64.StdEncoding.EncodeToString([]byte(secretValue)) + "</secretBytes>",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := fake.New(user, token)
			defer srv.Close()
			srv.SetConfig("team/placeholder", "<flow-definition/>")
			c := newClient(t, srv.URL, token)
			ctx := context.Background()
			tc.cred.Owner, tc.cred.Description = "ns/cred", "for builds"

			if err := c.CreateCredential(ctx, "team", tc.cred); err != nil {
				t.Fatalf("%s\nCreateCredential: %v", tc.reason, err)
			}
			stored, _ := srv.StoredCredential("team", tc.cred.ID)
			if !strings.Contains(stored, tc.stored) {
				t.Errorf("%s\nstored credential lacks %q:\n%s", tc.reason, tc.stored, stored)
			}
			got, err := c.GetCredential(ctx, "team", tc.cred.ID)
			if err != nil {
				t.Fatalf("%s\nGetCredential: %v", tc.reason, err)
			}
			want := tc.cred
			want.Secrets = jenkins.CredentialSecrets{}
			if diff := cmp.Diff(want, *got); diff != "" {
				t.Errorf("%s\nGetCredential: -want, +got:\n%s", tc.reason, diff)
			}
			if err := c.CreateCredential(ctx, "team", tc.cred); !jenkins.IsConflict(err) {
				t.Errorf("%s\na second create: want a conflict, got %v", tc.reason, err)
			}
			tc.cred.Description = "changed"
			if err := c.UpdateCredential(ctx, "team", tc.cred); err != nil {
				t.Fatalf("%s\nUpdateCredential: %v", tc.reason, err)
			}
			if got, _ := c.GetCredential(ctx, "team", tc.cred.ID); got == nil || got.Description != "changed" {
				t.Errorf("%s\nthe update did not replace the credential: %v", tc.reason, got)
			}
			if err := c.DeleteCredential(ctx, "team", tc.cred.ID); err != nil {
				t.Fatalf("%s\nDeleteCredential: %v", tc.reason, err)
			}
			if _, err := c.GetCredential(ctx, "team", tc.cred.ID); !jenkins.IsNotFound(err) {
				t.Errorf("%s\nafter delete: want not found, got %v", tc.reason, err)
			}
			if err := c.DeleteCredential(ctx, "team", tc.cred.ID); err != nil {
				t.Errorf("%s\ndeleting a deleted credential: %v", tc.reason, err)
			}
		})
	}
}

func TestCredentialStores(t *testing.T) {
	srv := fake.New(user, token)
	defer srv.Close()
	srv.SetConfig("team/alpha", "<flow-definition/>")
	c := newClient(t, srv.URL, token)
	ctx := context.Background()
	cred := jenkins.Credential{ID: "git", Type: jenkins.CredentialSecretText, Secrets: jenkins.CredentialSecrets{Text: secretValue}}

	cases := map[string]struct {
		reason   string
		folder   string
		notFound bool
	}{
		"MissingFolder": {reason: "A folder that does not exist has no store: not found.", folder: "nope", notFound: true},
		"Job":           {reason: "A job is no folder and has no store: not found.", folder: "team/alpha", notFound: true},
		"Global":        {reason: "No folder is Jenkins' global store.", folder: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := c.CreateCredential(ctx, tc.folder, cred)
			if got := jenkins.IsNotFound(err); got != tc.notFound {
				t.Errorf("%s\nnot found: got %v (%v), want %v", tc.reason, got, err, tc.notFound)
			}
			if err != nil && strings.Contains(fmt.Sprint(err), "never-printed") {
				t.Errorf("%s\nthe error quotes the secret: %v", tc.reason, err)
			}
		})
	}
	if diff := cmp.Diff([]string{"git"}, srv.Credentials("")); diff != "" {
		t.Errorf("global store: -want, +got:\n%s", diff)
	}
}

func TestCredentialNeverPrinted(t *testing.T) {
	c := jenkins.Credential{ID: "git", Type: jenkins.CredentialUsernamePassword, Secrets: jenkins.CredentialSecrets{Password: secretValue, Content: []byte(secretValue)}}
	for _, f := range []string{"%v", "%+v", "%#v", "%s"} {
		if out := fmt.Sprintf(f, c) + fmt.Sprintf(f, &c) + fmt.Sprintf(f, c.Secrets); strings.Contains(out, "never-printed") {
			t.Errorf("%s prints the secret: %s", f, out)
		}
	}
}

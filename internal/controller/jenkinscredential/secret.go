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
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
)

// Messages about the Secret name the Secret and its keys, never a value.
const (
	errFmtSecretMissing = "Secret %q (spec.forProvider.secretRef.name) not found in namespace %q"  //nolint:gosec // a message, not a credential
	errFmtGetSecret     = "cannot get Secret %q (spec.forProvider.secretRef.name) in namespace %q" //nolint:gosec // a message, not a credential
	errFmtNoKey         = "Secret %q has no key %q (spec.forProvider.secretRef.%s)"
	errFmtEmptyKey      = "key %q of Secret %q is empty (spec.forProvider.secretRef.%s)"
	// errFmtNotOptedIn names the Secret and the label, never a value.
	errFmtNotOptedIn = "Secret %[1]q in namespace %[2]q has not consented to being copied into Jenkins, where the folder's pipelines can read it: " +
		"whoever owns the Secret (someone allowed to read it, not the author of this resource) must label it: " +
		"kubectl label secret -n %[2]s %[1]s %[3]s=%[4]s. Nothing was written to Jenkins; a credential already there is left as it is"
)

// hashVersion prefixes the recorded hash: a new way of hashing changes it,
// which rewrites each credential once.
const hashVersion = "v1:"

// HashKey is the HMAC key of cr's recorded hash: derived from the Jenkins
// account's token and the resource's UID. A reader of the resource's status
// (who may know the UID but not the provider's token) cannot test guesses
// of the values against it; another resource, or another Jenkins account,
// hashes the same values differently. A new token changes every hash, which
// rewrites each credential once.
func HashKey(token string, cr *v1alpha1.JenkinsCredential) []byte {
	m := hmac.New(sha256.New, []byte(token))
	_, _ = m.Write([]byte("provider-devops JenkinsCredential " + string(cr.GetUID())))
	return m.Sum(nil)
}

// Hash identifies the secret values of c under key; never the values.
func Hash(key []byte, c jenkins.Credential) string {
	m := hmac.New(sha256.New, key)
	s := c.Secrets
	// Each value length-prefixed, so no two sets of values run together
	// into the same input.
	for _, v := range [][]byte{[]byte(c.Type), []byte(s.Password), []byte(s.Text), []byte(s.PrivateKey), []byte(s.Passphrase), s.Content} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(v)))
		_, _ = m.Write(n[:])
		_, _ = m.Write(v)
	}
	return hashVersion + hex.EncodeToString(m.Sum(nil))
}

// OptedIn reports whether s consents to being copied into Jenkins: the
// label contract.LabelJenkinsCredential set to "true". Whoever can label a
// Secret can read it already; whoever can only create a JenkinsCredential
// (or a DevOpsProject) in its namespace may not have been allowed to.
func OptedIn(s *corev1.Secret) bool {
	return s.GetLabels()[contract.LabelJenkinsCredential] == contract.ValueJenkinsCredential
}

// Desired is the credential cr asks for, with its values read from the
// Secret in cr's own namespace, which must have opted in (OptedIn). Its
// errors name the Secret, the label and the keys only.
func Desired(ctx context.Context, kube client.Reader, cr *v1alpha1.JenkinsCredential) (jenkins.Credential, error) {
	p := cr.Spec.ForProvider
	ref := p.SecretRef
	out := jenkins.Credential{ID: meta.GetExternalName(cr), Type: string(p.Type), Description: p.Description, Owner: Owner(cr), FileName: p.FileName}
	if out.ID == "" {
		out.ID = ID(cr)
	}
	s := &corev1.Secret{}
	// The resource's own namespace, always: the reference has no other.
	if err := kube.Get(ctx, types.NamespacedName{Namespace: cr.GetNamespace(), Name: ref.Name}, s); err != nil {
		if kerrors.IsNotFound(err) {
			return out, errors.Errorf(errFmtSecretMissing, ref.Name, cr.GetNamespace())
		}
		return out, errors.Wrapf(err, errFmtGetSecret, ref.Name, cr.GetNamespace())
	}
	if !OptedIn(s) {
		return out, errors.Errorf(errFmtNotOptedIn, ref.Name, cr.GetNamespace(), contract.LabelJenkinsCredential, contract.ValueJenkinsCredential)
	}
	r := reader{secret: s}
	switch p.Type {
	case v1alpha1.CredentialUsernamePassword:
		out.Username = r.username(p.Username, ref.UsernameKey)
		out.Secrets.Password = string(r.value(ref.PasswordKey, "password", "passwordKey", true))
	case v1alpha1.CredentialSecretText:
		out.Secrets.Text = string(r.value(ref.SecretKey, "secret", "secretKey", true))
	case v1alpha1.CredentialSSHPrivateKey:
		out.Username = r.username(p.Username, ref.UsernameKey)
		out.Secrets.PrivateKey = string(r.value(ref.PrivateKeyKey, corev1.SSHAuthPrivateKey, "privateKeyKey", true))
		if ref.PassphraseKey != "" {
			out.Secrets.Passphrase = string(r.value(ref.PassphraseKey, "", "passphraseKey", false))
		}
	case v1alpha1.CredentialFile:
		out.Secrets.Content = r.value(ref.ContentKey, "content", "contentKey", false)
	default:
		return out, errors.Errorf("spec.forProvider.type %q is not supported", p.Type)
	}
	return out, r.err
}

// reader reads keys of a Secret, keeping the first error.
type reader struct {
	secret *corev1.Secret
	err    error
}

// username is spec.forProvider.username, or else the Secret's.
func (r *reader) username(spec, key string) string {
	if spec != "" {
		return spec
	}
	return string(r.value(key, "username", "usernameKey", true))
}

func (r *reader) value(key, def, field string, nonEmpty bool) []byte {
	if key == "" {
		key = def
	}
	v, ok := r.secret.Data[key]
	switch {
	case r.err != nil:
	case !ok:
		r.err = errors.Errorf(errFmtNoKey, r.secret.GetName(), key, field)
	case nonEmpty && len(v) == 0:
		r.err = errors.Errorf(errFmtEmptyKey, key, r.secret.GetName(), field)
	}
	return v
}

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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// CredentialType is the kind of Jenkins credential, each one class of the
// Jenkins credentials plugins.
// +kubebuilder:validation:Enum=usernamePassword;secretText;sshPrivateKey;file
type CredentialType string

// Credential types.
const (
	// CredentialUsernamePassword is a username with password
	// (UsernamePasswordCredentialsImpl): Git over https, registries.
	CredentialUsernamePassword CredentialType = "usernamePassword"
	// CredentialSecretText is one secret string (StringCredentialsImpl):
	// an API token.
	CredentialSecretText CredentialType = "secretText"
	// CredentialSSHPrivateKey is a username with an SSH private key and an
	// optional passphrase (BasicSSHUserPrivateKey): Git over ssh.
	CredentialSSHPrivateKey CredentialType = "sshPrivateKey"
	// CredentialFile is a secret file (FileCredentialsImpl): a kubeconfig,
	// a keystore.
	CredentialFile CredentialType = "file"
)

// CredentialSecretRef names the Secret, in the resource's own namespace,
// that holds the credential's values, and which of its keys hold which
// value. There is no namespace field: a JenkinsCredential never reads
// another namespace's Secrets. Keys left empty take the defaults of the
// Kubernetes Secret types (kubernetes.io/basic-auth, kubernetes.io/ssh-auth).
type CredentialSecretRef struct {
	// Name of the Secret.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// UsernameKey holds the username (usernamePassword, sshPrivateKey)
	// unless spec.forProvider.username is set. Default "username".
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +kubebuilder:validation:MaxLength=253
	// +optional
	UsernameKey string `json:"usernameKey,omitempty"`

	// PasswordKey holds the password (usernamePassword). Default
	// "password".
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +kubebuilder:validation:MaxLength=253
	// +optional
	PasswordKey string `json:"passwordKey,omitempty"`

	// SecretKey holds the secret text (secretText). Default "secret".
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +kubebuilder:validation:MaxLength=253
	// +optional
	SecretKey string `json:"secretKey,omitempty"`

	// PrivateKeyKey holds the PEM private key (sshPrivateKey). Default
	// "ssh-privatekey".
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +kubebuilder:validation:MaxLength=253
	// +optional
	PrivateKeyKey string `json:"privateKeyKey,omitempty"`

	// PassphraseKey holds the private key's passphrase (sshPrivateKey).
	// Empty: the key has no passphrase; set, the key must exist.
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +kubebuilder:validation:MaxLength=253
	// +optional
	PassphraseKey string `json:"passphraseKey,omitempty"`

	// ContentKey holds the file's content (file). Default "content".
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +kubebuilder:validation:MaxLength=253
	// +optional
	ContentKey string `json:"contentKey,omitempty"`
}

// JenkinsCredentialParameters are the fields of a Jenkins credential this
// resource manages. folder and id say where it lives and cannot change.
// +kubebuilder:validation:XValidation:rule="has(self.folder) == has(oldSelf.folder) && (!has(self.folder) || self.folder == oldSelf.folder) && has(self.id) == has(oldSelf.id) && (!has(self.id) || self.id == oldSelf.id)",message="folder and id are immutable: they are where the credential lives in Jenkins; create a new JenkinsCredential to move it"
// +kubebuilder:validation:XValidation:rule="self.type != 'file' || has(self.fileName)",message="a file credential needs fileName"
// +kubebuilder:validation:XValidation:rule="self.type == 'file' || !has(self.fileName)",message="fileName is only for file credentials"
// +kubebuilder:validation:XValidation:rule="!has(self.username) || self.type == 'usernamePassword' || self.type == 'sshPrivateKey'",message="username is only for usernamePassword and sshPrivateKey credentials"
type JenkinsCredentialParameters struct {
	// Folder whose credential store holds the credential, e.g.
	// "team/shop": the folder's jobs (and those below it) can use it. The
	// folder must exist. Empty means Jenkins' global store, which only a
	// ClusterProviderConfig with spec.jenkins.allowGlobalCredentials and
	// no rootFolder allows.
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_][A-Za-z0-9_.-]*(/[A-Za-z0-9_][A-Za-z0-9_.-]*)*$`
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="!self.contains('..')",message="folder must not contain '..'"
	// +optional
	Folder string `json:"folder,omitempty"`

	// ID of the credential, as pipelines name it (credentialsId).
	// Defaults to the resource's name. It is a segment of the
	// credential's URL, so "." and ".." are refused: they would name the
	// store itself.
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_.-]+$`
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self != '.' && self != '..'",message="id must not be '.' or '..': it is a segment of the credential's URL"
	// +optional
	ID string `json:"id,omitempty"`

	// Type of the credential.
	Type CredentialType `json:"type"`

	// Description shown in Jenkins.
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	Description string `json:"description,omitempty"`

	// FileName of a file credential, as builds see it.
	// +kubebuilder:validation:Pattern=`^[^/\\\s][^/\\]*$`
	// +kubebuilder:validation:MaxLength=255
	// +optional
	FileName string `json:"fileName,omitempty"`

	// Username of a usernamePassword or sshPrivateKey credential, when the
	// Secret does not hold it (e.g. "git" for an SSH key): set, the
	// Secret's usernameKey is not read.
	// +kubebuilder:validation:Pattern=`^[^\s]+$`
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Username string `json:"username,omitempty"`

	// SecretRef is the Secret, in this resource's namespace, holding the
	// values. It must carry the label
	// devops.freeleaps.io/jenkins-credential: "true", its owner's consent
	// to being copied into Jenkins; without it nothing is written. When its
	// values change, the credential is rewritten.
	SecretRef CredentialSecretRef `json:"secretRef"`

	// AdoptExisting lets this resource take over a credential with its id
	// that exists in the folder and that no JenkinsCredential manages
	// (its description carries no owner line). A credential another
	// resource manages is never taken over.
	// +optional
	AdoptExisting bool `json:"adoptExisting,omitempty"`
}

// JenkinsCredentialObservation is what a user needs to act on.
type JenkinsCredentialObservation struct {
	// URL of the credential in Jenkins.
	URL string `json:"url,omitempty"`
	// SecretHash identifies the Secret values last written to Jenkins
	// (Jenkins never returns them): an HMAC-SHA256 keyed per resource and
	// per Jenkins account, never the values. A different hash of the
	// Secret's current values makes the controller rewrite the
	// credential.
	SecretHash string `json:"secretHash,omitempty"`
}

// A JenkinsCredentialSpec defines the desired state of a JenkinsCredential.
type JenkinsCredentialSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	ForProvider              JenkinsCredentialParameters `json:"forProvider"`
}

// A JenkinsCredentialStatus represents the observed state of a
// JenkinsCredential.
type JenkinsCredentialStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 JenkinsCredentialObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// A JenkinsCredential is a credential in the store of a Jenkins folder,
// whose values come from a Secret in its own namespace. Its external name
// is the credential's id.
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXTERNAL-NAME",type="string",JSONPath=".metadata.annotations.crossplane\\.io/external-name"
// +kubebuilder:printcolumn:name="FOLDER",type="string",JSONPath=".spec.forProvider.folder"
// +kubebuilder:printcolumn:name="TYPE",type="string",JSONPath=".spec.forProvider.type"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,devops}
type JenkinsCredential struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   JenkinsCredentialSpec   `json:"spec"`
	Status JenkinsCredentialStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// JenkinsCredentialList contains a list of JenkinsCredential.
type JenkinsCredentialList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []JenkinsCredential `json:"items"`
}

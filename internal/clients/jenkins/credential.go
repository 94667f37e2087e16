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

package jenkins

import (
	"context"
	"encoding/base64"
	"encoding/xml"
	"net/http"
	"net/url"
	"regexp"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

const (
	errReadCredential   = "cannot read the credential"
	errParseCredential  = "cannot parse the credential's config.xml"
	errCreateCredential = "cannot create the credential"
	errUpdateCredential = "cannot update the credential"
	errDeleteCredential = "cannot delete the credential"
	errFmtUnknownType   = "unknown credential type %q"
)

// Credential types, as the API names them.
const (
	CredentialUsernamePassword = "usernamePassword"
	CredentialSecretText       = "secretText"
	CredentialSSHPrivateKey    = "sshPrivateKey"
	CredentialFile             = "file"
)

// credentialClasses are the credentials plugins' classes of each type: the
// root element of a credential's config.xml.
var credentialClasses = map[string]string{ //nolint:gochecknoglobals,gosec // read-only table of class names, no credential
	CredentialUsernamePassword: "com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl",
	CredentialSecretText:       "org.jenkinsci.plugins.plaincredentials.impl.StringCredentialsImpl",
	CredentialSSHPrivateKey:    "com.cloudbees.jenkins.plugins.sshcredentials.impl.BasicSSHUserPrivateKey",
	CredentialFile:             "org.jenkinsci.plugins.plaincredentials.impl.FileCredentialsImpl",
}

// directEntry is the private key source of a key pasted into Jenkins.
const directEntry = "com.cloudbees.jenkins.plugins.sshcredentials.impl.BasicSSHUserPrivateKey$DirectEntryPrivateKeySource"

// Credential is one credential of a Jenkins credential store. Get fills the
// fields Jenkins shows (it never returns secrets); Secrets is only written.
type Credential struct {
	ID          string
	Type        string
	Description string
	// Owner names the resource that manages the credential, from the
	// owner line of its description ("" for none).
	Owner    string
	Username string
	FileName string
	// Secrets are the secret values: never logged, never in an error.
	Secrets CredentialSecrets
}

// CredentialSecrets are a credential's secret values.
type CredentialSecrets struct {
	Password, Text, PrivateKey, Passphrase string
	Content                                []byte
}

// String never prints the secrets, whatever formats a Credential.
func (c Credential) String() string { return "credential " + c.ID + " (" + c.Type + ")" }

// GoString is String for %#v.
func (c Credential) GoString() string { return c.String() }

// String never prints the secrets.
func (CredentialSecrets) String() string { return "(secret values)" }

// GoString is String for %#v.
func (s CredentialSecrets) GoString() string { return s.String() }

// credentialXML is a credential's config.xml, for every supported class:
// each class has a subset of these elements.
type credentialXML struct {
	XMLName        xml.Name
	Plugin         string     `xml:"plugin,attr,omitempty"`
	Scope          string     `xml:"scope"`
	ID             string     `xml:"id"`
	Description    string     `xml:"description"`
	Username       *string    `xml:"username"`
	UsernameSecret *bool      `xml:"usernameSecret"`
	Password       *string    `xml:"password"`
	Secret         *string    `xml:"secret"`
	FileName       *string    `xml:"fileName"`
	SecretBytes    *string    `xml:"secretBytes"`
	KeySource      *keySource `xml:"privateKeySource"`
	Passphrase     *string    `xml:"passphrase"`
}

type keySource struct {
	Class      string `xml:"class,attr"`
	PrivateKey string `xml:"privateKey"`
}

// RenderCredential is the config.xml of c, every value through the XML
// encoder. The description ends with the owner line when c has an owner.
func RenderCredential(c Credential) ([]byte, error) {
	class, ok := credentialClasses[c.Type]
	if !ok {
		return nil, errors.Errorf(errFmtUnknownType, c.Type)
	}
	doc := credentialXML{XMLName: xml.Name{Local: class}, Scope: "GLOBAL", ID: c.ID, Description: withCredentialOwner(c.Description, c.Owner)}
	s := c.Secrets
	no := false
	switch c.Type {
	case CredentialUsernamePassword:
		doc.Username, doc.UsernameSecret, doc.Password = ptr(c.Username), &no, ptr(s.Password)
	case CredentialSecretText:
		doc.Secret = ptr(s.Text)
	case CredentialSSHPrivateKey:
		doc.Username, doc.UsernameSecret = ptr(c.Username), &no
		doc.KeySource = &keySource{Class: directEntry, PrivateKey: s.PrivateKey}
		doc.Passphrase = ptr(s.Passphrase)
	case CredentialFile:
		doc.FileName = ptr(c.FileName)
		// SecretBytes reads plain base64 as the file's bytes.
		doc.SecretBytes = ptr(base64.StdEncoding.EncodeToString(s.Content))
	}
	// The secrets go into the XML for Jenkins, which is the point; the
	// document is sent to Jenkins and never logged.
	out, err := xml.MarshalIndent(doc, "", "  ") //nolint:gosec // see above
	if err != nil {
		return nil, errors.New("cannot render the credential's config.xml")
	}
	return append([]byte("<?xml version='1.1' encoding='UTF-8'?>\n"), out...), nil
}

// ParseCredential reads the fields a credential's config.xml shows (Jenkins
// redacts its secrets). A class this package does not write has that class
// as its Type.
func ParseCredential(data []byte) (*Credential, error) {
	var doc credentialXML
	if err := xml.Unmarshal(asXML10(data), &doc); err != nil {
		// Never wrap the parser's error: it may quote the document.
		return nil, errors.New(errParseCredential)
	}
	c := &Credential{ID: doc.ID, Type: doc.XMLName.Local}
	for t, class := range credentialClasses {
		if class == doc.XMLName.Local {
			c.Type = t
		}
	}
	c.Description, c.Owner = splitCredentialOwner(doc.Description)
	if doc.Username != nil {
		c.Username = *doc.Username
	}
	if doc.FileName != nil {
		c.FileName = *doc.FileName
	}
	return c, nil
}

// CredentialOwnerLine is the last line of the description of a credential
// owner manages.
func CredentialOwnerLine(owner string) string {
	return "(Managed by Crossplane provider-devops as JenkinsCredential " + owner + "; changes made in Jenkins are overwritten.)"
}

var credentialOwnerLine = regexp.MustCompile(`(?:\n\n)?\(Managed by Crossplane provider-devops as JenkinsCredential ([^\s;()]+); changes made in Jenkins are overwritten\.\)$`)

func withCredentialOwner(desc, owner string) string {
	if owner == "" {
		return desc
	}
	if desc == "" {
		return CredentialOwnerLine(owner)
	}
	return desc + "\n\n" + CredentialOwnerLine(owner)
}

func splitCredentialOwner(desc string) (string, string) {
	m := credentialOwnerLine.FindStringSubmatchIndex(desc)
	if m == nil {
		return desc, ""
	}
	return desc[:m[0]], desc[m[2]:m[3]]
}

// storeEndpoint is the URL path of the global domain of the credential
// store of folder: the folder's store, or Jenkins' global (system) store
// for "".
func storeEndpoint(folder string) string {
	if folder == "" {
		return "/credentials/store/system/domain/_"
	}
	return endpoint(folder) + "/credentials/store/folder/domain/_"
}

// CredentialURL is the credential's page in Jenkins.
func (c *Client) CredentialURL(folder, id string) string {
	return c.base + storeEndpoint(folder) + "/credential/" + url.PathEscape(id) + "/"
}

// GetCredential reads a credential's config.xml (secrets redacted by
// Jenkins). A missing credential, or folder, is IsNotFound.
func (c *Client) GetCredential(ctx context.Context, folder, id string) (*Credential, error) {
	raw, err := c.do(ctx, http.MethodGet, storeEndpoint(folder)+"/credential/"+url.PathEscape(id)+"/config.xml", nil, "", nil)
	if err != nil {
		return nil, errors.Wrap(err, errReadCredential)
	}
	return ParseCredential(raw)
}

// CreateCredential adds cred to the folder's store: 409 when its id is
// taken, 404 when the folder does not exist.
func (c *Client) CreateCredential(ctx context.Context, folder string, cred Credential) error {
	config, err := RenderCredential(cred)
	if err != nil {
		return err
	}
	_, err = c.do(ctx, http.MethodPost, storeEndpoint(folder)+"/createCredentials", nil, xmlType, config)
	return errors.Wrap(err, errCreateCredential)
}

// UpdateCredential replaces the credential with cred's id, secrets
// included.
func (c *Client) UpdateCredential(ctx context.Context, folder string, cred Credential) error {
	config, err := RenderCredential(cred)
	if err != nil {
		return err
	}
	_, err = c.do(ctx, http.MethodPost, storeEndpoint(folder)+"/credential/"+url.PathEscape(cred.ID)+"/config.xml", nil, xmlType, config)
	return errors.Wrap(err, errUpdateCredential)
}

// DeleteCredential removes the credential; one already gone is no error.
func (c *Client) DeleteCredential(ctx context.Context, folder, id string) error {
	_, err := c.do(ctx, http.MethodDelete, storeEndpoint(folder)+"/credential/"+url.PathEscape(id)+"/config.xml", nil, "", nil)
	if IsNotFound(err) {
		return nil
	}
	return errors.Wrap(err, errDeleteCredential)
}

// IsConflict is true when Jenkins refused to create a credential whose id
// its store already holds.
func IsConflict(err error) bool { return httpapi.StatusOf(err) == http.StatusConflict }

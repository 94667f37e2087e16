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
	"crypto/rand"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// The credential store, as the credentials plugin's CredentialsStoreAction
// serves it (credentials 1371, plain-credentials, ssh-credentials):
//
//   - a folder's store at /job/F/credentials/store/folder/domain/_/ and the
//     global (system) store at /credentials/store/system/domain/_/; only the
//     global domain "_" exists, any other is 404, as is the store of an
//     item that is not a folder;
//   - POST createCredentials with an XML body adds the credential its root
//     element names: 200, 409 when the id is taken, 500 for XML that does
//     not parse or names an unknown class, 400 without a Content-Type;
//   - credential/ID/config.xml: GET answers the XML with every secret
//     replaced by <secret-redacted/> (SECRETS_REDACTED), POST replaces the
//     credential (500 for an empty or malformed body, or another id), DELETE
//     removes it (200); credential/ID/api/json describes it (no secret);
//     an unknown id is 404. Deleting a folder deletes its store.

// Credential classes the fake knows, with the credentials plugins'
// descriptor display names (typeName).
var credentialTypeNames = map[string]string{
	"com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl":   "Username with password",
	"org.jenkinsci.plugins.plaincredentials.impl.StringCredentialsImpl":        "Secret text",
	"com.cloudbees.jenkins.plugins.sshcredentials.impl.BasicSSHUserPrivateKey": "SSH Username with private key",
	"org.jenkinsci.plugins.plaincredentials.impl.FileCredentialsImpl":          "Secret file",
}

// secretElements are the elements holding a Secret or SecretBytes in those
// classes: what SECRETS_REDACTED replaces.
var secretElements = []string{"password", "secret", "privateKey", "passphrase", "secretBytes"}

type credential struct {
	class, id, description, username, fileName string
	// config is the XML as posted, with secrets (Jenkins keeps them
	// encrypted; the fake keeps the text so tests can read them).
	config string
}

type credentialStore map[string]*credential

// credentialFields are the parts of a credential's XML the fake reads.
type credentialFields struct {
	XMLName     xml.Name
	ID          string  `xml:"id"`
	Description string  `xml:"description"`
	Username    *string `xml:"username"`
	FileName    *string `xml:"fileName"`
}

// StoredCredential returns the config.xml of a credential as posted,
// secrets included (Jenkins would decrypt them for a build), and whether
// it exists. folder "" is the global store.
func (s *Server) StoredCredential(folder, id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.store(folder)
	if st == nil || st[id] == nil {
		return "", false
	}
	return st[id].config, true
}

// Credentials lists the ids in a store, sorted.
func (s *Server) Credentials(folder string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for id := range s.store(folder) {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// SetCredential stores a credential behind the provider's back, as a user
// of Jenkins' UI would; the folder must exist.
func (s *Server) SetCredential(folder, config string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.store(folder)
	if st == nil {
		return fmt.Errorf("no folder %q", folder)
	}
	c, err := parseCredential(config)
	if err != nil {
		return err
	}
	st[c.id] = c
	return nil
}

// store returns folder's credential store ("" the global one), nil when
// folder is not a folder.
func (s *Server) store(folder string) credentialStore {
	if folder == "" {
		if s.system == nil {
			s.system = credentialStore{}
		}
		return s.system
	}
	it, ok := s.items[folder]
	if !ok || !it.folder() {
		return nil
	}
	if it.creds == nil {
		it.creds = credentialStore{}
	}
	return it.creds
}

func parseCredential(config string) (*credential, error) {
	var f credentialFields
	if err := decoder(config).Decode(&f); err != nil {
		return nil, fmt.Errorf("java.io.IOException: Failed to parse credential: %v", err)
	}
	if credentialTypeNames[f.XMLName.Local] == "" {
		return nil, fmt.Errorf("com.thoughtworks.xstream.mapper.CannotResolveClassException: %s", f.XMLName.Local)
	}
	c := &credential{class: f.XMLName.Local, id: f.ID, description: f.Description, config: config}
	if c.id == "" {
		// IdCredentials.Helpers.fixEmptyId: a random UUID.
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		c.id = fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
	}
	if f.Username != nil {
		c.username = *f.Username
	}
	if f.FileName != nil {
		c.fileName = *f.FileName
	}
	return c, nil
}

var xmlDeclaration = regexp.MustCompile(`^\s*<\?xml[^>]*\?>\s*`)

// redacted is the credential as SECRETS_REDACTED writes it: no
// declaration, every Secret an empty secret-redacted element.
func (c *credential) redacted() string {
	out := xmlDeclaration.ReplaceAllString(c.config, "")
	for _, n := range secretElements {
		re := regexp.MustCompile(`(?s)<` + n + `(\s[^>]*)?>.*?</` + n + `>|<` + n + `(\s[^>]*)?/>`)
		out = re.ReplaceAllString(out, "<"+n+">\n    <secret-redacted/>\n  </"+n+">")
	}
	return out
}

// displayName is CredentialsNameProvider's name of the credential.
func (c *credential) displayName() string {
	name := c.id
	switch {
	case c.username != "" && strings.HasSuffix(c.class, "UsernamePasswordCredentialsImpl"):
		name = c.username + "/******"
	case c.username != "":
		name = c.username
	case c.fileName != "":
		name = c.fileName
	}
	if c.description != "" {
		return name + " (" + c.description + ")"
	}
	return name
}

// credentials serves a credential store's global domain: rest is the path
// after .../credentials/store/{folder,system}/.
func (s *Server) credentials(w http.ResponseWriter, r *http.Request, folder, rest string) {
	st := s.store(folder)
	inDomain, ok := strings.CutPrefix(rest, "domain/")
	if st == nil || !ok {
		errorPage(w, http.StatusNotFound, "Not Found")
		return
	}
	d, sub, _ := strings.Cut(inDomain, "/")
	if d != "_" {
		errorPage(w, http.StatusNotFound, "Not Found")
		return
	}
	switch {
	case sub == "" || sub == "api/json":
		if sub == "" {
			page(w, "Global credentials (unrestricted)")
			return
		}
		writeBean(w, r, s.domainBean(folder, st))
	case sub == "createCredentials":
		if r.Method != http.MethodPost {
			requirePOST(w)
			return
		}
		createCredential(w, r, st)
	case strings.HasPrefix(sub, "credential/"):
		rawID, action, _ := strings.Cut(strings.TrimPrefix(sub, "credential/"), "/")
		id, err := url.PathUnescape(rawID)
		c := st[id]
		if err != nil || c == nil {
			errorPage(w, http.StatusNotFound, "Not Found")
			return
		}
		s.credential(w, r, folder, st, c, action)
	default:
		errorPage(w, http.StatusNotFound, "Not Found")
	}
}

func createCredential(w http.ResponseWriter, r *http.Request, st credentialStore) {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		errorPage(w, http.StatusBadRequest, "No Content-Type header set")
		return
	}
	if !strings.HasPrefix(ct, "application/xml") && !strings.HasPrefix(ct, "text/xml") {
		// The UI's form; the fake takes only XML.
		errorPage(w, http.StatusBadRequest, "This page expects a form submission")
		return
	}
	body, _ := io.ReadAll(r.Body)
	c, err := parseCredential(string(body))
	if err != nil {
		errorPage(w, http.StatusInternalServerError, err.Error())
		return
	}
	if st[c.id] != nil {
		errorPage(w, http.StatusConflict, "Conflict")
		return
	}
	st[c.id] = c
	w.WriteHeader(http.StatusOK)
}

func (s *Server) credential(w http.ResponseWriter, r *http.Request, folder string, st credentialStore, c *credential, action string) {
	switch action {
	case "":
		page(w, c.displayName())
	case "api/json":
		writeBean(w, r, s.credentialBean(folder, c))
	case "config.xml":
		switch r.Method {
		case http.MethodGet:
			w.Header().Set("Content-Type", "application/xml")
			_, _ = io.WriteString(w, c.redacted())
		case http.MethodPost:
			body, _ := io.ReadAll(r.Body)
			n, err := parseCredential(string(body))
			switch {
			case err != nil:
				errorPage(w, http.StatusInternalServerError, err.Error())
			case n.id != c.id:
				errorPage(w, http.StatusInternalServerError, "java.lang.IllegalArgumentException: Credentials' IDs do not match, will not update.")
			default:
				st[c.id] = n
			}
		case http.MethodDelete:
			delete(st, c.id)
		default:
			errorPage(w, http.StatusBadRequest, "Bad Request")
		}
	case "doDelete":
		if r.Method != http.MethodPost {
			requirePOST(w)
			return
		}
		delete(st, c.id)
		redirect(w, http.StatusFound, s.storeURL(folder))
	default:
		errorPage(w, http.StatusNotFound, "Not Found")
	}
}

func (s *Server) storeURL(folder string) string {
	if folder == "" {
		return s.URL + "/credentials/store/system/domain/_/"
	}
	return s.jobURL(folder) + "credentials/store/folder/domain/_/"
}

// credentialBean is CredentialsWrapper's api/json.
func (s *Server) credentialBean(folder string, c *credential) *bean {
	store := "system"
	if folder != "" {
		store = folder + "/folder"
	}
	return newBean("com.cloudbees.plugins.credentials.CredentialsStoreAction$CredentialsWrapper").
		set("description", c.description).
		set("displayName", c.displayName()).
		set("fingerprint", nil).
		set("fullName", store+"/_/"+c.id).
		set("id", c.id).
		set("typeName", credentialTypeNames[c.class])
}

// domainBean is DomainWrapper's api/json: its credentials (visibility 1).
func (s *Server) domainBean(folder string, st credentialStore) *bean {
	ids := make([]string, 0, len(st))
	for id := range st {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	list := make([]any, 0, len(ids))
	for _, id := range ids {
		list = append(list, s.credentialBean(folder, st[id]))
	}
	return newBean("com.cloudbees.plugins.credentials.CredentialsStoreAction$DomainWrapper").
		set("credentials", list).
		set("description", "Credentials that should be available irrespective of domain specification to requesters matching the scope.").
		set("displayName", "Global credentials (unrestricted)").
		set("fullDisplayName", "System » Global credentials (unrestricted)").
		set("fullName", "system/_").
		set("global", true).
		set("urlName", "_")
}

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

// Package registry manages one container image repository on Docker Hub,
// Harbor or any OCI distribution registry, behind one interface.
package registry

import (
	"context"
	"encoding/json"
	"regexp"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/retryafter"
)

// Kinds of registry API.
const (
	KindDockerHub = "dockerhub"
	KindHarbor    = "harbor"
	KindOCI       = "oci"
)

// Config selects and configures a registry.
type Config struct {
	Kind string
	// URL of the API ("" for Docker Hub's).
	URL string
	// Username and Password (a personal access token on Docker Hub, a robot
	// secret on Harbor).
	Username, Password string
	// TLS is how the registry's certificate is verified.
	TLS httpapi.TLS
	// RetryAfter holds calls to a server that asked to wait (shared by the
	// connector across clients; may be nil).
	RetryAfter *retryafter.Gate
	// Transports is the controller's pool of HTTP transports
	// (connections reused across reconciles); nil: one of their own.
	Transports *httpapi.Transports
	// Cache keeps tokens and registry sessions across the connector's
	// clients; nil keeps none.
	Cache *Cache
}

// Credentials are the JSON a ProviderConfig's registry secret holds.
type Credentials struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// ParseCredentials reads {"username", "password"}; the error never quotes
// the secret.
func ParseCredentials(data []byte) (Credentials, error) {
	var c Credentials
	if err := json.Unmarshal(data, &c); err != nil {
		return c, errors.New(`the registry credentials must be JSON {"username": "...", "password": "..."}`)
	}
	if c.Username == "" || c.Password == "" {
		return c, errors.New(`the registry credentials need both "username" and "password"`)
	}
	return c, nil
}

// Repo is the desired repository.
type Repo struct {
	Namespace, Name string
	Private         bool
	Description     string
	// Harbor project options.
	CreateProject bool
	// ProjectOwned says the resource created the Harbor project, so its
	// project-wide settings (visibility) are the resource's to change.
	ProjectOwned      bool
	StorageQuotaBytes *int64
	ImmutableTags     bool
	// Owner names the resource managing the repository ("namespace/name"),
	// recorded where the registry keeps text (Docker Hub's README, Harbor's
	// repository description); "" records nothing.
	Owner string
}

// FullName is namespace/name.
func (r Repo) FullName() string { return r.Namespace + "/" + r.Name }

// Observed is what one observation of a repository says.
type Observed struct {
	// URL to pull from, host/namespace/name.
	URL string
	// Private is the repository's (Harbor: its project's) visibility; nil
	// where the registry has none (OCI).
	Private *bool
	// Description as the registry stores it; nil where the registry has
	// none this client manages (Harbor, OCI).
	Description *string
	// TagCount is the number of tags (Harbor: artifacts); nil where one
	// read does not tell (Docker Hub).
	TagCount *int64
	// LastPushed is when an image was last pushed, where the API says.
	LastPushed *time.Time
	// ProjectWide is true where visibility belongs to a project shared with
	// other repositories (Harbor): only a resource that created the project
	// may change it.
	ProjectWide bool
	// Implicit is true for registries where a repository comes into being
	// with its first push (Harbor, OCI): it is available, with no tags,
	// once its namespace is reachable.
	Implicit bool
	// Owner is the owner recorded on the repository, "" for none; nil
	// where the registry keeps no text for one (OCI) or the repository
	// does not exist yet (Harbor before its first push).
	Owner *string
	// Created is when the repository came into being, where the API says
	// (Harbor: its first push).
	Created *time.Time
	// ProjectCreated is when the Harbor project was created.
	ProjectCreated *time.Time
}

// ownerMarker is the line recording a repository's owner: an HTML comment,
// invisible where the text is rendered as markdown.
var ownerMarker = regexp.MustCompile(`(?:\n\n)?<!-- managed by Crossplane provider-devops as RegistryRepo ([^\s>]+) -->`)

// OwnerLine is the line that records owner.
func OwnerLine(owner string) string {
	return "<!-- managed by Crossplane provider-devops as RegistryRepo " + owner + " -->"
}

// OwnerOf returns the owner text records, "" for none.
func OwnerOf(text string) string {
	if m := ownerMarker.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}

// WithOwner returns text recording owner (and no other), the rest kept.
func WithOwner(text, owner string) string {
	rest := ownerMarker.ReplaceAllString(text, "")
	if rest == "" {
		return OwnerLine(owner)
	}
	return rest + "\n\n" + OwnerLine(owner)
}

// Client manages repositories.
type Client interface {
	// Get returns the repository, or nil when it does not exist (Harbor:
	// its project does not exist).
	Get(ctx context.Context, r Repo) (*Observed, error)
	// Create makes the repository (Harbor: the project when asked; OCI:
	// checks that the credentials may push).
	Create(ctx context.Context, r Repo) (Created, error)
	// Update sets visibility and description.
	Update(ctx context.Context, r Repo) error
	// Delete removes the repository and every image in it.
	Delete(ctx context.Context, r Repo) error
}

// Created is what a Create made besides the repository.
type Created struct {
	// Project is true when Create made the Harbor project: it did not
	// exist, and it now belongs to the resource.
	Project bool
}

// New returns the client for c.Kind. It does no I/O.
func New(c Config) (Client, error) {
	switch c.Kind {
	case KindDockerHub:
		return newDockerHub(c)
	case KindHarbor:
		if c.URL == "" {
			return nil, errors.New("a harbor registry needs spec.registry.url")
		}
		return newHarbor(c)
	case KindOCI:
		if c.URL == "" {
			return nil, errors.New("an oci registry needs spec.registry.url")
		}
		return newOCI(c)
	default:
		return nil, errors.Errorf("unknown registry kind %q", c.Kind)
	}
}

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

package argocd

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// Project is an Argo CD AppProject: the fields the provider manages, typed,
// and the object as Argo CD returned it, so an update writes back what the
// provider does not manage (tokens issued for roles, sync windows, others'
// labels) unchanged.
type Project struct {
	Metadata ObjectMeta  `json:"metadata"`
	Spec     ProjectSpec `json:"spec"`
	// Raw is the whole object as read; nil for a project being created.
	Raw json.RawMessage `json:"-"`
}

// ProjectSpec is the managed part of an AppProject's spec.
type ProjectSpec struct {
	Description                string               `json:"description,omitempty"`
	SourceRepos                []string             `json:"sourceRepos,omitempty"`
	Destinations               []ProjectDestination `json:"destinations,omitempty"`
	ClusterResourceWhitelist   []GroupKind          `json:"clusterResourceWhitelist,omitempty"`
	NamespaceResourceBlacklist []GroupKind          `json:"namespaceResourceBlacklist,omitempty"`
	SourceNamespaces           []string             `json:"sourceNamespaces,omitempty"`
	Roles                      []ProjectRole        `json:"roles,omitempty"`
	// DestinationServiceAccounts (sync impersonation) is read to be
	// removed: a project managed here never has any (UpdateProject).
	DestinationServiceAccounts json.RawMessage `json:"destinationServiceAccounts,omitempty"`
}

// ProjectDestination is a cluster and namespace the project may deploy to.
type ProjectDestination struct {
	Server    string `json:"server,omitempty"`
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// GroupKind is a Kubernetes group and kind.
type GroupKind struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
}

// ProjectRole is a project role. JWTTokens, issued through Argo CD, are
// read only to be written back.
type ProjectRole struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Policies    []string        `json:"policies,omitempty"`
	Groups      []string        `json:"groups,omitempty"`
	JWTTokens   json.RawMessage `json:"jwtTokens,omitempty"`
}

// GetProject returns the AppProject name, or an error for which IsNotFound
// is true.
func (c *Client) GetProject(ctx context.Context, name string) (*Project, error) {
	var raw json.RawMessage
	if err := c.do(ctx, http.MethodGet, "/api/v1/projects/"+url.PathEscape(name), nil, nil, &raw); err != nil {
		return nil, err
	}
	p := &Project{Raw: raw}
	if err := json.Unmarshal(raw, p); err != nil {
		return nil, errors.Wrap(err, "cannot decode the Argo CD project")
	}
	return p, nil
}

// CreateProject creates p; it fails if a project of that name exists
// (upsert=false), so another team's project is never overwritten.
func (c *Client) CreateProject(ctx context.Context, p *Project) error {
	return c.do(ctx, http.MethodPost, "/api/v1/projects", nil, map[string]any{"project": p, qUpsert: false}, nil)
}

// UpdateProject writes p's metadata labels and managed spec over the
// object read (p.Raw), keeping every other field, with the resourceVersion
// read: a concurrent change makes Argo CD refuse the update rather than
// lose it. Role tokens are kept for roles of the same name.
func (c *Client) UpdateProject(ctx context.Context, p *Project) error {
	var obj map[string]any
	if err := json.Unmarshal(p.Raw, &obj); err != nil || obj == nil {
		return errors.New("cannot update an Argo CD project that was not read first")
	}
	var old Project
	_ = json.Unmarshal(p.Raw, &old)
	tokens := map[string]json.RawMessage{}
	for _, r := range old.Spec.Roles {
		tokens[r.Name] = r.JWTTokens
	}
	spec := p.Spec
	spec.Roles = make([]ProjectRole, len(p.Spec.Roles))
	for i, r := range p.Spec.Roles {
		r.JWTTokens = tokens[r.Name]
		spec.Roles[i] = r
	}
	s, _ := obj["spec"].(map[string]any)
	if s == nil {
		s = map[string]any{}
	}
	managed, err := toMap(spec)
	if err != nil {
		return err
	}
	// destinationServiceAccounts is never managed, so always removed:
	// sync impersonation would deploy with whatever account a project
	// planted ahead of its resource, or edited behind its back, names.
	for _, k := range []string{"description", "sourceRepos", "destinations", "clusterResourceWhitelist", "namespaceResourceBlacklist", "sourceNamespaces", "roles", "destinationServiceAccounts"} {
		if v, ok := managed[k]; ok {
			s[k] = v
		} else {
			delete(s, k)
		}
	}
	obj["spec"] = s
	m, _ := obj["metadata"].(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	labels, _ := m["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
	}
	for k, v := range p.Metadata.Labels {
		labels[k] = v
	}
	m["labels"] = labels
	obj["metadata"] = m
	return c.do(ctx, http.MethodPut, "/api/v1/projects/"+url.PathEscape(p.Metadata.Name), nil, map[string]any{"project": obj}, nil)
}

// WithoutRoleTokens returns the project read as raw with every role's
// tokens removed, and how many there were: UpdateProject then writes the
// roles without them, which revokes them. Argo CD keeps a role's tokens
// in spec.roles[].jwtTokens and status.jwtTokensByRole and accepts those
// of either, so both go.
func WithoutRoleTokens(raw json.RawMessage) (json.RawMessage, int, error) {
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, 0, errors.New("cannot read the Argo CD project's roles")
	}
	seen := map[string]bool{}
	count := func(role string, tokens any) {
		l, _ := tokens.([]any)
		for _, t := range l {
			m, _ := t.(map[string]any)
			seen[fmt.Sprint(role, "/", m["id"], "/", m["iat"])] = true
		}
	}
	spec, _ := obj["spec"].(map[string]any)
	roles, _ := spec["roles"].([]any)
	for _, r := range roles {
		if m, ok := r.(map[string]any); ok {
			count(fmt.Sprint(m["name"]), m["jwtTokens"])
			delete(m, "jwtTokens")
		}
	}
	if st, ok := obj["status"].(map[string]any); ok {
		byRole, _ := st["jwtTokensByRole"].(map[string]any)
		for role, v := range byRole {
			m, _ := v.(map[string]any)
			count(role, m["items"])
		}
		delete(st, "jwtTokensByRole")
	}
	out, err := json.Marshal(obj)
	return out, len(seen), errors.Wrap(err, "cannot encode the Argo CD project")
}

// DeleteProject deletes the AppProject name. Argo CD refuses while
// applications still use it.
func (c *Client) DeleteProject(ctx context.Context, name string) error {
	return c.do(ctx, http.MethodDelete, "/api/v1/projects/"+url.PathEscape(name), nil, nil, nil)
}

func toMap(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, errors.Wrap(err, "cannot encode the project")
	}
	out := map[string]any{}
	return out, errors.Wrap(json.Unmarshal(b, &out), "cannot encode the project")
}

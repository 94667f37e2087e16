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

package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// harbor talks to Harbor's API v2.0 with basic auth. Projects are the
// namespaces; a repository appears with its first push.
type harbor struct {
	rest
	host           string
	user, password string
}

func newHarbor(c Config) (*harbor, error) {
	base := strings.TrimSuffix(c.URL, "/")
	host := base
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		host = u.Host
	}
	api, err := newREST("Harbor", base+"/api/v2.0", c, harborMessage)
	return &harbor{
		rest: api,
		host: host, user: c.Username, password: c.Password,
	}, err
}

// harborMessage reads Harbor's {"errors": [{"code", "message"}]}.
func harborMessage(b []byte) string {
	var e struct {
		Errors []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	_ = json.Unmarshal(b, &e)
	msgs := make([]string, 0, len(e.Errors))
	for _, x := range e.Errors {
		msgs = append(msgs, x.Code+": "+x.Message)
	}
	return strings.Join(msgs, "; ")
}

func (h *harbor) call(ctx context.Context, method, path string, in, out any) error {
	err := h.do(ctx, method, path, func(r *http.Request) {
		r.SetBasicAuth(h.user, h.password)
		r.Header.Set("X-Is-Resource-Name", "true")
	}, in, out)
	return err
}

type harborProject struct {
	Name         string            `json:"name"`
	Metadata     map[string]string `json:"metadata"`
	CreationTime *time.Time        `json:"creation_time"`
}

type harborRepo struct {
	Name          string     `json:"name"`
	Description   string     `json:"description"`
	ArtifactCount int64      `json:"artifact_count"`
	CreationTime  *time.Time `json:"creation_time"`
	UpdateTime    *time.Time `json:"update_time"`
}

func projectPath(p string) string { return "/projects/" + url.PathEscape(p) }

// repoPath double-encodes the repository name: Harbor's router decodes the
// path once, so a "/" in a name must arrive as %2F, i.e. be sent as %252F.
func repoPath(r Repo) string {
	return projectPath(r.Namespace) + "/repositories/" + url.PathEscape(url.PathEscape(r.Name))
}

// Get reads the project (visibility) and the repository: two reads, the
// least that observes both.
func (h *harbor) Get(ctx context.Context, r Repo) (*Observed, error) {
	var p harborProject
	err := h.call(ctx, http.MethodGet, projectPath(r.Namespace), nil, &p)
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	zero, private := int64(0), p.Metadata["public"] != "true"
	o := &Observed{URL: h.host + "/" + r.FullName(), Private: &private, ProjectWide: true, Implicit: true, TagCount: &zero, ProjectCreated: p.CreationTime}
	var repo harborRepo
	err = h.call(ctx, http.MethodGet, repoPath(r), nil, &repo)
	switch {
	case IsNotFound(err):
		return o, nil // available: it appears with the first push
	case err != nil:
		return nil, err
	}
	owner := OwnerOf(repo.Description)
	o.TagCount = &repo.ArtifactCount
	o.LastPushed = repo.UpdateTime
	o.Owner, o.Created = &owner, repo.CreationTime
	return o, nil
}

// ProjectMissingError is Create's answer for a Harbor project that does
// not exist and was not to be created: the caller may know better what the
// user should do about it.
type ProjectMissingError struct{ Project string }

func (e *ProjectMissingError) Error() string {
	return fmt.Sprintf("Harbor project %q does not exist: create it, or set forProvider.harbor.createProject", e.Project)
}

// Create makes the project when asked to. The repository itself appears
// with the first push.
//
// The project is always created private: until the resource's claim on it
// is recorded (status.atProvider.createdProject) nothing manages its
// visibility, and a failure in between must not leave a public project
// behind. Update then sets the visibility the resource asks for.
//
// A project that appeared meanwhile (409) is not this resource's: its
// settings, immutable tag rules included, are left to whoever made it.
func (h *harbor) Create(ctx context.Context, r Repo) (Created, error) {
	if !r.CreateProject {
		return Created{}, &ProjectMissingError{Project: r.Namespace}
	}
	in := map[string]any{"project_name": r.Namespace, "metadata": map[string]string{"public": "false"}}
	if r.StorageQuotaBytes != nil {
		in["storage_limit"] = *r.StorageQuotaBytes
	}
	err := h.call(ctx, http.MethodPost, "/projects", in, nil)
	switch {
	case IsConflict(err):
		return Created{}, nil
	case err != nil:
		return Created{}, err
	}
	if !r.ImmutableTags {
		return Created{Project: true}, nil
	}
	rule := map[string]any{
		"disabled": false, "action": "immutable", "template": "immutable_template",
		"tag_selectors":   []map[string]string{{"kind": "doublestar", "decoration": "matches", "pattern": "**"}},
		"scope_selectors": map[string]any{"repository": []map[string]string{{"kind": "doublestar", "decoration": "repoMatches", "pattern": "**"}}},
	}
	if err := h.call(ctx, http.MethodPost, projectPath(r.Namespace)+"/immutabletagrules", rule, nil); err != nil && !IsConflict(err) {
		return Created{Project: true}, errors.Wrap(err, "cannot add the immutable tag rule")
	}
	return Created{Project: true}, nil
}

// Update records the owner in the repository's description (the rest of
// it kept, from a fresh read) once the repository exists, and sets the
// project's visibility, only for a project the resource created:
// visibility is project-wide, and changing another's project would publish
// (or hide) every repository in it.
func (h *harbor) Update(ctx context.Context, r Repo) error {
	if r.Owner != "" {
		var repo harborRepo
		err := h.call(ctx, http.MethodGet, repoPath(r), nil, &repo)
		switch {
		case err == nil && OwnerOf(repo.Description) != "" && OwnerOf(repo.Description) != r.Owner:
			// Another resource claimed it since Observe: never overwritten.
			return errors.Errorf("Harbor repository %s is owned by RegistryRepo %s: left untouched", r.FullName(), OwnerOf(repo.Description))
		case err == nil && OwnerOf(repo.Description) != r.Owner:
			if err := h.call(ctx, http.MethodPut, repoPath(r), map[string]string{"description": WithOwner(repo.Description, r.Owner)}, nil); err != nil {
				return errors.Wrap(err, "cannot record the owner in the repository's description")
			}
		case err != nil && !IsNotFound(err):
			return err
		}
	}
	if !r.ProjectOwned {
		return nil
	}
	in := map[string]any{"metadata": map[string]string{"public": strconv.FormatBool(!r.Private)}}
	return h.call(ctx, http.MethodPut, projectPath(r.Namespace), in, nil)
}

// Delete removes the repository and its artifacts; the project stays (it
// may hold other repositories).
func (h *harbor) Delete(ctx context.Context, r Repo) error {
	err := h.call(ctx, http.MethodDelete, repoPath(r), nil, nil)
	if IsNotFound(err) {
		return nil
	}
	return err
}

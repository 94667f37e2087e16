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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

// DockerHubURL is Docker Hub's API.
const DockerHubURL = "https://hub.docker.com"

// hubTokenTTL is how long a Hub access token is reused. Hub's tokens live
// longer; a 401 refreshes one early.
const hubTokenTTL = 4 * time.Minute

type hubToken struct {
	token   string
	expires time.Time
}

type dockerHub struct {
	rest
	user, password string
	cacheKey       string
	now            func() time.Time
	cache          *Cache
}

func newDockerHub(c Config) (*dockerHub, error) {
	base := strings.TrimSuffix(c.URL, "/")
	if base == "" {
		base = DockerHubURL
	}
	sum := sha256.Sum256([]byte(c.Password))
	api, err := newREST("Docker Hub", base, c, hubMessage)
	return &dockerHub{
		rest:     api,
		user:     c.Username,
		password: c.Password,
		cacheKey: base + "\x00" + c.Username + "\x00" + hex.EncodeToString(sum[:]),
		now:      time.Now,
		cache:    c.Cache,
	}, err
}

// hubMessage reads Hub's error bodies: {"message", "errinfo"} from the
// repository API, {"detail"} from auth, {"errors": [...]} elsewhere.
func hubMessage(b []byte) string {
	var e struct {
		Message string `json:"message"`
		Detail  string `json:"detail"`
		Errors  []struct {
			Message string `json:"message"`
			Detail  string `json:"detail"`
		} `json:"errors"`
	}
	_ = json.Unmarshal(b, &e)
	switch {
	case e.Message != "":
		return e.Message
	case e.Detail != "":
		return e.Detail
	case len(e.Errors) > 0:
		return e.Errors[0].Message + e.Errors[0].Detail
	}
	return ""
}

// hubRepo is the repository JSON of Hub's API.
type hubRepo struct {
	Name            string     `json:"name"`
	Namespace       string     `json:"namespace"`
	Description     string     `json:"description"`
	FullDescription string     `json:"full_description,omitempty"`
	IsPrivate       bool       `json:"is_private"`
	LastUpdated     *time.Time `json:"last_updated"`
	Registry        string     `json:"registry,omitempty"`
}

// token returns a cached access token or logs in.
func (h *dockerHub) token(ctx context.Context, fresh bool) (string, error) {
	if t, ok := h.cache.hubToken(h.cacheKey); ok && !fresh && h.now().Before(t.expires) {
		return t.token, nil
	}
	var out struct {
		AccessToken string `json:"access_token"`
	}
	in := map[string]string{"identifier": h.user, "secret": h.password}
	if err := h.do(ctx, http.MethodPost, "/v2/auth/token", nil, in, &out); err != nil {
		return "", err
	}
	if out.AccessToken == "" {
		return "", errors.New("Docker Hub returned no access token")
	}
	h.cache.keepHubToken(h.cacheKey, hubToken{token: out.AccessToken, expires: h.now().Add(hubTokenTTL)})
	return out.AccessToken, nil
}

// call sends an authenticated request, logging in again once on a 401 (an
// expired token).
func (h *dockerHub) call(ctx context.Context, method, path string, in, out any) error {
	for attempt := 0; ; attempt++ {
		tok, err := h.token(ctx, attempt > 0)
		if err != nil {
			return err
		}
		err = h.do(ctx, method, path, func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }, in, out)
		if attempt == 0 && httpapi.StatusOf(err) == http.StatusUnauthorized {
			continue
		}
		return err
	}
}

func hubPath(r Repo) string {
	return "/v2/repositories/" + url.PathEscape(r.Namespace) + "/" + url.PathEscape(r.Name) + "/"
}

func (h *dockerHub) Get(ctx context.Context, r Repo) (*Observed, error) {
	var out hubRepo
	err := h.call(ctx, http.MethodGet, "/v2/namespaces/"+url.PathEscape(r.Namespace)+"/repositories/"+url.PathEscape(r.Name), nil, &out)
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	owner := OwnerOf(out.FullDescription)
	return &Observed{
		URL:         "docker.io/" + r.FullName(),
		Private:     &out.IsPrivate,
		Description: &out.Description,
		LastPushed:  out.LastUpdated,
		Owner:       &owner,
	}, nil
}

func (h *dockerHub) Create(ctx context.Context, r Repo) (Created, error) {
	if strings.Contains(r.Name, "/") {
		return Created{}, errors.Errorf("Docker Hub repository names cannot contain %q: %q", "/", r.Name)
	}
	in := hubRepo{Name: r.Name, Namespace: r.Namespace, Description: r.Description, IsPrivate: r.Private, Registry: "docker"}
	if r.Owner != "" {
		// Recorded in the same request: no window in which the
		// repository exists without its owner.
		in.FullDescription = OwnerLine(r.Owner)
	}
	return Created{}, h.call(ctx, http.MethodPost, "/v2/namespaces/"+url.PathEscape(r.Namespace)+"/repositories", in, nil)
}

// Update sets the description, the owner line in the README (the rest of
// the README kept, from a fresh read) and the visibility.
func (h *dockerHub) Update(ctx context.Context, r Repo) error {
	in := map[string]string{"description": r.Description}
	if r.Owner != "" {
		var cur hubRepo
		if err := h.call(ctx, http.MethodGet, "/v2/namespaces/"+url.PathEscape(r.Namespace)+"/repositories/"+url.PathEscape(r.Name), nil, &cur); err != nil {
			return err
		}
		if o := OwnerOf(cur.FullDescription); o != "" && o != r.Owner {
			// Another resource claimed it since Observe: never overwritten.
			return errors.Errorf("Docker Hub repository %s is owned by RegistryRepo %s: left untouched", r.FullName(), o)
		}
		if OwnerOf(cur.FullDescription) != r.Owner {
			in["full_description"] = WithOwner(cur.FullDescription, r.Owner)
		}
	}
	if err := h.call(ctx, http.MethodPatch, hubPath(r), in, nil); err != nil {
		return err
	}
	return h.call(ctx, http.MethodPost, hubPath(r)+"privacy/", map[string]bool{"is_private": r.Private}, nil)
}

func (h *dockerHub) Delete(ctx context.Context, r Repo) error {
	err := h.call(ctx, http.MethodDelete, hubPath(r), nil, nil)
	if IsNotFound(err) {
		return nil
	}
	return err
}

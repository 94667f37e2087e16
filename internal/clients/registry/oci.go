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
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

// oci talks to any OCI distribution registry. A repository exists from
// its first push; observing lists its tags.
type oci struct {
	host string
	opts []name.Option
	auth authn.Authenticator
	rt   http.RoundTripper
	key  string
	// cache keeps the Puller across clients; nil: the client keeps its
	// own (own).
	cache *Cache
	own   *remote.Puller
}

func newOCI(c Config) (*oci, error) {
	u, err := url.Parse(c.URL)
	if err != nil || u.Host == "" {
		return nil, errors.Errorf("registry url %q is not a URL", c.URL)
	}
	hc, err := httpapi.NewClient(httpapi.Options{Backend: ociBackend, Section: section, TLS: c.TLS, Gate: c.RetryAfter, Transports: c.Transports, Identity: c.Username + "\x00" + c.Password})
	if err != nil {
		return nil, err
	}
	o := &oci{host: u.Host, auth: authn.Anonymous, rt: hc.Transport, cache: c.Cache}
	if u.Scheme == "http" {
		o.opts = append(o.opts, name.Insecure)
	}
	if c.Username != "" {
		o.auth = &authn.Basic{Username: c.Username, Password: c.Password}
	}
	sum := sha256.Sum256([]byte(c.Password))
	ca := sha256.Sum256(c.TLS.CABundle)
	// The tenant flag too: a puller keeps the transport it was built
	// with, and a namespaced config's must be the guarded one.
	o.key = strings.Join([]string{c.URL, c.Username, hex.EncodeToString(sum[:]), map[bool]string{true: "insecure"}[c.TLS.InsecureSkipVerify], hex.EncodeToString(ca[:]), map[bool]string{true: "tenant"}[c.TLS.Tenant]}, "\x00")
	return o, nil
}

func (o *oci) repo(r Repo) (name.Repository, error) {
	return name.NewRepository(o.host+"/"+r.FullName(), o.opts...)
}

func (o *oci) puller(ctx context.Context) (*remote.Puller, error) {
	if o.cache == nil {
		// No cache: the client keeps its own, for its calls.
		if o.own == nil {
			p, err := remote.NewPuller(remote.WithContext(ctx), remote.WithAuth(o.auth), remote.WithTransport(o.rt))
			if err != nil {
				return nil, err
			}
			o.own = p
		}
		return o.own, nil
	}
	return o.cache.puller(o.key, func() (*remote.Puller, error) {
		return remote.NewPuller(remote.WithContext(ctx), remote.WithAuth(o.auth), remote.WithTransport(o.rt))
	})
}

func (o *oci) options(ctx context.Context) ([]remote.Option, error) {
	p, err := o.puller(ctx)
	if err != nil {
		return nil, err
	}
	return []remote.Option{remote.WithContext(ctx), remote.WithAuth(o.auth), remote.WithTransport(o.rt), remote.Reuse(p)}, nil
}

// MaxTags bounds the tags one listing of a repository may carry, and
// MaxTagPages its pages (a registry may answer fewer tags per page than
// asked, 100 is common): the registry's URL is a ProviderConfig's to set,
// and one answering Link pages for ever, or millions of tags, must hold
// neither a worker nor the provider's memory. Each page is also bounded by
// httpapi.MaxResponseBody.
const (
	MaxTags     = 100_000
	MaxTagPages = 1_000
)

// TooManyTagsError is a tag listing that ran past MaxTags or MaxTagPages.
type TooManyTagsError struct {
	Repository string
	// Past is the bound it ran past: "100000 tags", "1000 pages".
	Past string
}

func (e *TooManyTagsError) Error() string {
	return fmt.Sprintf("the tag list of %s runs past %s: this provider does not manage a repository that large, or a registry that pages without end", e.Repository, e.Past)
}

// Terminal is true: listing again gets the same.
func (e *TooManyTagsError) Terminal() bool { return true }

// tags lists the repository's tags page by page, up to MaxTags and
// MaxTagPages (remote.List follows pages without a bound).
func (o *oci) tags(ctx context.Context, repo name.Repository) ([]string, error) {
	p, err := o.puller(ctx)
	if err != nil {
		return nil, err
	}
	l, err := p.Lister(ctx, repo)
	if err != nil {
		return nil, err
	}
	var tags []string
	for pages := 1; l.HasNext(); pages++ {
		if pages > MaxTagPages {
			return nil, &TooManyTagsError{Repository: repo.String(), Past: fmt.Sprintf("%d pages", MaxTagPages)}
		}
		page, err := l.Next(ctx)
		if err != nil {
			return nil, err
		}
		if len(tags)+len(page.Tags) > MaxTags {
			return nil, &TooManyTagsError{Repository: repo.String(), Past: fmt.Sprintf("%d tags", MaxTags)}
		}
		tags = append(tags, page.Tags...)
	}
	return tags, nil
}

// Get lists the tags: the repository is available (Implicit) with none.
func (o *oci) Get(ctx context.Context, r Repo) (*Observed, error) {
	repo, err := o.repo(r)
	if err != nil {
		return nil, err
	}
	tags, err := o.tags(ctx, repo)
	if err != nil && !isUnknown(err) {
		return nil, ociError(err)
	}
	n := int64(len(tags))
	return &Observed{URL: repo.String(), Implicit: true, TagCount: &n}, nil
}

// Create checks that the credentials may push to the repository (an
// upload is started and cancelled); the registry makes it on first push.
func (o *oci) Create(_ context.Context, r Repo) (Created, error) {
	repo, err := o.repo(r)
	if err != nil {
		return Created{}, err
	}
	if err := remote.CheckPushPermission(repo.Tag("latest"), staticKeychain{o.auth}, o.rt); err != nil {
		return Created{}, errors.Wrap(ociError(err), "the credentials may not push to "+repo.String())
	}
	return Created{}, nil
}

// Update has nothing to do: an OCI registry has no visibility or
// description.
func (o *oci) Update(context.Context, Repo) error { return nil }

// Delete removes every manifest the repository's tags point at. The
// registry must allow deletes; its catalog may still list the name.
func (o *oci) Delete(ctx context.Context, r Repo) error {
	repo, err := o.repo(r)
	if err != nil {
		return err
	}
	opts, err := o.options(ctx)
	if err != nil {
		return err
	}
	tags, err := o.tags(ctx, repo)
	if isUnknown(err) {
		return nil
	}
	if err != nil {
		return ociError(err)
	}
	seen := map[string]bool{}
	for _, t := range tags {
		d, err := remote.Head(repo.Tag(t), opts...)
		if isUnknown(err) {
			continue
		}
		if err != nil {
			return ociError(err)
		}
		if seen[d.Digest.String()] {
			continue
		}
		seen[d.Digest.String()] = true
		err = remote.Delete(repo.Digest(d.Digest.String()), remote.WithContext(ctx), remote.WithAuth(o.auth), remote.WithTransport(o.rt))
		var te *transport.Error
		switch {
		case errors.As(err, &te) && (te.StatusCode == http.StatusMethodNotAllowed || hasCode(te, transport.UnsupportedErrorCode)):
			return errors.New("the registry does not allow deletes: enable them (distribution: storage.delete.enabled: true)")
		case isUnknown(err):
		case err != nil:
			return ociError(err)
		}
	}
	return nil
}

// isUnknown is true for a repository or manifest the registry does not
// have.
func isUnknown(err error) bool {
	var te *transport.Error
	return errors.As(err, &te) && (te.StatusCode == http.StatusNotFound ||
		hasCode(te, transport.NameUnknownErrorCode) || hasCode(te, transport.ManifestUnknownErrorCode))
}

func hasCode(te *transport.Error, code transport.ErrorCode) bool {
	for _, d := range te.Errors {
		if d.Code == code {
			return true
		}
	}
	return false
}

// ociBackend names an OCI distribution registry in errors.
const ociBackend = "the registry"

// ociError turns a go-containerregistry error into an *httpapi.Error: the
// registry's answer, or, through httpapi.Unreached like every client's, a
// request it did not answer (held by the gate, unreachable, or a
// certificate that does not verify).
//
// A bound the provider itself drew (a tag list or an answer too large) is
// kept as it is: it is terminal, not a registry that went unreached.
func ociError(err error) error {
	var (
		te    *transport.Error
		tags  *TooManyTagsError
		large *httpapi.BodyTooLargeError
	)
	switch {
	case errors.As(err, &tags):
		return tags
	case errors.As(err, &large):
		return large
	}
	if errors.As(err, &te) {
		return &httpapi.Error{Backend: ociBackend, Section: section, Status: te.StatusCode, Message: httpapi.Redact(err.Error()), Denied: denied}
	}
	return httpapi.Unreached(err, httpapi.Options{Backend: ociBackend, Section: section})
}

type staticKeychain struct{ a authn.Authenticator }

func (k staticKeychain) Resolve(authn.Resource) (authn.Authenticator, error) { return k.a, nil }

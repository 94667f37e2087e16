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

// Package gitfile reads one file of a Git repository's branch over smart
// HTTPS, with go-git's protocol code and the provider's own HTTP client
// (package httpapi): every connection checked by the tenant network guard
// where it is dialled, redirects kept to the same origin, each answer
// bounded. Nothing touches a disk: the branch's head commit is fetched
// alone (depth 1) into memory, and a file once read is kept by commit, so
// a poll that finds the branch unchanged sends one small request.
package gitfile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

// Timeout bounds one request to the Git server.
const Timeout = 30 * time.Second

// cacheSize bounds how many files are kept by commit.
const cacheSize = 512

// Request names a file: repository URL (https), branch and path.
type Request struct {
	URL, Branch, Path string
	// Username and Password (or token) read the repository; empty reads
	// it anonymously.
	Username, Password string
}

// File is a file's content and the commit it was read at.
type File struct {
	Commit  string
	Content []byte
}

// NotFoundError is a branch or file that does not exist.
type NotFoundError struct{ What string }

func (e *NotFoundError) Error() string { return e.What }

// IsNotFound is true for a missing branch or file.
func IsNotFound(err error) bool {
	var nf *NotFoundError
	return errors.As(err, &nf)
}

// Reader reads files. Share one per controller: it keeps the files it
// read by commit, and its transports' connections.
type Reader struct {
	// TLS is how servers are verified and connections guarded: Tenant
	// and Guard set for a tenant's repositories; CABundle for tests.
	TLS httpapi.TLS
	// MaxSize bounds a file.
	MaxSize int64

	transports *httpapi.Transports
	unpacking  chan struct{}
	mu         sync.Mutex
	cache      map[string][]byte
}

// NewReader returns a Reader connecting as tls says, reading files of at
// most maxSize bytes.
func NewReader(tls httpapi.TLS, maxSize int64) *Reader {
	return &Reader{TLS: tls, MaxSize: maxSize, transports: httpapi.NewTransports(), unpacking: make(chan struct{}, MaxUnpacking), cache: map[string][]byte{}}
}

// Read returns the file r names at the head of its branch.
func (rd *Reader) Read(ctx context.Context, r Request) (File, error) {
	c, err := httpapi.NewClient(httpapi.Options{Backend: "the Git server", Section: "buildFile", TLS: rd.TLS, Timeout: Timeout, Transports: rd.transports})
	if err != nil {
		return File{}, err
	}
	ep, err := transport.NewEndpoint(r.URL)
	if err != nil || ep.Protocol != "https" {
		return File{}, errors.Errorf("%q is no https URL of a Git repository", r.URL)
	}
	var auth transport.AuthMethod
	if r.Username != "" || r.Password != "" {
		auth = &githttp.BasicAuth{Username: r.Username, Password: r.Password}
	}
	s, err := githttp.NewClient(c).NewUploadPackSession(ep, auth)
	if err != nil {
		return File{}, errors.Wrap(err, "cannot open the repository")
	}
	defer s.Close()
	refs, err := s.AdvertisedReferencesContext(ctx)
	if err != nil {
		return File{}, errors.Wrap(err, "cannot list the repository's branches")
	}
	head, err := refs.AllReferences()
	if err != nil {
		return File{}, errors.Wrap(err, "cannot list the repository's branches")
	}
	ref, err := head.Reference(plumbing.NewBranchReferenceName(r.Branch))
	if err != nil {
		return File{}, &NotFoundError{What: "branch " + r.Branch + " does not exist"}
	}
	commit := ref.Hash()
	key := rd.key(r, commit)
	if b, ok := rd.cached(key); ok {
		return File{Commit: commit.String(), Content: b}, nil
	}
	// The download and what it unpacks to are bounded per fetch, and
	// so are the fetches at once.
	select {
	case rd.unpacking <- struct{}{}:
	case <-ctx.Done():
		return File{}, errors.Wrap(ctx.Err(), "cannot fetch the branch's head commit")
	}
	b, err := rd.fetchFile(ctx, s, refs, commit, r.Path)
	<-rd.unpacking
	if err != nil {
		return File{}, err
	}
	rd.keep(key, b)
	return File{Commit: commit.String(), Content: b}, nil
}

// fetch fetches commit alone, returning the pack.
func (rd *Reader) fetch(ctx context.Context, s transport.UploadPackSession, refs *packp.AdvRefs, commit plumbing.Hash) ([]byte, error) {
	req := packp.NewUploadPackRequestFromCapabilities(refs.Capabilities)
	req.Wants = []plumbing.Hash{commit}
	req.Depth = packp.DepthCommits(1)
	if err := req.Capabilities.Set(capability.Shallow); err != nil {
		return nil, errors.Wrap(err, "cannot ask for one commit")
	}
	if refs.Capabilities.Supports(capability.NoProgress) {
		_ = req.Capabilities.Set(capability.NoProgress)
	}
	resp, err := s.UploadPack(ctx, req)
	if err != nil {
		return nil, errors.Wrap(err, "cannot fetch the branch's head commit")
	}
	defer resp.Close()
	var pack io.Reader = resp
	switch {
	case req.Capabilities.Supports(capability.Sideband64k):
		pack = sideband.NewDemuxer(sideband.Sideband64k, resp)
	case req.Capabilities.Supports(capability.Sideband):
		pack = sideband.NewDemuxer(sideband.Sideband, resp)
	}
	b, err := io.ReadAll(io.LimitReader(pack, MaxPack+1))
	if err != nil {
		return nil, errors.Wrap(err, "cannot fetch the branch's head commit")
	}
	if len(b) > MaxPack {
		return nil, errors.Errorf("the branch's head commit is more than %d MiB to download; a build file is read only from a smaller repository", MaxPack>>20)
	}
	return b, nil
}

// fetchFile fetches commit and reads path in its tree.
func (rd *Reader) fetchFile(ctx context.Context, s transport.UploadPackSession, refs *packp.AdvRefs, commit plumbing.Hash, path string) ([]byte, error) {
	pack, err := rd.fetch(ctx, s, refs, commit)
	if err != nil {
		return nil, err
	}
	return readFile(pack, commit, path, rd.MaxSize)
}

// readFile reads path in commit's tree, from the pack fetched for it.
func readFile(pack []byte, commit plumbing.Hash, path string, maxSize int64) ([]byte, error) {
	st, err := unpack(pack)
	if err != nil {
		return nil, err
	}
	c, err := object.GetCommit(st, commit)
	if err != nil {
		return nil, errors.Wrap(err, "cannot read the fetched commit")
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, errors.Wrap(err, "cannot read the fetched commit's tree")
	}
	f, err := tree.File(path)
	if errors.Is(err, object.ErrFileNotFound) || errors.Is(err, object.ErrDirectoryNotFound) || errors.Is(err, object.ErrEntryNotFound) {
		return nil, &NotFoundError{What: "no file " + path + " at the head of the branch (commit " + commit.String()[:12] + ")"}
	}
	if err != nil {
		return nil, errors.Wrapf(err, "cannot read %s", path)
	}
	if !f.Mode.IsFile() {
		return nil, errors.Errorf("%s is not a regular file", path)
	}
	if f.Size > maxSize {
		return nil, errors.Errorf("%s has %d bytes, more than the %d a file read here may have", path, f.Size, maxSize)
	}
	text, err := f.Contents()
	return []byte(text), errors.Wrapf(err, "cannot read %s", path)
}

// key names a file at a commit, for the credentials that read it: a
// commit id is only learnt with them, but keep entries apart anyway.
func (rd *Reader) key(r Request, commit plumbing.Hash) string {
	sum := sha256.Sum256([]byte(strings.Join([]string{r.URL, commit.String(), r.Path, r.Username, r.Password}, "\x00")))
	return hex.EncodeToString(sum[:])
}

func (rd *Reader) cached(key string) ([]byte, bool) {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	b, ok := rd.cache[key]
	return b, ok
}

func (rd *Reader) keep(key string, b []byte) {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	if len(rd.cache) >= cacheSize {
		// Any entry: a commit no longer at a branch's head is not asked
		// for again, and one that is costs one fetch.
		for k := range rd.cache {
			delete(rd.cache, k)
			break
		}
	}
	rd.cache[key] = b
}

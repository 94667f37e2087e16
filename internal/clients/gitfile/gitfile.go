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
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

// Timeout bounds one request to the Git server.
const Timeout = 30 * time.Second

// cacheBytes bounds the files kept by commit, together.
const cacheBytes = 8 << 20

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
	// held is the size of the files in cache.
	held int64
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
	c.Transport = refsBound{next: c.Transport}
	ep, err := transport.NewEndpoint(r.URL)
	if err != nil || ep.Protocol != "https" {
		return File{}, errors.Errorf("%q is no https URL of a Git repository", r.URL)
	}
	var auth transport.AuthMethod
	if r.Username != "" || r.Password != "" {
		auth = &githttp.BasicAuth{Username: r.Username, Password: r.Password}
	}
	// Everything a server sends is bounded per read, and so are the
	// reads at once: the branch list as much as the pack.
	select {
	case rd.unpacking <- struct{}{}:
		defer func() { <-rd.unpacking }()
	case <-ctx.Done():
		return File{}, errors.Wrap(ctx.Err(), "cannot read the repository")
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
	pack, err := rd.fetch(ctx, s, refs, commit)
	if err != nil {
		return File{}, err
	}
	b, err := readFile(pack, commit, r.Path, rd.MaxSize)
	if err != nil {
		return File{}, err
	}
	rd.keep(key, b)
	return File{Commit: commit.String(), Content: b}, nil
}

// MaxRefs bounds the branch and tag list a server may send.
const MaxRefs = 4 << 20

// refsBound holds the answer listing the branches to MaxRefs: it is
// parsed whole, before a pack is asked for. Every GET, not only one to
// .../info/refs: smart HTTP GETs nothing else (the pack is a POST), and
// a redirect could take the list to any path of the same server.
type refsBound struct{ next http.RoundTripper }

func (b refsBound) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(r)
	if err != nil || resp.Body == nil || r.Method != http.MethodGet {
		return resp, err
	}
	resp.Body = httpapi.LimitBody(resp.Body, MaxRefs, errors.Errorf("the server lists more than %d MiB of branches and tags", MaxRefs>>20))
	return resp, nil
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

// readFile reads path in commit's tree, from the pack fetched for it. It
// reads the commit's first line and the trees on the path as they are
// stored, one entry at a time: decoding them whole (go-git's object
// package) would hold a tree of a million entries several times over.
func readFile(pack []byte, commit plumbing.Hash, path string, maxSize int64) ([]byte, error) {
	st, err := unpack(pack)
	if err != nil {
		return nil, err
	}
	tree, err := treeOf(st, commit)
	if err != nil {
		return nil, errors.Wrap(err, "cannot read the fetched commit")
	}
	notFound := &NotFoundError{What: "no file " + path + " at the head of the branch (commit " + commit.String()[:12] + ")"}
	segs := strings.Split(path, "/")
	h := tree
	for i, seg := range segs {
		mode, next, found, err := entry(st, h, seg)
		if err != nil {
			return nil, errors.Wrapf(err, "cannot read %s", path)
		}
		if !found {
			return nil, notFound
		}
		if i < len(segs)-1 {
			if mode != filemode.Dir {
				return nil, notFound
			}
			h = next
			continue
		}
		if mode != filemode.Regular && mode != filemode.Executable && mode != filemode.Deprecated {
			return nil, errors.Errorf("%s is not a regular file", path)
		}
		h = next
	}
	o, err := st.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, errors.Wrapf(err, "cannot read %s", path)
	}
	if o.Size() > maxSize {
		return nil, errors.Errorf("%s has %d bytes, more than the %d a file read here may have", path, o.Size(), maxSize)
	}
	r, err := o.Reader()
	if err != nil {
		return nil, errors.Wrapf(err, "cannot read %s", path)
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxSize))
	return b, errors.Wrapf(err, "cannot read %s", path)
}

// treeOf reads a commit's tree from its first line, "tree <id>".
func treeOf(st storer.EncodedObjectStorer, commit plumbing.Hash) (plumbing.Hash, error) {
	o, err := st.EncodedObject(plumbing.CommitObject, commit)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	r, err := o.Reader()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer r.Close()
	line := make([]byte, len("tree ")+40+1)
	if _, err := io.ReadFull(r, line); err != nil || string(line[:5]) != "tree " || line[45] != '\n' {
		return plumbing.ZeroHash, errors.New("the commit names no tree")
	}
	id := string(line[5:45])
	if _, err := hex.DecodeString(id); err != nil {
		return plumbing.ZeroHash, errors.New("the commit names no tree")
	}
	return plumbing.NewHash(id), nil
}

// entry finds name in a stored tree, reading it entry by entry:
// "<octal mode> <name>\0<20-byte id>".
func entry(st storer.EncodedObjectStorer, tree plumbing.Hash, name string) (filemode.FileMode, plumbing.Hash, bool, error) {
	o, err := st.EncodedObject(plumbing.TreeObject, tree)
	if err != nil {
		return 0, plumbing.ZeroHash, false, err
	}
	rc, err := o.Reader()
	if err != nil {
		return 0, plumbing.ZeroHash, false, err
	}
	defer rc.Close()
	r := bufio.NewReader(rc)
	var id plumbing.Hash
	for {
		// ReadSlice, not ReadString: a field longer than the buffer is
		// refused, never gathered whole.
		b, err := r.ReadSlice(' ')
		if errors.Is(err, io.EOF) && len(b) == 0 {
			return 0, plumbing.ZeroHash, false, nil
		}
		if err != nil || len(b) > 8 {
			return 0, plumbing.ZeroHash, false, errors.New("a tree is broken")
		}
		mode := string(b)
		b, err = r.ReadSlice(0)
		if err != nil {
			return 0, plumbing.ZeroHash, false, errors.New("a tree is broken")
		}
		n := string(b)
		if _, err := io.ReadFull(r, id[:]); err != nil {
			return 0, plumbing.ZeroHash, false, errors.New("a tree is broken")
		}
		if n[:len(n)-1] != name {
			continue
		}
		m, err := filemode.New(mode[:len(mode)-1])
		if err != nil {
			return 0, plumbing.ZeroHash, false, errors.New("a tree is broken")
		}
		return m, id, true, nil
	}
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
	if _, ok := rd.cache[key]; ok || int64(len(b)) > cacheBytes {
		return
	}
	// Any entries: a commit no longer at a branch's head is not asked
	// for again, and one that is costs one fetch.
	for k, v := range rd.cache {
		if rd.held+int64(len(b)) <= cacheBytes {
			break
		}
		delete(rd.cache, k)
		rd.held -= int64(len(v))
	}
	rd.cache[key] = b
	rd.held += int64(len(b))
}

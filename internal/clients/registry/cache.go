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
	"sync"

	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// maxCached bounds each of a Cache's maps.
const maxCached = 256

// Cache keeps what clients of one controller share across reconciles (a
// client is built per reconcile): Docker Hub access tokens, keyed by API,
// user and a hash of the secret, so that the steady state costs one
// repository read, not a login per poll; and an OCI registry's
// go-containerregistry Puller per registry and credential, which keeps the
// auth handshake, so that it costs one tag list, not a /v2/ ping and a
// token round trip. A nil Cache keeps nothing.
type Cache struct {
	mu      sync.Mutex
	tokens  map[string]hubToken
	pullers map[string]*remote.Puller
}

// NewCache returns an empty cache. The zero Cache is ready to use too.
func NewCache() *Cache { return &Cache{} }

func (c *Cache) hubToken(key string) (hubToken, bool) {
	if c == nil {
		return hubToken{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.tokens[key]
	return t, ok
}

func (c *Cache) keepHubToken(key string, t hubToken) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tokens == nil || len(c.tokens) >= maxCached {
		// Tenants vary credentials at will: start over rather than keep
		// every token for good.
		c.tokens = map[string]hubToken{}
	}
	c.tokens[key] = t
}

// puller is the Puller of key, made by build the first time.
func (c *Cache) puller(key string, build func() (*remote.Puller, error)) (*remote.Puller, error) {
	if c == nil {
		return build()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.pullers[key]; ok {
		return p, nil
	}
	p, err := build()
	if err != nil {
		return nil, err
	}
	if c.pullers == nil || len(c.pullers) >= maxCached {
		// URLs and passwords are a tenant's to vary: start over rather
		// than keep every one for good.
		c.pullers = map[string]*remote.Puller{}
	}
	c.pullers[key] = p
	return p, nil
}

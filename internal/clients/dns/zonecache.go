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

package dns

import (
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"time"

	"github.com/libdns/libdns"
)

// Reading a record set means reading its zone: the ownership records of
// its neighbourhood are in it, and libdns has no narrower read. A poll of
// every record of a zone of n records is then n zone reads of n records.
// GetCached serves the polls of one zone and one identity (provider,
// server and credentials) from one read for up to ZoneCacheTTL, kept in
// the ZoneCache the clients were made with (the DNSRecord controller's);
// a write through a client drops it. Callers use it only to confirm that nothing
// needs doing, and read fresh (Get) before they decide to write.

// ZoneCacheTTL is how old a cached zone read may be.
const ZoneCacheTTL = 30 * time.Second

// maxCachedZones and maxCachedBytes bound the cache, in reads and in
// their estimated memory; expired reads are dropped on every insert, and
// a read that does not fit is not kept. Without the byte bound, a
// tenant's own DNS server answering each zone transfer with just under
// its limits (200,000 records, 32 MiB) would make 512 reads hold about
// 25 GiB.
const (
	maxCachedZones = 512
	maxCachedBytes = 64 << 20
	// maxShareBytes and maxShareZones are one share's part (one
	// namespace's reads, Config.Share), so that one tenant's big or many
	// zones leave room for the others'.
	maxShareBytes = maxCachedBytes / 4
	maxShareZones = maxCachedZones / 4
)

// recordOverhead is the estimated memory of one record besides its text.
const recordOverhead = 160

type zoneRead struct {
	at    time.Time
	recs  []libdns.Record
	bytes int
	// share is who it is counted against.
	share string
}

// ZoneCache holds zone reads for the clients made with it (Config.Cache):
// one per controller, so that two managers in one process share nothing.
type ZoneCache struct {
	mu    sync.Mutex
	m     map[string]zoneRead
	bytes int
	// by and count are the bytes and reads held per share.
	by    map[string]int
	count map[string]int
	// written is when each zone key was last written through a client:
	// a read that began before then is not kept.
	written map[string]time.Time
}

// NewZoneCache returns an empty cache. The zero ZoneCache is ready to use
// too.
func NewZoneCache() *ZoneCache { return &ZoneCache{} }

// init makes the maps of a zero cache. z is locked.
func (z *ZoneCache) init() {
	if z.m == nil {
		z.m, z.by, z.count, z.written = map[string]zoneRead{}, map[string]int{}, map[string]int{}, map[string]time.Time{}
	}
}

// dropRead removes the read of key. z is locked.
func (z *ZoneCache) dropRead(key string) {
	if r, ok := z.m[key]; ok {
		z.bytes -= r.bytes
		if z.by[r.share] -= r.bytes; z.by[r.share] <= 0 {
			delete(z.by, r.share)
		}
		if z.count[r.share]--; z.count[r.share] <= 0 {
			delete(z.count, r.share)
		}
		delete(z.m, key)
	}
}

// size estimates the memory recs hold.
func size(recs []libdns.Record) int {
	n := 0
	for _, r := range recs {
		rr := r.RR()
		n += recordOverhead + len(rr.Name) + len(rr.Type) + len(rr.Data)
	}
	return n
}

// identity names what a client may read: its provider, server and
// credentials (hashed: the secret is never kept in clear here).
func identity(c Config) string {
	return fmt.Sprintf("%x", sha256.Sum256([]byte(fmt.Sprintf("%q|%q|%q|%q|%q|%q|%#v", c.Provider, c.Server, c.KeyName, c.KeyAlgorithm, c.URL, c.Secret, c.TLS))))
}

func (c *Client) zoneKey(zone string) string { return c.id + "|" + normName(zone) }

// GetCached is Get from a zone read at most ZoneCacheTTL old (now is the
// clock); fresh says the zone was read for this call. A client made
// without a cache reads the zone every time.
func (c *Client) GetCached(ctx context.Context, zone, name, typ string) (obs *Observed, fresh bool, err error) {
	z := c.cache
	if z == nil {
		obs, err := c.Get(ctx, zone, name, typ)
		return obs, true, err
	}
	k := c.zoneKey(zone)
	z.mu.Lock()
	z.init()
	r, ok := z.m[k]
	z.mu.Unlock()
	if !ok || c.now().Sub(r.at) > ZoneCacheTTL || c.now().Before(r.at) {
		// A read is as old as its start: a write may land while the zone
		// is being transferred, and the read then shows the zone before it.
		start := c.now()
		recs, err := c.p.GetRecords(ctx, zone)
		if err != nil {
			return nil, false, classify(err, "cannot read zone "+zone)
		}
		fresh = true
		r = zoneRead{at: start, recs: recs, bytes: size(recs), share: cmp.Or(c.share, c.id)}
		c.keep(k, r)
	}
	return observe(r.recs, name, typ), fresh, nil
}

// keep caches the read r of zone k, once expired reads and write marks
// are dropped, if it is not stale and fits the bounds.
func (c *Client) keep(k string, r zoneRead) {
	z := c.cache
	z.mu.Lock()
	defer z.mu.Unlock()
	for key, old := range z.m {
		if key == k || c.now().Sub(old.at) > ZoneCacheTTL || c.now().Before(old.at) {
			z.dropRead(key)
		}
	}
	for key, at := range z.written {
		if c.now().Sub(at) > ZoneCacheTTL {
			delete(z.written, key)
		}
	}
	// A read that began before the zone's last write through a client is
	// stale: kept, it would show the write undone until it expires, and
	// the write would be made again.
	if w, wrote := z.written[k]; wrote && !r.at.After(w) {
		return
	}
	if len(z.m) < maxCachedZones && z.bytes+r.bytes <= maxCachedBytes &&
		z.by[r.share]+r.bytes <= maxShareBytes && z.count[r.share] < maxShareZones {
		z.m[k] = r
		z.bytes += r.bytes
		z.by[r.share] += r.bytes
		z.count[r.share]++
	}
}

// forget drops the cached read of zone, and keeps any read that began
// before now from being cached: the client wrote to it.
func (c *Client) forget(zone string) {
	z := c.cache
	if z == nil {
		return
	}
	z.mu.Lock()
	z.init()
	k := c.zoneKey(zone)
	z.dropRead(k)
	z.written[k] = c.clock()
	z.mu.Unlock()
}

// clock is c.now, or the time for a Client made without one.
func (c *Client) clock() time.Time {
	if c.now == nil {
		return time.Now()
	}
	return c.now()
}

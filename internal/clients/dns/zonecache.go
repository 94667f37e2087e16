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
	"errors"
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
// the ZoneCache the clients were made with (the DNSRecord controller's),
// for the names not written through a client since the read began. Callers
// use it only to confirm that nothing needs doing, and read fresh (Get)
// before they decide to write.
//
// A fresh read is one that began after the caller asked. Reads of one zone
// by one identity that would overlap are made one after the other, each
// shared by every caller that asked while the one before was in flight:
// when a thousand records of a zone are created at once, each is read
// before it is decided and after it is written, and each of those 2,000
// reads was a read of the whole zone (at 10,000 resources, 2,500 records
// in one zone, about 8 GB decoded and the provider's peak memory).

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
	// written is when each name of each zone key was last written
	// through a client: a read that began before then is not served for
	// that name.
	written map[string]time.Time
	// flights are the reads in flight, by zone key.
	flights map[string]*flight
}

// flight is one zone read in flight, shared by its callers.
type flight struct {
	start time.Time
	done  chan struct{}
	recs  []libdns.Record
	err   error
	// ownerGone is true when the read failed after its caller's context
	// ended: the error is that caller's, not the zone's.
	ownerGone bool
}

// NewZoneCache returns an empty cache. The zero ZoneCache is ready to use
// too.
func NewZoneCache() *ZoneCache { return &ZoneCache{} }

// init makes the maps of a zero cache. z is locked.
func (z *ZoneCache) init() {
	if z.m == nil {
		z.m, z.by, z.count, z.written, z.flights = map[string]zoneRead{}, map[string]int{}, map[string]int{}, map[string]time.Time{}, map[string]*flight{}
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
// clock) that began after name was last written through a client; fresh
// says the zone was read for this call. A client made without a cache
// reads the zone every time.
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
	wrote := z.written[nameKey(k, name)]
	z.mu.Unlock()
	if !ok || c.now().Sub(r.at) > ZoneCacheTTL || c.now().Before(r.at) || !r.at.After(wrote) {
		if r, err = c.readFresh(ctx, zone); err != nil {
			return nil, false, err
		}
		fresh = true
	}
	return observe(r.recs, name, typ), fresh, nil
}

func nameKey(k, name string) string { return k + "|" + normName(name) }

// readFresh reads zone with a read that begins after the call: the one in
// flight when it began after, else the next, shared with whoever else
// waits for it. The read is kept in the cache.
func (c *Client) readFresh(ctx context.Context, zone string) (zoneRead, error) {
	z, k, asked := c.cache, c.zoneKey(zone), c.clock()
	for {
		z.mu.Lock()
		z.init()
		// One that began after the call and is done already.
		if r, ok := z.m[k]; ok && r.at.After(asked) && !c.now().Before(r.at) {
			z.mu.Unlock()
			return r, nil
		}
		f, inFlight := z.flights[k]
		if !inFlight {
			// A read is as old as its start: a write may land while the
			// zone is being transferred, and the read then shows the zone
			// before it.
			f = &flight{start: c.clock(), done: make(chan struct{})}
			z.flights[k] = f
		}
		z.mu.Unlock()
		if !inFlight {
			return c.fly(ctx, zone, k, f)
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			return zoneRead{}, classify(ctx.Err(), "cannot read zone "+zone)
		}
		if !f.served(ctx, asked) {
			continue
		}
		if f.err != nil {
			return zoneRead{}, classify(f.err, "cannot read zone "+zone)
		}
		return zoneRead{at: f.start, recs: f.recs}, nil
	}
}

// fly makes the read f of zone k for everyone waiting for it.
func (c *Client) fly(ctx context.Context, zone, k string, f *flight) (zoneRead, error) {
	// The flight lands whatever GetRecords does: were it to panic (and
	// controller-runtime recover), a flight left in the map would make
	// every later read of the zone wait for it until its context ended.
	f.err = errReadAborted
	func() {
		defer func() {
			c.cache.mu.Lock()
			if c.cache.flights[k] == f {
				delete(c.cache.flights, k)
			}
			c.cache.mu.Unlock()
			close(f.done)
		}()
		f.recs, f.err = c.p.GetRecords(ctx, zone)
		f.ownerGone = f.err != nil && ctx.Err() != nil
	}()
	if f.err != nil {
		return zoneRead{}, classify(f.err, "cannot read zone "+zone)
	}
	r := zoneRead{at: f.start, recs: f.recs, bytes: size(f.recs), share: cmp.Or(c.share, c.id)}
	c.keep(k, r)
	return r, nil
}

// errReadAborted is what the callers sharing a zone read get when the
// read ended without an answer (its GetRecords panicked).
var errReadAborted = errors.New("the zone read was aborted")

// served is false for a caller that asked when the done read f had
// begun already, or that f failed only because its own caller's context
// ended: the next read is that caller's.
func (f *flight) served(ctx context.Context, asked time.Time) bool {
	// A backend may report its caller's ended context as whatever the
	// closed connection said (an AXFR's "use of closed network
	// connection"), so the caller's context is asked, not the error.
	ended := f.ownerGone || errors.Is(f.err, context.Canceled) || errors.Is(f.err, context.DeadlineExceeded)
	return f.start.After(asked) && (!ended || ctx.Err() != nil)
}

// keep caches the read r of zone k, once expired reads and write marks
// are dropped, if it is newer than the one held and fits the bounds.
func (c *Client) keep(k string, r zoneRead) {
	z := c.cache
	z.mu.Lock()
	defer z.mu.Unlock()
	if held, ok := z.m[k]; ok && held.at.After(r.at) && !c.now().Before(held.at) {
		return
	}
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
	if len(z.m) < maxCachedZones && z.bytes+r.bytes <= maxCachedBytes &&
		z.by[r.share]+r.bytes <= maxShareBytes && z.count[r.share] < maxShareZones {
		z.m[k] = r
		z.bytes += r.bytes
		z.by[r.share] += r.bytes
		z.count[r.share]++
	}
}

// forget marks name of zone written now: a read that began before is not
// served for it (its record set and ownership record); the other names of
// the zone are still served from it.
func (c *Client) forget(zone, name string) {
	z := c.cache
	if z == nil {
		return
	}
	z.mu.Lock()
	z.init()
	z.written[nameKey(c.zoneKey(zone), name)] = c.clock()
	z.mu.Unlock()
}

// clock is c.now, or the time for a Client made without one.
func (c *Client) clock() time.Time {
	if c.now == nil {
		return time.Now()
	}
	return c.now()
}

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
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libdns/libdns"
)

// zone is an in-memory libdns provider that counts its zone reads.
type zone struct {
	recs  []libdns.Record
	reads int
	// during runs while a read is in flight, once.
	during func()
}

func (z *zone) GetRecords(context.Context, string) ([]libdns.Record, error) {
	z.reads++
	recs := append([]libdns.Record(nil), z.recs...)
	if f := z.during; f != nil {
		z.during = nil
		f()
	}
	return recs, nil
}

func (z *zone) SetRecords(_ context.Context, _ string, recs []libdns.Record) ([]libdns.Record, error) {
	z.recs = append(z.recs, recs...)
	return recs, nil
}

func (z *zone) DeleteRecords(_ context.Context, _ string, recs []libdns.Record) ([]libdns.Record, error) {
	return recs, nil
}

// TestGetCached: the polls of one zone by one identity share a read for
// ZoneCacheTTL; a write through the client, another identity, an expired
// or future read each read again; Get always reads.
func TestGetCached(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	z := &zone{}
	cache := NewZoneCache()
	newClient := func(secret string) *Client {
		return &Client{p: z, b: backends["rfc2136"], id: identity(Config{Provider: "rfc2136", Server: "127.0.0.1:53", Secret: secret}), now: clock, cache: cache}
	}
	a, b := newClient("team-a"), newClient("team-b")
	want := RRset{Name: "www", Type: "A", TTL: time.Minute, Values: []string{"192.0.2.1"}}
	owner := Owner{ID: "cp1", Resource: "team/www"}
	reads := func(step string, n int) {
		t.Helper()
		if z.reads != n {
			t.Fatalf("%s: %d zone reads, want %d", step, z.reads, n)
		}
	}
	obs, _, err := a.GetCached(ctx, "cache.example.com", "www", "A")
	if err != nil || obs.RRset != nil {
		t.Fatalf("empty zone: %+v, %v", obs, err)
	}
	reads("first poll", 1)
	_, _, _ = a.GetCached(ctx, "cache.example.com", "mail", "A")
	reads("another record of the zone, same identity", 1)
	_, _, _ = b.GetCached(ctx, "cache.example.com", "www", "A")
	reads("another identity (credentials)", 2)
	if err := a.Set(ctx, "cache.example.com", want, owner); err != nil {
		t.Fatal(err)
	}
	obs, _, _ = a.GetCached(ctx, "cache.example.com", "www", "A")
	reads("after a write", 3)
	if obs.RRset == nil || obs.Owner != owner {
		t.Errorf("after a write the cache shows %+v, want the written record set and its owner", obs)
	}
	_, _ = a.Get(ctx, "cache.example.com", "www", "A")
	reads("Get", 4)
	now = now.Add(ZoneCacheTTL + time.Second)
	_, _, _ = a.GetCached(ctx, "cache.example.com", "www", "A")
	reads("an expired read", 5)
	now = now.Add(-time.Hour)
	_, _, _ = a.GetCached(ctx, "cache.example.com", "www", "A")
	reads("a read from the future (clock set back)", 6)

	// A client of another cache (another manager) shares nothing, and
	// one without a cache reads every time.
	other := newClient("team-a")
	other.cache = NewZoneCache()
	_, _, _ = other.GetCached(ctx, "cache.example.com", "www", "A")
	reads("the same identity in another cache", 7)
	none := newClient("team-a")
	none.cache = nil
	for i := range 2 {
		if _, fresh, _ := none.GetCached(ctx, "cache.example.com", "www", "A"); !fresh {
			t.Errorf("no cache, poll %d: want a fresh read", i)
		}
	}
	reads("no cache", 9)
}

// TestGetCachedWriteDuringRead: a read that began before a write through
// a client (another reconcile of the same zone, say) is not cached, or
// the write would look undone until the read expired; a read that began
// after it is.
func TestGetCachedWriteDuringRead(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	z := &zone{}
	c := &Client{p: z, b: backends["rfc2136"], id: identity(Config{Provider: "rfc2136", Server: "127.0.0.1:53", Secret: "during"}), now: func() time.Time { return now }, cache: NewZoneCache()}
	z.during = func() {
		now = now.Add(time.Second)
		if err := c.Set(ctx, "race.example.com", RRset{Name: "www", Type: "A", TTL: time.Minute, Values: []string{"192.0.2.1"}}, Owner{ID: "cp1", Resource: "team/www"}); err != nil {
			t.Error(err)
		}
		now = now.Add(time.Second)
	}
	if obs, _, err := c.GetCached(ctx, "race.example.com", "www", "A"); err != nil || obs.RRset != nil {
		t.Fatalf("the read from before the write: %+v, %v", obs, err)
	}
	obs, fresh, err := c.GetCached(ctx, "race.example.com", "www", "A")
	if err != nil || !fresh || obs.RRset == nil {
		t.Fatalf("after the write: %+v fresh=%v %v, want a fresh read showing the record set", obs, fresh, err)
	}
	now = now.Add(time.Second)
	if _, fresh, _ := c.GetCached(ctx, "race.example.com", "www", "A"); fresh {
		t.Error("a read that began after the write was not cached")
	}
}

// TestZoneCacheBytesBounded: a server answering every zone read with just
// under the transfer limits cannot make the cache hold more than its
// byte budget, however many zones it is asked for; small zones are still
// cached beside it.
func TestZoneCacheBytesBounded(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	cache := NewZoneCache()
	big := &zone{}
	text := string(make([]byte, 150))
	for i := range 47_000 {
		big.recs = append(big.recs, libdns.TXT{Name: "r" + time.Duration(i).String(), Text: text})
	}
	// One namespace reading with four configs' credentials, and many
	// small zones besides: together they take one share.
	tiny := &zone{recs: []libdns.Record{libdns.TXT{Name: "t", Text: "x"}}}
	for k := range 4 {
		c := &Client{p: big, b: backends["rfc2136"], id: identity(Config{Provider: "rfc2136", Server: "192.0.2.53:53", KeyName: fmt.Sprint("k", k), Secret: "evil"}), now: func() time.Time { return now }, share: "evil", cache: cache}
		for i := range 40 {
			if _, _, err := c.GetCached(ctx, "z"+time.Duration(i).String()+".example.com", "www", "A"); err != nil {
				t.Fatal(err)
			}
		}
		c.p = tiny
		for i := range maxCachedZones {
			if _, _, err := c.GetCached(ctx, fmt.Sprint("tiny", i, ".example.com"), "www", "A"); err != nil {
				t.Fatal(err)
			}
		}
	}
	cache.mu.Lock()
	held, n, theirs, count := cache.bytes, len(cache.m), cache.by["evil"], cache.count["evil"]
	cache.mu.Unlock()
	if held > maxCachedBytes || theirs > maxShareBytes || count > maxShareZones {
		t.Errorf("the cache holds %d bytes in %d reads, %d bytes in %d reads of one namespace: over its budget of %d, %d bytes and %d reads each", held, n, theirs, count, maxCachedBytes, maxShareBytes, maxShareZones)
	}
	// Another tenant's zone of about 8 MB: the big one's reads, which
	// would fill the whole budget, leave room for it.
	small := &zone{}
	for i := range 25_000 {
		small.recs = append(small.recs, libdns.TXT{Name: "s" + time.Duration(i).String(), Text: text})
	}
	s := &Client{p: small, b: backends["rfc2136"], id: identity(Config{Provider: "rfc2136", Server: "192.0.2.54:53", Secret: "team-a"}), now: func() time.Time { return now }, share: "team-a", cache: cache}
	_, _, _ = s.GetCached(ctx, "small.example.com", "www", "A")
	_, _, _ = s.GetCached(ctx, "small.example.com", "www", "A")
	if small.reads != 1 {
		t.Errorf("another tenant's zone was read %d times within its TTL beside the big ones, want 1", small.reads)
	}
}

// TestGetCachedOtherNamesAfterWrite: a write through a client marks its
// name only: the other names of the zone are still served from the read
// that began before it; the written one is read again.
func TestGetCachedOtherNamesAfterWrite(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	z := &zone{}
	c := &Client{p: z, b: backends["rfc2136"], id: identity(Config{Provider: "rfc2136", Server: "127.0.0.1:53", Secret: "names"}), now: func() time.Time { return now }, cache: NewZoneCache()}
	for _, name := range []string{"www", "mail"} {
		if _, _, err := c.GetCached(ctx, "names.example.com", name, "A"); err != nil {
			t.Fatal(err)
		}
	}
	now = now.Add(time.Second)
	if err := c.Set(ctx, "names.example.com", RRset{Name: "WWW", Type: "A", TTL: time.Minute, Values: []string{"192.0.2.1"}}, Owner{ID: "cp1", Resource: "team/www"}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Second)
	if _, fresh, _ := c.GetCached(ctx, "names.example.com", "mail", "A"); fresh || z.reads != 1 {
		t.Errorf("another name after a write: fresh=%t after %d reads, want it served from the first read", fresh, z.reads)
	}
	obs, fresh, _ := c.GetCached(ctx, "names.example.com", "www", "A")
	if !fresh || z.reads != 2 || obs.RRset == nil {
		t.Errorf("the written name: %+v fresh=%t after %d reads, want a second, fresh read showing the write", obs, fresh, z.reads)
	}
}

// gatedZone blocks each zone read until released, and answers with the
// number of the read, so a caller can tell which read it got.
type gatedZone struct {
	mu      sync.Mutex
	reads   int
	started chan int
	release chan struct{}
}

func (g *gatedZone) GetRecords(context.Context, string) ([]libdns.Record, error) {
	g.mu.Lock()
	g.reads++
	n := g.reads
	g.mu.Unlock()
	g.started <- n
	<-g.release
	return []libdns.Record{libdns.TXT{Name: "read", Text: fmt.Sprint(n)}}, nil
}

func (g *gatedZone) SetRecords(_ context.Context, _ string, recs []libdns.Record) ([]libdns.Record, error) {
	return recs, nil
}

func (g *gatedZone) DeleteRecords(_ context.Context, _ string, recs []libdns.Record) ([]libdns.Record, error) {
	return recs, nil
}

// TestFreshReadsShared: callers asking for a fresh read while one is in
// flight do not get that one, which began before they asked, but all
// share the next; reads of one zone by one identity never overlap.
func TestFreshReadsShared(t *testing.T) {
	ctx := context.Background()
	g := &gatedZone{started: make(chan int, 10), release: make(chan struct{})}
	// Every caller reads the clock once when it asks; the first once more
	// when its read begins.
	var asked atomic.Int64
	clock := func() time.Time { asked.Add(1); return time.Now() }
	c := &Client{p: g, b: backends["rfc2136"], id: identity(Config{Provider: "rfc2136", Server: "127.0.0.1:53", Secret: "shared"}), now: clock, cache: NewZoneCache()}
	got := make(chan string, 11)
	get := func() {
		obs, err := c.Get(ctx, "shared.example.com", "read", "TXT")
		if err != nil || obs.RRset == nil {
			got <- fmt.Sprintf("error %v", err)
			return
		}
		got <- obs.RRset.Values[0]
	}
	go get()
	<-g.started // the first read is in flight
	for range 10 {
		go get()
	}
	// Wait until the ten have asked, after the first read began.
	for deadline := time.Now().Add(time.Minute); asked.Load() < 12; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d clock reads", asked.Load())
		}
	}
	g.release <- struct{}{}
	if first := <-got; first != `"1"` && first != "1" {
		t.Errorf("the first caller got %s, want read 1", first)
	}
	if n := <-g.started; n != 2 {
		t.Fatalf("read %d started, want 2", n)
	}
	close(g.release)
	for range 10 {
		if v := <-got; v != `"2"` && v != "2" {
			t.Errorf("a caller that asked during read 1 got %s, want read 2", v)
		}
	}
	if g.reads != 2 {
		t.Errorf("%d zone reads for 11 callers, want 2", g.reads)
	}
}

// closingZone's first read waits for its caller's context to end and then
// fails as an AXFR whose connection was closed does; later reads answer.
type closingZone struct {
	mu      sync.Mutex
	reads   int
	started chan struct{}
}

func (z *closingZone) GetRecords(ctx context.Context, _ string) ([]libdns.Record, error) {
	z.mu.Lock()
	z.reads++
	first := z.reads == 1
	z.mu.Unlock()
	if first {
		close(z.started)
		<-ctx.Done()
		return nil, fmt.Errorf("start zone transfer: use of closed network connection")
	}
	return []libdns.Record{libdns.TXT{Name: "read", Text: "fresh"}}, nil
}

func (z *closingZone) SetRecords(_ context.Context, _ string, recs []libdns.Record) ([]libdns.Record, error) {
	return recs, nil
}

func (z *closingZone) DeleteRecords(_ context.Context, _ string, recs []libdns.Record) ([]libdns.Record, error) {
	return recs, nil
}

// TestFreshReadOwnerGone: a shared read fails because the caller making
// it went away (its context ended), with an error that does not say so (an
// AXFR's closed connection): the callers still waiting for it read again
// instead of taking that error; one whose own context ended takes it.
func TestFreshReadOwnerGone(t *testing.T) {
	z := &closingZone{started: make(chan struct{})}
	c := &Client{p: z, b: backends["rfc2136"], id: identity(Config{Provider: "rfc2136", Server: "127.0.0.1:53", Secret: "gone"}), now: time.Now, cache: NewZoneCache()}
	asked := time.Now()
	ownerCtx, leave := context.WithCancel(context.Background())
	f := &flight{start: time.Now().Add(time.Millisecond), done: make(chan struct{})}
	go func() { <-z.started; leave() }()
	if _, err := c.fly(ownerCtx, "gone.example.com", c.zoneKey("gone.example.com"), f); err == nil || !f.ownerGone {
		t.Fatalf("the owner's read: %v, ownerGone %t; want its error, marked as its owner's", err, f.ownerGone)
	}
	if f.served(context.Background(), asked) {
		t.Error("a waiter whose context is live took the read its owner abandoned")
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if !f.served(ended, asked) {
		t.Error("a waiter whose own context ended was sent to read again")
	}
}

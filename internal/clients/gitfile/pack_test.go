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

package gitfile

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/netguard"
)

// packed is one object of a hand-made pack.
type packed struct {
	typ plumbing.ObjectType
	// size is what the header declares; content is what is deflated.
	size    int64
	content []byte
	// base is the index of an OFS delta's base.
	base int
}

// pack writes a version 2 pack claiming count objects (len(objs) when 0).
func pack(t *testing.T, count uint32, objs ...packed) []byte {
	t.Helper()
	if count == 0 {
		count = uint32(len(objs))
	}
	var b bytes.Buffer
	b.WriteString("PACK")
	_ = binary.Write(&b, binary.BigEndian, uint32(2))
	_ = binary.Write(&b, binary.BigEndian, count)
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		size := uint64(o.size)
		c := byte(o.typ)<<4 | byte(size&0x0f)
		for size >>= 4; size != 0; size >>= 7 {
			b.WriteByte(c | 0x80)
			c = byte(size & 0x7f)
		}
		b.WriteByte(c)
		if o.typ == plumbing.OFSDeltaObject {
			n := uint64(offsets[i] - offsets[o.base])
			enc := []byte{byte(n & 0x7f)}
			for n >>= 7; n != 0; n >>= 7 {
				n--
				enc = append([]byte{byte(0x80 | n&0x7f)}, enc...)
			}
			b.Write(enc)
		}
		z, _ := zlib.NewWriterLevel(&b, zlib.BestSpeed)
		if _, err := z.Write(o.content); err != nil {
			t.Fatal(err)
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
	}
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}

// delta writes a delta's header, then its instructions.
func delta(src, target uint64, ops ...byte) []byte {
	var d []byte
	for _, v := range []uint64{src, target} {
		for ; v >= 0x80; v >>= 7 {
			d = append(d, byte(v)|0x80)
		}
		d = append(d, byte(v))
	}
	return append(d, ops...)
}

// ofsDelta is delta d of the object at index base.
func ofsDelta(d []byte, base int) packed {
	return packed{typ: plumbing.OFSDeltaObject, size: int64(len(d)), content: d, base: base}
}

func blob(content []byte) packed {
	return packed{typ: plumbing.BlobObject, size: int64(len(content)), content: content}
}

// TestCheckPackRefuses holds checkPack to packs a hostile server could
// send: each is refused after the allocations of reading it once.
func TestCheckPackRefuses(t *testing.T) {
	const budget = 4 << 20
	zeros := make([]byte, 64<<20)
	base := bytes.Repeat([]byte("a"), 0x10000)
	// onBase is a pack of base and one delta d of it.
	onBase := func(d []byte) func(*testing.T) []byte {
		return func(t *testing.T) []byte { return pack(t, 0, blob(base), ofsDelta(d, 0)) }
	}
	cases := map[string]struct {
		reason string
		pack   func(t *testing.T) []byte
		want   string
	}{
		"DeclaredTooLarge": {
			reason: "An object declaring more than the budget is refused before it is inflated.",
			pack:   func(t *testing.T) []byte { return pack(t, 0, blob(zeros)) },
			want:   "more than 4 MiB",
		},
		"InflatesPastDeclared": {
			reason: "A zlib stream inflating past the size its object declares is cut off there.",
			pack: func(t *testing.T) []byte {
				return pack(t, 0, packed{typ: plumbing.BlobObject, size: 100, content: zeros})
			},
			want: "inflates to more than the 100 bytes it declares",
		},
		"InflatesShort": {
			reason: "An object inflating to less than it declares is refused.",
			pack: func(t *testing.T) []byte {
				return pack(t, 0, packed{typ: plumbing.BlobObject, size: 100, content: []byte("x")})
			},
			want: "inflates to 1 bytes, not the 100",
		},
		"ManySmallTooMuch": {
			reason: "Objects each within the budget but together past it are refused.",
			pack: func(t *testing.T) []byte {
				var objs []packed
				for i := 0; i < 3; i++ {
					objs = append(objs, blob(zeros[:budget/2]))
				}
				return pack(t, 0, objs...)
			},
			want: "more than 4 MiB",
		},
		"DeltaAmplifies": {
			reason: "A delta whose copies build more than its target is refused; go-git would apply every copy.",
			pack: func(t *testing.T) []byte {
				// 0x80 alone copies 64 KiB from the base's start: a
				// million of them would build 64 GiB from a 1 MiB delta.
				d := delta(0x10000, 0x10001, bytes.Repeat([]byte{0x80}, 1<<19)...)
				return pack(t, 0, blob(base), ofsDelta(d, 0))
			},
			want: "builds more than its target size",
		},
		"DeltaTargetTooLarge": {
			reason: "A delta declaring a target past the budget is refused.",
			pack:   onBase(delta(0x10000, 64<<20, 0x80)),
			want:   "more than 4 MiB",
		},
		"DeltaShort": {
			reason: "A delta building less than its target is refused.",
			pack:   onBase(delta(0x10000, 0x20000, 0x80)),
			want:   "builds less than its target size",
		},
		"DeltaOutsideBase": {
			reason: "A copy from beyond the base's end is refused.",
			pack:   onBase(delta(0x10000, 0x10000, 0x91, 0x01, 0x00)), // offset 1, 64 KiB
			want:   "copies from outside its base",
		},
		"DeltaWrongBase": {
			reason: "A delta declaring another base size than its base's is refused.",
			pack: func(t *testing.T) []byte {
				d := delta(0x20000, 0x10000, 0x80)
				return pack(t, 0, blob(base), blob(base), ofsDelta(d, 1))
			},
			want: "does not fit its base",
		},
		"DeltaReserved": {
			reason: "Instruction 0 is reserved; go-git would stop there and call the object good.",
			pack:   onBase(delta(0x10000, 1, 0x00)),
			want:   "reserved instruction",
		},
		"DeltaOwnBase": {
			reason: "A delta whose base offset is its own (or after it) is refused: a base comes first.",
			pack: func(t *testing.T) []byte {
				d := delta(0x10000, 1, 0x01, 'x')
				return pack(t, 0, blob(base), ofsDelta(d, 1))
			},
			want: "does not fit its base",
		},
		"DeltaFanOut": {
			reason: "Many small deltas of one big base are refused: go-git reads the whole base again for each, which the resolved sizes do not show.",
			pack: func(t *testing.T) []byte {
				objs := []packed{blob(zeros[:1<<20])}
				for i := 0; i < 200; i++ {
					d := delta(1<<20, 1, 0x01, byte('a'+i%26))
					objs = append(objs, ofsDelta(d, 0))
				}
				return pack(t, 0, objs...)
			},
			want: "applied to more than 128 MiB of bases",
		},
		"CountTooLarge": {
			reason: "A pack claiming more objects than a build file's repository may have is refused before anything is sized by it.",
			pack:   func(t *testing.T) []byte { return pack(t, 1<<32-1, blob([]byte("x"))) },
			want:   "holds 4294967295 files and folders",
		},
		"CountLies": {
			reason: "A pack claiming more objects than it holds is broken.",
			pack:   func(t *testing.T) []byte { return pack(t, 1000, blob([]byte("x"))) },
			want:   "broken Git pack",
		},
		"NotAPack": {
			reason: "Anything else is no pack.",
			pack:   func(t *testing.T) []byte { return []byte("<html>login</html>") },
			want:   "no Git pack",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := tc.pack(t)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := checkPack(p, budget, 1000)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%s\ncheckPack: want an error containing %q, got %v", tc.reason, tc.want, err)
			}
			if a := after.TotalAlloc - before.TotalAlloc; a > 8<<20 {
				t.Errorf("%s\ncheckPack allocated %d MiB to refuse a %d KiB pack", tc.reason, a>>20, len(p)>>10)
			}
		})
	}
}

// TestUnpackGitPacks holds checkPack and unpack to packs real Git writes,
// with deltas by offset and by reference: they are accepted, and every
// file reads back as committed.
func TestUnpackGitPacks(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("git is not installed")
		}
		t.Skip("skipped outside CI: git is not installed")
	}
	dir := t.TempDir()
	run := func(stdin []byte, args ...string) []byte {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		c.Stdin = bytes.NewReader(stdin)
		out, err := c.Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return out
	}
	run(nil, "init", "-q", "-b", "main")
	files := map[string]string{}
	var lines []string
	for i := 0; i < 400; i++ {
		lines = append(lines, strings.Repeat("stage build step ", 3)+string(rune('a'+i%26)))
	}
	text := strings.Join(lines, "\n")
	for i := 0; i < 6; i++ {
		name := filepath.Join(".devops", "pipeline-"+string(rune('0'+i))+".yaml")
		files[name] = text + "\n# variant " + string(rune('0'+i)) + "\n"
		if err := os.MkdirAll(filepath.Join(dir, ".devops"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(files[name]), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	run(nil, "add", ".")
	run(nil, "commit", "-q", "-m", "pipelines")
	head := plumbing.NewHash(strings.TrimSpace(string(run(nil, "rev-parse", "HEAD"))))
	objects := run(nil, "rev-list", "--objects", "HEAD")
	for name, args := range map[string][]string{
		"ByOffset":    {"pack-objects", "--stdout", "--delta-base-offset", "--window=10"},
		"ByReference": {"pack-objects", "--stdout", "--window=10"},
	} {
		t.Run(name, func(t *testing.T) {
			p := run(objects, args...)
			if n := deltas(t, p); n == 0 {
				t.Fatal("git wrote no delta; the test would not test deltas")
			}
			if err := checkPack(p, 32<<20, 1000); err != nil {
				t.Fatalf("checkPack refused git's own pack: %v", err)
			}
			st, err := unpack(p)
			if err != nil {
				t.Fatalf("unpack: %v", err)
			}
			c, err := object.GetCommit(st, head)
			if err != nil {
				t.Fatal(err)
			}
			tree, err := c.Tree()
			if err != nil {
				t.Fatal(err)
			}
			for path, want := range files {
				f, err := tree.File(path)
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if got, _ := f.Contents(); got != want {
					t.Errorf("%s reads back otherwise than committed", path)
				}
			}
		})
	}
}

// deltas counts the deltas in a pack.
func deltas(t *testing.T, p []byte) int {
	t.Helper()
	sc := packfile.NewScanner(bytes.NewReader(p))
	_, count, err := sc.Header()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := uint32(0); i < count; i++ {
		oh, err := sc.NextObjectHeader()
		if err != nil {
			t.Fatal(err)
		}
		if oh.Type.IsDelta() {
			n++
		}
		if _, _, err := sc.NextObject(&bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// TestReadRefusesHostilePack serves a pack whose one delta would build
// 32 GiB in go-git, through the Reader's whole path: refs, fetch, unpack.
func TestReadRefusesHostilePack(t *testing.T) {
	base := bytes.Repeat([]byte("a"), 0x10000)
	d := delta(0x10000, 0x10001, bytes.Repeat([]byte{0x80}, 1<<19)...)
	hostile := pack(t, 0, blob(base), ofsDelta(d, 0))
	head := strings.Repeat("ab", 20)
	pkt := func(s string) string { return fmt.Sprintf("%04x%s", len(s)+4, s) }
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/info/refs"):
			w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
			_, _ = io.WriteString(w, pkt("# service=git-upload-pack\n")+"0000"+pkt(head+" refs/heads/main\x00shallow no-progress ofs-delta\n")+"0000")
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-upload-pack"):
			w.Header().Set("Content-Type", "application/x-git-upload-pack-result")
			_, _ = io.WriteString(w, pkt("shallow "+head+"\n")+"0000"+pkt("NAK\n"))
			_, _ = w.Write(hostile)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	loopback, err := netguard.New(nil, []string{"127.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	rd := NewReader(httpapi.TLS{CABundle: ca, Tenant: true, Guard: loopback}, 1024)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = rd.Read(context.Background(), Request{URL: srv.URL + "/team/shop.git", Branch: "main", Path: "f"})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "builds more than its target size") {
		t.Fatalf("Read: want the hostile delta refused, got %v", err)
	}
	if a := after.TotalAlloc - before.TotalAlloc; a > 32<<20 {
		t.Errorf("Read allocated %d MiB to refuse a %d KiB pack", a>>20, len(hostile)>>10)
	}
}

// TestReadFileHugeTree reads a path through a tree of a million entries
// (31 MiB): the walk reads the stored tree entry by entry and allocates
// next to nothing beyond unpacking, where decoding the tree would hold
// it several times over.
func TestReadFileHugeTree(t *testing.T) {
	var tree []byte
	var zero [20]byte
	for i := 0; len(tree)+26 <= 31<<20; i++ {
		tree = append(tree, '0', ' ', byte(1+i%250), byte(1+(i/250)%250), byte(1+(i/62500)%250), 0)
		tree = append(tree, zero[:]...)
	}
	th := plumbing.ComputeHash(plumbing.TreeObject, tree)
	commit := []byte("tree " + th.String() + "\nauthor a <a> 0 +0000\ncommitter a <a> 0 +0000\n\nm\n")
	ch := plumbing.ComputeHash(plumbing.CommitObject, commit)
	p := pack(t, 0,
		packed{typ: plumbing.CommitObject, size: int64(len(commit)), content: commit},
		packed{typ: plumbing.TreeObject, size: int64(len(tree)), content: tree})
	alloc := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	unpacking := alloc(func() {
		if _, err := unpack(p); err != nil {
			t.Fatal(err)
		}
	})
	var err error
	reading := alloc(func() { _, err = readFile(p, ch, ".devops/pipeline.yaml", 1024) })
	if !IsNotFound(err) {
		t.Fatalf("readFile: want NotFound, got %v", err)
	}
	if extra := int64(reading) - int64(unpacking); extra > 8<<20 {
		t.Errorf("walking the path allocated %d MiB beyond unpacking's %d MiB", extra>>20, unpacking>>20)
	}
}

// TestReadRefusesManyRefs serves a branch list past MaxRefs, behind a
// same-origin redirect: it is refused as it is read, not parsed whole.
func TestReadRefusesManyRefs(t *testing.T) {
	head := strings.Repeat("ab", 20)
	pkt := func(s string) string { return fmt.Sprintf("%04x%s", len(s)+4, s) }
	var adv bytes.Buffer
	adv.WriteString(pkt("# service=git-upload-pack\n") + "0000" + pkt(head+" refs/heads/main\x00shallow no-progress ofs-delta\n"))
	for i := 0; adv.Len() < 2*MaxRefs; i++ {
		adv.WriteString(pkt(fmt.Sprintf("%s refs/tags/v%d\n", head, i)))
	}
	adv.WriteString("0000")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A redirect to another path of the same server is followed,
		// and the bound still holds there.
		if strings.HasSuffix(r.URL.Path, "/info/refs") {
			http.Redirect(w, r, "/elsewhere?service=git-upload-pack", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
		_, _ = w.Write(adv.Bytes())
	}))
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	loopback, err := netguard.New(nil, []string{"127.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	rd := NewReader(httpapi.TLS{CABundle: ca, Tenant: true, Guard: loopback}, 1024)
	_, err = rd.Read(context.Background(), Request{URL: srv.URL + "/team/shop.git", Branch: "main", Path: "f"})
	if err == nil || !strings.Contains(err.Error(), "more than 4 MiB of branches and tags") {
		t.Fatalf("Read: want the branch list refused, got %v", err)
	}
}

// TestCacheBounded keeps files past the cache's bound: the oldest go,
// and the cache holds at most cacheBytes.
func TestCacheBounded(t *testing.T) {
	rd := NewReader(httpapi.TLS{}, 1<<20)
	for i := 0; i < 40; i++ {
		rd.keep(fmt.Sprint(i), make([]byte, 1<<20))
	}
	if rd.held > cacheBytes || len(rd.cache) > cacheBytes>>20 {
		t.Errorf("the cache holds %d files, %d bytes; want at most %d bytes", len(rd.cache), rd.held, cacheBytes)
	}
	if _, ok := rd.cached("39"); !ok {
		t.Error("the file kept last is not in the cache")
	}
	rd.keep("big", make([]byte, cacheBytes+1))
	if _, ok := rd.cached("big"); ok {
		t.Error("a file larger than the cache was kept")
	}
}

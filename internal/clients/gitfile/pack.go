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
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// A pack comes from a server the tenant chose, so what it claims is not
// believed: before go-git's parser, which sizes buffers and maps by what a
// pack declares and applies deltas without holding them to their target
// size, checkPack reads the whole pack once and refuses it unless
//   - it holds at most MaxObjects objects,
//   - each object inflates to exactly the size it declares,
//   - each delta's instructions stay inside its base and build exactly
//     the target it declares, and
//   - everything the commit holds, resolved, comes to at most MaxInflated,
//     and the bases the deltas are applied to, each time, to MaxDeltaWork.
//
// The parser then holds at most that much, plus its cache of bases, and
// a Reader unpacks at most MaxUnpacking packs at a time.
const (
	// MaxUnpacking bounds how many packs one Reader holds at once.
	MaxUnpacking = 2
	// MaxPack bounds the pack as it is downloaded.
	MaxPack = 32 << 20
	// MaxInflated bounds what a pack's objects come to, inflated and
	// resolved: the size of the commit's files and folders together.
	MaxInflated = 32 << 20
	// MaxObjects bounds how many files and folders the commit holds.
	MaxObjects = 100000
	// MaxDeltaWork bounds the bases the pack's deltas are applied to,
	// together: go-git reads a delta's whole base again for each delta,
	// so a big base with many small deltas costs memory and time the
	// resolved sizes do not show.
	MaxDeltaWork = 128 << 20
)

// unpack checks pack and reads its objects into memory.
func unpack(pack []byte) (*memory.Storage, error) {
	if err := checkPack(pack, MaxInflated, MaxObjects); err != nil {
		return nil, err
	}
	st := memory.NewStorage()
	// A bytes.Reader makes the scanner seekable: deltas are read again
	// from the pack, never buffered by their declared size.
	if err := packfile.UpdateObjectStorage(st, bytes.NewReader(pack)); err != nil {
		return nil, errors.Wrap(err, "cannot read the fetched commit")
	}
	return st, nil
}

// errTooLarge names the bound a pack exceeds.
func errTooLarge(budget int64) error {
	return errors.Errorf("the fetched commit's files come to more than %d MiB; a build file is read only from a repository whose head commit, all files together, is smaller", budget>>20)
}

// checkPack is the single pass described above.
func checkPack(pack []byte, budget int64, maxObjects uint32) error {
	sc := packfile.NewScanner(bytes.NewReader(pack))
	_, count, err := sc.Header()
	if err != nil {
		return errors.Wrap(err, "the server sent no Git pack")
	}
	if count > maxObjects {
		return errors.Errorf("the fetched commit holds %d files and folders, more than the %d a build file's repository may have", count, maxObjects)
	}
	p := &packCheck{sc: sc, budget: budget, left: budget, work: MaxDeltaWork, sizes: make(map[int64]int64, count)}
	for i := uint32(0); i < count; i++ {
		if err := p.next(); err != nil {
			return err
		}
	}
	return nil
}

// packCheck is checkPack's state: what is left of the budget, and the
// resolved size of each object read, by offset.
type packCheck struct {
	sc           *packfile.Scanner
	budget, left int64
	// work is what is left of MaxDeltaWork.
	work  int64
	sizes map[int64]int64
}

// next checks the next object.
func (p *packCheck) next() error {
	oh, err := p.sc.NextObjectHeader()
	if err != nil {
		return errors.Wrap(err, "the server sent a broken Git pack")
	}
	if oh.Length < 0 || oh.Length > p.left {
		return errTooLarge(p.budget)
	}
	w := &inflated{max: oh.Length, keep: oh.Type.IsDelta()}
	n, _, err := p.sc.NextObject(w)
	switch {
	case w.over:
		return errors.Errorf("the server sent a broken Git pack: the object at byte %d inflates to more than the %d bytes it declares", oh.Offset, oh.Length)
	case err != nil:
		return errors.Wrap(err, "the server sent a broken Git pack")
	case n != oh.Length:
		return errors.Errorf("the server sent a broken Git pack: the object at byte %d inflates to %d bytes, not the %d it declares", oh.Offset, n, oh.Length)
	}
	p.left -= n
	p.sizes[oh.Offset] = n
	if !oh.Type.IsDelta() {
		return nil
	}
	src, target, err := checkDelta(w.buf.Bytes(), p.left)
	if target > p.left {
		return errTooLarge(p.budget)
	}
	if err != nil {
		return errors.Wrapf(err, "the server sent a broken Git pack: the delta at byte %d", oh.Offset)
	}
	if oh.Type == plumbing.OFSDeltaObject {
		// A base comes before its delta (go-git would look for one at
		// or after it in vain), and has the size the delta expects.
		if base, ok := p.sizes[oh.OffsetReference]; oh.OffsetReference >= oh.Offset || !ok || base != src {
			return errors.Errorf("the server sent a broken Git pack: the delta at byte %d does not fit its base", oh.Offset)
		}
	}
	if src > p.work {
		return errors.Errorf("the fetched commit's deltas are applied to more than %d MiB of bases; a build file is read only from a repository whose head commit is smaller", MaxDeltaWork>>20)
	}
	p.work -= src
	p.left -= target
	p.sizes[oh.Offset] = target
	return nil
}

// inflated counts an object's inflated bytes, keeping them for a delta,
// and fails the copy past max.
type inflated struct {
	max, n int64
	keep   bool
	over   bool
	buf    bytes.Buffer
}

func (w *inflated) Write(p []byte) (int, error) {
	if w.n+int64(len(p)) > w.max {
		w.over = true
		return 0, io.ErrShortWrite
	}
	w.n += int64(len(p))
	if w.keep {
		w.buf.Write(p)
	}
	return len(p), nil
}

// checkDelta reads a delta's instructions as Git does, returning the
// sizes of its base and target: every copy lies inside the base, and the
// copies and inserts together build exactly the target. A target past
// limit is returned at once, unchecked.
func checkDelta(d []byte, limit int64) (src, target int64, err error) {
	src, d, ok := leb128(d)
	if !ok {
		return 0, 0, errors.New("has no base size")
	}
	target, d, ok = leb128(d)
	if !ok {
		return 0, 0, errors.New("has no target size")
	}
	if target > limit {
		return src, target, errors.New("builds too much")
	}
	var built int64
	for len(d) > 0 {
		cmd := d[0]
		var n int64
		switch {
		case cmd&0x80 != 0:
			var off int64
			off, n, d, ok = copyOp(d)
			if !ok {
				return 0, 0, errors.New("ends inside a copy")
			}
			if off+n > src {
				return 0, 0, errors.New("copies from outside its base")
			}
		case cmd != 0:
			n = int64(cmd)
			if int64(len(d)) <= n {
				return 0, 0, errors.New("ends inside an insert")
			}
			d = d[1+n:]
		default:
			return 0, 0, errors.New("holds the reserved instruction 0")
		}
		built += n
		if built > target {
			return 0, 0, errors.New("builds more than its target size")
		}
	}
	if built != target {
		return 0, 0, errors.New("builds less than its target size")
	}
	return src, target, nil
}

// copyOp reads a copy instruction at d's start: up to four bytes of
// offset and three of size, each present when its bit of the first byte
// is set; size 0 means 64 KiB.
func copyOp(d []byte) (off, n int64, rest []byte, ok bool) {
	cmd, d := d[0], d[1:]
	for i, v := 0, &off; i < 7; i++ {
		if i == 4 {
			v = &n
		}
		if cmd&(1<<i) == 0 {
			continue
		}
		if len(d) == 0 {
			return 0, 0, nil, false
		}
		*v |= int64(d[0]) << (8 * (i % 4))
		d = d[1:]
	}
	if n == 0 {
		n = 0x10000
	}
	return off, n, d, true
}

// leb128 reads a delta header's size: at most 63 bits.
func leb128(d []byte) (int64, []byte, bool) {
	var v int64
	for i := 0; i < len(d) && i < 9; i++ {
		v |= int64(d[i]&0x7f) << (7 * i)
		if d[i]&0x80 == 0 {
			return v, d[i+1:], true
		}
	}
	return 0, nil, false
}

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

package migrate

import (
	"fmt"
	"sort"
	"strings"
)

// Outcome is what became of an operator object.
type Outcome string

// Outcomes, from best to worst.
const (
	// Adopted: carried over as it was; what it made is taken over in
	// place.
	Adopted Outcome = "adopted"
	// Changed: carried over, with differences the notes name and explain.
	Changed Outcome = "changed"
	// NotCarried: not carried over; the notes say what the user must do.
	NotCarried Outcome = "not carried over"
)

// Entry is the report on one operator object.
type Entry struct {
	Kind, Namespace, Name string
	Outcome               Outcome
	// Notes say what was adopted, what changed and why, or what to do.
	// They never hold a credential: only names of Secrets and ids.
	Notes []string
}

// Report is the entries of a migration, one per operator object.
type Report struct {
	entries map[string]*Entry
	order   []string
}

func (r *Report) entry(kind, ns, name string) *Entry {
	if r.entries == nil {
		r.entries = map[string]*Entry{}
	}
	k := kind + "/" + ns + "/" + name
	e, ok := r.entries[k]
	if !ok {
		e = &Entry{Kind: kind, Namespace: ns, Name: name, Outcome: Adopted}
		r.entries[k] = e
		r.order = append(r.order, k)
	}
	return e
}

// note adds a note to an object's entry, making its outcome o unless it
// is already worse.
func (r *Report) note(kind, ns, name string, o Outcome, format string, a ...any) {
	e := r.entry(kind, ns, name)
	if rank(o) > rank(e.Outcome) {
		e.Outcome = o
	}
	e.Notes = append(e.Notes, fmt.Sprintf(format, a...))
}

func rank(o Outcome) int {
	switch o {
	case Adopted:
		return 0
	case Changed:
		return 1
	case NotCarried:
		return 2
	}
	return 0
}

// Entries are the entries ordered by kind (in the order of Kinds),
// namespace and name.
func (r *Report) Entries() []Entry {
	pos := map[string]int{}
	for i, k := range Kinds() {
		pos[k.Kind] = i
	}
	out := make([]Entry, 0, len(r.order))
	for _, k := range r.order {
		out = append(out, *r.entries[k])
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if pos[a.Kind] != pos[b.Kind] {
			return pos[a.Kind] < pos[b.Kind]
		}
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	return out
}

// String is the report as a reader wants it: one block per object.
func (r *Report) String() string {
	var b strings.Builder
	counts := map[Outcome]int{}
	for _, e := range r.Entries() {
		counts[e.Outcome]++
		fmt.Fprintf(&b, "%s %s/%s: %s\n", e.Kind, e.Namespace, e.Name, e.Outcome)
		for _, n := range e.Notes {
			fmt.Fprintf(&b, "  - %s\n", n)
		}
	}
	fmt.Fprintf(&b, "%d adopted, %d changed, %d not carried over\n", counts[Adopted], counts[Changed], counts[NotCarried])
	return b.String()
}

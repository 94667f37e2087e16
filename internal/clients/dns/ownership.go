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
	"strings"

	"github.com/libdns/libdns"
)

// typeTXT is the record type of ownership records (and of TXT record
// sets, whose values are quoted).
const typeTXT = "TXT"

// The ownership registry, as external-dns keeps one in TXT records: a
// companion TXT record beside each record set names the resource and the
// control plane that own it. Separate from the backends (backend.go), as
// external-dns separates its TXT registry from its providers.

// Owner is who holds a record set: a resource (namespace/name) in the
// control plane identified by ID, like external-dns's --txt-owner-id. Two
// control planes with different IDs never touch each other's record sets,
// even for resources of the same namespace and name.
type Owner struct {
	ID       string
	Resource string
}

// DefaultOwnerID is the owner ID of ownership records written before owner
// IDs existed, and the provider's default.
const DefaultOwnerID = "default"

// String names the owner in messages.
func (o Owner) String() string {
	if o.ID == DefaultOwnerID {
		return o.Resource
	}
	return o.Resource + " (owner id " + o.ID + ")"
}

// OwnerPrefix starts the first label of every ownership record. A record
// set whose name has a label starting with it is refused: writing one could
// rewrite another record set's ownership.
const OwnerPrefix = "_devops-owner"

// IsOwnershipName is true when name (relative or absolute) has a label
// starting with OwnerPrefix.
func IsOwnershipName(name string) bool {
	for _, l := range strings.Split(strings.ToLower(name), ".") {
		if strings.HasPrefix(l, OwnerPrefix) {
			return true
		}
	}
	return false
}

// Owned is a record set named by an ownership record.
type Owned struct {
	Name, Type string
	Owner      Owner
}

func (c *Client) ownership(s RRset, owner Owner) []libdns.Record {
	if owner.Resource == "" {
		return nil
	}
	return []libdns.Record{libdns.RR{Name: OwnerName(s.Name, s.Type), Type: typeTXT, TTL: c.EffectiveTTL(s.TTL), Data: ownerValue(owner)}}
}

// OwnerName is the name of the ownership TXT record of name/typ: a child
// label, so it can sit beside a CNAME; a wildcard's owner lives beside it.
func OwnerName(name, typ string) string {
	label := OwnerPrefix + "-" + strings.ToLower(typ)
	switch name = normName(name); {
	case name == "@":
		return label
	case name == "*":
		return label + "-wildcard"
	case strings.HasPrefix(name, "*."):
		return label + "-wildcard." + name[2:]
	default:
		return label + "." + name
	}
}

// ownedBy reads an ownership record's name back into the name and type of
// the record set it owns (OwnerName's inverse).
func ownedBy(ownerName string) (name, typ string, ok bool) {
	first, rest, _ := strings.Cut(ownerName, ".")
	t, ok := strings.CutPrefix(first, OwnerPrefix+"-")
	if !ok || t == "" {
		return "", "", false
	}
	wildcard := false
	if t, wildcard = strings.CutSuffix(t, "-wildcard"); wildcard {
		if rest == "" {
			return "*", strings.ToUpper(t), true
		}
		return "*." + rest, strings.ToUpper(t), true
	}
	if rest == "" {
		rest = "@"
	}
	return rest, strings.ToUpper(t), true
}

// Related is true when names a and b (relative to one zone) are the same
// name or one is below the other; the apex is below nothing, and "*.x"
// stands for x.
func Related(a, b string) bool {
	base := func(n string) string {
		n = normName(n)
		if n == "*" {
			return "@"
		}
		return strings.TrimPrefix(n, "*.")
	}
	a, b = base(a), base(b)
	below := func(x, y string) bool { return y != "@" && strings.HasSuffix(x, "."+y) }
	return a == b || below(a, b) || below(b, a)
}

const heritage = "heritage=provider-devops,"

// ownerValue is the ownership record's text:
// "heritage=provider-devops,owner=<id>,resource=<namespace>/<name>".
func ownerValue(o Owner) string {
	return heritage + "owner=" + o.ID + ",resource=" + o.Resource
}

// parseOwner reads an ownership record. Records written before owner IDs
// existed have no owner= field and belong to DefaultOwnerID.
func parseOwner(v string) (Owner, bool) {
	v = strings.Trim(v, `"`)
	rest, ok := strings.CutPrefix(v, heritage)
	if !ok {
		return Owner{}, false
	}
	o := Owner{ID: DefaultOwnerID}
	if id, r, ok := strings.Cut(rest, ","); ok && strings.HasPrefix(id, "owner=") {
		o.ID, rest = strings.TrimPrefix(id, "owner="), r
	}
	res, ok := strings.CutPrefix(rest, "resource=")
	if !ok || res == "" || o.ID == "" {
		return Owner{}, false
	}
	o.Resource = res
	return o, true
}

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

package mrcontroller

// Claim is how a resource stands towards an external object it found by
// name, judged by the owner marker the object carries (a Jenkins job's
// description line, an Argo CD label, a DNS ownership record). It is the
// one rule every kind applies before it writes to an object it did not
// create: its own, adopted on request when nobody's, never another's.
type Claim int

// The claims, from the marker found and whether adoption was asked for.
const (
	// ClaimOurs: the marker names this resource.
	ClaimOurs Claim = iota
	// ClaimAdopt: no marker, and adoptExisting asks to take it over.
	ClaimAdopt
	// ClaimUnowned: no marker, and adoption was not asked for.
	ClaimUnowned
	// ClaimOthers: the marker names another owner; never taken over.
	ClaimOthers
)

// ClaimOf judges an object whose marker is got ("" for none) for the
// resource whose marker is want.
func ClaimOf(got, want string, adopt bool) Claim {
	switch {
	case got == want:
		return ClaimOurs
	case got != "":
		return ClaimOthers
	case adopt:
		return ClaimAdopt
	default:
		return ClaimUnowned
	}
}

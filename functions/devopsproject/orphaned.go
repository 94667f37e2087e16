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

package main

// OrphanedEnvironment is an environment that left the spec with the Orphan
// policy: its Argo CD application, Jenkins job and DNS record remain, and
// the AppProject keeps its destination so the application still syncs.
type OrphanedEnvironment struct {
	Name      string `json:"name"`
	Cluster   string `json:"cluster,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// orphanedEnvironments are those recorded before and those that left the
// spec since the last run (their destination read from the application
// still observed), less any back in the spec (managed again).
func (c *composer) orphanedEnvironments(envs []Environment, prev []EnvStatus, recorded []OrphanedEnvironment) []OrphanedEnvironment {
	inSpec := make(map[string]bool, len(envs))
	for _, e := range envs {
		inSpec[e.Name] = true
	}
	var out []OrphanedEnvironment
	seen := map[string]bool{}
	add := func(o OrphanedEnvironment) {
		if !inSpec[o.Name] && !seen[o.Name] {
			seen[o.Name] = true
			out = append(out, o)
		}
	}
	for _, o := range recorded {
		add(o)
	}
	for _, st := range prev {
		if st.DeletionPolicy != PolicyOrphan || st.Phase == PhaseExpired || inSpec[st.Name] {
			continue
		}
		o := OrphanedEnvironment{Name: st.Name}
		if app, ok := c.observed[nameApp(st.Name)]; ok {
			dest := pbAt(app, "spec", "forProvider", "destination").GetStructValue()
			o.Cluster = pbAt(dest, "server").GetStringValue()
			o.Namespace = pbAt(dest, "namespace").GetStringValue()
		}
		add(o)
	}
	return out
}

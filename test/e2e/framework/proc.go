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

package framework

import (
	"path/filepath"

	"github.com/freeleaps/provider-devops/internal/testing/process"
)

// Memory is a process's resident set size now and at its peak, in bytes.
type Memory = process.Memory

// start runs a child of the cluster (its own process group, its output in
// logs/<name>.log) and keeps it to be stopped by Close.
func (c *Cluster) start(name string, env []string, bin string, args ...string) (*process.Process, error) {
	p, err := process.Start(filepath.Join(c.dir, "logs"), name, env, bin, args...)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.procs = append(c.procs, p)
	c.mu.Unlock()
	return p, nil
}

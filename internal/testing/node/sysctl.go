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

package node

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// kernelTunables are the machine-wide kernel settings the kubelet sets when
// it starts (its container manager's kernel tunables; with
// protectKernelDefaults it refuses to start where they differ instead, and
// there is no third way). They are not a network namespace's: the node
// saves them before its kubelet first starts and restores them when the
// last node on the machine closes.
var kernelTunables = []string{"vm/overcommit_memory", "vm/panic_on_oom", "kernel/panic", "kernel/panic_on_oops", "kernel/keys/root_maxkeys", "kernel/keys/root_maxbytes"}

// savedTunables holds their values from before any node's kubelet ran. It
// outlives a test binary that was killed, so the values a later run
// restores are still the machine's own.
const savedTunables = "/run/provider-devops-node/kernel-tunables"

// saveKernelTunables records the settings, unless a node already did.
func saveKernelTunables() error {
	if _, err := os.Stat(savedTunables); err == nil {
		return nil
	}
	var b strings.Builder
	for _, k := range kernelTunables {
		v, err := os.ReadFile(filepath.Join("/proc/sys", k))
		if err != nil {
			return fmt.Errorf("cannot save the kernel setting %s the kubelet changes: %w", k, err)
		}
		fmt.Fprintf(&b, "%s %s\n", k, strings.TrimSpace(string(v)))
	}
	if err := os.MkdirAll(filepath.Dir(savedTunables), 0o700); err != nil {
		return err
	}
	tmp := savedTunables + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, savedTunables)
}

// restoreKernelTunables writes the saved settings back once no node is
// left on the machine (no pdnode-* network namespace).
func restoreKernelTunables() {
	if out, err := exec.Command("ip", "netns", "list").Output(); err != nil || strings.Contains(string(out), "pdnode-") {
		return
	}
	b, err := os.ReadFile(savedTunables)
	if err != nil {
		return
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && slices.Contains(kernelTunables, k) {
			_ = os.WriteFile(filepath.Join("/proc/sys", k), []byte(v), 0o644)
		}
	}
	_ = os.Remove(savedTunables)
}

package local

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

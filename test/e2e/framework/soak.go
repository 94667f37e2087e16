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
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"
)

// SoakSample is the provider's and the function's RSS at one time.
type SoakSample struct {
	At                 time.Duration
	Provider, Function int64
}

// SoakReport is a steady state's memory, sampled.
type SoakReport struct {
	Projects int
	Samples  []SoakSample
}

// Growth is how much each RSS grew from the first third of the samples to
// the last third (their means), in bytes and as a fraction of the first.
func (r *SoakReport) Growth() (provider, function int64, providerFrac, functionFrac float64) {
	n := len(r.Samples) / 3
	if n == 0 {
		return 0, 0, 0, 0
	}
	mean := func(s []SoakSample, f func(SoakSample) int64) int64 {
		var t int64
		for _, x := range s {
			t += f(x)
		}
		return t / int64(len(s))
	}
	p := func(x SoakSample) int64 { return x.Provider }
	fn := func(x SoakSample) int64 { return x.Function }
	p0, p1 := mean(r.Samples[:n], p), mean(r.Samples[len(r.Samples)-n:], p)
	f0, f1 := mean(r.Samples[:n], fn), mean(r.Samples[len(r.Samples)-n:], fn)
	return p1 - p0, f1 - f0, float64(p1-p0) / float64(p0), float64(f1-f0) / float64(max(f0, 1))
}

// Table renders the samples.
func (r *SoakReport) Table() string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(w, "AT\tPROVIDER RSS\tFUNCTION RSS")
	for _, s := range r.Samples {
		_, _ = fmt.Fprintf(w, "%s\t%.1f MiB\t%.1f MiB\n", s.At.Round(time.Second), float64(s.Provider)/(1<<20), float64(s.Function)/(1<<20))
	}
	_ = w.Flush()
	return b.String()
}

// Soak creates projects DevOpsProjects of four environments each (their
// own namespaces, registry repositories, Jenkins folders, Argo CD
// applications and DNS names), waits for all to be Ready, lets them run
// for warmup and then samples the provider's and the function's RSS every
// interval for d. It stops by itself.
func (c *Cluster) Soak(ctx context.Context, projects int, warmup, d, interval time.Duration) (*SoakReport, error) {
	r := &SoakReport{Projects: projects}
	for i := range projects {
		ns := fmt.Sprintf("team-soak-%d", i)
		if err := c.Apply(ctx, c.configYAML(ns)+c.soakProjectYAML(ns, fmt.Sprintf("soak-%d", i))); err != nil {
			return r, err
		}
	}
	for i := range projects {
		ns, name := fmt.Sprintf("team-soak-%d", i), fmt.Sprintf("soak-%d", i)
		err := c.Wait(ctx, "DevOpsProject "+ns+"/"+name+" to be Ready", 10*time.Minute, func(ctx context.Context) (bool, string, error) {
			xr, err := c.Get(ctx, xrAPIVersion, "DevOpsProject", ns, name)
			if err != nil {
				return false, err.Error(), nil
			}
			st, reason, msg := Condition(xr, "Ready")
			return st == "True", reason + ": " + msg, nil
		})
		if err != nil {
			return r, err
		}
	}
	c.logf("%d DevOpsProjects Ready; warming up for %s, then sampling memory every %s for %s", projects, warmup, interval, d)
	select {
	case <-ctx.Done():
		return r, ctx.Err()
	case <-time.After(warmup):
	}
	start := time.Now()
	for {
		p, perr := c.ProviderMemory(ctx)
		f, ferr := c.FunctionMemory(ctx)
		if perr != nil || ferr != nil {
			return r, fmt.Errorf("cannot read memory: provider %v, function %v", perr, ferr)
		}
		s := SoakSample{At: time.Since(start), Provider: p.RSS, Function: f.RSS}
		r.Samples = append(r.Samples, s)
		c.logf("  +%s provider RSS %.1f MiB, function RSS %.1f MiB", s.At.Round(time.Second), float64(s.Provider)/(1<<20), float64(s.Function)/(1<<20))
		if time.Since(start) >= d {
			return r, nil
		}
		select {
		case <-ctx.Done():
			return r, ctx.Err()
		case <-time.After(interval):
		}
	}
}

// soakProjectYAML is a DevOpsProject of four environments, with names of
// its own.
func (c *Cluster) soakProjectYAML(ns, name string) string {
	return fmt.Sprintf(`---
apiVersion: %[1]s
kind: DevOpsProject
metadata: {name: %[2]s, namespace: %[3]s}
spec:
  providerConfigName: default
  git: {url: %[4]q, branch: `+appBranch+`, jenkinsCredentialsId: git-readonly, credentialsSecretRef: {name: git-credentials}}
  registry: {namespace: team, name: %[2]s, visibility: private}
  pipeline: {folder: team/%[2]s, scriptPath: Jenkinsfile}
  dns: {zone: example.com, target: %[5]s., type: CNAME}
  environments:
  - {name: prod, domain: %[2]s.example.com, path: deploy/prod}
  - {name: staging, domain: staging.%[2]s.example.com, path: deploy/staging, deletionPolicy: Delete}
  - {name: qa, domain: qa.%[2]s.example.com, path: deploy/staging, deletionPolicy: Delete}
  - {name: pr-1, domain: pr-1.%[2]s.example.com, path: deploy/staging, ttl: 72h}
`, xrAPIVersion, name, ns, c.Argo.Apps.URL, IngressAddress)
}

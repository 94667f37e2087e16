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
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Scrape jobs of the targets MetricsTargets lists.
const (
	JobProvider = "provider-devops"
	JobFunction = "function-devopsproject"
)

// keepMetricsTargets lists the provider's and the function's metrics
// endpoints in Config.MetricsTargets (Prometheus's file_sd JSON) until ctx
// ends, rewriting the file when they change: the Pods' addresses change
// with every crash, failover and upgrade the scenario makes, as a
// PodMonitor would follow them.
func (c *Cluster) keepMetricsTargets(ctx context.Context) {
	last := ""
	for {
		b, err := json.Marshal(c.metricsTargets(ctx))
		if err == nil && string(b) != last {
			if err := writeAtomic(c.cfg.MetricsTargets, b); err != nil {
				c.logf("  cannot write the metrics targets: %v", err)
			} else {
				last = string(b)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Second):
		}
	}
}

type sdGroup struct {
	Targets []string          `json:"targets"`
	Labels  map[string]string `json:"labels"`
}

// metricsTargets are every running replica of the provider and the
// function, as Prometheus reaches them.
func (c *Cluster) metricsTargets(ctx context.Context) []sdGroup {
	out := []sdGroup{}
	if c.node == nil {
		c.mu.Lock()
		u, err := url.Parse(c.providerMetrics)
		c.mu.Unlock()
		if err == nil && u.Host != "" {
			out = append(out, sdGroup{Targets: []string{u.Host}, Labels: map[string]string{"job": JobProvider}})
		}
		return out
	}
	for _, k := range []struct{ job, label, name string }{
		{JobProvider, "pkg.crossplane.io/provider", ProviderName},
		{JobFunction, "pkg.crossplane.io/function", FunctionName},
	} {
		pods := &corev1.PodList{}
		if err := c.Kube.List(ctx, pods, client.InNamespace(Namespace), client.MatchingLabels{k.label: k.name}); err != nil {
			continue
		}
		sort.Slice(pods.Items, func(i, j int) bool { return pods.Items[i].Name < pods.Items[j].Name })
		for _, p := range pods.Items {
			if p.Status.Phase != corev1.PodRunning || p.Status.PodIP == "" || p.DeletionTimestamp != nil {
				continue
			}
			out = append(out, sdGroup{Targets: []string{net.JoinHostPort(p.Status.PodIP, "8080")}, Labels: map[string]string{"job": k.job, "pod": p.Name}})
		}
	}
	return out
}

// writeAtomic replaces path with b, never leaving it half written.
func writeAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".targets-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// otlpEnv is the environment that makes the provider export its traces to
// Config.OTLPEndpoint, reached from where the provider runs; nil without
// one.
func (c *Cluster) otlpEnv() []string {
	if c.cfg.OTLPEndpoint == "" {
		return nil
	}
	// Batches sent every half second: the scenario reads a trace right
	// after its deployment ends.
	return []string{fmt.Sprintf("OTEL_EXPORTER_OTLP_ENDPOINT=http://%s", c.reach(c.cfg.OTLPEndpoint)), "OTEL_BSP_SCHEDULE_DELAY=500"}
}

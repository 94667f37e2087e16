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

package controller_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/freeleaps/provider-devops/internal/testing/envtest"
)

// countingTransport counts the provider's requests to the API server.
type countingTransport struct {
	rt    http.RoundTripper
	reads atomic.Int64
	write atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet {
		c.reads.Add(1)
	} else {
		c.write.Add(1)
	}
	return c.rt.RoundTrip(r)
}

// externalNameField is the forProvider field naming each kind's external
// object, but ArgoApplication's, which is its metadata name.
var externalNameField = map[string]string{"JenkinsPipeline": "name", "DNSRecord": "name", "RegistryRepo": "name"}

// BenchmarkScale1000 creates 1,000 managed resources — 250 of each kind,
// against the fake Jenkins, Argo CD, GoDaddy and Docker Hub — for the
// provider wired as cmd/provider wires it (100 reconciles/s, 4 workers per
// kind) and measures until all are Ready: the time, the provider's API
// requests (GETs incl. watches, and writes) and the process's peak RSS
// (provider, fakes and test client together).
func BenchmarkScale1000(b *testing.B) {
	const perKind = 250
	env := envtest.Shared(b)
	f := startFakes(b)

	counter := &countingTransport{}
	cfg := rest.CopyConfig(env.Config)
	cfg.QPS, cfg.Burst = 100, 200
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { counter.rt = rt; return counter })
	counted := *env
	counted.Config = cfg
	startProvider(b, &counted)

	c := env.Client
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		ns := fmt.Sprintf("scale-%d", i)
		objs := f.objects(ns)
		for _, o := range objs {
			if err := c.Create(ctx, o); err != nil {
				b.Fatal(err)
			}
		}
		templates := map[string]*unstructured.Unstructured{}
		for _, f := range []string{"jenkins/jenkinspipeline.yaml", "argocd/argoapplication.yaml", "dns/dnsrecord.yaml", "registry/registryrepo.yaml"} {
			u := loadExample(b, f)[0]
			unstructured.RemoveNestedField(u.Object, "spec", "forProvider", "buildRequest")
			templates[u.GetKind()] = u
		}
		reads0, writes0 := counter.reads.Load(), counter.write.Load()
		start := time.Now()
		for n := 0; n < perKind; n++ {
			for kind, tmpl := range templates {
				u := tmpl.DeepCopy()
				u.SetNamespace(ns)
				u.SetName(fmt.Sprintf("%s-%d-%d", strings.ToLower(kind), i, n))
				// Each object its own external name (ArgoApplication's is
				// its metadata name).
				if field, ok := externalNameField[kind]; ok {
					envtest.Must(b, unstructured.SetNestedField(u.Object, fmt.Sprintf("x%d-%d", i, n), "spec", "forProvider", field))
				}
				if err := c.Create(ctx, u); err != nil {
					b.Fatal(err)
				}
			}
		}
		ready := 0
		for deadline := time.Now().Add(10 * time.Minute); ready < 4*perKind; time.Sleep(time.Second) {
			if time.Now().After(deadline) {
				b.Fatalf("only %d of %d managed resources Ready after 10 minutes", ready, 4*perKind)
			}
			for _, name := range f.argo.Apps() {
				if app := f.argo.App(name); !strings.Contains(fmt.Sprint(app["status"]), "Synced") {
					f.argo.SetStatus(name, "Synced", "4f2a9c1", "Healthy", "", "Succeeded")
				}
			}
			ready = 0
			for kind, tmpl := range templates {
				l := &unstructured.UnstructuredList{}
				l.SetAPIVersion(tmpl.GetAPIVersion())
				l.SetKind(kind + "List")
				if err := c.List(ctx, l, client.InNamespace(ns)); err != nil {
					b.Fatal(err)
				}
				for i := range l.Items {
					if condition(&l.Items[i], "Ready") == "True" {
						ready++
					}
				}
			}
		}
		b.ReportMetric(time.Since(start).Seconds(), "s-to-ready")
		b.ReportMetric(float64(counter.reads.Load()-reads0), "api-gets")
		b.ReportMetric(float64(counter.write.Load()-writes0), "api-writes")
		b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MiB")
	}
}

// peakRSS is the process's VmHWM in bytes.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

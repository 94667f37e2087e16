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
	"context"
	"net"
	"testing"
	"time"

	"github.com/libdns/libdns"
	"github.com/libdns/rfc2136"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

// TestRFC2136Counted: transfers and updates over RFC 2136 are counted
// with the backend metrics, as dns, under the call's namespace, by how
// the reconciler classifies their failure.
func TestRFC2136Counted(t *testing.T) {
	// A port nothing listens on: every exchange fails, transient.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	p := &rfc2136Provider{Provider: &rfc2136.Provider{Server: addr, KeyName: "k", KeyAlg: "hmac-sha256", Key: "c2VjcmV0"}, maxRecords: 10, maxBytes: 1 << 20}
	ctx, cancel := context.WithTimeout(httpapi.WithLabels(context.Background(), httpapi.Labels{Namespace: "dns-metrics", Config: "ProviderConfig"}), 5*time.Second)
	defer cancel()
	if _, err := p.GetRecords(ctx, "example.test"); err == nil {
		t.Fatal("a transfer from a closed port succeeded")
	}
	if err := p.CreateRecords(ctx, "example.test", []libdns.Record{libdns.RR{Name: "www", Type: "A", Data: "192.0.2.1", TTL: time.Minute}}); err == nil {
		t.Fatal("an update to a closed port succeeded")
	}
	mfs, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := 0.0
	for _, mf := range mfs {
		if mf.GetName() != "provider_devops_backend_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, lp := range m.GetLabel() {
				labels[lp.GetName()] = lp.GetValue()
			}
			if labels["backend"] == "dns" && labels["namespace"] == "dns-metrics" && labels["config"] == "ProviderConfig" && labels["result"] == httpapi.ResultTransient {
				got = m.GetCounter().GetValue()
			}
		}
	}
	if got != 2 {
		t.Errorf("transient dns requests of the namespace: got %v, want 2", got)
	}
}

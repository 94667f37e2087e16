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
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/customresourcesgate"

	devops "github.com/freeleaps/provider-devops/internal/controller"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

// BenchmarkNoisyNeighbour: how long a team's new resources (one of each
// kind, a project's worth) take to be Ready while another namespace holds
// NOISY_MRS (default 2,000) Argo CD applications that never get Ready and
// are polled by age, against the same on an idle provider. The provider
// runs at its default flags, as cmd/provider wires it. Reported: both
// times and their ratio (the target: at most 2).
func BenchmarkNoisyNeighbour(b *testing.B) {
	noisy := 2000
	if v := os.Getenv("NOISY_MRS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("NOISY_MRS: %q is not a positive number", v)
		}
		noisy = n
	}
	env := controlplane.Shared(b)
	f := startFakes(b)
	o := devops.Options(logging.NewNopLogger(), devops.DefaultMaxReconcileRate, devops.DefaultPollInterval, true)
	controlplane.StartManagerWith(b, devops.RESTConfig(env.Config, devops.DefaultMaxReconcileRate), env, o, func(mgr ctrl.Manager, o controller.Options) error {
		if err := customresourcesgate.Setup(mgr, o); err != nil {
			return err
		}
		return devops.SetupGated(mgr, o, devops.Config{Guard: controlplane.TenantGuard()})
	})
	c := env.Client
	ctx := context.Background()
	templates := map[string]*unstructured.Unstructured{}
	for _, file := range []string{"jenkins/jenkinspipeline.yaml", "argocd/argoapplication.yaml", "dns/dnsrecord.yaml", "registry/registryrepo.yaml"} {
		u := loadExample(b, file)[0]
		unstructured.RemoveNestedField(u.Object, "spec", "forProvider", "buildRequest")
		templates[u.GetKind()] = u
	}
	namespace := func(ns string) {
		for _, o := range f.objects(ns) {
			controlplane.Must(b, c.Create(ctx, o))
		}
	}
	create := func(ns, kind, name string) {
		u := templates[kind].DeepCopy()
		u.SetNamespace(ns)
		u.SetName(name)
		if field, ok := externalNameField[kind]; ok {
			controlplane.Must(b, unstructured.SetNestedField(u.Object, name, "spec", "forProvider", field))
		}
		controlplane.Must(b, c.Create(ctx, u))
	}
	// project creates one resource of each kind in ns and returns how
	// long until all four are Ready; only its application is made
	// healthy in the fake Argo CD.
	project := func(ns string) time.Duration {
		namespace(ns)
		start := time.Now()
		for kind := range templates {
			create(ns, kind, ns+"-"+strings.ToLower(kind))
		}
		for deadline := start.Add(10 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				b.Fatalf("%s: not Ready within 10 minutes", ns)
			}
			for _, name := range f.argo.Apps() {
				if strings.HasPrefix(name, ns+"-") && !strings.Contains(fmt.Sprint(f.argo.App(name)["status"]), "Synced") {
					f.argo.SetStatus(name, "Synced", "4f2a9c1", "Healthy", "", "Succeeded")
				}
			}
			ready := 0
			for kind, tmpl := range templates {
				u := &unstructured.Unstructured{}
				u.SetAPIVersion(tmpl.GetAPIVersion())
				u.SetKind(kind)
				if c.Get(ctx, client.ObjectKey{Namespace: ns, Name: ns + "-" + strings.ToLower(kind)}, u) == nil && condition(u, "Ready") == "True" {
					ready++
				}
			}
			if ready == len(templates) {
				return time.Since(start)
			}
		}
	}

	for i := 0; b.Loop(); i++ {
		idle := project(fmt.Sprintf("quiet-idle-%d", i))
		ns := fmt.Sprintf("noisy-%d", i)
		namespace(ns)
		for k := range noisy {
			create(ns, "ArgoApplication", fmt.Sprintf("%s-stuck-%d", ns, k))
		}
		// The noisy resources are young: polled every half second to a
		// few seconds, as many as the provider can take.
		loaded := project(fmt.Sprintf("quiet-loaded-%d", i))
		b.ReportMetric(idle.Seconds(), "idle-s")
		b.ReportMetric(loaded.Seconds(), "loaded-s")
		b.ReportMetric(loaded.Seconds()/idle.Seconds(), "ratio")
		fmt.Printf("a project's four resources Ready in %s idle, %s beside %d applications never Ready\n", idle.Round(100*time.Millisecond), loaded.Round(100*time.Millisecond), noisy)
	}
}

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
	"net"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/freeleaps/provider-devops/internal/testing/loopback"
)

// packageRuntime plays the part a Deployment runtime plays in a cluster with
// pods, for the External runtime: every second it looks at the active
// provider and function revisions and gives each what Crossplane waits for.
func (c *Cluster) packageRuntime(ctx context.Context) {
	for {
		for _, kind := range []string{"ProviderRevision", "FunctionRevision"} {
			// A conflict with Crossplane's own write of the revision is
			// tried again in a second, as it would be in a cluster.
			if err := c.runRevisions(ctx, kind); err != nil && ctx.Err() == nil && !kerrors.IsConflict(err) {
				c.logf("  package runtime: %s: %v", kind, err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func (c *Cluster) runRevisions(ctx context.Context, kind string) error {
	revs, err := c.List(ctx, "pkg.crossplane.io/v1", kind)
	if err != nil {
		return err
	}
	for i := range revs {
		rev := &revs[i]
		if state, _, _ := unstructured.NestedString(rev.Object, "spec", "desiredState"); state != "Active" {
			continue
		}
		if err := c.runRevision(ctx, kind, rev); err != nil {
			return fmt.Errorf("%s: %w", rev.GetName(), err)
		}
	}
	return nil
}

// runtime is what serves one revision.
type runtime struct {
	// endpoint is a function's gRPC target; probe says whether the
	// process is up.
	endpoint string
	probe    func() error
}

// runRevision does for one revision what the Deployment runtime does: it
// issues the server certificate, runs the provider or function process with
// it, and records the certificate's Secret, the endpoint and the runtime's
// health in the revision's status.
func (c *Cluster) runRevision(ctx context.Context, kind string, rev *unstructured.Unstructured) error {
	name := rev.GetName()
	secret := name + "-tls-server"
	c.mu.Lock()
	rt := c.runtimes[name]
	c.mu.Unlock()
	if rt == nil {
		if err := c.ensureServerSecret(ctx, secret, name); err != nil {
			return err
		}
		var err error
		if kind == "FunctionRevision" {
			rt, err = c.startFunction(ctx, name, secret)
		} else {
			rt, err = c.startProvider(ctx, rev)
		}
		if err != nil {
			return err
		}
		c.mu.Lock()
		c.runtimes[name] = rt
		c.mu.Unlock()
	}

	health := map[string]any{"type": "RuntimeHealthy", "status": "True", "reason": "HealthyPackageRevision"}
	if err := rt.probe(); err != nil {
		health = map[string]any{"type": "RuntimeHealthy", "status": "False", "reason": "UnhealthyPackageRevision", "message": err.Error()}
	}
	changed := setIfDifferent(rev, secret, "status", "tlsServerSecretName")
	if rt.endpoint != "" {
		changed = setIfDifferent(rev, rt.endpoint, "status", "endpoint") || changed
	}
	conds, _, _ := unstructured.NestedSlice(rev.Object, "status", "conditions")
	found := false
	for i, cd := range conds {
		m, _ := cd.(map[string]any)
		if m["type"] != "RuntimeHealthy" {
			continue
		}
		found = true
		if m["status"] != health["status"] || m["reason"] != health["reason"] {
			health["lastTransitionTime"] = time.Now().UTC().Format(time.RFC3339)
			conds[i], changed = health, true
		}
	}
	if !found {
		health["lastTransitionTime"] = time.Now().UTC().Format(time.RFC3339)
		conds, changed = append(conds, health), true
	}
	if !changed {
		return nil
	}
	if err := unstructured.SetNestedSlice(rev.Object, conds, "status", "conditions"); err != nil {
		return err
	}
	// An update, not a patch: conditions are a list, and a conflict with
	// Crossplane's own status update is retried on the next pass.
	return client.IgnoreNotFound(c.Kube.Status().Update(ctx, rev))
}

func setIfDifferent(u *unstructured.Unstructured, value string, path ...string) bool {
	if cur, _, _ := unstructured.NestedString(u.Object, path...); cur == value {
		return false
	}
	_ = unstructured.SetNestedField(u.Object, value, path...)
	return true
}

// startProvider runs the provider with a kubeconfig; it publishes events to
// the RabbitMQ broker whose URL is in a Secret.
func (c *Cluster) startProvider(ctx context.Context, rev *unstructured.Unstructured) (*runtime, error) {
	kubeconfig, err := c.providerIdentity(ctx, rev)
	if err != nil {
		return nil, err
	}
	if err := c.Apply(ctx, fmt.Sprintf(`
apiVersion: v1
kind: Secret
metadata: {name: %s, namespace: %s}
stringData: {url: %q}
`, eventsSecret, Namespace, c.ProviderAMQP)); err != nil {
		return nil, err
	}
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	metrics, health := ports[0], ports[1]
	args := append([]string{
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", metrics),
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", health),
		"--events-secret=" + Namespace + "/" + eventsSecret,
		// Deployment events in both formats: CloudEvents for the stream,
		// and the replaced operator's heartbeats, on the default routing
		// key its UI's queue is bound with.
		"--events-format=both",
		// The backends run on this host's loopback, which a team's own
		// ProviderConfig may not reach unless the platform allows it.
		"--tenant-backend-networks=127.0.0.0/8,::1/128",
	}, c.cfg.ProviderArgs...)
	p, err := c.start("provider", append([]string{"KUBECONFIG=" + kubeconfig}, c.otlpEnv()...), c.cfg.Provider, args...)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.provider = p
	c.providerMetrics = fmt.Sprintf("http://127.0.0.1:%d/metrics", metrics)
	c.mu.Unlock()
	c.logf("  package runtime: the provider runs on the host (metrics 127.0.0.1:%d)", metrics)
	healthz := fmt.Sprintf("http://127.0.0.1:%d/healthz", health)
	return &runtime{probe: func() error {
		_, err := httpGet(context.Background(), healthz)
		return err
	}}, nil
}

// startFunction runs the function on a loopback port with the revision's
// certificate (its ca.crt verifies Crossplane's client certificate).
func (c *Cluster) startFunction(ctx context.Context, revision, secret string) (*runtime, error) {
	port, err := loopback.FreePort()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(c.dir, "certs", revision)
	if err := c.writeSecretFiles(ctx, secret, dir); err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	p, err := c.start("function", nil, c.cfg.Function, "--address="+addr, "--tls-server-certs-dir="+dir, "--metrics-address=127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.function = p
	c.mu.Unlock()
	c.logf("  package runtime: %s serves gRPC on %s with a certificate from %s", revision, addr, caSecret)
	return &runtime{endpoint: "dns:///" + addr, probe: func() error {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return fmt.Errorf("function not listening on %s yet", addr)
		}
		return conn.Close()
	}}, nil
}

func (c *Cluster) ensureServerSecret(ctx context.Context, name, commonName string) error {
	s := &corev1.Secret{}
	err := c.Kube.Get(ctx, types.NamespacedName{Namespace: Namespace, Name: name}, s)
	if err == nil {
		return nil
	}
	if client.IgnoreNotFound(err) != nil {
		return err
	}
	ca := &corev1.Secret{}
	if err := c.Kube.Get(ctx, types.NamespacedName{Namespace: Namespace, Name: caSecret}, ca); err != nil {
		return err
	}
	crt, key, err := serverCert(ca.Data[corev1.TLSCertKey], ca.Data[corev1.TLSPrivateKeyKey], commonName)
	if err != nil {
		return err
	}
	s = &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: name},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key, "ca.crt": ca.Data[corev1.TLSCertKey]},
	}
	return c.Kube.Create(ctx, s)
}

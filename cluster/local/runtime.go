package local

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
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
			if err := c.runRevisions(ctx, kind); err != nil && ctx.Err() == nil {
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

// runRevision issues the revision's server certificate, records it in the
// revision's status and, for a function, starts the function on a loopback
// port and records that as the revision's endpoint.
func (c *Cluster) runRevision(ctx context.Context, kind string, rev *unstructured.Unstructured) error {
	secret, _, _ := unstructured.NestedString(rev.Object, "status", "tlsServerSecretName")
	if secret != "" && (kind != "FunctionRevision" || c.fnDirs[rev.GetName()]) {
		return nil
	}
	secret = rev.GetName() + "-tls-server"
	if err := c.ensureServerSecret(ctx, secret, rev.GetName()); err != nil {
		return err
	}
	status := map[string]any{"tlsServerSecretName": secret}
	if kind == "FunctionRevision" {
		port, err := loopback.FreePort()
		if err != nil {
			return err
		}
		dir := filepath.Join(c.dir, "certs", rev.GetName())
		if err := c.writeSecretFiles(ctx, secret, dir); err != nil {
			return err
		}
		fn, err := c.start("function", nil, c.cfg.Function,
			fmt.Sprintf("--address=127.0.0.1:%d", port), "--tls-server-certs-dir="+dir, "--metrics-address=127.0.0.1:0")
		if err != nil {
			return err
		}
		c.mu.Lock()
		c.function = fn
		c.mu.Unlock()
		c.fnDirs[rev.GetName()] = true
		status["endpoint"] = fmt.Sprintf("dns:///127.0.0.1:%d", port)
		c.logf("  package runtime: %s serves on 127.0.0.1:%d with a certificate from %s", rev.GetName(), port, caSecret)
	}
	patch, err := json.Marshal(map[string]any{"status": status})
	if err != nil {
		return err
	}
	return c.Kube.Status().Patch(ctx, rev, client.RawPatch(types.MergePatchType, patch))
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

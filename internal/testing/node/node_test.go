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
	"context"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	"github.com/freeleaps/provider-devops/internal/testing/distribution"
)

func TestMain(m *testing.M) {
	// envtest logs through controller-runtime, which otherwise prints a
	// stack trace saying no logger was set.
	ctrllog.SetLogger(logr.Discard())
	controlplane.Main(m)
}

// TestNodeRunsProviderImage: the provider's runtime image, pulled by a real
// kubelet from the local registry, runs as a Pod on the node's bridge as
// the image's non-root user with a read-only root filesystem, no
// capabilities and the runtime's default seccomp profile, and exits as
// the binary does.
func TestNodeRunsProviderImage(t *testing.T) {
	reg := distribution.Start(t)
	env, n := StartCluster(t, reg)

	// By the name Pods know the registry by, as Crossplane's packages
	// name their images.
	image := strings.Replace(providerImage(t, n), reg.Host, n.RegistryHost(), 1)
	ctx := context.Background()
	ns := controlplane.Unique("node")
	controlplane.Must(t, env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	waitDefaultServiceAccount(t, env, ns)
	limits := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "provider", Namespace: ns},
		Spec: corev1.PodSpec{
			NodeName:                     n.Name,
			RestartPolicy:                corev1.RestartPolicyNever,
			AutomountServiceAccountToken: ptr.To(false),
			SecurityContext:              &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{
				Name: "provider", Image: image, Args: []string{"--help"},
				Resources: corev1.ResourceRequirements{Requests: limits, Limits: limits},
				SecurityContext: &corev1.SecurityContext{
					ReadOnlyRootFilesystem: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
			}},
		},
	}
	controlplane.Must(t, env.Client.Create(ctx, pod))
	controlplane.EventuallyWithin(t, 3*time.Minute, "the provider's Pod to run to completion", func() bool {
		return env.Client.Get(ctx, client.ObjectKeyFromObject(pod), pod) == nil &&
			(pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed)
	})
	if pod.Status.Phase != corev1.PodSucceeded {
		t.Fatalf("the provider's Pod %s: %+v", pod.Status.Phase, pod.Status.ContainerStatuses)
	}
	cs := pod.Status.ContainerStatuses[0]
	if !strings.HasPrefix(cs.ImageID, n.RegistryHost()+"/provider-devops@sha256:") {
		t.Errorf("image %s, want it pulled from %s", cs.ImageID, n.RegistryHost())
	}
	if ip := net.ParseIP(pod.Status.PodIP); ip == nil || !n.PodCIDR.Contains(ip) {
		t.Errorf("Pod IP %q, want one of the node's bridge %s", pod.Status.PodIP, n.PodCIDR)
	}
	t.Logf("the provider's image ran as a Pod on %s (IP %s, image %s)", n.Name, pod.Status.PodIP, cs.ImageID)
}

// providerImage builds the provider's runtime image and pushes it to the
// node's registry.
func providerImage(t *testing.T, n *Node) string {
	t.Helper()
	image, err := n.BuildImage("./cmd/provider", "provider-devops", "test")
	if err != nil {
		t.Fatal(err)
	}
	return image
}

// waitDefaultServiceAccount waits for kube-controller-manager to give
// namespace ns its default ServiceAccount, which a Pod needs.
func waitDefaultServiceAccount(t *testing.T, env *controlplane.Env, ns string) {
	t.Helper()
	controlplane.EventuallyWithin(t, time.Minute, "the default ServiceAccount of "+ns, func() bool {
		return env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "default"}, &corev1.ServiceAccount{}) == nil
	})
}

// TestClusterNetwork: a Pod resolves Services' names with the cluster DNS
// (CoreDNS, itself a Pod) and reaches them at their Service addresses
// through kube-proxy's rules: the API server off the node at the
// kubernetes Service, and the DNS Pod on the Pod's own bridge.
func TestClusterNetwork(t *testing.T) {
	reg := distribution.Start(t)
	env, n := StartCluster(t, reg)
	image, err := n.BuildImage("./internal/testing/node/probe", "probe", "test")
	controlplane.Must(t, err)
	ctx := context.Background()
	ns := controlplane.Unique("net")
	controlplane.Must(t, env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	waitDefaultServiceAccount(t, env, ns)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: ns},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{
				Name: "probe", Image: image,
				// A short name, as Pods use them: the resolver's search
				// list completes it.
				Args: []string{"kubernetes.default:443", "kube-dns.kube-system.svc." + ClusterDomain + ":53"},
			}},
		},
	}
	controlplane.Must(t, env.Client.Create(ctx, pod))
	controlplane.EventuallyWithin(t, 3*time.Minute, "the probe Pod to end", func() bool {
		return env.Client.Get(ctx, client.ObjectKeyFromObject(pod), pod) == nil &&
			(pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed)
	})
	logs := n.Logs(ns, pod.Name)
	if pod.Status.Phase != corev1.PodSucceeded {
		t.Fatalf("the probe failed:\n%s\n%s", logs, n.Diagnostics())
	}
	for _, want := range []string{"connected to " + KubernetesServiceIP + ":443", "connected to " + DNSServiceIP + ":53"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the probe's output lacks %q:\n%s", want, logs)
		}
	}
	t.Logf("from a Pod on %s:\n%s", n.Name, logs)

	// And the machine reaches Pods: CoreDNS's health endpoint.
	dns := &corev1.PodList{}
	controlplane.Must(t, env.Client.List(ctx, dns, client.InNamespace("kube-system"), client.MatchingLabels{"k8s-app": "kube-dns"}))
	if len(dns.Items) != 1 {
		t.Fatalf("%d CoreDNS Pods, want 1", len(dns.Items))
	}
	health := "http://" + net.JoinHostPort(dns.Items[0].Status.PodIP, "8080") + "/health"
	hc := &http.Client{Timeout: 5 * time.Second}
	resp, err := hc.Get(health)
	if err != nil {
		t.Fatalf("the machine cannot reach a Pod: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s: %s", health, resp.Status)
	}
}

// TestProviderPodReconciles: the provider runs as a Pod with its service
// account's token, reaches the API server at the kubernetes Service
// (its in-cluster configuration, verified with the CA
// kube-controller-manager publishes), answers
// the probes the kubelet calls, and reconciles: a DNSRecord whose
// ProviderConfig does not exist gets a Synced condition saying so.
func TestProviderPodReconciles(t *testing.T) {
	reg := distribution.Start(t)
	env, n := StartCluster(t, reg)
	image := providerImage(t, n)
	ctx := context.Background()
	c := env.Client
	ns := "crossplane-system"
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "provider-devops", Namespace: ns}},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "provider-devops"},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "provider-devops", Namespace: ns}},
		},
	} {
		controlplane.Must(t, c.Create(ctx, o))
	}
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(8081)}}, PeriodSeconds: 2}
	}
	limits := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "provider-devops", Namespace: ns},
		Spec: corev1.PodSpec{
			NodeName:           n.Name,
			ServiceAccountName: "provider-devops",
			SecurityContext:    &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{
				Name: "provider", Image: image, Args: []string{"--debug"},
				Resources:      corev1.ResourceRequirements{Requests: limits, Limits: limits},
				ReadinessProbe: probe("/readyz"),
				LivenessProbe:  probe("/healthz"),
				SecurityContext: &corev1.SecurityContext{
					ReadOnlyRootFilesystem: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
			}},
		},
	}
	controlplane.Must(t, c.Create(ctx, pod))
	controlplane.EventuallyWithin(t, 3*time.Minute, "the provider's Pod Ready (its readiness probe answered)", func() bool {
		if c.Get(ctx, client.ObjectKeyFromObject(pod), pod) != nil {
			return false
		}
		return slices.ContainsFunc(pod.Status.Conditions, func(c corev1.PodCondition) bool {
			return c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue
		})
	})
	rec := &unstructured.Unstructured{}
	rec.SetAPIVersion("dns.devops.freeleaps.io/v1alpha1")
	rec.SetKind("DNSRecord")
	rec.SetNamespace("default")
	rec.SetName("alpha")
	controlplane.Must(t, unstructured.SetNestedMap(rec.Object, map[string]any{
		"providerConfigRef": map[string]any{"kind": "ProviderConfig", "name": "missing"},
		"forProvider":       map[string]any{"zone": "example.com", "name": "alpha", "type": "CNAME", "values": []any{"ingress.example.com."}},
	}, "spec"))
	controlplane.Must(t, c.Create(ctx, rec))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the provider's log:\n%s", n.Logs(ns, pod.Name))
		}
	})
	var msg string
	controlplane.EventuallyWithin(t, 2*time.Minute, "the provider in the Pod to report the missing ProviderConfig", func() bool {
		if c.Get(ctx, client.ObjectKeyFromObject(rec), rec) != nil {
			return false
		}
		conds, _, _ := unstructured.NestedSlice(rec.Object, "status", "conditions")
		for _, x := range conds {
			if m, ok := x.(map[string]any); ok && m["type"] == "Synced" && m["status"] == "False" {
				msg, _ = m["message"].(string)
				return strings.Contains(msg, "missing")
			}
		}
		return false
	})
	t.Logf("the provider ran as a Pod on %s (IP %s), reached the API server at %s and reported: %s", n.Name, pod.Status.PodIP, env.Config.Host, msg)
}

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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	"github.com/freeleaps/provider-devops/internal/testing/process"
)

// What makes the control plane a cluster's: envtest's API server serves
// Services from 10.0.0.0/24, so the kubernetes Service is 10.0.0.1, and
// the cluster DNS takes a fixed address of that range, as kubeadm's does.
const (
	// KubernetesServiceIP is the kubernetes Service's address.
	KubernetesServiceIP = "10.0.0.1"
	// DNSServiceIP is the cluster DNS's Service address (kube-system/kube-dns).
	DNSServiceIP = "10.0.0.10"
	// ClusterDomain is the cluster's DNS domain.
	ClusterDomain = "cluster.local"
)

// servingNames are the names and addresses a Pod reaches the API server
// at, which its certificate must carry.
var servingNames = []string{KubernetesServiceIP, "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc." + ClusterDomain}

// Binaries of the control plane and the node, among KUBEBUILDER_ASSETS
// (hack/envtest-assets.sh builds them).
func asset(name string) string { return filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), name) }

// startControllers runs kube-controller-manager and kube-scheduler on the
// machine, against the control plane, as a cluster's control plane does:
// Deployments get ReplicaSets and Pods, Pods a node, namespaces their
// default ServiceAccount and kube-root-ca.crt, Services their
// EndpointSlices, and deleted owners take their dependents with them.
func (n *Node) startControllers() error {
	env := n.Env
	kc, err := env.KubeConfigFor("system:kube-controller-manager", "system:masters")
	if err != nil {
		return err
	}
	kcm := filepath.Join(n.dir, "kube-controller-manager.kubeconfig")
	if err := os.WriteFile(kcm, kc, 0o600); err != nil {
		return err
	}
	if kc, err = env.KubeConfigFor("system:kube-scheduler", "system:masters"); err != nil {
		return err
	}
	sched := filepath.Join(n.dir, "kube-scheduler.kubeconfig")
	if err := os.WriteFile(sched, kc, 0o600); err != nil {
		return err
	}
	logs := filepath.Join(n.dir, "logs")
	// No port is bound (--secure-port=0) and no lease is taken: one of
	// each per test cluster.
	p, err := process.Start(logs, "kube-controller-manager", nil, asset("kube-controller-manager"),
		"--kubeconfig="+kcm, "--authentication-kubeconfig="+kcm, "--authorization-kubeconfig="+kcm,
		"--leader-elect=false", "--secure-port=0",
		"--root-ca-file="+filepath.Join(env.CertDir, controlplane.CAFile),
		"--service-account-private-key-file="+filepath.Join(env.CertDir, controlplane.SAKeyFile),
		"--use-service-account-credentials=false", "--controllers=*",
		"--concurrent-gc-syncs=5", "--node-monitor-grace-period=1m")
	if err != nil {
		return err
	}
	n.procs = append(n.procs, p)
	if p, err = process.Start(logs, "kube-scheduler", nil, asset("kube-scheduler"),
		"--kubeconfig="+sched, "--authentication-kubeconfig="+sched, "--authorization-kubeconfig="+sched,
		"--leader-elect=false", "--secure-port=0"); err != nil {
		return err
	}
	n.procs = append(n.procs, p)
	return nil
}

// startProxy runs kube-proxy in the node's network namespace, where its
// iptables rules route Services' addresses to their endpoints. Bridged
// traffic passes those rules (bridge-nf-call-iptables, a per-namespace
// setting), so a Pod reaches a Service whose endpoint shares its bridge.
// kube-proxy is told to leave the connection tracker's limits alone:
// those are the machine's.
func (n *Node) startProxy() error {
	env := n.Env
	set := exec.Command("nsenter", "--net=/var/run/netns/"+n.netns, "--", "sh", "-c", "echo 1 > /proc/sys/net/bridge/bridge-nf-call-iptables")
	if out, err := set.CombinedOutput(); err != nil {
		return fmt.Errorf("bridge-nf-call-iptables in %s: %w: %s", n.netns, err, out)
	}
	kc, err := env.KubeConfigFor("system:kube-proxy", "system:node-proxier", "system:masters")
	if err != nil {
		return err
	}
	kcp := filepath.Join(n.dir, "kube-proxy.kubeconfig")
	if err := os.WriteFile(kcp, kc, 0o600); err != nil {
		return err
	}
	cfg := filepath.Join(n.dir, "kube-proxy.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: %q}
hostnameOverride: %q
mode: iptables
clusterCIDR: %q
# In the node's own network namespace: its ports meet no one else's.
metricsBindAddress: 127.0.0.1:10249
healthzBindAddress: 127.0.0.1:10256
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
`, kcp, n.Name, n.PodCIDR.String()), 0o600); err != nil {
		return err
	}
	p, err := n.inNetns(filepath.Join(n.dir, "logs"), "kube-proxy", asset("kube-proxy"), "--config", cfg)
	if err != nil {
		return err
	}
	n.procs = append(n.procs, p)
	return nil
}

// startDNS runs CoreDNS (hack/coredns.sh) as a Deployment in kube-system
// behind the kube-dns Service at DNSServiceIP, answering for the cluster
// domain from the API server, as a cluster's DNS does. It listens on an
// unprivileged port, so it runs as the image's non-root user with no
// capability.
func (n *Node) startDNS(ctx context.Context) error {
	image, err := n.PushImage(asset("coredns"), "coredns", "test")
	if err != nil {
		return err
	}
	const ns, name = "kube-system", "coredns"
	labels := map[string]string{"k8s-app": "kube-dns"}
	corefile := fmt.Sprintf(`.:1053 {
    errors
    health :8080
    ready :8181
    kubernetes %s in-addr.arpa ip6.arpa {
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    cache 30
    loadbalance
}
`, ClusterDomain)
	limits := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")}
	objs := []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "system:coredns"}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"services", "pods", "namespaces"}, Verbs: []string{"list", "watch"}},
			{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"list", "watch"}},
		}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "system:coredns"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:coredns"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: map[string]string{"Corefile": corefile}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}, Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				ServiceAccountName: name,
				// It is the cluster's DNS: it resolves with the node's.
				DNSPolicy:       corev1.DNSDefault,
				SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
				Containers: []corev1.Container{{
					Name: "coredns", Image: image, Args: []string{"-conf", "/etc/coredns/Corefile"},
					Ports:          []corev1.ContainerPort{{Name: "dns", ContainerPort: 1053, Protocol: corev1.ProtocolUDP}, {Name: "dns-tcp", ContainerPort: 1053, Protocol: corev1.ProtocolTCP}},
					ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8181)}}, PeriodSeconds: 2},
					LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromInt32(8080)}}, PeriodSeconds: 10},
					Resources:      corev1.ResourceRequirements{Requests: limits, Limits: limits},
					VolumeMounts:   []corev1.VolumeMount{{Name: "config", MountPath: "/etc/coredns", ReadOnly: true}},
					SecurityContext: &corev1.SecurityContext{
						ReadOnlyRootFilesystem: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false),
						Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
					},
				}},
				Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}}},
			}},
		}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "kube-dns", Namespace: ns, Labels: labels}, Spec: corev1.ServiceSpec{
			ClusterIP: DNSServiceIP, Selector: labels,
			Ports: []corev1.ServicePort{
				{Name: "dns", Port: 53, TargetPort: intstr.FromInt32(1053), Protocol: corev1.ProtocolUDP},
				{Name: "dns-tcp", Port: 53, TargetPort: intstr.FromInt32(1053), Protocol: corev1.ProtocolTCP},
			},
		}},
	}
	for _, o := range objs {
		if err := n.kube.Create(ctx, o); err != nil {
			return fmt.Errorf("%T %s: %w", o, o.GetName(), err)
		}
	}
	d := &appsv1.Deployment{}
	if err := waitFor(3*time.Minute, func() bool {
		return n.kube.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, d) == nil && d.Status.ReadyReplicas == 1
	}); err != nil {
		// Start adds every process's log (Diagnostics).
		return fmt.Errorf("CoreDNS not Ready (%+v): pods:\n%s", d.Status.Conditions, n.podsSummary(ctx, ns))
	}
	return nil
}

// podsSummary is each Pod of namespace ns with its phase, conditions and
// containers' states, and their logs.
func (n *Node) podsSummary(ctx context.Context, ns string) string {
	pods := &corev1.PodList{}
	if err := n.kube.List(ctx, pods, client.InNamespace(ns)); err != nil {
		return err.Error()
	}
	var out string
	for _, p := range pods.Items {
		out += fmt.Sprintf("%s %s node=%q %+v\n", p.Name, p.Status.Phase, p.Spec.NodeName, p.Status.ContainerStatuses)
		out += n.Logs(ns, p.Name)
	}
	return out
}

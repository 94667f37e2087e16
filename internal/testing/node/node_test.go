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
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/freeleaps/provider-devops/internal/testing/distribution"
	"github.com/freeleaps/provider-devops/internal/testing/envtest"
)

func TestMain(m *testing.M) { envtest.Main(m) }

// TestNodeRunsProviderImage: the provider's runtime image, pulled by a real
// kubelet from the local registry, runs as a Pod on the node's bridge as
// the image's non-root user with a read-only root filesystem, no
// capabilities and the runtime's default seccomp profile, and exits as
// the binary does.
func TestNodeRunsProviderImage(t *testing.T) {
	env := envtest.Shared(t)
	reg := distribution.Start(t)
	n := Start(t, env, reg)

	bin := filepath.Join(t.TempDir(), "provider")
	build := exec.Command("go", "build", "-o", bin, "./cmd/provider")
	build.Dir, build.Env = envtest.RepoRoot(), append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	image, err := n.PushImage(bin, "provider-devops", "test")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ns := envtest.Unique("node")
	envtest.Must(t, env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	envtest.Must(t, env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}}))
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
	envtest.Must(t, env.Client.Create(ctx, pod))
	envtest.EventuallyWithin(t, 3*time.Minute, "the provider's Pod to run to completion", func() bool {
		return env.Client.Get(ctx, client.ObjectKeyFromObject(pod), pod) == nil &&
			(pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed)
	})
	if pod.Status.Phase != corev1.PodSucceeded {
		t.Fatalf("the provider's Pod %s: %+v", pod.Status.Phase, pod.Status.ContainerStatuses)
	}
	cs := pod.Status.ContainerStatuses[0]
	if !strings.HasPrefix(cs.ImageID, reg.Host+"/provider-devops@sha256:") {
		t.Errorf("image %s, want it pulled from %s", cs.ImageID, reg.Host)
	}
	if ip := net.ParseIP(pod.Status.PodIP); ip == nil || !n.PodCIDR.Contains(ip) {
		t.Errorf("Pod IP %q, want one of the node's bridge %s", pod.Status.PodIP, n.PodCIDR)
	}
	t.Logf("the provider's image ran as a Pod on %s (IP %s, image %s)", n.Name, pod.Status.PodIP, cs.ImageID)
}

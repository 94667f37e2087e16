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
	"os"
	"path/filepath"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// providerIdentity gives the provider the identity it has in a cluster
// with pods: the ServiceAccount of its revision's Deployment, bound by
// Crossplane's RBAC manager to the ClusterRole it derives from the
// package. It creates the ServiceAccount and a Deployment owned by the
// revision (zero replicas: nothing would run its pods here, the process
// runs on the host), waits for the RBAC manager's binding, and returns a
// kubeconfig with a token of that ServiceAccount. A permission the provider
// needs and the package does not ask for therefore fails the scenario.
func (c *Cluster) providerIdentity(ctx context.Context, rev *unstructured.Unstructured) (string, error) {
	name := rev.GetName()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace}}
	if err := c.Kube.Create(ctx, sa); err != nil && !kerrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("cannot create the provider's ServiceAccount: %w", err)
	}
	labels := map[string]string{"pkg.crossplane.io/revision": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace, OwnerReferences: []metav1.OwnerReference{{
			APIVersion: rev.GetAPIVersion(), Kind: rev.GetKind(), Name: name, UID: rev.GetUID(), Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
		}}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](0),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{ServiceAccountName: name, Containers: []corev1.Container{{Name: "package-runtime", Image: "provider-devops"}}},
			},
		},
	}
	if err := c.Kube.Create(ctx, d); err != nil && !kerrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("cannot create the provider's Deployment: %w", err)
	}
	binding := "crossplane:provider:" + name + ":system"
	err := c.Wait(ctx, "Crossplane's RBAC manager to bind the provider's ServiceAccount", 2*time.Minute, func(ctx context.Context) (bool, string, error) {
		crb := &rbacv1.ClusterRoleBinding{}
		if err := c.Kube.Get(ctx, client.ObjectKey{Name: binding}, crb); err != nil {
			return false, err.Error(), nil
		}
		for _, s := range crb.Subjects {
			if s.Kind == rbacv1.ServiceAccountKind && s.Namespace == Namespace && s.Name == name {
				return true, "", nil
			}
		}
		return false, fmt.Sprintf("subjects %v", crb.Subjects), nil
	})
	if err != nil {
		return "", err
	}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](24 * 3600)}}
	if err := c.Kube.SubResource("token").Create(ctx, sa, tr); err != nil {
		return "", fmt.Errorf("cannot issue a token for the provider's ServiceAccount: %w", err)
	}
	admin, err := clientcmd.LoadFromFile(c.KubeConfig)
	if err != nil {
		return "", err
	}
	cluster := admin.Clusters[admin.Contexts[admin.CurrentContext].Cluster]
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["envtest"] = cluster
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	cfg.Contexts["provider"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: name, Namespace: Namespace}
	cfg.CurrentContext = "provider"
	path := filepath.Join(c.dir, "kubeconfig-provider")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return "", err
	}
	c.logf("  package runtime: the provider runs as system:serviceaccount:%s:%s, bound by the RBAC manager to ClusterRole %s", Namespace, name, binding)
	return path, os.Chmod(path, 0o600)
}

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
	"net/http"
	"strings"
	"syscall"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/internal/testing/sandbox"
)

// armCrash makes Jenkins hold the answer to the next job it creates (the
// pods runtime only): crashMidCreate then kills the provider while it waits.
func (c *Cluster) armCrash(ctx context.Context) error {
	if c.node == nil {
		return nil
	}
	return c.sandboxCommand(ctx, sandbox.HoldNextCreate)
}

// crashMidCreate kills the leading provider's container with SIGKILL, as
// the kernel's OOM killer or a lost node would, while Jenkins holds the
// answer to a job create armCrash armed: Jenkins has made the job, and the
// provider never heard so nor wrote down that it had. The kubelet restarts
// the container; the lease is never released, so a replica leads again
// once it expires. It returns the job whose create was cut short.
func (c *Cluster) crashMidCreate(ctx context.Context, r *Report) (string, error) {
	if c.node == nil {
		return "", nil
	}
	var job string
	if err := c.Wait(ctx, "the provider to create a Jenkins job (its answer held)", 2*time.Minute, func(ctx context.Context) (bool, string, error) {
		s, err := c.sandboxState(ctx)
		if err != nil {
			return false, err.Error(), nil
		}
		job = s.Held
		return job != "", fmt.Sprintf("%d jobs, none held", len(s.Jobs)), nil
	}); err != nil {
		return "", err
	}
	holder, err := c.leaseHolder(ctx)
	if err != nil {
		return "", err
	}
	leader, err := c.leaderPod(ctx)
	if err != nil {
		return "", err
	}
	pid, err := c.node.ContainerPID(ctx, leader.Namespace, leader.Name, leader.Spec.Containers[0].Name)
	if err != nil {
		return "", err
	}
	t0 := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return "", fmt.Errorf("killing the leader %s (pid %d): %w", leader.Name, pid, err)
	}
	// Nobody is left to hear the answer.
	if err := c.sandboxCommand(ctx, sandbox.ReleaseHeld); err != nil {
		return "", err
	}
	var now string
	if err := c.Wait(ctx, "a provider replica to lead after the crash of "+leader.Name, 3*time.Minute, func(ctx context.Context) (bool, string, error) {
		h, err := c.leaseHolder(ctx)
		if err != nil {
			return false, err.Error(), nil
		}
		now = h
		return h != holder, "held by " + h, nil
	}); err != nil {
		return "", err
	}
	pod, _, _ := strings.Cut(now, "_")
	who := pod
	if pod == leader.Name {
		who = "its restarted container"
	}
	line := fmt.Sprintf("the project's creation: leader %s killed (SIGKILL) with its create of job %s unanswered, %s led after %s (the lease run out, then a renewal)",
		leader.Name, job, who, time.Since(t0).Round(100*time.Millisecond))
	r.Crash = line
	c.logf("  crash %s", line)
	return job, nil
}

// checkCreatedOnce requires that Jenkins made job once and was never asked
// to create a job that existed: the provider found what it had created
// before a crash or a failover instead of creating it again.
func (c *Cluster) checkCreatedOnce(ctx context.Context, job string) error {
	s, err := c.sandboxState(ctx)
	if err != nil {
		return err
	}
	if job != "" && s.Created[job] != 1 {
		return fmt.Errorf("jenkins job %s was created %d times, want once", job, s.Created[job])
	}
	if len(s.Refused) > 0 {
		return fmt.Errorf("the provider asked Jenkins to create jobs that existed: %v", s.Refused)
	}
	return nil
}

// leaseHolder is the identity (pod name and a per-process id) holding the
// provider's leader election lease.
func (c *Cluster) leaseHolder(ctx context.Context) (string, error) {
	leases := &coordinationv1.LeaseList{}
	if err := c.Kube.List(ctx, leases, client.InNamespace(Namespace)); err != nil {
		return "", err
	}
	for _, l := range leases.Items {
		if h := l.Spec.HolderIdentity; h != nil && strings.HasPrefix(*h, ProviderName+"-") {
			return *h, nil
		}
	}
	return "", fmt.Errorf("no provider replica holds a lease in %s", Namespace)
}

func (c *Cluster) sandboxCommand(ctx context.Context, command string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Sandbox.Control+command, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %s", command, resp.Status)
	}
	return nil
}

// composedResource is a managed resource the project composed, as
// "Kind/namespace/name", and whether it created its external object.
type composedResource struct {
	key     string
	created bool
}

// projectResources lists the managed resources the project composed. Each
// created its external object, and must record so (the one whose create
// was cut short by the crash too), but the registry repository: an OCI
// repository is made by its first push.
func (c *Cluster) projectResources(ctx context.Context) ([]composedResource, error) {
	var out []composedResource
	for _, k := range mrKinds {
		items, err := c.List(ctx, k[0], k[1], client.InNamespace(ProjectNamespace))
		if err != nil {
			return nil, err
		}
		for _, u := range items {
			key := k[1] + "/" + u.GetNamespace() + "/" + u.GetName()
			created := k[1] != "RegistryRepo"
			if ok := !conditionTime(&u, contract.ConditionCreated).IsZero(); ok != created {
				return nil, fmt.Errorf("%s: Created condition %t, want %t (annotations %v, status %v)", key, ok, created, u.GetAnnotations(), u.Object["status"])
			}
			out = append(out, composedResource{key: key, created: created})
		}
	}
	return out, nil
}

// checkEvents waits until the stream has carried, for each resource, its
// ready event and, if it created its external object, its created event;
// and requires that every created event was sent with one id: one sent
// again (by a new leader, after a crash, a failover or an upgrade) keeps
// the id a consumer dedupes on. It returns how many events arrived more
// than once.
func (c *Cluster) checkEvents(ctx context.Context, s *eventStream, resources []composedResource) (int, error) {
	var resent int
	err := c.Wait(ctx, "each resource's created and ready events on the stream", time.Minute, func(context.Context) (bool, string, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		var missing, twice []string
		resent = 0
		for _, r := range resources {
			for _, what := range []string{"created", "ready"} {
				ids := s.ids[what+" "+r.key]
				if len(ids) == 0 && (what == "ready" || r.created) {
					missing = append(missing, what+" "+r.key)
				}
				if what == "created" && len(ids) > 1 {
					twice = append(twice, fmt.Sprintf("%s with %d ids", r.key, len(ids)))
				}
				for _, n := range ids {
					resent += n - 1
				}
			}
		}
		if len(twice) > 0 {
			return false, "", fmt.Errorf("created events sent again with a new id: %s", strings.Join(twice, "; "))
		}
		return len(missing) == 0, "missing: " + strings.Join(missing, ", "), nil
	})
	return resent, err
}

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

package main

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/types/known/structpb"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/function-sdk-go/errors"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/resource"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	dnsv1alpha1 "github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	forgev1alpha1 "github.com/freeleaps/provider-devops/apis/forge/v1alpha1"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	registryv1alpha1 "github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/pbcodec"
)

// composer adds resources to the desired state with readiness taken from
// their observed state. desired holds only what this run composes,
// written straight as protobuf by enc; respond adds it to the desired
// state earlier steps of the pipeline left.
type composer struct {
	p        *project
	observed map[resource.Name]*structpb.Struct
	desired  map[resource.Name]*fnv1.Resource
	ready    map[resource.Name]bool
	handHost map[string]string
	hostNote map[string]string
	// hostAwaits: see requestState.
	hostAwaits map[string]resource.Name
	enc        *pbcodec.Encoder
	// skipped are the open pull requests the project does not preview.
	skipped []string
	// held are the resources composed at the next run (firstOfNewKinds).
	held map[resource.Name]*fnv1.Resource
	// changed: see requestState; what is not created yet is as young.
	changed time.Time
	// now is the run's clock; nameDue the earliest time a resource now
	// said to be "being created" is to be named (zero for none).
	now, nameDue time.Time
}

func newComposer(rs *requestState) *composer {
	return &composer{p: rs.project, observed: rs.observed, desired: map[resource.Name]*fnv1.Resource{}, ready: rs.ready, handHost: rs.handHost, hostNote: rs.hostNote, hostAwaits: rs.hostAwaits, enc: &pbcodec.Encoder{}, skipped: rs.skippedPullRequests(), now: rs.now, changed: rs.changed}
}

// projectWide adds the resources the project's environments share: the
// registry, the ArgoProject and, for a private repository, the
// ArgoRepository and the pipelines' JenkinsCredential, and the registry's
// JenkinsCredential. keepArgo composes the Argo CD ones and the credentials
// without Delete, for an orphaned
// environment that still syncs or builds with them.
func (c *composer) projectWide(keepArgo bool, orphaned []OrphanedEnvironment) error {
	if err := c.add(nameRegistry, c.p.registry()); err != nil {
		return err
	}
	if err := c.add(nameArgoProject, c.p.argoProject(keepArgo, orphaned)); err != nil {
		return err
	}
	// The repository's credentials go into the AppProject only once this
	// project's ArgoProject holds it (observed Ready): never into a
	// project of that name someone else made first.
	if r := c.p.argoRepository(keepArgo); r != nil && (c.exists(nameArgoRepo) || c.ready[nameArgoProject]) {
		if err := c.add(nameArgoRepo, r); err != nil {
			return err
		}
	}
	// The checkout credential goes into the pipelines' folder once a
	// pipeline, which creates the folder, is observed Ready; so does the
	// registry credential.
	if r := c.p.jenkinsCredential(keepArgo); r != nil && (c.exists(nameJenkinsCred) || c.pipelineReady()) {
		if err := c.add(nameJenkinsCred, r); err != nil {
			return err
		}
	}
	if r := c.p.registryCredential(keepArgo); r != nil && (c.exists(nameRegistryCred) || c.pipelineReady()) {
		return c.add(nameRegistryCred, r)
	}
	return nil
}

// pipelineReady is true when one of the project's pipelines is observed
// Ready.
func (c *composer) pipelineReady() bool {
	for _, e := range c.p.spec.Environments {
		if c.ready[namePipeline(e.Name)] {
			return true
		}
	}
	return false
}

func (c *composer) add(name resource.Name, o composable) error {
	// A resource composed before keeps its name (Crossplane keeps it too);
	// a new one gets the project's stable name.
	if _, seen := c.observed[name]; !seen && o.GetName() == "" {
		o.SetName(c.p.composedName(name))
	}
	c.initialize(name, o)
	s, err := c.enc.Resource(o)
	if err != nil {
		return errors.Wrapf(err, "cannot compose %s", name)
	}
	d := &fnv1.Resource{Resource: s, Ready: fnv1.Ready_READY_UNSPECIFIED}
	if ready, ok := c.ready[name]; ok {
		d.Ready = fnv1.Ready_READY_FALSE
		if ready {
			d.Ready = fnv1.Ready_READY_TRUE
		}
	}
	c.desired[name] = d
	return nil
}

// initialize gives a managed resource what the provider would otherwise
// write before creating its external object: crossplane-runtime's
// finalizer and the external name the provider gives a new resource. Then
// the provider writes nothing before that create, and the project's XR
// controller sees the resource added and its status written, not also
// updated (three tokens of Crossplane's circuit breaker, not five). An
// existing resource keeps the external name it has: the provider never
// changes one either; the application and AppProject, which the function
// names itself, keep the name it gives them. A DeployRun is no managed
// resource and gets neither.
func (c *composer) initialize(name resource.Name, o composable) {
	switch o.(type) {
	case *argov1alpha1.ArgoProject, *argov1alpha1.ArgoApplication, *argov1alpha1.ArgoRepository,
		*jenkinsv1alpha1.JenkinsPipeline, *jenkinsv1alpha1.JenkinsCredential,
		*dnsv1alpha1.DNSRecord, *registryv1alpha1.RegistryRepo, *forgev1alpha1.ForgeRepository:
	default:
		return
	}
	if obs := c.observed[name]; obs == nil || pbAt(obs, "metadata", "deletionTimestamp") == nil || hasFinalizer(obs, contract.FinalizerManaged) {
		// Not to one being deleted that no longer has it: the API server
		// refuses a finalizer added to an object being deleted.
		meta.AddFinalizer(o, contract.FinalizerManaged)
	}
	if meta.GetExternalName(o) != "" {
		// Named by the function (an application or AppProject).
		return
	}
	if ext := pbAt(c.observed[name], "metadata", "annotations", meta.AnnotationKeyExternalName).GetStringValue(); ext != "" {
		meta.SetExternalName(o, ext)
		return
	}
	if d, ok := o.(interface{ DefaultExternalName() string }); ok {
		meta.SetExternalName(o, d.DefaultExternalName())
		return
	}
	// The provider's default: the resource's own name.
	meta.SetExternalName(o, o.GetName())
}

// hasFinalizer is true when the observed object o has finalizer f.
func hasFinalizer(o *structpb.Struct, f string) bool {
	for _, v := range pbAt(o, "metadata", "finalizers").GetListValue().GetValues() {
		if v.GetStringValue() == f {
			return true
		}
	}
	return false
}

// composable is a typed resource the function composes.
type composable interface {
	runtime.Object
	metav1.Object
}

// environment adds an environment's resources for phase: all of them,
// retained ones with Delete removed from their management policies once it
// is Expiring, none once it is Expired (Crossplane deletes them, in
// teardown order, or orphans the retained ones' external objects).
func (c *composer) environment(ep envPlan) error {
	if ep.phase == PhaseExpired {
		return nil
	}
	return c.envResources(ep, keptKinds(ep))
}

// withPipeline is false while a new environment's job must wait for the
// project's registry host (waitsForRegistry); an existing job stays.
func (c *composer) withPipeline(e Environment) bool {
	return c.exists(namePipeline(e.Name)) || !c.p.waitsForRegistry(e)
}

// keptKinds are the kinds of an environment's resources that keep their
// external objects: the retained ones once it is Expiring, and all three
// under the Orphan policy.
func keptKinds(ep envPlan) map[string]bool {
	if ep.policy == PolicyOrphan {
		// Production by default: removing the environment from the spec
		// (a bad merge, a rename) or deleting the project leaves its job
		// with its build history, its application with its workloads and
		// its DNS record in place.
		return map[string]bool{KindPipeline: true, KindApp: true, KindDNS: true}
	}
	keep := map[string]bool{}
	if ep.phase == PhaseExpiring {
		for _, k := range ep.env.Retain {
			keep[k] = true
		}
	}
	return keep
}

// envResources adds an environment's pipeline, its application unless
// that must wait, and its DNS record, each annotated with the expiry if it
// has one, and with the kind it is deleted after (teardownOrder).
func (c *composer) envResources(ep envPlan, keep map[string]bool) error {
	e, x := ep.env, ep.expiry
	type res struct {
		name resource.Name
		obj  composable
	}
	all := make([]res, 0, 3)
	if c.withPipeline(e) {
		all = append(all, res{namePipeline(e.Name), c.p.pipeline(e, keep[KindPipeline])})
	}
	// Argo CD refuses an application whose AppProject does not exist yet,
	// and one whose private repository it cannot read: a new application
	// waits for them, and with ingress on for its host to be proven
	// (gateHosts); an existing one stays whatever they do.
	_, appExists := c.observed[nameApp(e.Name)]
	withApp := appExists || c.argoReady() && c.destinationAllowed(e) && (c.handHost[e.Name] != "" || !ingressOf(c.p.spec.Ingress, e.Ingress).enabled)
	if withApp {
		app, err := c.p.app(e, keep[KindApp], c.handHost[e.Name])
		if err != nil {
			return err
		}
		all = append(all, res{nameApp(e.Name), app})
	}
	all = append(all, res{nameDNS(e.Name), c.p.dns(e, keep[KindDNS])})
	for _, r := range all {
		if !x.at.IsZero() {
			// The provider reports a deletion at or after this as expired.
			meta.AddAnnotations(r.obj, map[string]string{contract.AnnotationExpiresAt: x.at.Format(time.RFC3339)})
		}
		if after := c.p.in.deleteAfter(r.obj.GetObjectKind().GroupVersionKind().Kind); after != "" {
			meta.AddAnnotations(r.obj, map[string]string{contract.AnnotationDeleteAfter: after})
		}
		if err := c.add(r.name, r.obj); err != nil {
			return err
		}
		if e.preview != nil {
			// A preview does not hold the project's readiness: a pull
			// request opened, or one whose build fails, must not make
			// the project unready. status.environments and the
			// Environments condition say how each preview stands.
			c.desired[r.name].Ready = fnv1.Ready_READY_TRUE
		}
	}
	return nil
}

// argoReady is true when the project's AppProject, and its repository
// when one is composed, are observed Ready.
func (c *composer) argoReady() bool {
	if c.p.spec.Git.CredentialsSecretRef != nil && !c.ready[nameArgoRepo] {
		return false
	}
	return c.ready[nameArgoProject]
}

// destinationAllowed is true when the project's ArgoProject, as observed,
// lists e's destination and the provider reconciled that spec (its
// Synced condition is of its generation): Argo CD then allows it, unless
// it refused the AppProject. A new environment's application waits for that: created
// before, Argo CD refuses it (the destination is not permitted) and its
// creation backs off for minutes. An ArgoProject whose conditions carry
// no observedGeneration is taken as up to date, one that shows no
// destinations as allowing any.
func (c *composer) destinationAllowed(e Environment) bool {
	o, ok := c.observed[nameArgoProject]
	if !ok {
		return false
	}
	dests := pbAt(o, "spec", "forProvider", "destinations")
	if dests == nil {
		// Not shown (a partial object): unknown, so not held back.
		return true
	}
	cluster, ns := c.p.destination(e)
	listed := false
	for _, v := range dests.GetListValue().GetValues() {
		d := v.GetStructValue()
		if pbAt(d, "server").GetStringValue() == cluster && pbAt(d, "namespace").GetStringValue() == ns {
			listed = true
			break
		}
	}
	if !listed {
		return false
	}
	gen := int64(pbAt(o, "metadata", "generation").GetNumberValue())
	for _, v := range pbAt(o, "status", "conditions").GetListValue().GetValues() {
		cd := v.GetStructValue()
		if pbAt(cd, "type").GetStringValue() != "Synced" {
			continue
		}
		// Reconciled at its latest spec, whatever came of it: an
		// application Argo CD holds may be what keeps the AppProject from
		// its new spec (one an orphaned environment left, which this
		// project's application takes back), and it must not wait for
		// the AppProject in turn.
		seen := int64(pbAt(cd, "observedGeneration").GetNumberValue())
		return seen == 0 || seen >= gen
	}
	return false
}

// exists is true when the resource was composed before (is observed).
func (c *composer) exists(name resource.Name) bool {
	_, ok := c.observed[name]
	return ok
}

// status reads what the observed resources say about an environment.
func (c *composer) status(ep envPlan) EnvStatus {
	e, x := ep.env, ep.expiry
	st := EnvStatus{Name: e.Name, Phase: ep.phase, URL: c.p.url(e)}
	if !x.at.IsZero() {
		st.ExpiresAt, st.TTL, st.TTLFrom, st.Renewal = x.at.Format(time.RFC3339), x.ttl.String(), x.ttlFrom, x.renewal
	}
	st.DeletionPolicy = ep.policy
	st.Deployment, st.LastDeployment = ep.deployment, ep.last
	if e.RenewOnDeploy {
		ref := c.p.config
		st.ProviderConfigRef = &ref
	}
	st.PullRequest = previewStatus(e)
	if o, ok := c.observed[namePipeline(e.Name)]; ok {
		atp := pbAt(o, "status", "atProvider").GetStructValue()
		st.PipelineURL = pbAt(atp, "url").GetStringValue()
		if lb := pbAt(atp, "lastBuild").GetStructValue(); lb != nil {
			if n := int64(pbAt(lb, "number").GetNumberValue()); n > 0 {
				res := pbAt(lb, "result").GetStringValue()
				if pbAt(lb, "building").GetBoolValue() {
					res = "BUILDING"
				}
				st.LastBuild = fmt.Sprintf("#%d %s", n, res)
			}
		}
	}
	if o, ok := c.observed[nameApp(e.Name)]; ok {
		st.Sync = pbAt(o, "status", "atProvider", "syncStatus").GetStringValue()
		st.Health = pbAt(o, "status", "atProvider", "healthStatus").GetStringValue()
	}
	return st
}

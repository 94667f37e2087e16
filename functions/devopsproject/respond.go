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
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/crossplane/function-sdk-go/errors"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/resource"
	"github.com/crossplane/function-sdk-go/response"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/internal/pbcodec"
)

// ConditionExpiring is the XR condition that reports expiring environments.
const ConditionExpiring = "Expiring"

// ConditionEnvironments is the XR condition that says which environments
// are Ready and what each of the others waits for.
const ConditionEnvironments = "Environments"

// maxConditionMessage bounds the Environments condition's message: a
// project of many environments says how many more there are.
const maxConditionMessage = 1024

// respond writes the plan into rsp: the desired composed resources, the
// XR's status, a result per phase change, the Expiring condition and the
// TTL. The desired resources are set only once all of them are composed,
// so a Fatal from composing never carries half of them. hold composes a
// kind new to the XR one resource first (firstOfNewKinds).
func respond(rsp *fnv1.RunFunctionResponse, rs *requestState, pl plan, hold bool) error {
	c := newComposer(rs)
	// An orphaned environment's application keeps syncing after the
	// project is deleted: its AppProject and repository credentials stay
	// with it, also when the environment left the spec before (recorded in
	// status, never forgotten).
	orphaned := c.orphanedEnvironments(rs.project.spec.Environments, rs.prev, rs.orphaned)
	if err := c.projectWide(len(orphaned) > 0 || pl.orphans(), orphaned); err != nil {
		return err
	}
	statuses := make([]EnvStatus, 0, len(pl.envs))
	for _, ep := range pl.envs {
		if err := c.environment(ep); err != nil {
			return err
		}
		st := c.status(ep)
		statuses = append(statuses, st)
		report(rsp, ep.prev, st)
	}

	if err := c.forge(pl); err != nil {
		return err
	}
	ttl := pl.ttl
	if hold {
		c.held = firstOfNewKinds(c.desired, rs.observed)
		if len(c.held) > 0 && c.young("") {
			// At once, unless the first of its kind was composed long
			// ago and is still not there: then as a provisioning run.
			ttl = min(ttl, minRequeue)
		}
	}
	status := map[string]any{"environments": statuses}
	if len(orphaned) > 0 {
		status["orphanedEnvironments"] = orphaned
	}
	if err := setDesired(rsp, c.enc, status, c.desired); err != nil {
		return err
	}
	if len(pl.expiring) > 0 {
		reason := "ExpiringSoon"
		if pl.expired {
			reason = "Expired"
		}
		response.ConditionTrue(rsp, ConditionExpiring, reason).WithMessage(strings.Join(pl.expiring, "; ")).TargetCompositeAndClaim()
	} else {
		response.ConditionFalse(rsp, ConditionExpiring, "NoneExpiring").TargetCompositeAndClaim()
	}
	environmentsCondition(rsp, c, pl)
	c.compositeReadiness(rsp.Desired)
	if !c.nameDue.IsZero() {
		ttl = min(ttl, max(c.nameDue.Sub(c.now), minRequeue))
	}
	rsp.Meta.Ttl = durationpb.New(ttl)
	return nil
}

// firstOfNewKinds keeps in desired only the first (by name) of the
// resources of each kind the XR composes none of yet, and returns those
// it held back: they are composed at the next run, which the first one's
// watch event or the TTL brings within half a second.
//
// Crossplane (v2.1 to v2.3) starts its XR controller's watch of a composed
// kind once per resource reference of that kind when its informer is not
// running yet, and never stops the extra ones: four ArgoApplications
// composed at once made every later ArgoApplication event cost the XR's
// circuit breaker four times, for every XR of the kind until Crossplane
// restarts, and opened the breaker during a project's creation. One
// reference of a new kind starts one watch; the informer then runs, and
// the next references of that kind start none. Holding back only what the
// XR has none of deletes nothing: a kind it observes is composed whole.
func firstOfNewKinds(desired map[resource.Name]*fnv1.Resource, observed map[resource.Name]*structpb.Struct) map[resource.Name]*fnv1.Resource {
	kindOf := func(s *structpb.Struct) string {
		return pbAt(s, "apiVersion").GetStringValue() + "/" + pbAt(s, "kind").GetStringValue()
	}
	has := make(map[string]bool, len(observed))
	for _, o := range observed {
		has[kindOf(o)] = true
	}
	names := make([]resource.Name, 0, len(desired))
	for n := range desired {
		names = append(names, n)
	}
	slices.Sort(names)
	held := map[resource.Name]*fnv1.Resource{}
	for _, n := range names {
		k := kindOf(desired[n].GetResource())
		if has[k] {
			continue
		}
		if _, first := has[k]; first {
			held[n] = desired[n]
			delete(desired, n)
			continue
		}
		// Seen once now: the next of this kind is held back.
		has[k] = false
	}
	return held
}

// environmentsCondition sets the Environments condition. The results
// (events) report phase changes, but Crossplane's event spam filter drops
// most of them during a project's creation, when its own "not yet ready"
// events have used the burst: a condition is always there to read.
// Expiring and expired environments are the Expiring condition's.
//
// While environments are being created (waitingFor says nothing else of
// them), the message says so once, not which they are nor which are Ready
// already: each environment turning Ready changed it, an XR status write
// of its own besides status.environments, which has each one's phase.
func environmentsCondition(rsp *fnv1.RunFunctionResponse, c *composer, pl plan) {
	ready, waiting, creating := c.environmentsWaiting(pl)
	// The waiting environments are what the condition is for: the Ready
	// ones take at most a quarter of the message.
	var msg strings.Builder
	if len(ready) > 0 && !creating {
		msg.WriteString("Ready: ")
		bounded(&msg, ready, maxConditionMessage/4)
	}
	if creating {
		msg.WriteString("Environments being created (status.environments has each one's phase).")
	}
	if len(waiting) > 0 {
		if msg.Len() > 0 {
			msg.WriteString(" ")
		}
		msg.WriteString("Provisioning: ")
		bounded(&msg, waiting, maxConditionMessage)
	}
	if len(c.skipped) > 0 {
		// More pull requests than max, or forks nobody allowed: said
		// where the previews are read, not only on the forge.
		if msg.Len() > 0 {
			msg.WriteString(" ")
		}
		msg.WriteString("Pull requests not previewed: ")
		bounded(&msg, c.skipped, maxConditionMessage+maxConditionMessage/4)
	}
	if len(waiting) > 0 || creating {
		response.ConditionFalse(rsp, ConditionEnvironments, "Provisioning").WithMessage(msg.String()).TargetCompositeAndClaim()
		return
	}
	if len(ready) == 0 && len(c.skipped) == 0 {
		msg.WriteString("No environment is being provisioned or Ready.")
	}
	response.ConditionTrue(rsp, ConditionEnvironments, "Ready").WithMessage(msg.String()).TargetCompositeAndClaim()
}

// environmentsWaiting names the Ready environments and says what each
// provisioning one waits for; creating is true when one waits for nothing
// but its resources being created. Expiring and expired environments are
// the Expiring condition's.
func (c *composer) environmentsWaiting(pl plan) (ready, waiting []string, creating bool) {
	for _, ep := range pl.envs {
		switch ep.phase {
		case PhaseReady, PhaseExpiringSoon:
			ready = append(ready, ep.env.Name)
		case PhaseProvisioning:
			w := c.waitingFor(ep.env)
			if len(w) == 1 && w[0] == beingCreated {
				creating = true
				continue
			}
			waiting = append(waiting, ep.env.Name+" ("+strings.Join(w, "; ")+")")
		case PhaseExpiring, PhaseExpired:
		}
	}
	return ready, waiting, creating
}

// bounded writes items to msg, comma-separated and ending in a full stop,
// until msg would pass limit: then how many more there are.
func bounded(msg *strings.Builder, items []string, limit int) {
	for i, it := range items {
		if i > 0 && msg.Len()+len(it) > limit {
			fmt.Fprintf(msg, "and %d more.", len(items)-i)
			return
		}
		msg.WriteString(it)
		if i < len(items)-1 {
			msg.WriteString(", ")
		} else {
			msg.WriteString(".")
		}
	}
}

// appWaitsFor says what a new environment's application waits for in
// Argo CD, "" for nothing there; progress is true when that is the
// AppProject (and repository) being made, which is said once it takes long
// (waitingFor).
func (c *composer) appWaitsFor(e Environment) (what string, progress bool) {
	switch {
	case !c.argoReady():
		// Ready, or not for long.
		fine := func(n resource.Name) bool { return c.ready[n] || c.young(n) }
		what, progress := "ArgoProject", fine(nameArgoProject)
		if c.p.spec.Git.CredentialsSecretRef != nil {
			what = "ArgoProject and ArgoRepository"
			progress = progress && fine(nameArgoRepo)
		}
		return "ArgoApplication waits for the " + what, progress
	case !c.destinationAllowed(e):
		return "ArgoApplication waits for the ArgoProject to allow its destination", false
	default:
		return "", false
	}
}

// waitingFor says what a provisioning environment waits for. What goes as
// it should while the environment is new (its resources not created yet or
// not Ready, the AppProject its application waits for, its host's record
// and handing) is said as "resources being created" for nameUnreadyAfter,
// then each is named; a problem (a destination not allowed, a record that
// holds another name) is named at once.
func (c *composer) waitingFor(e Environment) []string {
	w := &waits{}
	hostNote := func() {
		if n := c.hostNote[e.Name]; n != "" {
			a := c.hostAwaits[e.Name]
			w.note(n, a != "" && c.young(a))
		}
	}
	for _, r := range []struct {
		name resource.Name
		kind string
	}{{namePipeline(e.Name), KindPipeline}, {nameApp(e.Name), KindApp}, {nameDNS(e.Name), KindDNS}} {
		// Held back, it is composed at the next run.
		_, composed := c.desired[r.name]
		composed = composed || c.held[r.name] != nil
		switch {
		case !composed && r.kind == KindApp:
			w.note(c.appWaitsFor(e))
			hostNote()
		case !composed:
		case r.kind == KindApp && c.hostNote[e.Name] != "":
			hostNote()
		case c.ready[r.name]:
		case c.young(r.name):
			w.young = true
		case c.observed[r.name] == nil:
			w.notCreated = append(w.notCreated, r.kind)
		default:
			w.notReady = append(w.notReady, r.kind)
		}
	}
	return w.summary()
}

// beingCreated is what waitingFor says of resources being created.
const beingCreated = "resources being created"

// waits is what an environment waits for: its resources being created,
// the kinds not created or not Ready for long, and the other waits.
type waits struct {
	young                bool
	notCreated, notReady []string
	other                []string
}

// note adds what waits, or counts it as being created; "" is nothing.
func (w *waits) note(what string, progress bool) {
	switch {
	case what == "":
	case progress:
		w.young = true
	default:
		w.other = append(w.other, what)
	}
}

func (w *waits) summary() []string {
	var out []string
	if w.young {
		out = append(out, beingCreated)
	}
	if len(w.notCreated) > 0 {
		// Crossplane's Synced condition says why (an apply refused).
		out = append(out, "not created: "+strings.Join(w.notCreated, ", "))
	}
	if len(w.notReady) > 0 {
		out = append(out, "not Ready: "+strings.Join(w.notReady, ", "))
	}
	out = append(out, w.other...)
	if len(out) == 0 {
		out = append(out, "its resources are Ready; reported at the next run")
	}
	return out
}

// nameUnreadyAfter is how long the Environments condition says an
// environment's resources are "being created" before it names what each
// waits for. Naming each resource as it turned Ready (and the AppProject,
// and the host's record) changed the condition's message every time: a
// status write of the XR and so an event of its own watch, two tokens of
// Crossplane's circuit breaker, ten during one project's creation. What
// still waits after this is named at once: the function asks to run then
// (nameDue).
const nameUnreadyAfter = 30 * time.Second

// maxClockAhead is how far ahead of the function's clock a creation time
// may be and still count: a clock further ahead would keep a resource
// "being created" that long, so it is named at once instead.
const maxClockAhead = 2 * time.Second

// young is true for a composed resource created less than
// nameUnreadyAfter ago, or not created yet while the composition last
// grew that recently (changed: a resource Crossplane cannot create is
// named once the rest has been made); it notes when it is due to be named.
// young("") asks the latter alone. Without a creation time of the XR
// (`crossplane render` of a new XR) what is not created yet is taken as
// being created.
func (c *composer) young(n resource.Name) bool {
	created := c.changed
	if o, ok := c.observed[n]; ok {
		created = createdAt(pbAt(o, "metadata").GetStructValue())
		if created.IsZero() {
			// Crossplane sends what the API server set; without it, name it.
			return false
		}
	} else if created.IsZero() {
		return true
	}
	if created.After(c.now.Add(maxClockAhead)) {
		return false
	}
	due := created.Add(nameUnreadyAfter)
	if !c.now.Before(due) {
		return false
	}
	if c.nameDue.IsZero() || due.Before(c.nameDue) {
		c.nameDue = due
	}
	return true
}

// compositeReadiness says the XR is not Ready while a resource this
// function composes (or holds back, firstOfNewKinds) is not, each of them
// for less than nameUnreadyAfter; otherwise it leaves readiness to
// Crossplane, and to the other steps of the pipeline for their resources.
// Crossplane derives the same from the composed resources, but with the
// message "Unready resources: ..." naming the first three, which changed
// each time one of them turned Ready: an XR status write each, two tokens
// of its circuit breaker. So while a project is created the Ready
// condition is Creating, with no message, and the Environments condition
// says what each environment waits for; a resource not Ready for longer
// (a project-wide one too) is named by Crossplane's message again.
func (c *composer) compositeReadiness(d *fnv1.State) {
	if d.GetComposite() == nil {
		return
	}
	unready := false
	for _, m := range []map[resource.Name]*fnv1.Resource{c.desired, c.held} {
		for n, r := range m {
			if r.GetReady() == fnv1.Ready_READY_TRUE {
				continue
			}
			if !c.young(n) {
				return
			}
			unready = true
		}
	}
	if unready {
		d.Composite.Ready = fnv1.Ready_READY_FALSE
	}
}

// setDesired writes the XR's status fields and the composed resources
// into the desired state, keeping what earlier steps of the pipeline put
// there (the request's desired state, which rsp carries).
func setDesired(rsp *fnv1.RunFunctionResponse, enc *pbcodec.Encoder, status map[string]any, composed map[resource.Name]*fnv1.Resource) error {
	if rsp.Desired == nil {
		rsp.Desired = &fnv1.State{}
	}
	d := rsp.Desired
	if d.Composite == nil {
		d.Composite = &fnv1.Resource{}
	}
	if d.Composite.Resource == nil {
		d.Composite.Resource = &structpb.Struct{}
	}
	xr := d.Composite.Resource
	if xr.Fields == nil {
		xr.Fields = map[string]*structpb.Value{}
	}
	st := xr.Fields["status"].GetStructValue()
	if st == nil {
		st = &structpb.Struct{}
		xr.Fields["status"] = structpb.NewStructValue(st)
	}
	if st.Fields == nil {
		st.Fields = map[string]*structpb.Value{}
	}
	for k, v := range status {
		pv, err := enc.Value(v)
		if err != nil {
			return errors.Wrapf(err, "cannot write status.%s", k)
		}
		st.Fields[k] = pv
	}
	if d.Resources == nil {
		d.Resources = make(map[string]*fnv1.Resource, len(composed))
	}
	for n, r := range composed {
		d.Resources[string(n)] = r
	}
	return nil
}

// report adds a result when an environment's phase changes, so events
// say what happened and nothing repeats every run.
func report(rsp *fnv1.RunFunctionResponse, prev *EnvStatus, st EnvStatus) {
	if prev != nil && prev.Phase == st.Phase {
		return
	}
	switch st.Phase {
	case PhaseExpiringSoon:
		how := ""
		if st.ProviderConfigRef != nil {
			how = ", or deploy it (renewOnDeploy)"
		}
		response.Warning(rsp, errors.Errorf("environment %s expires at %s; annotate %s%s to renew it%s", st.Name, st.ExpiresAt, contract.AnnotationRenewPrefix, st.Name, how)).WithReason("ExpiringSoon").TargetCompositeAndClaim()
	case PhaseExpiring:
		response.Warning(rsp, errors.Errorf("environment %s expired at %s: orphaning its retained resources", st.Name, st.ExpiresAt)).WithReason("Expiring").TargetCompositeAndClaim()
	case PhaseExpired:
		response.Warning(rsp, errors.Errorf("environment %s expired at %s: its resources are being deleted", st.Name, st.ExpiresAt)).WithReason("Expired").TargetCompositeAndClaim()
	case PhaseReady:
		response.Normalf(rsp, "environment %s is Ready at %s", st.Name, st.URL).WithReason("Ready").TargetCompositeAndClaim()
	case PhaseProvisioning:
		response.Normalf(rsp, "environment %s is being provisioned", st.Name).WithReason("Provisioning").TargetCompositeAndClaim()
	}
}

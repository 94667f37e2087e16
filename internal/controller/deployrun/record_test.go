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

package deployrun

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
)

func TestRecorded(t *testing.T) {
	at := func(m int) *metav1.Time {
		v := metav1.NewTime(time.Date(2026, 11, 24, 10, m, 0, 0, time.UTC))
		return &v
	}
	run := func(name string, phase v1alpha1.DeployPhase, finished int) *v1alpha1.DeployRun {
		d := &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1alpha1.DeployRunSpec{Revision: "main"}}
		d.Status.Phase, d.Status.StartedAt = phase, at(0)
		if finished > 0 {
			d.Status.FinishedAt = at(finished)
		}
		return d
	}
	names := func(x *jenkinsv1alpha1.PipelineDeployments) string {
		if x == nil {
			return "nil"
		}
		n := func(s *jenkinsv1alpha1.DeploymentSummary) string {
			if s == nil {
				return "-"
			}
			return s.Name
		}
		return n(x.Current) + "/" + n(x.LastSucceeded)
	}
	cases := map[string]struct {
		cur  *jenkinsv1alpha1.PipelineDeployments
		d    *v1alpha1.DeployRun
		want string
	}{
		"FirstRunning":      {nil, run("a", v1alpha1.DeployBuilding, 0), "a/-"},
		"Succeeds":          {&jenkinsv1alpha1.PipelineDeployments{Current: summary(run("a", v1alpha1.DeployVerifying, 0))}, run("a", v1alpha1.DeploySucceeded, 5), "-/a"},
		"FailureKeepsLast":  {&jenkinsv1alpha1.PipelineDeployments{Current: summary(run("b", v1alpha1.DeployBuilding, 0)), LastSucceeded: summary(run("a", v1alpha1.DeploySucceeded, 5))}, run("b", v1alpha1.DeployFailed, 9), "-/a"},
		"OldSuccessIgnored": {&jenkinsv1alpha1.PipelineDeployments{LastSucceeded: summary(run("b", v1alpha1.DeploySucceeded, 9))}, run("a", v1alpha1.DeploySucceeded, 5), "-/b"},
		"OtherCurrentKept":  {&jenkinsv1alpha1.PipelineDeployments{Current: summary(run("b", v1alpha1.DeployBuilding, 0))}, run("a", v1alpha1.DeployFailed, 5), "b/-"},
		"NothingLeft":       {&jenkinsv1alpha1.PipelineDeployments{Current: summary(run("a", v1alpha1.DeployBuilding, 0))}, run("a", v1alpha1.DeployFailed, 5), "nil"},
		"Cancelled": {&jenkinsv1alpha1.PipelineDeployments{Current: summary(run("a", v1alpha1.DeployBuilding, 0))}, func() *v1alpha1.DeployRun {
			d := run("a", v1alpha1.DeployBuilding, 0)
			d.DeletionTimestamp = at(3)
			return d
		}(), "nil"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := names(recorded(tc.cur, tc.d)); got != tc.want {
				t.Errorf("recorded: current/last %s, want %s", got, tc.want)
			}
		})
	}
	d := run("a", v1alpha1.DeploySucceeded, 5)
	d.Status.Build = &v1alpha1.DeployBuild{Revision: "abc1234"}
	d.Status.Sync = &v1alpha1.DeploySync{SyncedRevision: "abc1234def"}
	if s := summary(d); s.Revision != "abc1234def" || s.Phase != "Succeeded" || !s.FinishedAt.Equal(at(5)) {
		t.Errorf("summary %+v: want the synced revision, the phase and the finish", s)
	}
}

// TestAhead: the oldest waiting deployment goes first, one past Pending
// goes before all, and each knows its place (the cap counts it).
func TestAhead(t *testing.T) {
	s := runtime.NewScheme()
	if err := v1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	var objs []client.Object
	runs := make([]*v1alpha1.DeployRun, 0, 20)
	for i := range 20 {
		d := &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("r%02d", i), Namespace: "team", UID: types.UID(fmt.Sprint(i)),
			CreationTimestamp: metav1.NewTime(t0.Add(time.Duration(i) * time.Second))}, Spec: v1alpha1.DeployRunSpec{Project: "shop", Environment: "dev"}}
		runs = append(runs, d)
		objs = append(objs, d)
	}
	// Other environments', namespaces' and finished ones do not count.
	objs = append(objs,
		&v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: "prod", Namespace: "team", UID: "p", CreationTimestamp: metav1.NewTime(t0.Add(-time.Hour))}, Spec: v1alpha1.DeployRunSpec{Project: "shop", Environment: "prod"}},
		&v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "other", UID: "o", CreationTimestamp: metav1.NewTime(t0.Add(-time.Hour))}, Spec: v1alpha1.DeployRunSpec{Project: "shop", Environment: "dev"}},
		&v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: "done", Namespace: "team", UID: "d", CreationTimestamp: metav1.NewTime(t0.Add(-time.Hour))}, Spec: v1alpha1.DeployRunSpec{Project: "shop", Environment: "dev"},
			Status: v1alpha1.DeployRunStatus{Phase: v1alpha1.DeploySucceeded}},
	)
	kube := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).Build()
	r := NewReconciler(kube, nil, Options{})
	ctx := context.Background()
	check := func(d *v1alpha1.DeployRun, wantAhead string, wantPlace int) {
		t.Helper()
		a, place, err := r.ahead(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if a != nil {
			got = a.Name
		}
		if got != wantAhead || place != wantPlace {
			t.Errorf("%s: ahead %q place %d, want %q %d", d.Name, got, place, wantAhead, wantPlace)
		}
	}
	check(runs[0], "", 1)
	check(runs[5], "r00", 6)
	check(runs[19], "r00", 20)
	// r07 got going (a crash of the queue's order, or an older version):
	// it runs before everyone, r00 included.
	runs[7].Status.Phase = v1alpha1.DeployBuilding
	if err := kube.Update(ctx, runs[7]); err != nil {
		t.Fatal(err)
	}
	check(runs[0], "r07", 1)
	check(runs[19], "r07", 19)
	if MaxWaiting >= 19 {
		t.Fatalf("MaxWaiting %d: the test needs more runs", MaxWaiting)
	}
}

// The history keeps the newest deployments of an environment even when
// several finished, started and were created in the same second (status
// times are whole seconds): the queue's order tells them apart.
func TestPruneSameSecond(t *testing.T) {
	s := runtime.NewScheme()
	if err := v1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	t0 := metav1.NewTime(time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC))
	// Names whose order is not the queue's: the queue orders by creation,
	// then name, so "a" was created a second after "b" and "c".
	runs := []struct {
		name    string
		created time.Duration
	}{{"c", 0}, {"b", 0}, {"a", time.Second}, {"d", 2 * time.Second}, {"e", 3 * time.Second}}
	ctx := context.Background()
	for rep := range 20 {
		var objs []client.Object
		for i, x := range runs {
			objs = append(objs, &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: x.name, Namespace: "team", UID: types.UID(fmt.Sprint(i)),
				CreationTimestamp: metav1.NewTime(t0.Add(x.created))},
				Spec:   v1alpha1.DeployRunSpec{Project: "shop", Environment: "dev"},
				Status: v1alpha1.DeployRunStatus{Phase: v1alpha1.DeployFailed, StartedAt: &t0, FinishedAt: &t0}})
		}
		kube := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).Build()
		r := NewReconciler(kube, nil, Options{Keep: 3})
		if err := r.prune(ctx, objs[rep%len(objs)].(*v1alpha1.DeployRun)); err != nil {
			t.Fatal(err)
		}
		l := &v1alpha1.DeployRunList{}
		if err := kube.List(ctx, l); err != nil {
			t.Fatal(err)
		}
		var kept []string
		for _, d := range l.Items {
			kept = append(kept, d.Name)
		}
		if got := fmt.Sprint(kept); got != "[a d e]" {
			t.Fatalf("kept %s, want the 3 last in the queue's order [a d e]", got)
		}
	}
}

// A DeployRun a composite holds (a preview's) is never pruned: Crossplane
// would create it again, and it would deploy again.
func TestPruneLeavesComposed(t *testing.T) {
	s := runtime.NewScheme()
	if err := v1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	t0 := metav1.NewTime(time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC))
	ctl := true
	var objs []client.Object
	for i := range 4 {
		fin := metav1.NewTime(t0.Add(time.Duration(i) * time.Minute))
		d := &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("r", i), Namespace: "team", UID: types.UID(fmt.Sprint(i)), CreationTimestamp: fin},
			Spec:   v1alpha1.DeployRunSpec{Project: "shop", Environment: "pr-1"},
			Status: v1alpha1.DeployRunStatus{Phase: v1alpha1.DeploySucceeded, StartedAt: &fin, FinishedAt: &fin}}
		if i == 0 {
			d.Labels = map[string]string{labelComposite: "shop"}
			d.OwnerReferences = []metav1.OwnerReference{{APIVersion: "platform.freeleaps.io/v1alpha1", Kind: "DevOpsProject", Name: "shop", UID: "x", Controller: &ctl}}
		}
		objs = append(objs, d)
	}
	kube := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).Build()
	r := NewReconciler(kube, nil, Options{Keep: 1})
	if err := r.prune(context.Background(), objs[3].(*v1alpha1.DeployRun)); err != nil {
		t.Fatal(err)
	}
	l := &v1alpha1.DeployRunList{}
	if err := kube.List(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, d := range l.Items {
		kept = append(kept, d.Name)
	}
	if got := fmt.Sprint(kept); got != "[r0 r3]" {
		t.Fatalf("kept %s, want the composed r0 and the newest r3", got)
	}
}

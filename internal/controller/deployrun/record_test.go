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
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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

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
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
)

// at is a timeline entry s seconds after testNow.
func at(phase v1alpha1.DeployPhase, s int) v1alpha1.DeployTransition {
	return v1alpha1.DeployTransition{Phase: phase, At: metav1.NewTime(testNow.Add(time.Duration(s) * time.Second))}
}

// histogram is the count and sum of one phase's series.
func histogram(t *testing.T, phase v1alpha1.DeployPhase, outcome string) (uint64, float64) {
	t.Helper()
	m, ok := phaseDurations.WithLabelValues(string(phase), outcome).(prometheus.Metric)
	if !ok {
		t.Fatal("not a metric")
	}
	out := &dto.Metric{}
	if err := m.Write(out); err != nil {
		t.Fatal(err)
	}
	return out.GetHistogram().GetSampleCount(), out.GetHistogram().GetSampleSum()
}

// TestEnded: a deployment that ends is counted once by outcome, and the
// time it spent in each phase goes into that phase's histogram; one
// canceled in Deploying counts its time there until now.
func TestEnded(t *testing.T) {
	const outcome = "TestEnded" // a series of this test's own
	d := &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "metrics-ended"}}
	d.Status.Timeline = []v1alpha1.DeployTransition{at(v1alpha1.DeployPending, 0), at(v1alpha1.DeployBuilding, 2), at(v1alpha1.DeployDeploying, 62), at(v1alpha1.DeployVerifying, 65), at(v1alpha1.DeploySucceeded, 70)}
	ended(d, outcome, testNow.Add(time.Hour))
	if got := testutil.ToFloat64(finishedRuns.WithLabelValues("metrics-ended", outcome)); got != 1 {
		t.Errorf("finished: got %v, want 1", got)
	}
	for phase, want := range map[v1alpha1.DeployPhase]float64{v1alpha1.DeployPending: 2, v1alpha1.DeployBuilding: 60, v1alpha1.DeployDeploying: 3, v1alpha1.DeployVerifying: 5} {
		if n, sum := histogram(t, phase, outcome); n != 1 || sum != want {
			t.Errorf("%s: %d observations summing to %v, want one of %v", phase, n, sum, want)
		}
	}
	c := &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "metrics-ended"}}
	c.Status.Timeline = []v1alpha1.DeployTransition{at(v1alpha1.DeployDeploying, 0)}
	ended(c, outcome, testNow.Add(7*time.Second))
	if n, sum := histogram(t, v1alpha1.DeployDeploying, outcome); n != 2 || sum != 10 {
		t.Errorf("Deploying after a cancel: %d observations summing to %v, want 2 and 10", n, sum)
	}
}

// TestPhaseAges: the gauge says, per namespace and running phase, the
// longest any deployment has been in it, 0 for a phase none is in, and
// leaves ended deployments out.
func TestPhaseAges(t *testing.T) {
	s := runtime.NewScheme()
	if err := v1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	run := func(name string, phase v1alpha1.DeployPhase, since int) *v1alpha1.DeployRun {
		d := &v1alpha1.DeployRun{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team"}}
		d.Status.Phase = phase
		d.Status.Timeline = []v1alpha1.DeployTransition{at(v1alpha1.DeployPending, -1000), at(phase, since)}
		return d
	}
	other := run("ended", v1alpha1.DeploySucceeded, -10)
	other.Namespace = "other"
	kube := fake.NewClientBuilder().WithScheme(s).WithObjects(
		run("a", v1alpha1.DeployBuilding, -30), run("b", v1alpha1.DeployBuilding, -90),
		run("c", v1alpha1.DeployVerifying, -5), run("done", v1alpha1.DeployFailed, -5000), other).Build()
	p := &phaseAges{desc: ages.desc}
	elected := make(chan struct{})
	p.use(kube, func() time.Time { return testNow }, elected)
	if n := testutil.CollectAndCount(p); n != 0 {
		t.Errorf("a standby reported %d series, want none", n)
	}
	close(elected)
	want := `
# HELP provider_devops_deployrun_phase_age_seconds The longest any running deployment of the namespace has been in its phase, by namespace and phase; 0 when none is in it.
# TYPE provider_devops_deployrun_phase_age_seconds gauge
provider_devops_deployrun_phase_age_seconds{namespace="other",phase="Building"} 0
provider_devops_deployrun_phase_age_seconds{namespace="other",phase="Deploying"} 0
provider_devops_deployrun_phase_age_seconds{namespace="other",phase="Pending"} 0
provider_devops_deployrun_phase_age_seconds{namespace="other",phase="Verifying"} 0
provider_devops_deployrun_phase_age_seconds{namespace="team",phase="Building"} 90
provider_devops_deployrun_phase_age_seconds{namespace="team",phase="Deploying"} 0
provider_devops_deployrun_phase_age_seconds{namespace="team",phase="Pending"} 0
provider_devops_deployrun_phase_age_seconds{namespace="team",phase="Verifying"} 5
`
	if err := testutil.CollectAndCompare(p, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}

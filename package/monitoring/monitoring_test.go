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

package monitoring

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite prometheusrule.yaml from rules.yaml")

const (
	rulesFile     = "rules.yaml"
	ruleCRFile    = "prometheusrule.yaml"
	rulesTestFile = "rules_test.yaml"
)

// prometheusRuleHead precedes rules.yaml's groups, indented under spec:, in
// prometheusrule.yaml.
const prometheusRuleHead = `# Generated from rules.yaml by go test ./package/monitoring -update: edit
# rules.yaml, not this file. For the Prometheus Operator: apply it where your
# Prometheus looks for rules, with the labels its ruleSelector matches
# (docs/operations.md#alerts).
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: provider-devops
  labels:
    app.kubernetes.io/name: provider-devops
spec:
`

// prometheusRule is prometheusrule.yaml as rules.yaml makes it: the head,
// then rules.yaml without its leading comment, indented by two spaces.
func prometheusRule(rules []byte) []byte {
	lines := strings.Split(string(rules), "\n")
	for len(lines) > 0 && strings.HasPrefix(lines[0], "#") {
		lines = lines[1:]
	}
	var b bytes.Buffer
	b.WriteString(prometheusRuleHead)
	for _, l := range lines {
		if l != "" {
			b.WriteString("  " + l)
		}
		b.WriteString("\n")
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

type rule struct {
	Alert       string            `json:"alert"`
	Expr        string            `json:"expr"`
	For         string            `json:"for,omitempty"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

type group struct {
	Name  string `json:"name"`
	Rules []rule `json:"rules"`
}

func readYAML(t *testing.T, path string, into any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(b, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestPrometheusRule fails when prometheusrule.yaml is not what rules.yaml
// makes, so the two cannot drift; -update rewrites it.
func TestPrometheusRule(t *testing.T) {
	rules, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	want := append(prometheusRule(rules), '\n')
	if *update {
		if err := os.WriteFile(ruleCRFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(ruleCRFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not generated from %s: run go test ./package/monitoring -update", ruleCRFile, rulesFile)
	}

	// And it holds the same groups, read as YAML.
	var plain struct {
		Groups []group `json:"groups"`
	}
	readYAML(t, rulesFile, &plain)
	var cr struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name   string            `json:"name"`
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec struct {
			Groups []group `json:"groups"`
		} `json:"spec"`
	}
	readYAML(t, ruleCRFile, &cr)
	if cr.APIVersion != "monitoring.coreos.com/v1" || cr.Kind != "PrometheusRule" || cr.Metadata.Name == "" {
		t.Errorf("%s: %s %s %q, want a monitoring.coreos.com/v1 PrometheusRule with a name", ruleCRFile, cr.APIVersion, cr.Kind, cr.Metadata.Name)
	}
	if len(plain.Groups) == 0 || !reflect.DeepEqual(plain.Groups, cr.Spec.Groups) {
		t.Errorf("%s: spec.groups differ from the groups of %s", ruleCRFile, rulesFile)
	}
}

// TestRulesConventions: every alert is named ProviderDevOps*, has a
// severity and tells the on-call person what happened and what to do, and
// rules_test.yaml has a case where it fires and one where it does not.
func TestRulesConventions(t *testing.T) {
	var plain struct {
		Groups []group `json:"groups"`
	}
	readYAML(t, rulesFile, &plain)
	var tests struct {
		RuleFiles          []string `json:"rule_files"`
		EvaluationInterval string   `json:"evaluation_interval"`
		Tests              []struct {
			Name          string `json:"name"`
			Interval      string `json:"interval"`
			InputSeries   []any  `json:"input_series"`
			AlertRuleTest []struct {
				EvalTime  string `json:"eval_time"`
				Alertname string `json:"alertname"`
				ExpAlerts []any  `json:"exp_alerts"`
			} `json:"alert_rule_test"`
		} `json:"tests"`
	}
	readYAML(t, rulesTestFile, &tests)
	fires, quiet := map[string]bool{}, map[string]bool{}
	for _, tc := range tests.Tests {
		for _, a := range tc.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				fires[a.Alertname] = true
			} else {
				quiet[a.Alertname] = true
			}
		}
	}
	for _, g := range plain.Groups {
		for _, r := range g.Rules {
			switch {
			case !strings.HasPrefix(r.Alert, "ProviderDevOps"):
				t.Errorf("group %s: alert %q is not named ProviderDevOps*", g.Name, r.Alert)
			case r.Labels["severity"] == "" || r.Annotations["summary"] == "" || r.Annotations["description"] == "":
				t.Errorf("%s: wants a severity label and summary and description annotations", r.Alert)
			case !fires[r.Alert] || !quiet[r.Alert]:
				t.Errorf("%s: %s wants a test where it fires (%t) and one where it does not (%t)", r.Alert, rulesTestFile, fires[r.Alert], quiet[r.Alert])
			}
		}
	}
}

// TestPromtool runs the real promtool ($PROMTOOL, which make test builds
// with hack/promtool.sh): check rules, then the unit tests of every alert.
// Without it the test fails in CI (CI set), so CI never passes by running
// nothing, and skips elsewhere.
func TestPromtool(t *testing.T) {
	promtool := os.Getenv("PROMTOOL")
	if promtool == "" {
		const why = "PROMTOOL is not set to the promtool hack/promtool.sh prints (make test sets it)"
		if os.Getenv("CI") != "" && !testing.Short() {
			t.Fatal(why)
		}
		t.Skip(why + "; skipped outside CI and under -short")
	}
	for _, args := range [][]string{
		{"check", "rules", "--lint=all", "--lint-fatal", rulesFile},
		{"test", "rules", rulesTestFile},
	} {
		out, err := exec.CommandContext(t.Context(), promtool, args...).CombinedOutput()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			t.Errorf("promtool %s failed (%v):\n%s", strings.Join(args, " "), err, out)
		case err != nil:
			t.Fatalf("cannot run promtool %s: %v", strings.Join(args, " "), err)
		default:
			t.Logf("promtool %s:\n%s", strings.Join(args, " "), out)
		}
	}
}

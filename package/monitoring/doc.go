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

// Package monitoring holds the provider's Prometheus alerting rules:
// rules.yaml (a plain rules file), prometheusrule.yaml (the same groups in
// a PrometheusRule for the Prometheus Operator, generated from rules.yaml
// by go test -update) and rules_test.yaml (promtool's unit tests of every
// alert). Its tests keep the three in step and run the real promtool.
//
// dashboard.json is a Grafana dashboard of the same series; its tests
// parse every query with Prometheus's PromQL parser and fail when one reads
// a metric the provider, the function or their libraries do not register.
package monitoring

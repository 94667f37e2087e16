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

package stream

import (
	"strings"
	"testing"
	"time"
)

func TestValidateFormat(t *testing.T) {
	valid := func() Config {
		return Config{Exchange: "devops.events", Heartbeat: DefaultHeartbeat, Outbox: 10, DeployPrefetch: 1, DeployPerPublisher: 1, DeployMaxLen: 1, DeployLaneMaxLength: 1,
			Format: "cloudevents", LegacyRoutingKey: "DevOpsReconcileJobHeartbeat"}
	}
	cases := map[string]struct {
		mutate func(*Config)
		want   string // substring of the error; empty means valid
	}{
		"Defaults":              {mutate: func(*Config) {}},
		"Legacy":                {mutate: func(c *Config) { c.Format = "legacy" }},
		"Both":                  {mutate: func(c *Config) { c.Format = "both" }},
		"Unknown":               {mutate: func(c *Config) { c.Format = "json" }, want: `--events-format must be cloudevents, legacy or both, got "json"`},
		"Empty":                 {mutate: func(c *Config) { c.Format = "" }, want: "--events-format must be"},
		"LegacyNoKey":           {mutate: func(c *Config) { c.Format, c.LegacyRoutingKey = "legacy", "" }, want: "--events-legacy-routing-key must be 1 to 255 bytes with --events-format=legacy"},
		"BothLongKey":           {mutate: func(c *Config) { c.Format, c.LegacyRoutingKey = "both", strings.Repeat("k", 256) }, want: "--events-legacy-routing-key must be 1 to 255 bytes"},
		"CloudEventsIgnoresKey": {mutate: func(c *Config) { c.LegacyRoutingKey = "" }},
		"HeartbeatStillChecked": {mutate: func(c *Config) { c.Heartbeat = time.Millisecond }, want: "--events-heartbeat"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := valid()
			tc.mutate(&c)
			err := c.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("want error containing %q, got %v", tc.want, err)
			}
		})
	}
}

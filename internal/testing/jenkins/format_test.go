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

package jenkins

import (
	"bytes"
	"net/http/httptest"
	"testing"
)

// sampleRun is a build as Jenkins exports it, nested in sampleJob.
func sampleRun(n int) *bean {
	return newBean("R").with("number", 2, n).set("result", "SUCCESS").set("previousBuild", func() any {
		if n == 1 {
			return nil
		}
		return sampleRun(n - 1)
	})
}

func sampleJob() *bean {
	return newBean("J").
		with("name", 999, "alpha").
		set("lastBuild", sampleRun(2)).
		set("builds", []any{sampleRun(2), sampleRun(1)}).
		inline("property", []any{newBean("P").with("defs", 2, []any{newBean("D").with("name", 3, "TAG")})}).
		with("allBuilds", -2, []any{sampleRun(2), sampleRun(1)}).
		with("health", 2, []any{newBean("").with("score", 2, 100)})
}

// TestExport checks the fake writes api/json as Stapler does: ?depth= by
// visibility (inline properties not counting as a level), ?tree= by name
// whatever the visibility, and _class only where the bean has one.
func TestExport(t *testing.T) {
	cases := map[string]struct {
		query string
		want  string
	}{
		"DepthZero": {
			query: "",
			want: `{"_class":"J","name":"alpha","lastBuild":{"_class":"R","number":2},"builds":[{"_class":"R","number":2},{"_class":"R","number":1}],` +
				`"property":[{"_class":"P","defs":[{"_class":"D","name":"TAG"}]}],"health":[{"score":100}]}`,
		},
		"DepthOne": {
			query: "?depth=1",
			want: `{"_class":"J","name":"alpha","lastBuild":{"_class":"R","number":2,"result":"SUCCESS","previousBuild":{"_class":"R","number":1}},` +
				`"builds":[{"_class":"R","number":2,"result":"SUCCESS","previousBuild":{"_class":"R","number":1}},{"_class":"R","number":1,"result":"SUCCESS","previousBuild":null}],` +
				`"property":[{"_class":"P","defs":[{"_class":"D","name":"TAG"}]}],"health":[{"score":100}]}`,
		},
		"TreeNested": {
			query: "?tree=name,lastBuild[result,previousBuild[number]]",
			want:  `{"_class":"J","name":"alpha","lastBuild":{"_class":"R","result":"SUCCESS","previousBuild":{"_class":"R","number":1}}}`,
		},
		"TreeObjectWithoutFields": {
			query: "?tree=lastBuild",
			want:  `{"_class":"J","lastBuild":{"_class":"R"}}`,
		},
		"TreeHiddenProperty": {
			query: "?tree=allBuilds[number]",
			want:  `{"_class":"J","allBuilds":[{"_class":"R","number":2},{"_class":"R","number":1}]}`,
		},
		"TreeRange": {
			query: "?tree=builds[number]{1,}",
			want:  `{"_class":"J","builds":[{"_class":"R","number":1}]}`,
		},
		"TreeStar": {
			query: "?tree=lastBuild[*]",
			want:  `{"_class":"J","lastBuild":{"_class":"R","number":2,"result":"SUCCESS","previousBuild":{"_class":"R"}}}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := httptest.NewRecorder()
			writeBean(w, httptest.NewRequest("GET", "/api/json"+tc.query, nil), sampleJob())
			if got := w.Body.String(); w.Code != 200 || got != tc.want {
				t.Errorf("%s: got %d\n%s\nwant\n%s", tc.query, w.Code, got, tc.want)
			}
		})
	}
	for _, bad := range []string{"?tree=a[b", "?tree=,a", "?tree=a{x}", "?depth=x"} {
		w := httptest.NewRecorder()
		writeBean(w, httptest.NewRequest("GET", "/api/json"+bad, nil), sampleJob())
		if w.Code != 500 {
			t.Errorf("%s: Jenkins answers a ServletException (500), got %d", bad, w.Code)
		}
	}
}

// TestConfigElements checks the fake reads and writes a config.xml's
// top-level elements where Jenkins keeps them, XML 1.1 included.
func TestConfigElements(t *testing.T) {
	const head = "<?xml version='1.1' encoding='UTF-8'?>\n<flow-definition>\n  <properties><x><disabled>true</disabled></x></properties>\n"
	cases := map[string]struct {
		config, want string
	}{
		"Replaced":    {head + "  <disabled>false</disabled>\n</flow-definition>", head + "  <disabled>true</disabled>\n</flow-definition>"},
		"SelfClosing": {head + "  <disabled/>\n</flow-definition>", head + "  <disabled>true</disabled>\n</flow-definition>"},
		"Added":       {head + "</flow-definition>", head + "  <disabled>true</disabled>\n</flow-definition>"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if v, ok := topText(tc.config, "disabled"); ok && v == "true" {
				t.Errorf("a nested <disabled> is not the job's: got %q", v)
			}
			got := setTop(tc.config, "disabled", "true")
			if got != tc.want {
				t.Errorf("setTop:\n%s\nwant\n%s", got, tc.want)
			}
			if v, ok := topText(got, "disabled"); !ok || v != "true" {
				t.Errorf("topText after setTop: %q, %v", v, ok)
			}
		})
	}
	if got := latin1("A job already exists with the name ‘é’"); !bytes.Equal([]byte(got), []byte("A job already exists with the name  \xe9 ")) {
		t.Errorf("latin1: %q", got)
	}
}

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

package jenkinspipeline

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
)

// The build a DeployRun asked for is queued in its trace; a build asked
// for otherwise (a later request, by hand) is not put in an old one.
func TestBuildTrace(t *testing.T) {
	const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	for name, tc := range map[string]struct {
		annotation, req string
		traced          bool
	}{
		"ItsRequest":     {annotation: "deployrun-u1 " + tp, req: "deployrun-u1", traced: true},
		"AnotherRequest": {annotation: "deployrun-u1 " + tp, req: "by-hand-2"},
		"NoRequest":      {annotation: " " + tp, req: ""},
		"Malformed":      {annotation: "deployrun-u1 00-zz", req: "deployrun-u1"},
		"None":           {req: "deployrun-u1"},
	} {
		t.Run(name, func(t *testing.T) {
			cr := &v1alpha1.JenkinsPipeline{}
			if tc.annotation != "" {
				cr.SetAnnotations(map[string]string{contract.AnnotationBuildTrace: tc.annotation})
			}
			sc := trace.SpanContextFromContext(buildTrace(context.Background(), cr, tc.req))
			if sc.IsValid() != tc.traced || tc.traced && sc.SpanID().String() != "b7ad6b7169203331" {
				t.Errorf("span context %v, want traced %t", sc, tc.traced)
			}
		})
	}
}

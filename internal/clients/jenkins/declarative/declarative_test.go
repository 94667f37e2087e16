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

package declarative_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins/declarative"
	"github.com/freeleaps/provider-devops/internal/testing/groovy"
)

// hostile are values that would end a string, open a block, run a step or
// interpolate if they reached the script unescaped.
var hostile = map[string]string{
	"Quote":           `it's`,
	"BreakOut":        `'); System.exit(3); echo('`,
	"Backslash":       `C:\path\`,
	"BackslashQuote":  `\'); System.exit(3); //`,
	"UnicodeQuote":    `\u0027); System.exit(3); //`,
	"Interpolation":   `${System.exit(3)} $HOME`,
	"TripleQuotes":    `''' + System.exit(3) + '''`,
	"Newline":         "a\n}) } } System.exit(3) pipeline { //",
	"CarriageReturn":  "a\r\nb",
	"Controls":        "nul\x00bell\x07esc\x1b del\x7f",
	"LineSeparators":  "a\u2028b\u2029c\ufeffd",
	"Tab":             "a\tb",
	"Comment":         `/* '*/ System.exit(3) /*`,
	"SlashyAndDollar": `$/ /$ /x/`,
	"Unicode":         "naïve ünïcode 😀 日本",
	"Empty":           "",
}

func TestLiteral(t *testing.T) {
	cases := map[string]struct {
		reason string
		in     string
		want   string
	}{
		"Plain":         {reason: "A plain value is only quoted.", in: "make test", want: `'make test'`},
		"Quote":         {reason: "A quote is escaped.", in: `it's`, want: `'it\'s'`},
		"Backslash":     {reason: "A backslash is doubled, so it escapes nothing.", in: `a\'`, want: `'a\\\''`},
		"UnicodeEscape": {reason: `"\u0027" stays six characters: its backslash is doubled.`, in: `\u0027`, want: `'\\u0027'`},
		"Newline":       {reason: "Line ends are escaped: the literal stays on one line.", in: "a\nb\r", want: `'a\nb\r'`},
		"Control":       {reason: "Other control characters become \\u escapes.", in: "a\x00\x1b", want: `'a\u0000\u001b'`},
		"Dollar":        {reason: "Single quotes interpolate nothing: $ is kept.", in: "${X}", want: `'${X}'`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, declarative.Literal(tc.in)); diff != "" {
				t.Errorf("%s\nLiteral(%q): -want +got:\n%s", tc.reason, tc.in, diff)
			}
		})
	}
}

func full() v1alpha1.PipelineBuild {
	return v1alpha1.PipelineBuild{
		Agent:       &v1alpha1.BuildAgent{Label: "linux && docker"},
		Environment: map[string]string{"Z_LAST": "z", "A_FIRST": "a", "GOFLAGS": "-mod=readonly"},
		Options:     &v1alpha1.BuildOptions{TimeoutMinutes: 30, KeepBuilds: 10, DisableConcurrentBuilds: true},
		Stages: []v1alpha1.BuildStage{
			{Name: "Checkout", Checkout: &v1alpha1.CheckoutStage{URL: "https://git.example.com/team/shop.git", Branch: "release", CredentialsID: "team-git"}},
			{Name: "Test", Sh: []string{"make test", "make lint"}},
			{Name: "Image", When: &v1alpha1.StageWhen{Branch: "release"}, Image: &v1alpha1.ImageStage{Registry: "harbor.example.com", Repository: "team/shop", Tag: "v1-${BUILD_NUMBER}", CredentialsID: "harbor-push"}},
			{Name: "Deploy", Deploy: &v1alpha1.DeployStage{}},
			{Name: "Hand off", Deploy: &v1alpha1.DeployStage{Job: "team/shop/deploy"}},
		},
		Post: &v1alpha1.BuildPost{Always: []string{"make clean"}, Failure: []string{"echo failed"}},
	}
}

const fullScript = declarative.Header + `
pipeline {
  agent { label 'linux && docker' }
  environment {
    A_FIRST = 'a'
    CHECKOUT_BRANCH = 'release'
    GOFLAGS = '-mod=readonly'
    Z_LAST = 'z'
  }
  options {
    timeout(time: 30, unit: 'MINUTES')
    buildDiscarder(logRotator(numToKeepStr: '10'))
    disableConcurrentBuilds()
  }
  stages {
    stage('Checkout') {
      steps {
        git url: 'https://git.example.com/team/shop.git', branch: 'release', credentialsId: 'team-git'
        sh 'if [ -n "${REVISION:-}" ]; then git checkout --detach "$REVISION"; fi'
      }
    }
    stage('Test') {
      steps {
        sh 'make test'
        sh 'make lint'
      }
    }
    stage('Image') {
      when { environment name: 'CHECKOUT_BRANCH', value: 'release' }
      steps {
        withEnv(['IMAGE_REGISTRY=harbor.example.com', 'IMAGE_REPOSITORY=team/shop', 'IMAGE_DOCKERFILE=Dockerfile', 'IMAGE_CONTEXT=.']) {
          withCredentials([usernamePassword(credentialsId: 'harbor-push', usernameVariable: 'REGISTRY_USER', passwordVariable: 'REGISTRY_PASSWORD')]) {
            sh 'printf \'%s\' "$REGISTRY_PASSWORD" | docker login --username "$REGISTRY_USER" --password-stdin "$IMAGE_REGISTRY"'
          }
          sh 'docker build --file "$IMAGE_DOCKERFILE" --tag "$IMAGE_REGISTRY/$IMAGE_REPOSITORY:v1-${BUILD_NUMBER}" "$IMAGE_CONTEXT"'
          sh 'docker push "$IMAGE_REGISTRY/$IMAGE_REPOSITORY:v1-${BUILD_NUMBER}"'
        }
      }
    }
    stage('Deploy') {
      steps {
        echo 'Deploy: the image is pushed; Argo CD deploys it.'
      }
    }
    stage('Hand off') {
      steps {
        build job: '/team/shop/deploy', wait: true, propagate: true
      }
    }
  }
  post {
    always {
      sh 'make clean'
    }
    failure {
      sh 'echo failed'
    }
  }
}
`

const minimalScript = declarative.Header + `
pipeline {
  agent any
  stages {
    stage('Build') {
      steps {
        sh 'make'
      }
    }
  }
}
`

// scripts are the builds every test below holds to Groovy: the full one,
// the smallest, and one with every hostile value in every field that takes
// free text.
func scripts() map[string]v1alpha1.PipelineBuild {
	out := map[string]v1alpha1.PipelineBuild{
		"Full":    full(),
		"Minimal": {Stages: []v1alpha1.BuildStage{{Name: "Build", Sh: []string{"make"}}}},
		"Docker":  {Agent: &v1alpha1.BuildAgent{DockerImage: "golang:1.22"}, Stages: []v1alpha1.BuildStage{{Name: "Image", Image: &v1alpha1.ImageStage{Registry: "r.example.com:5000", Repository: "a/b"}}}},
	}
	for name, v := range hostile {
		b := full()
		b.Agent.Label = v
		b.Environment["HOSTILE"] = v
		b.Stages[0].Name = v
		b.Stages[0].Checkout.URL = v
		b.Stages[0].Checkout.Branch = v
		b.Stages[0].Checkout.CredentialsID = v
		b.Stages[1].Sh = []string{v, v + v}
		b.Stages[2].When.Branch = v
		b.Stages[2].Image.Registry = v
		b.Stages[2].Image.Repository = v
		b.Stages[2].Image.Dockerfile = v
		b.Stages[2].Image.Context = v
		b.Stages[2].Image.CredentialsID = v
		b.Stages[4].Deploy.Job = v
		b.Post.Always = []string{v}
		b.Post.Success = []string{v}
		out["Hostile"+name] = b
	}
	return out
}

func TestScript(t *testing.T) {
	cases := map[string]struct {
		reason  string
		build   v1alpha1.PipelineBuild
		want    string
		wantErr string
	}{
		"Full": {
			reason: "Every field, the environment sorted, the checkout's branch for when, no parameters or triggers.",
			build:  full(), want: fullScript,
		},
		"Minimal": {
			reason: "Only a stage: any agent, no environment, options or post.",
			build:  v1alpha1.PipelineBuild{Stages: []v1alpha1.BuildStage{{Name: "Build", Sh: []string{"make"}}}},
			want:   minimalScript,
		},
		"NoStages": {
			reason: "A build without stages is refused.",
			build:  v1alpha1.PipelineBuild{}, wantErr: "no stages",
		},
		"EmptyStage": {
			reason: "A stage without a step is refused.",
			build:  v1alpha1.PipelineBuild{Stages: []v1alpha1.BuildStage{{Name: "x"}}}, wantErr: "sets none",
		},
		"BadEnvironmentName": {
			reason:  "An environment name is written as a Groovy name: anything else is refused.",
			build:   v1alpha1.PipelineBuild{Environment: map[string]string{"A = 'x'\nB": "v"}, Stages: []v1alpha1.BuildStage{{Name: "x", Sh: []string{"true"}}}},
			wantErr: "environment variable name",
		},
		"BadTag": {
			reason:  "The tag is shell text: a command substitution is refused.",
			build:   v1alpha1.PipelineBuild{Stages: []v1alpha1.BuildStage{{Name: "x", Image: &v1alpha1.ImageStage{Registry: "r", Repository: "a", Tag: "$(reboot)"}}}},
			wantErr: "image tag",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := declarative.Script(tc.build)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\nScript(): want an error containing %q, got %v", tc.reason, tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nScript(): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nScript(): -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestScriptDeterministic: a map's order must not reach the script, or
// every reconcile would see drift.
func TestScriptDeterministic(t *testing.T) {
	b := full()
	for i := range 20 {
		b.Environment[string(rune('A'+i))+"_VAR"] = "v"
	}
	first, err := declarative.Script(b)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		got, _ := declarative.Script(b)
		if diff := cmp.Diff(first, got); diff != "" {
			t.Fatalf("Script() changed between calls: -first +later:\n%s", diff)
		}
	}
}

// TestGroovyReadsScripts holds every generated script to Debian's Groovy
// parser, and every hostile value, as Literal writes it, to Groovy's
// evaluator: it must read back as exactly the value. One script that is
// not Groovy proves the check can fail.
func TestGroovyReadsScripts(t *testing.T) {
	texts := map[string]string{}
	for name, b := range scripts() {
		s, err := declarative.Script(b)
		if err != nil {
			t.Fatalf("Script(%s): %v", name, err)
		}
		texts[name] = s
	}
	broken := strings.Replace(fullScript, `'make test'`, `'make test`, 1)
	texts["Broken"] = broken
	literals := map[string]string{}
	for name, v := range hostile {
		literals[name] = declarative.Literal(v)
	}
	got := groovy.Check(t, texts, literals)

	for name := range scripts() {
		if msg := got.Scripts[name]; msg != "" {
			t.Errorf("Groovy cannot parse the script of %s: %s\n%s", name, msg, texts[name])
		}
	}
	if got.Scripts["Broken"] == "" {
		t.Errorf("Groovy parsed a script with an unterminated string: the check proves nothing")
	}
	for name, v := range hostile {
		if diff := cmp.Diff(groovy.Hex(v), got.Literals[name]); diff != "" {
			t.Errorf("Groovy reads Literal(%q) as something else: -want +got:\n%s", v, diff)
		}
	}
}

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

package jenkins_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freeleaps/provider-devops/internal/testing/jenkins"
)

// python is Debian's interpreter: the one first on PATH may be another
// (pyenv) that does not see Debian's python3-jenkins.
const python = "/usr/bin/python3"

var (
	checkLine   = regexp.MustCompile(`^(PASS|FAIL) ([a-z0-9-]+)(?:: (.*))?$`)
	summaryLine = regexp.MustCompile(`^SUMMARY (\d+) passed, (\d+) failed$`)
)

// TestContract checks the fake against a Jenkins client we did not write:
// testdata/contract.py drives it with python-jenkins' ordinary calls and
// checks each answer against what Jenkins 2.479 gives. The fake was only
// ever exercised by the client written with it, so
// both could share a misreading of Jenkins; this test is the second
// opinion. Each check of the script is a subtest.
func TestContract(t *testing.T) {
	requirePythonJenkins(t)
	const user, token = "contract", "11aa-contract-api-token"
	srv := jenkins.New(user, token)
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-B", "testdata/contract.py")
	// A clean environment: no proxy settings, no pyenv, nothing that would
	// send the requests anywhere but the fake.
	cmd.Env = []string{
		"LANG=C.UTF-8", "PYTHONIOENCODING=utf-8",
		"JENKINS_URL=" + srv.URL, "JENKINS_USER=" + user, "JENKINS_TOKEN=" + token, "JENKINS_VERSION=" + jenkins.Version,
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}

	var transcript []string
	type result struct{ name, failure string }
	var results []result
	summary := false
	passed, failed := 0, 0
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		line := lines.Text()
		transcript = append(transcript, line)
		switch {
		case strings.HasPrefix(line, "CONTROL "):
			answer := "ok"
			if err := control(srv, strings.TrimPrefix(line, "CONTROL ")); err != nil {
				answer = err.Error()
			}
			_, _ = io.WriteString(stdin, answer+"\n")
		case checkLine.MatchString(line):
			m := checkLine.FindStringSubmatch(line)
			r := result{name: m[2]}
			if m[1] == "FAIL" {
				r.failure = m[3]
				if r.failure == "" {
					r.failure = "failed"
				}
			}
			results = append(results, r)
		case summaryLine.MatchString(line):
			m := summaryLine.FindStringSubmatch(line)
			summary = true
			passed, _ = strconv.Atoi(m[1])
			failed, _ = strconv.Atoi(m[2])
		}
	}
	_ = stdin.Close()
	waitErr := cmd.Wait()

	for _, r := range results {
		t.Run(r.name, func(t *testing.T) {
			if r.failure != "" {
				t.Error(r.failure)
			}
		})
	}
	nFailed := 0
	for _, r := range results {
		if r.failure != "" {
			nFailed++
		}
	}
	switch {
	case ctx.Err() != nil:
		t.Errorf("contract.py did not finish within the timeout")
	case waitErr != nil || !summary:
		t.Errorf("contract.py did not run to its summary (%v)", waitErr)
	case passed+failed != len(results) || failed != nFailed:
		t.Errorf("the summary (%d passed, %d failed) does not match the %d checks reported", passed, failed, len(results))
	case nFailed == 0:
		t.Logf("contract.py: SUMMARY %d passed, %d failed", passed, failed)
		return
	}
	t.Logf("contract.py output:\n%s\nstderr:\n%s", strings.Join(transcript, "\n"), stderr.String())
}

// control carries out a command of contract.py on the fake: the script
// cannot start or finish builds through the API, as nothing can in Jenkins
// but an executor.
func control(srv *jenkins.Server, command string) error {
	f := strings.SplitN(command, " ", 3)
	switch {
	case f[0] == "run-queue" && len(f) == 1:
		srv.RunQueue()
	case f[0] == "log" && len(f) == 3:
		srv.Log(f[1], f[2]+"\n")
	case f[0] == "finish" && len(f) == 3:
		srv.Finish(f[1], f[2])
	case f[0] == "stored-credential" && len(f) == 3:
		id, text, _ := strings.Cut(f[2], " ")
		stored, ok := srv.StoredCredential(f[1], id)
		if !ok || !strings.Contains(stored, text) {
			return fmt.Errorf("credential %s of %s is not stored with the value sent", id, f[1])
		}
	default:
		return fmt.Errorf("unknown control command %q", command)
	}
	return nil
}

// requirePythonJenkins fails the test in CI and skips it elsewhere when
// Debian's python3-jenkins is not installed.
func requirePythonJenkins(t *testing.T) {
	t.Helper()
	out, err := exec.Command(python, "-c", "import jenkins").CombinedOutput()
	if err == nil {
		return
	}
	why := fmt.Sprintf("%s cannot import jenkins (%v: %s)", python, err, bytes.TrimSpace(out))
	if os.Getenv("CI") != "" {
		t.Fatalf("%s; .ci/run installs python3-jenkins", why)
	}
	t.Skipf("%s; apt-get install python3-jenkins to run it; skipped outside CI", why)
}

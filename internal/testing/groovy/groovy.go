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

// Package groovy holds generated pipeline scripts to Debian's Groovy (the
// groovy package): its parser, which nobody here wrote, says whether a
// script is Groovy, and its evaluator what a string literal means. All
// scripts of a test go to one groovy process, because a JVM starts slowly.
package groovy

import (
	_ "embed"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/freeleaps/provider-devops/internal/testing/integration"
)

//go:embed check.groovy
var driver string

// Results says, for each script by name, why Groovy could not parse it
// ("" when it could), and for each literal by name what Groovy read from
// it (hex of its UTF-8) or why it could not.
type Results struct {
	Scripts  map[string]string
	Literals map[string]string
}

// Check parses every script up to Groovy's CONVERSION phase (syntax, not
// the classes it names) and evaluates every literal, in one groovy process.
// Without groovy the test fails in CI and skips elsewhere.
func Check(t *testing.T, scripts, literals map[string]string) Results {
	t.Helper()
	bin := integration.Tool(t, "groovy", "groovy")
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("check.groovy", driver)
	var names []string
	for name, s := range scripts {
		write(name+".script", s)
		names = append(names, name)
	}
	var lines []string
	for name, l := range literals {
		lines = append(lines, name+"\t"+l)
	}
	sort.Strings(lines)
	write("literals.txt", strings.Join(lines, "\n"))
	cmd := exec.Command(bin, filepath.Join(dir, "check.groovy"), dir)
	cmd.Env = append(os.Environ(), "JAVA_HOME="+javaHome())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("groovy failed: %v\n%s", err, out)
	}
	r := Results{Scripts: map[string]string{}, Literals: map[string]string{}}
	for _, line := range strings.Split(string(out), "\n") {
		kind, rest, _ := strings.Cut(line, " ")
		name, value, _ := strings.Cut(rest, " ")
		switch kind {
		case "SCRIPT":
			r.Scripts[strings.TrimSuffix(name, ".script")] = value
		case "LITERAL":
			r.Literals[name] = value
		}
	}
	for _, n := range names {
		if _, ok := r.Scripts[n]; !ok {
			t.Fatalf("groovy said nothing of script %q:\n%s", n, out)
		}
	}
	return r
}

// Hex is what Check reports for a literal Groovy read as s.
func Hex(s string) string { return "=" + hex.EncodeToString([]byte(s)) }

// javaHome is $JAVA_HOME when it holds a java, else the JDK of the java on
// PATH: Debian's groovy looks for /usr/lib/jvm/default-java, which only
// the default-jre package makes.
func javaHome() string {
	if h := os.Getenv("JAVA_HOME"); h != "" {
		if _, err := os.Stat(filepath.Join(h, "bin", "java")); err == nil {
			return h
		}
	}
	if p, err := exec.LookPath("java"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Dir(filepath.Dir(real))
		}
	}
	return ""
}

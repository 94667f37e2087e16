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

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// EnvironmentVar stands for the environment in --gitops-manifest: the last
// segment of the job's path (team/shop/dev builds dev).
const EnvironmentVar = "{environment}"

// gitTimeout bounds each git command: a loaded machine is slow, a hung one
// must fail the build rather than the executor.
const gitTimeout = time.Minute

// pushAttempts is how often a commit is made again on a branch someone else
// pushed to meanwhile.
const pushAttempts = 3

// gitops ends a build as a deployment pipeline does: it commits what the
// build produced to the GitOps repository, on the branch the environment's
// application tracks, so that the deployment syncs that commit. What it
// produces here is its number and the revision it built, written into the
// environment's ConfigMap (a real pipeline writes its image tag).
type gitops struct {
	// repo is what git pushes to: a path or URL.
	repo string
	// branch the applications track.
	branch string
	// manifest is the ConfigMap's path in the repository, with
	// EnvironmentVar for the environment.
	manifest string
	// work holds the clones, one per commit, removed after it.
	work string
	// skip, when set, matches the jobs (full paths) whose builds commit
	// nothing: they build what they are given, as a preview's build does.
	skip *regexp.Regexp
}

// commits is true when job's builds commit to the repository.
func (g *gitops) commits(job string) bool {
	return g != nil && (g.skip == nil || !g.skip.MatchString(job))
}

// errPush is a push the repository refused, most likely because the branch
// moved since the clone.
var errPush = errors.New("push refused")

// commit bumps the ConfigMap of job's environment to build and source, the
// revision it built, and pushes it; it returns the commit id.
func (g *gitops) commit(ctx context.Context, job string, build int, source string) (string, error) {
	file := strings.ReplaceAll(g.manifest, EnvironmentVar, path.Base(job))
	var err error
	for range pushAttempts {
		var sha string
		if sha, err = g.try(ctx, file, job, build, source); !errors.Is(err, errPush) {
			return sha, err
		}
	}
	return "", err
}

// try makes the commit in a fresh clone: nothing is left over from an
// earlier build, and a clone of a local repository takes milliseconds.
func (g *gitops) try(ctx context.Context, file, job string, build int, source string) (string, error) {
	dir, err := os.MkdirTemp(g.work, "build-")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	if _, err := git(ctx, "", "clone", "-q", "--single-branch", "--branch", g.branch, g.repo, dir); err != nil {
		return "", err
	}
	full := filepath.Join(dir, filepath.FromSlash(file))
	before, err := os.ReadFile(full)
	if err != nil {
		return "", fmt.Errorf("the environment's manifest: %w", err)
	}
	after, err := bump(before, build, source)
	if err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	if err := os.WriteFile(full, after, 0o600); err != nil {
		return "", err
	}
	msg := fmt.Sprintf("%s: build #%d of %s\n\nCommitted by %s #%d.", path.Dir(file), build, source, job, build)
	if _, err := git(ctx, dir, "commit", "-q", "-a", "--allow-empty", "-m", msg); err != nil {
		return "", err
	}
	if _, err := git(ctx, dir, "push", "-q", "origin", "HEAD:refs/heads/"+g.branch); err != nil {
		return "", fmt.Errorf("%w: %w", errPush, err)
	}
	return git(ctx, dir, "rev-parse", "HEAD")
}

// bump sets data.build and data.sourceRevision of a ConfigMap manifest.
func bump(manifest []byte, build int, source string) ([]byte, error) {
	var obj map[string]any
	if err := yaml.Unmarshal(manifest, &obj); err != nil {
		return nil, err
	}
	if obj["kind"] != "ConfigMap" {
		return nil, fmt.Errorf("kind %v, want a ConfigMap", obj["kind"])
	}
	data, _ := obj["data"].(map[string]any)
	if data == nil {
		data = map[string]any{}
	}
	data["build"] = strconv.Itoa(build)
	data["sourceRevision"] = source
	obj["data"] = data
	return yaml.Marshal(obj)
}

// git runs git with a fixed identity and no user or system configuration,
// and returns its trimmed output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=sandbox executor", "GIT_AUTHOR_EMAIL=executor@sandbox.test",
		"GIT_COMMITTER_NAME=sandbox executor", "GIT_COMMITTER_EMAIL=executor@sandbox.test",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}

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

// Package sandbox holds what test/sandbox (the fakes as one binary) writes
// and serves, for the binary and its users (test/e2e/framework) to share.
package sandbox

// Endpoints is what the sandbox writes to its --out file.
type Endpoints struct {
	Control string  `json:"control"`
	Jenkins Backend `json:"jenkins"`
	GoDaddy Backend `json:"godaddy"`
	Hub     Backend `json:"dockerhub"`
	Harbor  Backend `json:"harbor"`
}

// Backend is one fake's URL and credentials.
type Backend struct {
	URL    string `json:"url"`
	User   string `json:"user,omitempty"`
	Secret string `json:"secret"`
	Key    string `json:"key,omitempty"`
}

// State is what GET / on the control address answers.
type State struct {
	Jobs     map[string]Job `json:"jobs"`
	Requests map[string]int `json:"requests"`
	// Created and Deleted count the Jenkins items (jobs and folders)
	// made by createItem and removed by doDelete, by full path (a
	// deleted folder's children are not counted).
	Created map[string]int `json:"created"`
	Deleted map[string]int `json:"deleted"`
	// Refused counts the requests to create a Jenkins job that existed.
	Refused map[string]int `json:"refused"`
	// Held is the Jenkins job whose create answer is held (POST
	// /hold-next-create arms it, POST /release-held answers it).
	Held string `json:"held,omitempty"`
}

// The control address's commands (POST).
const (
	HoldNextCreate = "/hold-next-create"
	ReleaseHeld    = "/release-held"
)

// Job is a Jenkins job's queue and builds.
type Job struct {
	Queued int     `json:"queued"`
	Builds []Build `json:"builds"`
}

// Build is one run of a job.
type Build struct {
	Number   int               `json:"number"`
	Result   string            `json:"result"`
	Building bool              `json:"building"`
	Params   map[string]string `json:"params,omitempty"`
	// Description is the build's, where a deployment pipeline reports
	// the commit it made: "revision=<commit id>".
	Description string `json:"description,omitempty"`
}

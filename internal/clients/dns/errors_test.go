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

package dns

import (
	"net/http"
	"testing"
	"time"

	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
)

func TestClassifyKeepsTheCause(t *testing.T) {
	err := classify(&httpapi.Error{Backend: "GoDaddy", Section: "dns", Status: http.StatusTooManyRequests, Message: "slow down", RetryAfter: 30 * time.Second}, "cannot read zone")
	if got := httpapi.RetryAfter(err); got != 30*time.Second {
		t.Errorf("RetryAfter of a classified GoDaddy 429: got %s, want 30s (the reconciler waits for it)", got)
	}
	if got := httpapi.StatusOf(err); got != http.StatusTooManyRequests {
		t.Errorf("StatusOf of a classified GoDaddy 429: got %d, want 429", got)
	}
	if !httpapi.IsTransient(err) || httpapi.IsTerminal(err) {
		t.Errorf("a GoDaddy 429 is transient, not terminal: %v", err)
	}
}

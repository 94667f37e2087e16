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

package rabbitmq

import (
	"net"
	"strings"
	"testing"
	"time"
)

func TestStartStopStart(t *testing.T) {
	b := Start(t)
	dial := func() error {
		c, err := net.DialTimeout("tcp", strings.TrimSuffix(strings.TrimPrefix(b.URL, "amqp://guest:guest@"), "/"), time.Second)
		if err == nil {
			_ = c.Close()
		}
		return err
	}
	if err := dial(); err != nil {
		t.Fatalf("node is not listening: %v", err)
	}
	if err := b.Stop(); err != nil {
		t.Fatal(err)
	}
	if dial() == nil {
		t.Fatal("node still listening after Stop")
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	if err := dial(); err != nil {
		t.Fatalf("node is not listening after restart: %v", err)
	}
}

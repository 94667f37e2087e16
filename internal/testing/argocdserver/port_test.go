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

package argocdserver

import (
	"net"
	"strconv"
	"testing"

	"github.com/freeleaps/provider-devops/internal/testing/loopback"
)

// A port picked free and taken by another process before the component
// binds it: the start is tried again on a new port; other errors are not.
func TestOnFreePort(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := taken.Addr().(*net.TCPAddr).Port
	starts := 0
	var l net.Listener
	err = onFreePort(&port, func() error {
		starts++
		var err error
		l, err = net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		return err
	})
	if err != nil || starts != 2 || port == taken.Addr().(*net.TCPAddr).Port {
		t.Fatalf("want a second start on a new port, got %d starts, port %d, err %v", starts, port, err)
	}
	_ = l.Close()

	starts = 0
	if p, _ := loopback.FreePort(); p > 0 {
		port = p
	}
	err = onFreePort(&port, func() error { starts++; return net.UnknownNetworkError("other") })
	if err == nil || starts != 1 {
		t.Errorf("another error: want it returned after one start, got %d starts, err %v", starts, err)
	}
}

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

// Command probe checks a Pod's view of the cluster network: for every
// host:port argument it resolves the host with the Pod's resolver (the
// cluster DNS, through /etc/resolv.conf) and opens a TCP connection to it,
// trying again for up to a minute. It prints what it found and exits 1 if
// any failed.
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"time"
)

func main() {
	failed := false
	for _, target := range os.Args[1:] {
		if err := probe(target); err != nil {
			fmt.Printf("%s: %v\n", target, err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

func probe(target string) error {
	host, port, err := net.SplitHostPort(target)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(time.Minute)
	for {
		err = dial(host, port)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(time.Second)
	}
}

func dial(host, port string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// The Go resolver, as the provider's static binary uses.
	r := &net.Resolver{PreferGo: true}
	addrs, err := r.LookupHost(ctx, host)
	if err != nil {
		return err
	}
	c, err := (&net.Dialer{}).DialContext(ctx, "tcp", net.JoinHostPort(addrs[0], port))
	if err != nil {
		return fmt.Errorf("%s is %v: %w", host, addrs, err)
	}
	fmt.Printf("%s is %v: connected to %s\n", host, addrs, c.RemoteAddr())
	return c.Close()
}

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

package deployrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/freeleaps/provider-devops/internal/clients/netguard"
)

// httpCheckTimeout bounds one look at a live URL.
const httpCheckTimeout = 10 * time.Second

// answer is what an environment's URL said to one GET.
type answer struct {
	// reachable is false when the name does not resolve or nothing
	// answers on this network: then there is nothing to check.
	reachable bool
	// ok is true for a 2xx or 3xx status.
	ok bool
	// msg says what it answered, for status.message.
	msg string
}

// checkURL GETs url once with client (which does not follow redirects:
// a redirect is an answer). Only the status code is kept: nothing the
// endpoint sends reaches a status or a log.
func checkURL(ctx context.Context, client *http.Client, url string) answer {
	ctx, cancel := context.WithTimeout(ctx, httpCheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return answer{msg: "not a URL"}
	}
	req.Header.Set("User-Agent", "provider-devops-deployrun")
	resp, err := client.Do(req)
	if err != nil {
		var refused *netguard.AddressError
		if errors.As(err, &refused) {
			// Not checked, as a name that answers on no network here:
			// a private ingress must not fail its deployments, and the
			// provider must not probe inside the cluster for a tenant.
			return answer{msg: fmt.Sprintf("GET %s not sent (not checked): %v", url, errRefusedAddress)}
		}
		var dnsErr *net.DNSError
		var opErr *net.OpError
		if errors.As(err, &dnsErr) || errors.As(err, &opErr) {
			return answer{msg: url + " does not answer on this network"}
		}
		return answer{reachable: true, msg: fmt.Sprintf("GET %s failed: %s", url, errorKind(err))}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	ok := resp.StatusCode >= 200 && resp.StatusCode < 400
	return answer{reachable: true, ok: ok, msg: fmt.Sprintf("GET %s answered %d", url, resp.StatusCode)}
}

// errorKind names an error without its text (which may carry what the
// server sent).
func errorKind(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer within " + httpCheckTimeout.String()
	default:
		return "TLS or protocol error"
	}
}

// errRefusedAddress is a live URL whose name points at an address no
// environment answers on: the check never connects there.
var errRefusedAddress = errors.New("its name points at an internal address (loopback, link-local, private or reserved) outside --tenant-backend-networks")

// NewHTTPCheckClient is the client of the live URL check: no redirects
// followed, no proxy, the system's roots for TLS, and never a connection
// to an internal address (package netguard: loopback, link-local such as
// cloud metadata, private, reserved) outside the networks the platform
// allows tenants (guard, from --tenant-backend-networks), whatever the
// tenant's name resolves to: a status is otherwise a port scan of the
// cluster.
func NewHTTPCheckClient(guard *netguard.Guard) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.DialContext = guard.Dialer(httpCheckTimeout).DialContext
	return &http.Client{Transport: t, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

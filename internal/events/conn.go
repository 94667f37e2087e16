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

package events

import (
	"context"
	"crypto/tls"
	"net/url"
	"strings"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
)

// Broker is where the event stream connects.
type Broker struct {
	// URL is the AMQP URL, credentials included: never logged as is.
	URL string
	// Exchange is the topic exchange to use.
	Exchange string
	// TLS verifies an amqps:// broker; nil: the system roots.
	TLS *tls.Config
}

// Source returns the broker to connect to. It is called before every
// connection attempt, so a rotated Secret is picked up at the next
// reconnect and a missing one is retried rather than fatal.
type Source func(ctx context.Context) (Broker, error)

// Backoff between connection attempts: it doubles from Min to Max, and
// resets once a connection has stayed up for a minute.
type Backoff struct {
	Min, Max time.Duration
}

func (b Backoff) withDefaults() Backoff {
	if b.Min <= 0 {
		b.Min = time.Second
	}
	if b.Max < b.Min {
		b.Max = max(30*time.Second, b.Min)
	}
	return b
}

// session runs on one connection until it fails or ctx ends.
type session func(ctx context.Context, conn *amqp.Connection, exchange string) error

// connectLoop dials the broker and runs s on each connection until ctx
// ends, backing off between failures. Errors are logged without the URL,
// which carries the password.
func connectLoop(ctx context.Context, name string, src Source, b Backoff, log logging.Logger, s session) {
	b = b.withDefaults()
	wait := b.Min
	for ctx.Err() == nil {
		started := time.Now()
		err := connectOnce(ctx, name, src, s)
		if ctx.Err() != nil {
			return
		}
		if time.Since(started) > time.Minute {
			wait = b.Min
		}
		if errors.Is(err, errFrame) {
			// The consumer is removing an unreadable request: a step,
			// not a failure to back off from.
			wait = min(b.Min, frameRetry)
		}
		log.Info("event stream disconnected; reconnecting", "stream", name, "error", errMessage(err), "retryIn", wait.String())
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		if !errors.Is(err, errFrame) {
			wait = min(2*wait, b.Max)
		}
	}
}

func connectOnce(ctx context.Context, name string, src Source, s session) error {
	b, err := src(ctx)
	if err != nil {
		return errors.Wrap(err, "cannot read the broker URL")
	}
	conn, err := amqp.DialConfig(b.URL, amqp.Config{
		Heartbeat:       10 * time.Second,
		Locale:          "en_US",
		Properties:      amqp.Table{"connection_name": "provider-devops " + name},
		Dial:            amqp.DefaultDial(10 * time.Second),
		TLSClientConfig: b.TLS,
	})
	if err != nil {
		return errors.Errorf("cannot connect to %s: %s", Redact(b.URL), redactErr(err, b.URL))
	}
	defer closeWithin(conn.Close)
	return s(ctx, conn, b.Exchange)
}

// closeTimeout bounds a graceful close: it waits for the broker's reply,
// which a dead or wedged connection never sends.
const closeTimeout = 5 * time.Second

// closeWithin closes gracefully but gives up after closeTimeout, so that
// stopping the provider never hangs on the broker.
func closeWithin(fn func() error) {
	done := make(chan struct{})
	go func() { _ = fn(); close(done) }()
	select {
	case <-done:
	case <-time.After(closeTimeout):
	}
}

// Redact returns the URL without its password, for messages.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the broker (unparsable URL)"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	return u.String()
}

func redactErr(err error, raw string) string {
	msg := err.Error()
	if u, perr := url.Parse(raw); perr == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			msg = strings.ReplaceAll(msg, p, "REDACTED")
		}
	}
	return msg
}

func errMessage(err error) string {
	if err == nil {
		return "connection closed"
	}
	return err.Error()
}

// throttle lets a repeated log line through at most once per period and
// counts what it held back.
type throttle struct {
	mu         sync.Mutex
	period     time.Duration
	last       time.Time
	suppressed int
}

// allow reports whether to log now, and how many were suppressed since.
func (t *throttle) allow(now time.Time) (bool, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.last.IsZero() && now.Sub(t.last) < t.period {
		t.suppressed++
		return false, 0
	}
	n := t.suppressed
	t.last, t.suppressed = now, 0
	return true, n
}

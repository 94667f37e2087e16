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

// Command function-devopsproject is a Crossplane composition function that
// expands a DevOpsProject into a RegistryRepo and, per environment, a
// JenkinsPipeline, an ArgoApplication and a DNSRecord, with time to live for
// preview environments.
package main

import (
	"os"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/crossplane/function-sdk-go"
)

func main() {
	app := kingpin.New("function-devopsproject", "Expands DevOpsProjects into managed resources.").DefaultEnvars()
	address := app.Flag("address", "Address to listen on for gRPC.").Default("0.0.0.0:9443").String()
	certs := app.Flag("tls-server-certs-dir", "Directory with tls.crt, tls.key and ca.crt for mTLS.").Envar("TLS_SERVER_CERTS_DIR").String()
	insecure := app.Flag("insecure", "Serve without TLS (for crossplane render).").Bool()
	debug := app.Flag("debug", "Log what each run composed; without it only projects that cannot be composed are logged.").Short('d').Bool()
	metrics := app.Flag("metrics-address", "Address to serve Prometheus metrics on.").Default(":8080").String()
	maxRecv := app.Flag("max-recv-message-size", "Largest request accepted, in bytes.").Default("4194304").Int()
	fixed := app.Flag("now", "Use this RFC 3339 time as the clock (reproducible crossplane render output).").Hidden().String()
	kingpin.MustParse(app.Parse(os.Args[1:]))

	if !*insecure && *certs == "" {
		kingpin.Fatalf("set --tls-server-certs-dir (TLS_SERVER_CERTS_DIR) or --insecure")
	}
	now := time.Now
	if *fixed != "" {
		t, err := time.Parse(time.RFC3339, *fixed)
		kingpin.FatalIfError(err, "--now")
		now = func() time.Time { return t }
	}
	log, err := function.NewLogger(*debug)
	kingpin.FatalIfError(err, "cannot make the logger")
	// The SDK's metrics server serves the default registry.
	em := newEnvironmentMetrics(now)
	prometheus.MustRegister(em)
	err = function.Serve(&Function{now: now, log: log, debug: *debug, metrics: em},
		function.Listen("tcp", trimScheme(*address)),
		function.MTLSCertificates(*certs),
		function.Insecure(*insecure),
		function.MaxRecvMessageSize(*maxRecv),
		function.WithMetricsServer(*metrics),
	)
	kingpin.FatalIfError(err, "cannot serve")
}

func trimScheme(a string) string {
	const p = "tcp://"
	if len(a) > len(p) && a[:len(p)] == p {
		return a[len(p):]
	}
	return a
}

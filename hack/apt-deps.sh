#!/usr/bin/env bash
# Installs the Debian packages the tests and the demo run for real, when one
# is missing: etcd (kube-apiserver's store), BIND 9 and dig, the distribution
# registry, RabbitMQ, Redis and git (Argo CD's cache and the repository it
# syncs from; openssh-client, for git over SSH), python3-jenkins (an
# independent Jenkins client the fake Jenkins is held to), groovy (with the Java it
# depends on; its parser holds the generated pipeline scripts), jenkins-job-builder
# (the config.xml it writes holds the provider's), and containerd,
# runc, the CNI plugins and iproute2 (the one-node cluster's runtime and Pod
# network). Runs apt-get as root, or through sudo.
set -euo pipefail
packages=(etcd-server bind9 bind9-dnsutils docker-registry rabbitmq-server redis-server git openssh-client python3-jenkins groovy jenkins-job-builder containerd runc containernetworking-plugins iproute2)
have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ] || [ -x "$2" ]; }
if have etcd /usr/bin/etcd && have named /usr/sbin/named && have dig /usr/bin/dig \
  && have docker-registry /usr/bin/docker-registry && have rabbitmq-server /usr/lib/rabbitmq/bin/rabbitmq-server \
  && have redis-server /usr/bin/redis-server && have git /usr/lib/git-core/git-http-backend && have ssh /usr/bin/ssh && have ssh-keygen /usr/bin/ssh-keygen \
  && [ -f /usr/lib/python3/dist-packages/jenkins/__init__.py ] \
  && have groovy /usr/bin/groovy && have java /usr/bin/java && have jenkins-jobs /usr/bin/jenkins-jobs \
  && have containerd /usr/bin/containerd && have runc /usr/sbin/runc && [ -x /usr/lib/cni/bridge ] && have ip /usr/sbin/ip; then
  exit 0
fi
echo "apt-deps: installing ${packages[*]}" >&2
hack="$(cd "$(dirname "$0")" && pwd)"
"$hack/apt-get.sh" update -qq
"$hack/apt-get.sh" install -y -qq --no-install-recommends "${packages[@]}" >/dev/null

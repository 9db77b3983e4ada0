#!/usr/bin/env bash
# One etcd user per hypervisor for vppnet's agents, each with only a read-only role on the
# datastore prefix, and their passwords rotated one node at a time.
#
#   deploy/etcd/node-users.sh create  --out DIR NODE...   # role (once), a user and a password per node
#   deploy/etcd/node-users.sh rotate  --out DIR NODE...   # a new password for each node's user
#   deploy/etcd/node-users.sh delete  NODE...             # a node leaves the fleet: its user goes
#
# Options: --prefix P (default /vppnet/v1/, the agents' --datastore-prefix), --role R (default
# vppnet-agent-ro), --user-prefix U (default vppnet-: node hv1's user is vppnet-hv1).
# etcdctl (Debian's etcd-client) talks to etcd as an administrator: set its own variables, e.g.
#   ETCDCTL_API=3 ETCDCTL_ENDPOINTS=https://etcd-0:2379 ETCDCTL_CACERT=ca.pem \
#   ETCDCTL_CERT=admin.pem ETCDCTL_KEY=admin-key.pem   (or ETCDCTL_USER=root:PASSWORD)
# Each password goes to DIR/NODE (mode 0600, DIR mode 0700), never to stdout or etcdctl's command
# line (it would show in ps). Make the agents' Secret from DIR (deploy/README.md, fleet mode):
#   kubectl -n vppnet-system create secret generic vppnet-etcd-users --from-file=DIR
set -euo pipefail

usage() {
  sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

cmd=${1:-}
[ -n "$cmd" ] || usage
shift
prefix=/vppnet/v1/
role=vppnet-agent-ro
user_prefix=vppnet-
out=
nodes=()
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix=${2:?--prefix needs a value}; shift 2 ;;
    --role) role=${2:?--role needs a value}; shift 2 ;;
    --user-prefix) user_prefix=${2:?--user-prefix needs a value}; shift 2 ;;
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    -h | --help) usage ;;
    -*) echo "node-users.sh: unknown option $1" >&2; usage ;;
    *) nodes+=("$1"); shift ;;
  esac
done
[ ${#nodes[@]} -gt 0 ] || { echo "node-users.sh: name at least one node" >&2; exit 2; }
case "$prefix" in /*/) ;; *) echo "node-users.sh: --prefix must start and end with /" >&2; exit 2 ;; esac
for node in "${nodes[@]}"; do
  # A Kubernetes node name: what the agent's VPPNET_NODE_NAME is, and a safe file name.
  if ! [[ "$node" =~ ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ ]] || [ ${#node} -gt 253 ]; then
    echo "node-users.sh: $node is not a Kubernetes node name" >&2
    exit 2
  fi
done
export ETCDCTL_API=3

new_password() {
  # 32 random bytes, base64 without padding or '/': fits a Secret key, a file and etcd.
  openssl rand -base64 32 | tr -d '=\n' | tr '/+' '_-'
}

write_password() { # NODE PASSWORD
  umask 077
  printf '%s' "$2" >"$out/$1.tmp"
  mv "$out/$1.tmp" "$out/$1"
}

need_out() {
  [ -n "$out" ] || { echo "node-users.sh: $cmd needs --out DIR" >&2; exit 2; }
  mkdir -p "$out"
  chmod 0700 "$out"
}

case "$cmd" in
  create)
    need_out
    if ! etcdctl role get "$role" >/dev/null 2>&1; then
      etcdctl role add "$role" >/dev/null
    fi
    # Read only, and only the prefix: what an agent lists and watches.
    etcdctl role grant-permission "$role" --prefix=true read "$prefix" >/dev/null
    for node in "${nodes[@]}"; do
      user="$user_prefix$node"
      if etcdctl user get "$user" >/dev/null 2>&1; then
        echo "node-users.sh: user $user exists (use rotate for a new password)" >&2
        exit 1
      fi
      pw=$(new_password)
      # The password on stdin: --interactive=false reads it there (not on the command line).
      printf '%s\n' "$pw" | etcdctl user add "$user" --interactive=false >/dev/null
      etcdctl user grant-role "$user" "$role" >/dev/null
      write_password "$node" "$pw"
      echo "created $user (role $role: read $prefix), password in $out/$node"
    done
    ;;
  rotate)
    need_out
    for node in "${nodes[@]}"; do
      user="$user_prefix$node"
      pw=$(new_password)
      printf '%s\n' "$pw" | etcdctl user passwd "$user" --interactive=false >/dev/null
      write_password "$node" "$pw"
      echo "rotated $user, password in $out/$node"
    done
    ;;
  delete)
    for node in "${nodes[@]}"; do
      etcdctl user delete "$user_prefix$node" >/dev/null
      echo "deleted $user_prefix$node"
    done
    ;;
  *) usage ;;
esac

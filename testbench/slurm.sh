#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for the Slurm executor's tests
# (tests/cluster.rs) and for trying `--executor slurm` by hand:
#
#   bash testbench/slurm.sh start DIR   # munged, slurmctld, slurmd; waits for the node
#   export SLURM_CONF=DIR/slurm.conf    # what the client commands read
#   bash testbench/slurm.sh stop DIR    # cancels every job, stops the daemons by PID
#
# Everything lives under DIR (keys, sockets, state, spool, logs, PID files);
# no accounting (sacct is not available). Needs root (slurmd runs tasks as
# the submitting user) and Debian's slurmctld, slurmd, slurm-client and munge
# (testbench/install-tools.sh installs them). `stop` is safe to run whatever
# state `start` left.
set -euo pipefail

cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
conf="$dir/slurm.conf"

stop_pid() {
  local f=$1
  [ -f "$f" ] || return 0
  local pid
  pid=$(cat "$f" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

if [ "$cmd" = stop ]; then
  if [ -f "$conf" ] && [ -f "$dir/slurmctld.pid" ]; then
    SLURM_CONF=$conf timeout 10 scancel --full --quiet --user="$(id -un)" 2>/dev/null || true
  fi
  stop_pid "$dir/slurmd.pid"
  stop_pid "$dir/slurmctld.pid"
  stop_pid "$dir/munged.pid"
  exit 0
fi
[ "$cmd" = start ] || { echo "$0: unknown command $cmd (start or stop)" >&2; exit 2; }

for tool in munged slurmctld slurmd sinfo; do
  command -v "$tool" >/dev/null || {
    echo "$0: $tool not found: bash testbench/install-tools.sh installs Slurm and munge" >&2
    exit 1
  }
done

# A stopped cluster in DIR is started again from scratch.
bash "$0" stop "$dir"
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
chmod 0755 "$dir/munge"
if [ ! -f "$dir/munge/munge.key" ]; then
  head -c 1024 /dev/urandom >"$dir/munge/munge.key"
fi
chmod 0600 "$dir/munge/munge.key"
munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
  --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" \
  --seed-file="$dir/munge/munge.seed" --force

host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ { print int($2 / 1024 / 2) }' /proc/meminfo)
cat >"$conf" <<EOF
ClusterName=routergen-test
SlurmctldHost=$host(127.0.0.1)
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
MailProg=/bin/true
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
ReturnToService=2
MinJobAge=300
MaxArraySize=10001
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -f "$conf"
slurmd -f "$conf"
for _ in $(seq 100); do
  state=$(SLURM_CONF=$conf sinfo --noheader --format=%t 2>/dev/null || true)
  if [ "$state" = idle ]; then
    echo "slurm: one-node cluster up in $dir (export SLURM_CONF=$conf)"
    exit 0
  fi
  sleep 0.1
done
echo "$0: the node did not come up (state '${state:-none}'); logs in $dir/log" >&2
bash "$0" stop "$dir"
exit 1

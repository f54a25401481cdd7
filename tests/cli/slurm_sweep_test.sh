#!/usr/bin/env bash
# The catalog sweep through a real Slurm: a one-node cluster (slurmctld and slurmd from
# Debian's slurmctld, slurmd and slurm-client packages) started under a configuration of its
# own in a temporary folder, the job array of `tmasim sweep --slurm` submitted to it and
# collected, and the table compared with the same sweep run here. Every column but wall_s
# must be equal.
#
# Usage: slurm_sweep_test.sh TMASIM SOURCE_DIR [SWEEP]. Exit 77 (a ctest SKIP) with the
# reason where the cluster cannot start here: no Slurm packages, the daemons refuse to run.
set -euo pipefail
tmasim=$1
source_dir=$2
sweep=${3:-$source_dir/scenarios/sweeps/tma_stream.sweep.yaml}
skip() { echo "SKIP: $*"; exit 77; }

for tool in slurmctld slurmd sbatch sinfo; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (apt-get install slurmctld slurmd slurm-client)"
done
command -v python3 >/dev/null || skip "python3 is not installed (it picks two free ports)"

work=$(mktemp -d /tmp/tmasim-slurm-XXXXXX)
pids=()
# The daemons go on failure too, then the folder; only the processes this script started.
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

node=$(hostname -s)
user=$(id -un)
read -r ctld_port slurmd_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')
mkdir -p "$work/state" "$work/spool"
# auth/none and cred/none: no munge key to make; this cluster listens on 127.0.0.1 only and
# lives for one test. No cgroups (containers rarely allow them): linuxproc, task/none.
cat > "$work/slurm.conf" <<EOF
ClusterName=tmasimtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/none
CredType=cred/none
SlurmUser=$user
SlurmdUser=$user
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=sweep Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf

slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$node" -f "$SLURM_CONF" >"$work/slurmd.out" 2>&1 &
pids+=($!)
# Up when the node is idle; a daemon that exits on its own says why in its output.
state=""
for _ in $(seq 60); do
  for pid in "${pids[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "--- slurmctld:"; tail -5 "$work/slurmctld.out"; echo "--- slurmd:"; tail -5 "$work/slurmd.out"
      skip "a Slurm daemon exited at start (its last lines above)"
    fi
  done
  state=$(sinfo -h -n "$node" -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.5
done
if [ "$state" != idle ]; then
  tail -5 "$work/slurmctld.out" "$work/slurmd.out"
  skip "the node did not become idle in 30 s (state: '${state:-none}')"
fi
echo "slurm: one node ($node, $(nproc) CPUs) up"

# The array (8 points per task: fewer task starts), its table, then the same sweep here.
"$tmasim" sweep "$sweep" --slurm "$work/sweep" --per-task 8
start=$(date +%s.%N)
timeout 600 sbatch --wait "$work/sweep/sweep.sbatch" || echo "sbatch --wait: exit $? (rows decide)"
echo "slurm: array done in $(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')") s"
rc=0
"$tmasim" sweep "$sweep" --collect "$work/sweep" --csv "$work/slurm.csv" || rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: --collect exited $rc"; tail -n 20 "$work"/sweep/logs/*.out; exit 1; }
"$tmasim" sweep "$sweep" -q -j 2 --csv "$work/local.csv" >/dev/null
points=$(($(wc -l <"$work/local.csv") - 1))
# wall_s, the last column, is the only one that may differ.
if ! diff <(sed 's/,[^,]*$//' "$work/local.csv") <(sed 's/,[^,]*$//' "$work/slurm.csv"); then
  echo "FAIL: the Slurm table differs from the local one (above: < local, > slurm)"
  exit 1
fi
# The catalog sweep has 16 points: two array tasks of 8.
[ "$points" -ge 16 ] || { echo "FAIL: only $points points"; exit 1; }
echo "PASS: $points points, the same table through Slurm and here"

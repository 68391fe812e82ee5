#!/usr/bin/env bash
# make test-slurm: the end-to-end test of `mgpu sweep --emit slurm` on a real
# Slurm. It installs Debian's Slurm and MUNGE packages when they are missing,
# runs a private single-node cluster on localhost (its own munged, slurmctld
# and slurmd, with their own key, socket, ports, config and state in a
# temporary directory: it edits nothing in /etc, and a Slurm or MUNGE
# already running on the machine is left alone), runs scripts/slurm/check.sh
# against it, and stops every daemon it started, whatever happens.
#
# Usage: test-slurm.sh [COMMAND...]: with a command, runs it against the
# cluster instead of check.sh (SLURM_CONF is exported), e.g. bash, or
# env MGPU_SLURM=1 go test -run TestSlurmArrayJob -v ./cmd/mgpu.
#
# Needs root (it installs packages and runs the daemons as root) and
# Debian or Ubuntu (apt). Environment:
#   MGPU_SLURM_KEEP=1     keep the cluster's directory (logs) afterwards
#   MGPU_SLURM_PORT=N     slurmctld port (default 16817; slurmd uses N+1)
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ "$(id -u)" != 0 ]; then
	echo "test-slurm: must run as root: it installs packages and starts Slurm daemons (try: sudo env PATH=\"\$PATH\" make test-slurm)" >&2
	exit 2
fi
start=$(date +%s)

# 1. Packages: slurmctld, slurmd, the client commands and MUNGE (8 packages,
# 3.5 MB of .debs on Debian 12, without recommends).
pkgs="slurmctld slurmd slurm-client munge"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	command -v apt-get >/dev/null || { echo "test-slurm: no apt-get to install$missing: install them (Slurm and MUNGE) first" >&2; exit 2; }
	echo "test-slurm: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086 # $missing is a list of package names
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
echo "test-slurm: $(dpkg-query -W -f='slurmctld ${Version}, munge ' slurmctld)$(dpkg-query -W -f='${Version}' munge) installed after $(($(date +%s) - start)) s"

# 2. A private cluster under $dir. Every daemon runs in the foreground
# (-D, --foreground) in the background of this shell, so its pid is known
# and the trap stops exactly what this script started. Their logs, and
# what they print before they open them, stay in $dir.
dir=$(mktemp -d /tmp/mgpu-slurm.XXXXXX)
chmod 755 "$dir"
pids=()
cleanup() {
	status=$?
	set +e
	if [ -n "${SLURM_CONF:-}" ] && [ -e "$dir/slurmctld.started" ]; then
		squeue -h -o %A 2>/dev/null | xargs -r scancel 2>/dev/null
	fi
	# slurmd, then slurmctld, then munged: each gets 5 s to exit cleanly.
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		pid=${pids[i]}
		kill "$pid" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	if [ "$status" != 0 ]; then
		for log in "$dir"/*.log "$dir"/*.console; do
			[ -s "$log" ] && { echo "--- last lines of $log"; tail -n 20 "$log"; }
		done
	fi
	if [ "${MGPU_SLURM_KEEP:-}" = 1 ]; then
		echo "test-slurm: kept $dir"
	else
		rm -rf "$dir"
	fi
	echo "test-slurm: daemons stopped; $( [ "$status" = 0 ] && echo PASS || echo FAIL) after $(($(date +%s) - start)) s"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$dir/munge" "$dir/state" "$dir/spool"
chmod 700 "$dir/state" "$dir/spool"
chmod 755 "$dir/munge"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
# --force: munged refuses to run as root without it.
munged --foreground --force --key-file="$dir/munge/munge.key" \
	--socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
	--seed-file="$dir/munge/munged.seed" >"$dir/munged.console" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$dir/munge/munge.socket" ] && break; sleep 0.1; done

port=${MGPU_SLURM_PORT:-16817}
export SLURM_CONF=$dir/slurm.conf
cat >"$SLURM_CONF" <<EOF
# A single-node test cluster on localhost (scripts/slurm/test-slurm.sh).
ClusterName=mgpu-test
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
# No cgroups: works in containers and VMs without a delegated cgroup tree.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/backfill
SelectType=select/cons_tres
# Cores are consumed, memory is not; config_overrides makes slurmd report
# this node as configured, so the 4G of each task fits on a small machine.
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=8192 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -D -i >"$dir/slurmctld.console" 2>&1 &
pids+=($!)
touch "$dir/slurmctld.started"
slurmd -D -N localhost >"$dir/slurmd.console" 2>&1 &
pids+=($!)

state=""
for _ in $(seq 120); do
	state=$(sinfo -h -N -n localhost -o %t 2>/dev/null || true)
	[ "$state" = idle ] && break
	for pid in "${pids[@]}"; do
		kill -0 "$pid" 2>/dev/null || { echo "test-slurm: a daemon exited at start (port $port in use? set MGPU_SLURM_PORT)" >&2; exit 1; }
	done
	sleep 0.5
done
if [ "$state" != idle ]; then
	echo "test-slurm: node localhost is '${state:-not reported}', not idle, after 60 s" >&2
	exit 1
fi
echo "test-slurm: cluster up after $(($(date +%s) - start)) s: $(sinfo -h -o '%P %D %t %c')"

# 3. The test proper.
if [ $# -gt 0 ]; then
	"$@"
else
	scripts/slurm/check.sh
fi

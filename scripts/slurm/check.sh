#!/usr/bin/env bash
# The end-to-end check of `mgpu sweep --emit slurm` against a running Slurm,
# the one sbatch reaches (test-slurm.sh starts a private one and points
# SLURM_CONF at it): emit a 4-run sweep as a 2-task array from relative
# paths, submit it from another directory, wait for it, collect its results,
# run the same sweep locally with the same binary, and compare the CSVs and
# the per-run result files byte for byte.
#
# Environment:
#   MGPU=PATH             the mgpu binary (default: build bin/mgpu)
#   MGPU_SLURM_WORK=DIR   work directory (default: a new one under /tmp,
#                         removed on success); on a multi-node cluster it
#                         must be on a filesystem the nodes share
set -euo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "check-slurm: FAIL: $*" >&2; exit 1; }
start=$(date +%s)

mgpu=${MGPU:-}
if [ -z "$mgpu" ]; then
	go build -o bin/mgpu ./cmd/mgpu
	mgpu=$PWD/bin/mgpu
elif [[ $mgpu == */* ]]; then
	mgpu=$(realpath "$mgpu")
fi
work=${MGPU_SLURM_WORK:-$(mktemp -d /tmp/mgpu-slurm-check.XXXXXX)}
mkdir -p "$work"
cd "$work"

cat >spec.yaml <<'EOF'
name: slurm-check
workloads: [fft]
policies: [on-touch, oasis]
gpus: [2]
seeds: [1, 2]
scale: 0.05
EOF

# A results directory whose name needs quoting in the shell and in #SBATCH
# lines (blank, #) and escaping in Slurm's file name patterns (%), given
# relative, as is the spec: the script must name both absolutely.
res="slurm results #1 100%"
"$mgpu" sweep spec.yaml --emit slurm --results "$res" --tasks 2 --mgpu "$mgpu" >job.sh
[ -d "$res" ] || fail "emitting did not create the results directory '$res'"
grep -qxF '#SBATCH --array=0-1' job.sh || fail "job.sh has no '#SBATCH --array=0-1':
$(cat job.sh)"
grep -qF -- "--results '$work/$res'" job.sh || fail "job.sh does not pass --results '$work/$res':
$(cat job.sh)"
echo "check-slurm: emitted job.sh:"
sed 's/^/  | /' job.sh

# Submit from elsewhere: the job's working directory is the submit
# directory, which must not matter.
mkdir -p elsewhere
cd elsewhere
t0=$(date +%s)
if ! jobid=$(sbatch --parsable --wait ../job.sh); then
	for f in "$work/$res"/slurm-*.out; do [ -e "$f" ] && { echo "--- $f"; cat "$f"; }; done
	fail "sbatch --wait: the job failed (job ${jobid:-not submitted})"
fi
jobid=${jobid%%;*}
echo "check-slurm: job $jobid done in $(($(date +%s) - t0)) s"
cd "$work"

# Each task's output went where --output said, %A and %a expanded, %%
# taken as %: the quoting survived sbatch's own parser and Slurm's
# pattern expansion.
for task in 0 1; do
	out="$res/slurm-${jobid}_$task.out"
	[ -f "$out" ] || fail "no task output $work/$out; the directory holds: $(ls -A "$res")"
	grep -q '^sweep: 2 runs' "$out" || fail "task $task did not run 2 runs:
$(cat "$out")"
done

"$mgpu" collect "$res" --csv slurm.csv
"$mgpu" sweep spec.yaml --results local --jobs 2 --csv local.csv >local.log 2>&1 || fail "local sweep:
$(cat local.log)"
"$mgpu" collect local --csv local-collected.csv >/dev/null
[ "$(wc -l <slurm.csv)" = 5 ] || fail "slurm.csv has $(wc -l <slurm.csv) lines, want a header and 4 rows:
$(cat slurm.csv)"
# Byte for byte against the same command on the local results.
cmp slurm.csv local-collected.csv || fail "the Slurm CSV differs from the local collect's: diff $work/slurm.csv $work/local-collected.csv"
# The local sweep's own merged CSV lists its runs in spec order, collect
# sorts them (workload, sets, policy, gpus, seed, scale): the same bytes
# once its rows are sorted the same way, which is what this compares.
rows() { head -n 1 "$1"; tail -n +2 "$1" | LC_ALL=C sort; }
cmp <(rows slurm.csv) <(rows local.csv) || fail "the Slurm CSV's rows differ from the local sweep's: diff $work/slurm.csv $work/local.csv"
# The per-run results, named by their config hash, must be the same files.
diff <(cd "$res" && ls -- *.json) <(cd local && ls -- *.json) >/dev/null || fail "different result files:
$(diff <(cd "$res" && ls -- *.json) <(cd local && ls -- *.json))"
for f in local/*.json; do
	cmp "$f" "$res/${f#local/}" || fail "result $f differs between Slurm and local"
done

echo "check-slurm: PASS: 4 runs as 2 array tasks on Slurm, CSV and results identical to the local sweep's, in $(($(date +%s) - start)) s"
if [ -z "${MGPU_SLURM_WORK:-}" ]; then
	rm -rf "$work"
fi

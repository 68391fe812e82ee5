#!/usr/bin/env bash
# bench-compare.sh OLD [SET]: the speed of the working tree against revision
# OLD, measured as pairs. Each run of the set is made by both binaries one
# after the other (the order alternating from run to run), so the machine's
# drift, which reaches a third within an hour here, falls on both alike.
# Every pair's JSON results must be identical but for the version field: a
# speed change that moves a number is a bug, and the script fails on it.
#
# SET is full (the issue's fixed set: the eleven OASIS applications at
# Table II size on 4 GPUs under on-touch and OASIS, and fdtd2d, mvt,
# bicgstab and syrk on the RTX 3090 preset at 50% oversubscription under
# SUV's UVM; about half an hour for the pair), or quick (six short runs,
# a few minutes). The table is Markdown: CPU seconds (user + sys) of each
# binary, the speedup, and memory instructions per CPU second; the last row
# is the geometric mean of the speedups.
#
# PASS=1 swaps which binary runs first for every run (default 0). A given
# run goes first by the same binary in every PASS=0 pass, which biases its
# ratio by about 2% here; average a PASS=0 and a PASS=1 pass to cancel it.
#
# RESULTS=differ compares two revisions on either side of a model change
# (the order of simultaneous events, 2026-11-29): the results are not
# checked, and the speedup is the ratio of memory instructions per CPU
# second, each binary's count from its own run.
set -euo pipefail
OLD=${1:?usage: bench-compare.sh OLD-revision [full|quick]}
SET=${2:-full}
RESULTS=${RESULTS:-identical}
PASS=${PASS:-0}
case $PASS in 0 | 1) ;; *) echo "bench-compare: PASS must be 0 or 1, not $PASS" >&2; exit 2 ;; esac
case $RESULTS in identical | differ) ;; *) echo "bench-compare: RESULTS must be identical or differ, not $RESULTS" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.."
GO=${GO:-go}

tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --detach "$tmp/old" "$OLD" >/dev/null 2>&1 || { echo "bench-compare: cannot check out $OLD" >&2; exit 2; }
(cd "$tmp/old" && $GO build -o "$tmp/mgpu-old" ./cmd/mgpu)
$GO build -o "$tmp/mgpu-new" ./cmd/mgpu

# The RTX 3090 runs are SUV's UVM at 50% (figures/suv.go suvBase).
oversub="--config configs/rtx3090.yaml --oversubscribe 1.5 --set uvm.prefetch.policy=tbn --set uvm.prefetch.threshold=51 --policy on-touch"
runs=()
case $SET in
full)
	for p in on-touch oasis; do
		for w in bfs c2d fft i2c mm mt pr st lenet vgg16 resnet18; do
			runs+=("--workload $w --gpus 4 --policy $p")
		done
	done
	for w in fdtd2d mvt bicgstab syrk; do runs+=("--workload $w $oversub"); done
	;;
quick)
	runs=("--workload mt --gpus 4 --policy on-touch" "--workload st --gpus 4 --policy oasis"
		"--workload lenet --gpus 4 --policy oasis" "--workload i2c --gpus 4 --policy on-touch"
		"--workload mvt $oversub --scale 0.1" "--workload fdtd2d $oversub --scale 0.1")
	;;
*) echo "bench-compare: set must be full or quick, not $SET" >&2; exit 2 ;;
esac

# one BIN ARGS: CPU seconds of one run; its JSON goes to $tmp/BIN.json.
one() {
	local bin=$1; shift
	# shellcheck disable=SC2086
	/usr/bin/env time -f "%U %S" -o "$tmp/time" "$tmp/mgpu-$bin" run $* --progress off --out "$tmp/$bin.json" > "$tmp/$bin.out"
	awk '{printf "%.2f", $1 + $2}' "$tmp/time"
}

echo "| run | mem instructions | $OLD CPU s | new CPU s | speedup | $OLD M/CPU-s | new M/CPU-s |"
echo "|---|---|---|---|---|---|---|"
logsum=0
i=$PASS
for r in "${runs[@]}"; do
	if (( i % 2 == 0 )); then to=$(one old "$r"); tn=$(one new "$r")
	else tn=$(one new "$r"); to=$(one old "$r"); fi
	i=$((i + 1))
	if [[ $RESULTS == identical ]] && ! cmp -s <(sed '/"version"/d' "$tmp/old.json") <(sed '/"version"/d' "$tmp/new.json"); then
		echo "bench-compare: results differ for: $r" >&2
		diff <(sed '/"version"/d' "$tmp/old.json") <(sed '/"version"/d' "$tmp/new.json") | head -20 >&2
		exit 1
	fi
	n=$(awk '/mem instructions/ {print $3; exit}' "$tmp/new.out")
	no=$(awk '/mem instructions/ {print $3; exit}' "$tmp/old.out")
	label=$(echo "$r" | sed -e 's/--config configs\/rtx3090.yaml.*--policy on-touch/RTX 3090 at 50%/' -e 's/--workload //' -e 's/--gpus 4 --policy //')
	# the speedup is in throughput: equal to the CPU time's ratio when the
	# two ran the same instructions
	awk -v l="$label" -v n="$n" -v no="$no" -v a="$to" -v b="$tn" 'BEGIN {
		printf "| %s | %d | %.2f | %.2f | %.2fx | %.3f | %.3f |\n", l, n, a, b, (n / b) / (no / a), no / a / 1e6, n / b / 1e6 }'
	logsum=$(awk -v s="$logsum" -v n="$n" -v no="$no" -v a="$to" -v b="$tn" 'BEGIN { printf "%.12f", s + log((n / b) / (no / a)) }')
done
awk -v s="$logsum" -v k="${#runs[@]}" 'BEGIN { printf "| geometric mean of %d | | | | %.2fx | | |\n", k, exp(s / k) }'

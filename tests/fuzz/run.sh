#!/usr/bin/env bash
# Run every fuzz target for a bounded time (docs/robustness.md).
#   tests/fuzz/run.sh BUILD_DIR [SECONDS] [PARALLEL] [TARGET...]
# BUILD_DIR was configured with -DFOVEA_BUILD_FUZZERS=ON (clang, ASan + UBSan).
# Seeds are generated into BUILD_DIR/fuzz/seeds (fuzz_make_corpus); what a run
# adds goes to BUILD_DIR/fuzz/work/<target>, crashes to BUILD_DIR/fuzz/artifacts/.
# SECONDS (default $FOVEA_FUZZ_SECONDS or 60) per target, PARALLEL targets at a
# time (default 2). Prints libFuzzer's final line per target (execs, cov, corp,
# exec/s) and exits 1 when a target found a crash, leak or timeout.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: run.sh BUILD_DIR [SECONDS] [PARALLEL] [TARGET...]}" && pwd)
secs=${2:-${FOVEA_FUZZ_SECONDS:-60}}
par=${3:-2}
shift $(( $# < 3 ? $# : 3 ))
targets=("$@")
(( ${#targets[@]} )) || targets=(tiff_open read_region codec xml description loader)
bin=$build/tests/fuzz
out=$build/fuzz
mkdir -p "$out/artifacts" "$out/logs"
rm -rf "$out/seeds"
"$bin/fuzz_make_corpus" "$out/seeds" >/dev/null || { echo "run.sh: seed generation failed"; exit 1; }

opts_for() {
  case $1 in
    tiff_open)   echo "-dict=$here/tiff.dict -max_len=32768" ;;
    read_region) echo "-dict=$here/tiff.dict -max_len=32780" ;;
    codec)       echo "-dict=$here/codec.dict -max_len=16384" ;;
    xml)         echo "-dict=$here/xml.dict -max_len=8192" ;;
    description) echo "-dict=$here/xml.dict -max_len=16384" ;;
    loader)      echo "-dict=$here/tiff.dict -max_len=32784" ;;
  esac
}

run_one() {
  local t=$1 log=$out/logs/$1.log
  mkdir -p "$out/work/$t"
  # shellcheck disable=SC2046
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  FOVEA_NUM_THREADS=1 \
    "$bin/fuzz_$t" $(opts_for "$t") -max_total_time="$secs" -timeout=20 -rss_limit_mb=2560 \
      -print_final_stats=1 -artifact_prefix="$out/artifacts/$t-" "$out/work/$t" "$out/seeds/$t" >"$log" 2>&1
  echo $? >"$out/logs/$t.rc"
}

pids=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  if (( ${#pids[@]} >= par )); then
    wait "${pids[0]}"
    pids=("${pids[@]:1}")
  fi
done
wait

fail=0
for t in "${targets[@]}"; do
  log=$out/logs/$t.log
  rc=$(cat "$out/logs/$t.rc" 2>/dev/null || echo 1)
  final=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1)
  [[ -n $final ]] || final=$(grep -E '^#[0-9]+' "$log" | tail -1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  printf '%-12s rc=%s execs=%s exec/s=%s | %s\n' "$t" "$rc" "${execs:-?}" "${rate:-?}" "$final"
  if [[ $rc != 0 ]]; then
    fail=1
    grep -E 'ERROR: |SUMMARY: |runtime error|Test unit written' "$log" | head -8 | sed 's/^/    /'
  fi
done
exit $fail

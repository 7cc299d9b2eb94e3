#!/usr/bin/env bash
# Runs meshport's libFuzzer targets (fuzz/CMakeLists.txt).
#
#   fuzz/run.sh seeds BUILD_DIR                 (re)makes BUILD_DIR/fuzz-seeds
#   fuzz/run.sh regress BUILD_DIR [TARGET...]   a fixed, seeded number of runs over the seeds
#                                               (what `make test` runs; fails on any finding)
#   fuzz/run.sh long BUILD_DIR SECONDS [TARGET...]
#                                               each target for SECONDS of CPU time, keeping its corpus in
#                                               BUILD_DIR/fuzz-corpus and findings in
#                                               BUILD_DIR/fuzz-findings; prints a summary table
# Seeds come from BUILD_DIR/fuzz-seeds (made by make_seeds from the repository's test files).
set -euo pipefail
mode=$1; build=$2; shift 2
seconds=0
if [ "$mode" = long ]; then seconds=$1; shift; fi
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
bins=$build/fuzz
seeds=$build/fuzz-seeds
REGRESS_RUNS=${REGRESS_RUNS:-3000}

if [ "$mode" = seeds ]; then rm -rf "$seeds"; fi
if [ ! -d "$seeds/iqe" ]; then
  mapfile -t files < <(cd "$repo" && find tests/data tests/hostile examples -type f \( -name '*.iqe' -o -name '*.iqm' -o -name '*.obj' \
    -o -name '*.pie' -o -name '*.qmsh.tmp' -o -name '*.qmsh' -o -name '*.model' -o -name '*.prop' -o -name '*.state' \
    -o -name '*.path' -o -name '*.gltf' -o -name '*.glb' \) | sort)
  (cd "$repo" && "$bins/make_seeds" "$seeds" "${files[@]}") >/dev/null
  # Compressed glTF data (fuzz_gltf_meshopt, fuzz_gltf_draco), made with the encoders.
  "$bins/make_compression_seeds" "$seeds"
  # Image seeds (fuzz_image): small images of every format, made by fuzz/make_image_seeds.cpp.
  mkdir -p "$seeds/image"
  cp "$repo"/tests/data/images/* "$seeds/image/"
  # Batch reports (fuzz_report): the reports in tests/data/batch.
  mkdir -p "$seeds/report"
  cp "$repo"/tests/data/batch/*.json "$seeds/report/"
  # Crash files found by fuzzing, kept in the repository as regression inputs.
  for d in "$repo"/tests/hostile/fuzz/*/; do
    [ -d "$d" ] && cp "$d"* "$seeds/$(basename "$d")/" 2>/dev/null || true
  done
fi

if [ "$mode" = seeds ]; then echo "seeds: $(find "$seeds" -type f | wc -l) files in $seeds"; exit 0; fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cd "$bins" && ls fuzz_* | sort)
fi

dict_of() {  # fuzz_model_roundtrip -> modedef.dict
  local f=${1#fuzz_}; f=${f%_roundtrip}
  case $f in model|prop|state|path) f=modedef ;; esac
  echo "$here/dict/$f.dict"
}
seeds_of() { local f=${1#fuzz_}; echo "$seeds/${f%_roundtrip}"; }

status=0
if [ "$mode" = regress ]; then
  for t in "${targets[@]}"; do
    work=$(mktemp -d)
    if "$bins/$t" -runs="$REGRESS_RUNS" -seed=1 -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
         -dict="$(dict_of "$t")" -artifact_prefix="$work/" "$work" "$(seeds_of "$t")" >"$work/log" 2>&1; then
      echo "ok   $t: $(grep -Eo 'Done [0-9]+ runs' "$work/log" | tail -1)"
    else
      echo "FAIL $t"; tail -40 "$work/log"; status=1
    fi
    rm -rf "$work"
  done
  exit $status
fi

# SECONDS is CPU time: the fuzzer is interrupted once its user+system time reaches it, so a run
# shares the machine (FUZZ_NICE, default 0) without shortening the fuzzing it reports.
cpu_seconds() {  # utime+stime of a live process, in whole seconds
  local f; read -ra f < "/proc/$1/stat" 2>/dev/null || { echo -1; return; }
  echo $(( (f[13] + f[14]) / $(getconf CLK_TCK) ))
}
printf '%-28s %10s %8s %8s %6s %s\n' target execs cov ft crashes cpu
for t in "${targets[@]}"; do
  corpus=$build/fuzz-corpus/$t; findings=$build/fuzz-findings/$t
  mkdir -p "$corpus" "$findings"
  log=$build/fuzz-findings/$t.log
  nice -n "${FUZZ_NICE:-0}" "$bins/$t" -max_total_time=$((seconds * 20)) -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 \
    -dict="$(dict_of "$t")" -artifact_prefix="$findings/" "$corpus" "$(seeds_of "$t")" >"$log" 2>&1 &
  pid=$!; used=0
  while kill -0 "$pid" 2>/dev/null; do
    c=$(cpu_seconds "$pid"); [ "$c" -ge 0 ] && used=$c
    if [ "$used" -ge "$seconds" ]; then kill -INT "$pid" 2>/dev/null || true; fi
    sleep 2
  done
  wait "$pid" || status=1  # an interrupt exits 0; a finding or a timeout does not
  execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo 0)
  cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
  ft=$(grep -Eo 'ft: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
  crashes=$(find "$findings" -type f | wc -l)
  printf '%-28s %10s %8s %8s %6s %ss\n' "$t" "$execs" "$cov" "$ft" "$crashes" "$used"
done
exit $status

#!/usr/bin/env bash
# One fuzz target's ctest test (label fuzz):
#   run_fuzzer.sh FUZZER TARGET SOURCE_DIR WORK_DIR SECONDS [DICT]
# 1. replays tests/fuzz/regressions/TARGET and corpus/TARGET: every saved
#    input must pass (a fixed crash stays fixed; an input that crashes the
#    HDF5 library must be contained, see below);
# 2. fuzzes for SECONDS; new inputs go to WORK_DIR/corpus (the source tree
#    is never written), crashing inputs to WORK_DIR/artifacts/.
#
# The HDF5 targets (hdf5_field, checkpoint) reach bugs of the HDF5 library
# itself, which adi3d contains by reading input files in a child process
# first (io/probe.hpp). Forking for every input would slow fuzzing down
# ~10x, so they fuzz in-process (ADI_ISOLATE_READS=0) under libFuzzer's
# -fork=1 -ignore_crashes=1, and every crashing input is then replayed the
# way adi3d reads it (isolated): it passes when the crash stays inside the
# HDF5 library and adi3d reports it as an I/O error; a crash in adi3d's own
# code fails the test. The config target fuzzes in-process and stops at the
# first finding.
#
# Exit status 0: no finding. The figures (executions, contained HDF5
# crashes) are printed last, as "== TARGET: ...".
set -euo pipefail
FUZZER="$1" TARGET="$2" SRC="$3" WORK="$4" SECONDS_="$5" DICT="${6:-}"
rm -rf "$WORK/artifacts"
mkdir -p "$WORK/corpus" "$WORK/artifacts"
export TMPDIR="$WORK"  # the HDF5 targets' scratch files and child reports
# Sanitizer reports stop the run; leaks count (libFuzzer checks each input).
# allocator_may_return_null: HDF5 mallocs sizes read from damaged metadata
# (up to 2^48 bytes seen); a real malloc returns NULL and HDF5 reports an
# error, so the sanitizer allocator must do the same. -malloc_limit_mb is
# raised for the same reason: what counts is memory actually used
# (-rss_limit_mb), not an address-space reservation that fails cleanly.
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:allocator_may_return_null=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$SRC/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
timeout=10
[ "$TARGET" != config ] && timeout=3  # a healthy file reads in milliseconds
common=(-timeout=$timeout -rss_limit_mb=2048 -malloc_limit_mb=1048576 -artifact_prefix="$WORK/artifacts/")
[ -n "$DICT" ] && common+=(-dict="$DICT")
hdf5=0
[ "$TARGET" != config ] && hdf5=1

echo "== $TARGET: replaying regressions and seeds"
inputs=()
for d in "$SRC/regressions/$TARGET" "$SRC/corpus/$TARGET"; do
  for f in "$d"/*; do [ -f "$f" ] && inputs+=("$f"); done
done
set +e
ADI_ISOLATE_READS=1 "$FUZZER" "${common[@]}" "${inputs[@]}" 2>&1 | grep -v -E "^(Running|Executed) |DEADLYSIGNAL"
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 0 ] || { echo "== $TARGET: a saved input fails (exit $rc)"; exit 1; }

echo "== $TARGET: fuzzing for ${SECONDS_} s"
log="$WORK/fuzz.log"
set +e
if [ "$hdf5" -eq 1 ]; then
  ADI_ISOLATE_READS=0 "$FUZZER" "${common[@]}" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$SECONDS_" "$WORK/corpus" "$SRC/corpus/$TARGET" "$SRC/regressions/$TARGET" >"$log" 2>&1
else
  "$FUZZER" "${common[@]}" -print_final_stats=1 -max_total_time="$SECONDS_" "$WORK/corpus" \
    "$SRC/corpus/$TARGET" "$SRC/regressions/$TARGET" >"$log" 2>&1
fi
rc=$?
set -e
grep -v -E "^#[0-9]+\s+(NEW|REDUCE|pulse)|^\s+NEW_FUNC|DEADLYSIGNAL|Uses: |^INFO: (Seed|Loaded|Running with)" "$log" | tail -40

execs=$(grep -oE "^(stat::number_of_executed_units: |#)[0-9]+" "$log" | grep -oE "[0-9]+" | tail -1)
contained=0 hangs=0 findings=0
# Which code a sanitizer or libFuzzer stack blames: the innermost frame that
# is either the HDF5 library or adi3d's own code (as blames_hdf5 in
# fuzz_io_util.hpp).
blame() {
  awk '/^ +#[0-9]+ /{ if ($0 ~ /libhdf5/) { print "hdf5"; exit } if ($0 ~ / adi::|\/io\/src\/|\/solver\//) { print "adi3d"; exit } }
       END { }' "$1"
}
# Whether input $1, replayed in-process, hangs inside the HDF5 library
# (libFuzzer prints the stack where it spins after 1 s).
hangs_in_hdf5() {
  ADI_ISOLATE_READS=0 "$FUZZER" "${common[@]}" -timeout=1 "$1" >"$1.inprocess" 2>&1 || true
  [ "$(blame "$1.inprocess")" = hdf5 ]
}
if [ "$hdf5" -eq 1 ]; then
  # Every crashing input, read as adi3d reads it: contained or a finding.
  # -timeout=20 (after the common flags, so it wins): longer than the
  # probe's own 8 s limit on the child (fuzz_io_util.hpp), so that the
  # probe, not libFuzzer's alarm in the parent, stops a looping read. An
  # input saved as out-of-memory while fuzzing in-process can be HDF5
  # looping and allocating (seen: H5Aread of a variable-length string,
  # H5T__conv_vlen -> H5HG_read on a damaged global heap); read as adi3d
  # reads it, the child is stopped after 8 s and the run ends with a clear
  # error. That is the hang case below, judged as the timeouts are: where
  # the in-process replay spins.
  for a in "$WORK"/artifacts/crash-* "$WORK"/artifacts/oom-*; do
    [ -f "$a" ] || continue
    if ADI_ISOLATE_READS=1 "$FUZZER" "${common[@]}" -timeout=20 "$a" >"$a.triage" 2>&1; then
      contained=$((contained + 1))
    elif grep -q "FUZZ FINDING: the read hangs" "$a.triage" && hangs_in_hdf5 "$a"; then
      hangs=$((hangs + 1))
    else
      findings=$((findings + 1))
      echo "== $TARGET: FINDING (not contained): $a"
      grep -E "FUZZ FINDING|ERROR: |#[0-9]+ 0x" "$a.triage" | head -30
    fi
  done
  # Hangs: replayed in-process, libFuzzer prints the stack where it hangs.
  # adi3d stops such a read after ADI_READ_TIMEOUT seconds (io/probe.hpp).
  for a in "$WORK"/artifacts/timeout-*; do
    [ -f "$a" ] || continue
    # -timeout=1 (after the common flags, so it wins): enough to see where it hangs.
    ADI_ISOLATE_READS=0 "$FUZZER" "${common[@]}" -timeout=1 "$a" >"$a.triage" 2>&1 || true
    who=$(blame "$a.triage")
    if [ "$who" = hdf5 ]; then
      hangs=$((hangs + 1))
    elif [ -z "$who" ] && grep -q "ERROR: libFuzzer: out-of-memory" "$a.triage" &&
      ADI_ISOLATE_READS=1 "$FUZZER" "${common[@]}" "$a" >"$a.isolated" 2>&1; then
      # The replay ran out of memory before the timeout could print where it
      # spins: no frame to blame (seen: HDF5 looping in its metadata cache,
      # H5Gopen2 -> H5C_protect, allocating as it goes). Read the way adi3d
      # reads it (a child with memory and time limits) it is contained.
      contained=$((contained + 1))
    else
      findings=$((findings + 1))
      echo "== $TARGET: FINDING (hang outside the HDF5 library): $a"
      grep -E "ERROR: |#[0-9]+ 0x" "$a.triage" | head -30
    fi
  done
  # In fork mode libFuzzer's status is that of its last job (a crash or a
  # timeout it was told to ignore, all triaged above); what must hold is
  # that it fuzzed for its budget.
  if ! grep -q "^INFO: exiting: .* time:" "$log" || [ "${execs:-0}" -eq 0 ]; then
    echo "== $TARGET: libFuzzer did not run its time budget (exit status $rc)"
    findings=$((findings + 1))
  fi
  rc=0
else
  [ "$rc" -ne 0 ] && findings=1
fi
echo "== $TARGET: ${execs:-0} executions in ${SECONDS_} s; corpus $(ls "$WORK/corpus" | wc -l) inputs;" \
  "HDF5-library crashes (or out-of-memory) found and contained: $contained; HDF5-library hangs (stopped by" \
  "the read timeout): $hangs; findings: $findings"
[ "$rc" -eq 0 ] && [ "$findings" -eq 0 ]

# Shared by the shell benchmarks: `source bench/lib.sh`.
#
# best_of N COMMAND OUT TIME: runs `bash -c COMMAND` N times, its standard output to OUT (timings in the
# file TIME), and sets BEST (the fastest run's seconds) and PEAK (the largest peak RSS in KiB of any run:
# GNU time's %M, the command's largest process).
best_of() {
  local n="$1" command="$2" out="$3" time="$4" s kb
  BEST=""
  PEAK=""
  for ((run = 0; run < n; run++)); do
    /usr/bin/time -f '%e %M' -o "$time" bash -c "$command" > "$out"
    read -r s kb < "$time"
    if [ -z "$BEST" ] || awk -v a="$s" -v b="$BEST" 'BEGIN { exit !(a < b) }'; then BEST="$s"; fi
    if [ -z "$PEAK" ] || [ "$kb" -gt "$PEAK" ]; then PEAK="$kb"; fi
  done
}

# Helpers shared by join-cpu.sh, mix-cpu.sh and tools/Benchmarks' command-rtt.sh and driverkit.sh (sourced,
# not run).

# A process's CPU so far (utime + stime) in clock ticks; empty when it has gone. The fields are counted after
# the command's name, which may hold spaces.
cpu_ticks() { awk '{sub(/.*\) /, ""); print $12 + $13}' "/proc/$1/stat" 2>/dev/null || true; }

# The CPU in clock ticks of the children process PID has waited for (cutime + cstime).
children_ticks() { awk '{sub(/.*\) /, ""); print $14 + $15}' "/proc/$1/stat" 2>/dev/null || true; }

# An EXIT trap for scripts that start processes: kills and reaps every pid in the array `pids`, then removes
# the folder `tmp` when it is set.
stop_processes() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  [[ -z ${tmp:-} ]] || rm -rf "$tmp"
}

# Ticks to milliseconds.
ticks_ms() { echo $(( $1 * 1000 / $(getconf CLK_TCK) )); }

# Waits until LOG holds PATTERN; fails with the log when PID (the run writing it) ends first.
wait_for_log() {
  local log=$1 pattern=$2 pid=$3
  until grep -q "$pattern" "$log"; do
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; return 1; }
    sleep 0.1
  done
}

# The hub started by DIR's hearth-load.
hub_pid() { pgrep -f "$1/hearth-hub" | head -1; }

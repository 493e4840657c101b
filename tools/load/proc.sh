# Helpers shared by join-cpu.sh and mix-cpu.sh (sourced, not run).

# A process's CPU so far (utime + stime) in clock ticks; empty when it has gone.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || true; }

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

#!/usr/bin/env bash
# bench/rocklin_cpu.sh [SECONDS] - the full 2 TB W1 job (Rocklin) on this
# machine's CPU for a fixed time, then Ctrl-C:
#
#   sum((normal(10, 1, shape=(500000, 500000), chunks=(10000, 10000)) + 1)[::2, ::2])
#
# (examples/rocklin.tsr via `tessera run` when that file exists, else the
# expression via `tessera eval`), with --progress, all cores of one rank
# (MODE=mpi: mpirun -np $(nproc) --bind-to core, one thread per rank). After
# SECONDS (default 60) the job's process group gets SIGINT, as from Ctrl-C at a
# terminal. Reports:
#   - whether it stopped by itself, cleanly (exit 130, "interrupted") and
#     promptly (within PROMPT_S seconds, default 5, of the SIGINT); if it is
#     still running GRACE seconds (default 30) after the SIGINT it gets SIGTERM,
#     then SIGKILL 10 s later;
#   - the exit code and the peak RSS (/usr/bin/time -v, and /proc sampled twice
#     a second: the job must stream, so RSS stays small);
#   - the throughput from the last progress line: fraction done x 2 TB logical
#     / elapsed in GB/s, and the extrapolated full-run time. The fraction is
#     elapsed / (elapsed + ETA), finer than the printed percentage (which is
#     used instead when ETA < 100 s).
#
# Environment: TESSERA (default: autodetect), MODE=single|mpi, THREADS (single
# mode; default nproc), N and CHUNK (default 500000 and 10000: a smaller N makes
# a quick test of this script), PROMPT_S, GRACE, RECORD=1 (append a record to
# bench/RESULTS.md), NOTE (free text for the record).
# Exit status: 0 stopped cleanly and promptly; 5 it did not (see the report);
# 3 a tool is missing; 4 the job failed on its own.
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

DURATION=${1:-${DURATION:-60}}
MODE=${MODE:-single}
N=${N:-500000}
CHUNK=${CHUNK:-10000}
case "$DURATION$N$CHUNK" in *[!0-9]*) die "usage: $0 [SECONDS]   (N, CHUNK: positive integers)" ;; esac
require python3
find_tessera
mpi_root_env
NP=$(nproc)
THREADS=${THREADS:-$NP}

EXPR="sum((normal(10, 1, shape=($N, $N), chunks=($CHUNK, $CHUNK)) + 1)[::2, ::2])"
if [ "$N" = 500000 ] && [ "$CHUNK" = 10000 ] && [ -f "$REPO_DIR/examples/rocklin.tsr" ]; then
  JOB=(run "$REPO_DIR/examples/rocklin.tsr")
  JOBTEXT="run examples/rocklin.tsr"
else
  JOB=(eval "$EXPR")
  JOBTEXT="eval '$EXPR'"
fi
case "$MODE" in
single) CMD=("$TESSERA" "${JOB[@]}" --backend=cpu --progress --threads="$THREADS")
  LAYOUT="1 rank x $THREADS threads" ;;
mpi) require mpirun
  CMD=(mpirun -np "$NP" --bind-to core "$TESSERA" "${JOB[@]}" --backend=cpu --progress --threads=1)
  LAYOUT="mpirun -np $NP x 1 thread" ;;
*) die "MODE must be single or mpi" ;;
esac

export RK_DURATION=$DURATION RK_PROMPT=${PROMPT_S:-5} RK_GRACE=${GRACE:-30}
export RK_BYTES RK_LOAD0 RK_CMDTEXT RK_LAYOUT=$LAYOUT
RK_BYTES=$(python3 -c "print($N * $N * 8)")
RK_LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
RK_CMDTEXT="tessera $JOBTEXT --backend=cpu --progress ($LAYOUT)"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rocklin_cpu.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export RK_WORK=$WORK

TIMEV=()
[ -x /usr/bin/time ] && TIMEV=(/usr/bin/time -v -o "$WORK/time.txt")

rc=0
python3 - "${TIMEV[@]}" "${CMD[@]}" >"$WORK/report.txt" <<'PY' || rc=$?
import os, re, signal, subprocess, sys, threading, time

env = os.environ
duration, prompt_s, grace = float(env["RK_DURATION"]), float(env["RK_PROMPT"]), float(env["RK_GRACE"])
logical = int(env["RK_BYTES"])
work = env["RK_WORK"]
cmd = sys.argv[1:]

def children_of(pid):
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    s = f.read()
                ppid = int(s[s.rindex(")") + 2:].split()[1])
                kids.setdefault(ppid, []).append(int(d))
            except (OSError, ValueError):
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for k in kids.get(p, []):
            out.append(k)
            todo.append(k)
    return out

def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0

def comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return "?"

t0 = time.monotonic()
proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, start_new_session=True, text=True)
lines, out = [], []

def read_err():
    for line in proc.stderr:
        lines.append((time.monotonic() - t0, line.rstrip("\n")))

def read_out():
    out.append(proc.stdout.read())

threads = [threading.Thread(target=read_err, daemon=True), threading.Thread(target=read_out, daemon=True)]
for t in threads:
    t.start()

peak_tree, peak_one, samples = 0, 0, []
def sample():
    global peak_tree, peak_one
    tree = [p for p in children_of(proc.pid) if comm(p) not in ("time", "mpirun", "orted", "prted", "prterun")]
    r = [rss_kb(p) for p in tree]
    peak_tree = max(peak_tree, sum(r))
    peak_one = max([peak_one] + r)
    samples.append((time.monotonic() - t0, sum(r)))

t_int = t_term = t_kill = None
while proc.poll() is None:
    now = time.monotonic() - t0
    if t_int is None and now >= duration:
        t_int = now
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the whole foreground group
    elif t_int is not None and t_term is None and now >= t_int + grace:
        t_term = now
        for p in children_of(proc.pid):
            try: os.kill(p, signal.SIGTERM)
            except OSError: pass
    elif t_term is not None and t_kill is None and now >= t_term + 10:
        t_kill = now
        for p in children_of(proc.pid):
            try: os.kill(p, signal.SIGKILL)
            except OSError: pass
    sample()
    time.sleep(0.5)
t_end = time.monotonic() - t0
for t in threads:
    t.join(timeout=5)
code = proc.returncode

timev = {}
try:
    with open(os.path.join(work, "time.txt")) as f:
        for line in f:
            k, _, v = line.strip().rpartition(": ")
            if k:
                timev[k] = v
            elif line.strip().startswith("Command terminated by signal"):
                timev["signal"] = "killed by signal " + line.split()[-1]
except OSError:
    pass

prog = re.compile(r"tessera: (\w+) over (\d+) chunks\s+([\d.]+)% \(([\d.]+) GB/s per rank, ETA (\d+) s\)")
progress = [(t, m) for t, l in lines for m in [prog.search(l)] if m]
say = print
say(f"command     : {env['RK_CMDTEXT']}")
say(f"load average: {env['RK_LOAD0']} (at start)")
say(f"ran         : {duration:.0f} s, then SIGINT to the process group (Ctrl-C)")
ok = True
if t_int is None:
    say(f"result      : the job ended by itself after {t_end:.1f} s, before the SIGINT (exit {code})")
    ok = code == 0
else:
    interrupted_msg = any("interrupted" in l for _, l in lines)
    lat = t_end - t_int
    clean = t_term is None and code == 130 and interrupted_msg
    prompt = lat <= prompt_s and t_term is None
    ok = clean and prompt
    how = ("by itself" if t_term is None else
           f"only after SIGTERM at +{t_term - t_int:.0f} s" if t_kill is None else
           f"only after SIGKILL at +{t_kill - t_int:.0f} s")
    say(f"stop        : exited {lat:.1f} s after SIGINT, {how}; "
        f"{'clean' if clean else 'NOT clean'}, {'prompt' if prompt else 'NOT prompt'} (limit {prompt_s:.0f} s)")
    say(f"              'interrupted' message: {'yes' if interrupted_msg else 'no'}")
tv = timev.get("signal", timev.get("Exit status"))
say(f"exit code   : {code}" + (f" (time -v: {tv})" if tv else ""))
peak_tv = timev.get("Maximum resident set size (kbytes)")
say(f"peak RSS    : {int(peak_tv) / 1024:.0f} MiB (time -v, largest process)" if peak_tv else "peak RSS    : (no /usr/bin/time)")
say(f"              {peak_one / 1024:.0f} MiB largest process, {peak_tree / 1024:.0f} MiB all ranks (/proc, {len(samples)} samples)")
streams = max(peak_one, int(peak_tv or 0)) < 1024 * 1024
say(f"streams     : {'yes' if streams else 'NO'} (peak RSS {'<' if streams else '>='} 1 GiB for a {logical / 1e12:.3g} TB logical job)")
if progress:
    t, m = progress[-1]
    op, nchunks, pct, rate, eta = m.group(1), int(m.group(2)), float(m.group(3)), float(m.group(4)), int(m.group(5))
    # ETA is printed in whole seconds: finer than the percentage on long runs.
    frac = t / (t + eta) if eta >= 100 else pct / 100
    gbs = frac * logical / t / 1e9
    full = t / frac if frac > 0 else float("inf")
    say(f"progress    : {len(progress)} lines; last at {t:.1f} s: {pct:.1f}% of {nchunks} chunks, "
        f"{rate} GB/s per rank, ETA {eta} s")
    how = "elapsed / (elapsed + ETA)" if eta >= 100 else "the percentage"
    say(f"throughput  : fraction {frac:.5f} (= {how}; ~{frac * nchunks:.1f} chunks) "
        f"x {logical / 1e12:.3g} TB / {t:.1f} s = {gbs:.3f} GB/s logical")
    h, r = divmod(full, 3600)
    say(f"full run    : extrapolated {full:.0f} s = {int(h)} h {r / 60:.0f} min")
    with open(os.path.join(work, "figures"), "w") as f:
        f.write(f"{gbs:.3f} {full:.0f} {frac:.5f}\n")
else:
    say("progress    : no progress line (no chunk finished before the stop?)")
if out and out[0].strip():
    say(f"stdout      : {out[0].strip()[:200]}")
tail = [l for _, l in lines if not prog.search(l)][-5:]
if tail:
    say("stderr tail : " + "\n              ".join(tail))
sys.exit(0 if ok else 5)
PY
cat "$WORK/report.txt"

if [ "${RECORD:-0}" = 1 ]; then
  RESULTS="$BENCH_DIR/RESULTS.md"
  [ -f "$RESULTS" ] || die "$RESULTS is missing (it carries the header that explains the format)"
  {
    echo
    echo "### $(date -u '+%F %H:%M UTC') W1 (Rocklin, $(python3 -c "print(f'{$RK_BYTES/1e12:.3g}')") TB) on the CPU for ${DURATION} s, then Ctrl-C — bench/rocklin_cpu.sh"
    echo
    echo "- device: $(machine_line); load average at start: $RK_LOAD0"
    echo "- commit: $(commit_line) (HEAD at run time); tessera: $TESSERA ($(binary_line))"
    echo "- command: \`TESSERA=$TESSERA MODE=$MODE N=$N CHUNK=$CHUNK bench/rocklin_cpu.sh $DURATION\`"
    echo "- figures:"
    echo
    echo '```'
    cat "$WORK/report.txt"
    echo '```'
    if [ -n "${NOTE:-}" ]; then echo "- note: $NOTE"; fi
  } >>"$RESULTS"
  echo "appended to $RESULTS" >&2
fi
exit "$rc"

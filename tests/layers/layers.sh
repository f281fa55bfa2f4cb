#!/bin/sh
# layers.sh - the layer rule of doc/design.md holds for the tree
# (scripts/check-layers.sh passes on src/), and the script really catches
# what it must: a planted upward include, a relative include, a front-end
# file that includes MPI, and a file at the top of src/ each make it fail
# with a line naming the offence.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

CHECK="$srcdir/scripts/check-layers.sh"
command -v bash >/dev/null 2>&1 || skip "bash is needed by scripts/check-layers.sh"

capture out err bash "$CHECK" "$srcdir/src"
[ "$RC" -eq 0 ] || fail "the tree breaks the layer rule: $(cat out err)"
grep -q 'no upward or relative include' out || fail "no summary line: $(cat out)"

# Each plant goes into a fresh copy of src/; the script must fail and say why.
plant() { # FILE LINE PATTERN WHAT
  rm -rf copy && cp -R "$srcdir/src" copy && chmod -R u+w copy
  printf '%s\n' "$2" >>"copy/$1"
  capture pout perr bash "$CHECK" "$PWD/copy"
  [ "$RC" -eq 1 ] || fail "$4: check-layers.sh exited $RC, expected 1: $(cat pout perr)"
  grep -q "$3" pout || fail "$4: no line matching '$3': $(cat pout)"
}
plant graph/array.c '#include "exec/exec.h"' 'src/graph/array.c:.*graph/ includes exec/exec.h' \
  "an upward include (graph -> exec)"
plant eval/interp.c '#include "mpi/comm.h"' 'eval/ includes mpi/comm.h' "MPI in the front end"
plant kernel/ids.h '#include "util/error.h"' 'kernel/ includes util/error.h' "kernel/ including tessera"
plant cpu/cpu_eval.c '#include "mpi/p2p.h"' 'cpu/ includes mpi/p2p.h' "a backend including MPI"
plant cli/main.c '#include "job/setup.h"' 'cli/ includes job/setup.h' "the CLI past tessera.h"
plant util/error.c '#include "../graph/array.h"' 'relative include' "a relative include"
rm -rf copy && cp -R "$srcdir/src" copy && chmod -R u+w copy && echo 'int x;' >copy/stray.c
capture pout perr bash "$CHECK" "$PWD/copy"
[ "$RC" -eq 1 ] && grep -q 'src/stray.c: a file at the top of src/' pout ||
  fail "a file at the top of src/ was not caught ($RC): $(cat pout)"
finish

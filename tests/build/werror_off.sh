#!/bin/sh
# werror_off.sh SRC WORK -- configures SRC as a user would (no options: no
# MEMHEAT_WERROR) into WORK and fails if any generated compile flags or
# custom command turn warnings into errors (-Werror, nvcc's
# -Werror=all-warnings): a newer compiler's new warning must never break a
# user's build (README, "Warnings are errors only with -DMEMHEAT_WERROR=ON").
# Then configures it again with MEMHEAT_WERROR=ON, where they must be there,
# so that the check can fail.
set -u
SRC=$1 WORK=$2
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
flags() { # the build tree's compile flags and custom commands that say -Werror
    grep -rlE -- '-Werror' "$1" --include=flags.make --include=build.make 2>/dev/null | sed "s|^$1/||" | sort
}
cmake -S "$SRC" -B "$WORK/default" >"$WORK/default.log" 2>&1 || { tail -20 "$WORK/default.log"; exit 1; }
bad=$(flags "$WORK/default")
if [ -n "$bad" ]; then
    echo "FAIL: a default build turns warnings into errors in:"
    echo "$bad"
    exit 1
fi
cmake -S "$SRC" -B "$WORK/werror" -DMEMHEAT_WERROR=ON >"$WORK/werror.log" 2>&1 || { tail -20 "$WORK/werror.log"; exit 1; }
[ -n "$(flags "$WORK/werror")" ] || { echo "FAIL: -DMEMHEAT_WERROR=ON gives no -Werror: the check sees nothing"; exit 1; }
echo "ok: no -Werror in a default build ($(flags "$WORK/werror" | wc -l) files have it with MEMHEAT_WERROR=ON)"

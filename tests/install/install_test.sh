#!/usr/bin/env bash
# install_test.sh -- memheat as a user gets it (issue 16, docs/install.md):
#  1. `cmake --install` into a temporary prefix: every expected file is there;
#     the tree is then MOVED, so nothing below can come from the build tree;
#  2. the installed memheat runs the OpenCL job (run under Oclgrind, heatmap,
#     analyze, report) and finds its plugin relative to itself; a lone copy of
#     memheat without its lib/ folder fails naming the plugin;
#  3. man page (groff, no warnings) and bash completion (commands, options);
#  4. an out-of-tree program against the installed split library: pkg-config
#     (shared and static), CMake (find_package(memheat COMPONENTS split):
#     memheat::split, memheat::split_static, a C++ program), an unknown
#     component refused; the header alone as C99/C11 and C++11/17; the shared
#     library exports exactly split.h's and err.h's functions;
#  5. the Debian package(s) from CPack: control fields, dependencies, contents
#     (the collectors), the same files as `cmake --install`, and memheat run
#     from the unpacked package (dpkg-deb -x; nothing is installed).
#
# usage: install_test.sh BUILD_DIR SRC_DIR VERSION PKGLIBDIR LIBDIR OCL_EXAMPLES|- PRIVATE_FILES...
#   PKGLIBDIR, LIBDIR: install dirs relative to the prefix; OCL_EXAMPLES: the
#   OpenCL example host ('-' when not built: step 2 is skipped); PRIVATE_FILES:
#   the collector files the build made (names under PKGLIBDIR).
set -euo pipefail
BUILD=$1 SRC=$2 VERSION=$3 PKGLIB=$4 LIBDIR=$5 OCL=$6
shift 6
PRIVATE=("$@")
CMAKE=${CMAKE:-cmake} CPACK=${CPACK:-cpack} # the build's own, from ctest
T=$(mktemp -d "${TMPDIR:-/tmp}/memheat-install.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "install_test: FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }
has_oclgrind=0
if [ "$OCL" != - ] && command -v oclgrind > /dev/null; then
  for f in "${PRIVATE[@]}"; do [ "$f" = libmemheat_oclgrind.so ] && has_oclgrind=1; done
fi

step "cmake --install into a temporary prefix"
"$CMAKE" --install "$BUILD" --prefix "$T/prefix" > "$T/install.log" || { cat "$T/install.log"; fail "cmake --install"; }
mv "$T/prefix" "$T/moved" # a moved tree: memheat must find its files relative to itself
P=$T/moved
for f in bin/memheat include/memheat/split.h include/memheat/err.h \
         "$LIBDIR/libmemheat_split.so" "$LIBDIR/libmemheat_split.so.0" "$LIBDIR/libmemheat_split.a" \
         "$LIBDIR/pkgconfig/memheat-split.pc" "$LIBDIR/cmake/memheat/memheatConfig.cmake" \
         "$LIBDIR/cmake/memheat/memheatConfigVersion.cmake" share/bash-completion/completions/memheat; do
  [ -e "$P/$f" ] || fail "$f is not installed"
done
for f in "${PRIVATE[@]}"; do [ -e "$P/$PKGLIB/$f" ] || fail "collector file $PKGLIB/$f is not installed"; done
MAN=$(ls "$P"/share/man/man1/memheat.1* 2>/dev/null | head -1)
[ -n "$MAN" ] || fail "no man page in share/man/man1"
[ "$("$P/bin/memheat" --version)" = "memheat $VERSION" ] || fail "installed memheat --version"

ocl_job() { # MEMHEAT OUTDIR: the OpenCL main job's steps on small sizes
  local mh=$1 out=$2
  mkdir -p "$out"
  env -u MEMHEAT_LIB_DIR "$mh" run --backend oclgrind --all-blocks --keep-trace -q -o "$out/mm" -- \
    "$OCL" --only coalescedAMultiply --n 32 > "$out/run.log" 2>&1 || { cat "$out/run.log"; fail "$mh run (matmul)"; }
  env -u MEMHEAT_LIB_DIR "$mh" run --backend oclgrind --keep-trace -q -o "$out/pat" -- \
    "$OCL" --only pat --n 16 --items 256 >> "$out/run.log" 2>&1 || { cat "$out/run.log"; fail "$mh run (patterns)"; }
  for n in mm pat; do
    [ -s "$out/$n.mht" ] && [ -s "$out/$n.mhdb" ] || fail "$mh run left no $n.mht/$n.mhdb"
    "$mh" heatmap "$out/$n.mht" -o "$out/maps_$n" > /dev/null || fail "$mh heatmap $n"
    ls "$out/maps_$n"/launch*_global.csv > /dev/null 2>&1 || fail "$mh heatmap wrote no global map for $n"
    "$mh" analyze "$out/$n.mht" -o "$out/$n.json" > "$out/$n.txt" || fail "$mh analyze $n"
    [ -s "$out/$n.json" ] || fail "$mh analyze wrote no JSON for $n"
    "$mh" report "$out/$n.mhdb" -o "$out/$n.html" -q || fail "$mh report $n"
    grep -q "<html" "$out/$n.html" || fail "$mh report: $n.html is no HTML page"
  done
}

if [ "$has_oclgrind" = 1 ]; then
  step "OpenCL job from the installed (moved) copy"
  ocl_job "$P/bin/memheat" "$T/job"
  mkdir -p "$T/lone" && cp "$P/bin/memheat" "$T/lone/"
  if env -u MEMHEAT_LIB_DIR "$T/lone/memheat" run --backend oclgrind -o "$T/lone/x" -- "$OCL" --only pat --n 16 \
       --items 64 > "$T/lone.log" 2>&1; then
    fail "memheat without its lib folder still ran the OpenCL job"
  fi
  grep -q "libmemheat_oclgrind.so" "$T/lone.log" || { cat "$T/lone.log"; fail "the error does not name the plugin"; }
else
  echo "(no oclgrind, OpenCL examples or plugin: the OpenCL job is skipped)"
fi

step "man page and bash completion"
zcat -f "$MAN" > "$T/memheat.1"
if command -v groff > /dev/null; then
  groff -man -ww -z "$T/memheat.1" 2> "$T/groff.log" || fail "groff failed on the man page"
  [ ! -s "$T/groff.log" ] || { cat "$T/groff.log"; fail "groff warns about the man page"; }
fi
"$P/bin/memheat" --help > "$T/help.txt"
cmds=$(awk '/^commands:/{c=1;next} c&&/^  [a-z]/{print $1} c&&/^$/{exit}' "$T/help.txt")
[ -n "$cmds" ] || fail "no commands in memheat --help"
for c in $cmds; do
  grep -q "^\.SS \"memheat $c\"" "$T/memheat.1" || fail "man page has no section for '$c'"
done
complete_words() { # WORDS...: what the completion offers for the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _memheat; echo "${COMPREPLY[*]}"' \
    _ "$P/share/bash-completion/completions/memheat" "$@"
}
[ "$(complete_words memheat re)" = "report" ] || fail "completion of 'memheat re': '$(complete_words memheat re)'"
[ "$(complete_words memheat run --keep)" = "--keep-trace" ] || fail "completion of 'memheat run --keep'"
[ "$(complete_words memheat heatmap --no-c)" = "--no-color" ] || fail "completion of 'memheat heatmap --no-c'"
for c in $cmds; do
  case " $(complete_words memheat "") " in *" $c "*) ;; *) fail "completion does not offer '$c'" ;; esac
done

step "split library: exported symbols, header as C and C++"
exported=$(nm -D --defined-only "$P/$LIBDIR/libmemheat_split.so" | awk '$2=="T"{sub(/@.*/,"",$3); print $3}' | sort)
declared=$(cat "$P/include/memheat/split.h" "$P/include/memheat/err.h" |
           grep -oE '\bmh_[a-z_]+\(' | tr -d '(' | grep -v '_fn$' | sort -u)
[ "$exported" = "$declared" ] || fail "libmemheat_split.so exports [$(echo $exported)], headers declare [$(echo $declared)]"
echo '#include <memheat/split.h>' > "$T/h.c"
for std in c99 c11; do
  cc -std=$std -pedantic-errors -Wall -Wextra -Werror -I"$P/include" -c "$T/h.c" -o "$T/h.o" || fail "split.h as $std"
done
cp "$T/h.c" "$T/h.cpp"
for std in c++11 c++17; do
  c++ -std=$std -pedantic-errors -Wall -Wextra -Werror -I"$P/include" -c "$T/h.cpp" -o "$T/h.o" || fail "split.h as $std"
done

C=$SRC/tests/install/consumer
step "out-of-tree program with pkg-config"
export PKG_CONFIG_PATH=$P/$LIBDIR/pkgconfig
[ "$(pkg-config --modversion memheat-split)" = "$VERSION" ] || fail "pkg-config --modversion memheat-split"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror "$C/consumer.c" -o "$T/pc_shared" $(pkg-config --cflags --libs memheat-split) \
  -Wl,-rpath,"$(pkg-config --variable=libdir memheat-split)" || fail "build with pkg-config (shared)"
"$T/pc_shared" || fail "consumer (pkg-config, shared)"
ldd "$T/pc_shared" > "$T/ldd.txt"
grep -q "libmemheat_split.so.0 => $P/" "$T/ldd.txt" || fail "pc_shared does not load the installed library"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror "$C/consumer.c" -o "$T/pc_static" \
  $(pkg-config --cflags --static --libs memheat-split | sed 's/-lmemheat_split/-l:libmemheat_split.a/') ||
  fail "build with pkg-config (static)"
"$T/pc_static" || fail "consumer (pkg-config, static)"
ldd "$T/pc_static" > "$T/ldd.txt"
! grep -q libmemheat_split "$T/ldd.txt" || fail "pc_static loads libmemheat_split.so"

step "out-of-tree project with CMake (find_package(memheat COMPONENTS split))"
"$CMAKE" -S "$C" -B "$T/cm" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release > "$T/cm.log" 2>&1 ||
  { cat "$T/cm.log"; fail "configure of the CMake consumer"; }
"$CMAKE" --build "$T/cm" > "$T/cmb.log" 2>&1 || { cat "$T/cmb.log"; fail "build of the CMake consumer"; }
for x in consumer_shared consumer_static consumer_cxx; do "$T/cm/$x" || fail "$x (CMake)"; done
ldd "$T/cm/consumer_static" > "$T/ldd.txt"
! grep -q libmemheat_split "$T/ldd.txt" || fail "memheat::split_static loads the shared library"
if "$CMAKE" -S "$C" -B "$T/cm_bad" -DCMAKE_PREFIX_PATH="$P" -DMH_COMPONENT=nosuch > "$T/cm_bad.log" 2>&1; then
  fail "find_package(memheat COMPONENTS nosuch) succeeded"
fi
grep -q "no component 'nosuch'" "$T/cm_bad.log" || { cat "$T/cm_bad.log"; fail "unknown component: no clear message"; }

if ! command -v dpkg-deb > /dev/null || ! command -v "$CPACK" > /dev/null; then
  echo "(no dpkg-deb or cpack: the Debian package is not checked)"
  exit 0
fi
step "Debian package (cpack -G DEB)"
(cd "$BUILD" && "$CPACK" -G DEB -B "$T/pkg" > "$T/cpack.log" 2>&1) || { cat "$T/cpack.log"; fail "cpack -G DEB"; }
DEB=$T/pkg/memheat_${VERSION}_amd64.deb
[ -f "$DEB" ] || { ls "$T/pkg"; fail "no memheat_${VERSION}_amd64.deb"; }
field() { dpkg-deb -f "$1" "$2"; }
[ "$(field "$DEB" Package)" = memheat ] && [ "$(field "$DEB" Version)" = "$VERSION" ] &&
  [ "$(field "$DEB" Architecture)" = amd64 ] || fail "control fields: $(dpkg-deb -f "$DEB")"
deps=$(field "$DEB" Depends)
for d in libc6 libsqlite3-0 libzstd1 libjansson4 libgsl27; do
  [[ ", $deps," == *", $d "* || ", $deps," == *", $d,"* ]] || fail "Depends lacks $d: $deps"
done
if [ "$has_oclgrind" = 1 ]; then
  [[ $deps == *liboclgrind* ]] || fail "Depends lacks Oclgrind's library: $deps"
  [[ $(field "$DEB" Recommends) == *oclgrind* ]] || fail "oclgrind is not recommended"
fi
mkdir -p "$T/root"
for d in "$T"/pkg/*.deb; do
  echo "$(basename "$d"): $(field "$d" Depends)"
  dpkg-deb -x "$d" "$T/root"
done
dpkg-deb -c "$DEB" > "$T/deb.txt"
grep -q " ./usr/bin/memheat$" "$T/deb.txt" || fail "the package has no /usr/bin/memheat"
for f in "${PRIVATE[@]}"; do
  [ -e "$T/root/usr/$PKGLIB/$f" ] || fail "the packages do not hold the collector file /usr/$PKGLIB/$f"
done
(cd "$P" && find . ! -type d | sort) > "$T/installed.txt"
(cd "$T/root/usr" && find . ! -type d | sort) > "$T/packaged.txt"
diff "$T/installed.txt" "$T/packaged.txt" || fail "the packages and cmake --install hold different files"
[ "$("$T/root/usr/bin/memheat" --version)" = "memheat $VERSION" ] || fail "packaged memheat --version"
if [ "$has_oclgrind" = 1 ]; then
  step "OpenCL job from the unpacked package"
  ocl_job "$T/root/usr/bin/memheat" "$T/job_deb"
fi
echo "install_test: ok"

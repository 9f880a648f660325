#!/bin/sh
# faults.sh MEMHEAT MH_FUZZ WORKDIR -- issue 20's items, one block each.
# Every check prints "ok - ..." or "FAIL - ..."; the exit status is the
# number of failures (0 = all passed).
M=$1 F=$2 W=$3
fails=0
ok() { echo "ok - $*"; }
bad() { echo "FAIL - $*"; fails=$((fails + 1)); }
check() { # check WHAT EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then ok "$1"; else bad "$1 (expected $2, got $3)"; fi
}
lines() { grep -c . "$1"; }
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
"$M" synth -o raw.mht --shape all --warps 4 --blocks 2 --iters 4 || exit 1
"$F" make-bad no-end raw.mht no_end.mht || exit 1   # (also rechunks)
"$M" heatmap -q -o ref raw.mht || exit 1
nref=$(ls ref | wc -l)

# ---- 1. incomplete traces (no end record): exit 4 and one line, after writing ----
for cmd in info heatmap analyze; do
    case $cmd in heatmap) args="-q -o maps1";; analyze) args="-q -o a1.json";; *) args="";; esac
    "$M" $cmd $args no_end.mht >/dev/null 2>err1; rc=$?
    check "1: $cmd of a trace without end record exits 4" 4 $rc
    check "1: $cmd says so in one line" 1 "$(lines err1)"
done
check "1: heatmap -o still wrote every map" "$nref" "$(ls maps1 | wc -l)"
grep -q '"complete": false' a1.json && ok "1: analyze JSON written, complete false" || bad "1: analyze JSON"

# ---- 1b. an end record followed by a cut chunk: exit 4, and the JSON agrees ----
"$M" synth -o one.mht --shape coalesced --warps 1 --blocks 1 --iters 1 || exit 1
nch=$("$M" info one.mht | awk '/^chunks/ {print $2}')
# the first bytes of the chunk that would come next: its magic and number
{ cat one.mht; printf 'MHCK'; printf "\\$(printf %03o "$nch")\\000\\000\\000\\220\\000\\000\\000"; } >end_cut.mht
"$M" analyze -q -o a1b.json end_cut.mht >/dev/null 2>&1; rc=$?
check "1b: analyze of a complete trace followed by a cut chunk exits 4" 4 $rc
grep -q '"complete": false' a1b.json && ok "1b: its JSON says complete false" || bad "1b: its JSON says complete true"

# ---- 2. one bad record never discards good data ----
for kind in unknown-launch dup-launch ended-launch dup-end; do
    "$F" make-bad $kind raw.mht bad.mht || { bad "2: make-bad $kind"; continue; }
    rm -rf maps2
    "$M" heatmap -q -o maps2 bad.mht 2>err2; rc=$?
    check "2: $kind: heatmap exits 4" 4 $rc
    grep -q "skipped" err2 && check "2: $kind: one line saying what was skipped" 1 "$(lines err2)" || bad "2: $kind: no notice"
    same=1
    for f in ref/*; do cmp -s "$f" "maps2/${f#ref/}" || same=0; done
    check "2: $kind: every finished launch's heat map kept byte for byte" 1 $same
    "$M" analyze -q -o a2.json bad.mht >out2 2>/dev/null; rc=$?
    check "2: $kind: analyze exits 4" 4 $rc
    grep -q '"findings": \[$' a2.json && grep -q "Findings" out2 && ok "2: $kind: findings and JSON kept" \
        || bad "2: $kind: findings or JSON missing"
done

# ---- 3. output files never destroyed ----
"$M" import raw.mht -o p.mhdb -q || bad "3: import"
cp p.mhdb p.keep
"$M" report p.mhdb -o p.mhdb -f -q 2>err3; rc=$?
check "3: report -o naming its input is refused" 2 $rc
cmp -s p.mhdb p.keep && ok "3: the profile is intact" || bad "3: report destroyed its input"
echo old >d.html
"$M" diff p.mhdb p.mhdb --html d.html >/dev/null 2>err3; rc=$?
check "3: diff --html over an existing file needs -f" 2 $rc
check "3: ... and left it alone" old "$(cat d.html)"
"$M" diff p.mhdb p.mhdb --html d.html -f >/dev/null 2>&1 && grep -q "<html" d.html && ok "3: diff --html -f replaces it" \
    || bad "3: diff --html -f"
"$M" analyze -q -o nodir/x.json raw.mht >/dev/null 2>err3; rc=$?
check "3: analyze -o into a missing folder exits 1" 1 $rc
grep -q "folder nodir does not exist" err3 && ok "3: ... naming the folder" || bad "3: missing-folder message: $(cat err3)"
"$M" import no_end.mht -o p.mhdb -q 2>err3; rc=$?
check "3: import over an existing profile without -f exits 2" 2 $rc
cmp -s p.mhdb p.keep && ok "3: ... profile untouched" || bad "3: import destroyed the profile"
if [ "$(id -u)" != 0 ]; then
    mkdir ro && chmod 555 ro
    "$M" analyze -q -o ro/x.json raw.mht >/dev/null 2>err3; rc=$?
    check "3: analyze -o into a read-only folder exits 1" 1 $rc
    check "3: ... nothing left in it" 0 "$(ls -A ro | wc -l)"
    chmod 755 ro
elif mkdir -p rofs && mount -t tmpfs -o ro,size=64k tmpfs rofs 2>/dev/null; then
    # root ignores permissions: a read-only file system instead
    "$M" analyze -q -o rofs/x.json raw.mht >/dev/null 2>err3; rc=$?
    check "3: analyze -o into a read-only file system exits 1" 1 $rc
    grep -q "cannot write rofs/x.json: Read-only file system" err3 && ok "3: ... one line naming file and cause" \
        || bad "3: read-only message: $(cat err3)"
    "$M" import raw.mht -o rofs/p.mhdb -q 2>err3; rc=$?
    check "3: import into a read-only file system exits 1" 1 $rc
    check "3: ... nothing left in it" 0 "$(ls -A rofs | wc -l)"
    umount rofs
else
    echo "skip - read-only folder (root, and no read-only mount)"
fi
mkdir -p full
# room for the previous profile and a little more, not for the new one
room=$(( $(stat -c %s p.mhdb) * 3 / 2 / 1024 + 16 ))
if mount -t tmpfs -o size=${room}k tmpfs full 2>/dev/null; then
    cp p.mhdb full/p.mhdb
    "$M" synth -o big.mht --shape all --warps 8 --blocks 8 --iters 16 || bad "3: synth big"
    "$M" import big.mht -o full/p.mhdb -f -q 2>err3; rc=$?
    check "3: import on a full disk exits 1" 1 $rc
    cmp -s full/p.mhdb p.keep && ok "3: full disk: the previous profile is kept" || bad "3: full disk destroyed the profile"
    check "3: full disk: no temporary left" 1 "$(ls -A full | wc -l)"
    grep -q "write error on full/p.mhdb: No space left on device" err3 && ok "3: full disk: the error names the profile and the cause" \
        || bad "3: full-disk message: $(cat err3)"
    rm -f full/p.mhdb
    "$M" import big.mht -o full/q.mhdb -q 2>/dev/null
    [ -e full/q.mhdb ] && bad "3: a failed profile creation left a file" || ok "3: a failed creation leaves no file"
    "$M" analyze -q -o full/x.json big.mht >/dev/null 2>&1
    cp full/x.json x.prev
    dd if=/dev/zero of=full/fill bs=1k 2>/dev/null || true  # fills what is left
    "$M" analyze -q -o full/x.json big.mht >/dev/null 2>err3; rc=$?
    check "3: analyze -o on a full disk exits 1" 1 $rc
    grep -q "write error on full/x.json" err3 && ok "3: ... write error naming the file" || bad "3: analyze full-disk message: $(cat err3)"
    "$M" report p.keep -o full/r.html -q 2>err3; rc=$?
    check "3: report -o on a full disk exits 1" 1 $rc
    [ -e full/r.html ] && bad "3: a cut report was left" || ok "3: ... and leaves no report"
    grep -q "full/r.html" err3 && ok "3: ... naming the file" || bad "3: report full-disk message: $(cat err3)"
    "$M" diff p.keep p.keep --html full/d.html >/dev/null 2>err3; rc=$?
    check "3: diff --html on a full disk exits 1" 1 $rc
    [ -e full/d.html ] && bad "3: a cut diff page was left" || ok "3: ... and leaves no page"
    cmp -s full/x.json x.prev && ok "3: full disk: the previous analyze JSON is kept whole" || bad "3: JSON destroyed"
    check "3: full disk: nothing but the filler and that JSON left" 2 "$(ls -A full | wc -l)"
    umount full
else
    echo "skip - full disk (cannot mount a tmpfs here)"
fi

# ---- 4. killing memheat run: signals forwarded, what was collected imported ----
mkdir -p lib && : >lib/libmemheat_cuda.so && : >lib/memheat_cuda_patch.fatbin
cat >prog.sh <<PROG
#!/bin/sh
cp "$W/raw.mht" "\$MEMHEAT_TRACE"
echo \$\$ >"$W/prog.pid"
trap 'echo TERM >"$W/prog.sig"; exit 143' TERM
sleep 30 &
wait
PROG
chmod +x prog.sh
rm -f prog.sig prog.pid
MEMHEAT_LIB_DIR=$W/lib "$M" run -q --backend cuda --no-timing -o killed -- ./prog.sh 2>err4 &
mp=$!
i=0; while [ ! -s prog.pid ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $mp
wait $mp; rc=$?
check "4: SIGTERM to memheat run: exit 128+15" 143 $rc
[ -s prog.sig ] && ok "4: ... forwarded to the program" || bad "4: the program did not get SIGTERM"
[ -s killed.mhdb ] && ok "4: ... and what it collected imported" || bad "4: no profile after SIGTERM: $(cat err4)"
grep -q "interrupted by signal 15" err4 && ok "4: ... said in one line" || bad "4: message: $(cat err4)"
pg=$(ps -o pgid= -p "$(cat prog.pid)" 2>/dev/null | tr -d ' ')
[ -z "$pg" ] && ok "4: the program is gone" || bad "4: the program still runs (pgid $pg)"
rm -f prog.sig prog.pid killed.mht
MEMHEAT_LIB_DIR=$W/lib "$M" run -q --backend cuda --no-timing -o killed9 -- ./prog.sh 2>/dev/null &
mp=$!
i=0; while [ ! -s prog.pid ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
pp=$(cat prog.pid)
check "4: the program has its own process group" "$pp" "$(ps -o pgid= -p "$pp" | tr -d ' ')"
kill -KILL $mp; wait $mp 2>/dev/null
i=0; while [ ! -s prog.sig ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -s prog.sig ] && ok "4: SIGKILL of memheat: the program gets SIGTERM (no orphan)" || bad "4: orphaned program"
"$M" import killed9.mht -o killed9.mhdb -q; rc=$?
check "4: memheat import recovers the kept trace" 0 $rc

# ---- 5. errors: one line naming the file and the cause, documented codes ----
sqlite3 -version >/dev/null 2>&1 && {
    cp p.keep nt.mhdb && sqlite3 nt.mhdb "DROP TABLE heat_row" 2>/dev/null
    "$M" report nt.mhdb -o nt.html -f -q 2>err5; rc=$?
    check "5: profile missing a table: exit 1" 1 $rc
    grep -q "nt.mhdb: not a memheat profile (missing table" err5 && ok "5: ... named" || bad "5: message: $(cat err5)"
}
"$M" run --backend oclgrind -q -- ./no_such_program >/dev/null 2>err5a; a=$?
"$M" run --backend cuda -q -- ./no_such_program >/dev/null 2>err5b; b=$?
check "5: a missing program: same exit code on both back ends" "$a" "$b"
check "5: ... bad command line (2)" 2 "$a"
"$M" run -q -o nodir/x -- ./prog.sh >/dev/null 2>err5; rc=$?
grep -q "folder nodir does not exist" err5 && ok "5: run -o into a missing folder says so" || bad "5: message: $(cat err5)"
"$M" synth -o z.mht --warps 0 2>err5; rc=$?
check "5: synth --warps 0 is a bad command line" 2 $rc
"$M" synth -o z.mht --iters 1000000000 2>err5; rc=$?
check "5: synth refuses a huge output" 2 $rc
[ -e z.mht ] && bad "5: synth left z.mht" || ok "5: ... and writes nothing"
sqlite3 -version >/dev/null 2>&1 && {
    cp p.keep int.mhdb && sqlite3 int.mhdb "UPDATE meta SET value='0' WHERE key='complete'"
    "$M" diff p.keep int.mhdb >/dev/null 2>err5; rc=$?
    check "5: diff of an interrupted profile exits 4" 4 $rc
    grep -q "int.mhdb is incomplete" err5 && ok "5: ... and says so" || bad "5: message: $(cat err5)"
    for cmd in info report analyze heatmap; do # every reader, the same way (issue 42)
        case $cmd in report) args="-q -o int.html -f int.mhdb";; *) args="int.mhdb";; esac
        "$M" $cmd $args >out5 2>err5; rc=$?
        check "5: $cmd of an interrupted profile exits 4" 4 $rc
        [ "$(lines err5)" = 1 ] && grep -q "int.mhdb is incomplete" err5 && [ -s out5 -o $cmd = report ] \
            && ok "5: ... after its output, one line" || bad "5: $cmd message: $(cat err5)"
    done
}
# ---- 5b. every reader checks a profile the same way, in memheat's words (issue 42) ----
if sqlite3 -version >/dev/null 2>&1; then
    cp p.keep np.mhdb && sqlite3 np.mhdb "DROP TABLE process"
    # a damaged page of heat rows: only report and heatmap read those rows
    cp p.keep dp.mhdb
    pg=$(sqlite3 dp.mhdb "SELECT pageno FROM dbstat WHERE name = 'heat_row' AND pagetype = 'leaf' LIMIT 1" 2>/dev/null)
    psz=$(sqlite3 dp.mhdb "PRAGMA page_size")
    [ -n "$pg" ] && printf '\377\377\377\377' | dd of=dp.mhdb bs=1 seek=$(( (pg - 1) * psz )) conv=notrunc 2>/dev/null
    for f in np dp; do
        case $f in np) want="np.mhdb: not a memheat profile (missing table process)";;
                   dp) want="dp.mhdb is damaged (SQLite: database disk image is malformed)";; esac
        [ $f = dp ] && [ -z "$pg" ] && { echo "skip - 5b: no dbstat in this sqlite3"; continue; }
        for cmd in info report analyze heatmap diff band; do
            case $cmd in report) args="-q -o $f.html -f $f.mhdb";; diff) args="p.keep $f.mhdb";;
                         band) args="$f.mhdb --no-store";; *) args="$f.mhdb";; esac
            "$M" $cmd $args >/dev/null 2>err5; rc=$?
            check "5b: $cmd of $f.mhdb exits 1" 1 $rc
            [ "$(lines err5)" = 1 ] && grep -qF "$want" err5 && ok "5b: $cmd: one line, the file and the cause" \
                || bad "5b: $cmd of $f.mhdb: $(cat err5)"
        done
    done
fi

# text that is not UTF-8 (a program's arguments in another encoding) is shown, never an error
if sqlite3 -version >/dev/null 2>&1; then
    cp p.keep l1.mhdb && sqlite3 l1.mhdb "UPDATE run SET command = 'caf' || X'E9' || ' x'"
    for cmd in report analyze info; do
        case $cmd in report) args="-q -o l1.html -f l1.mhdb";; *) args="l1.mhdb";; esac
        "$M" $cmd $args >/dev/null 2>err5; rc=$?
        check "5b: $cmd of a profile whose command is not UTF-8 exits 0" 0 $rc
    done
fi
printf '#!/bin/sh\ncp "%s/raw.mht" "$MEMHEAT_TRACE"\n' "$W" >prog5.sh && chmod +x prog5.sh
MEMHEAT_LIB_DIR=$W/lib "$M" run -q --backend cuda --no-timing -o l1run -- ./prog5.sh "$(printf 'caf\351')" 2>err5; rc=$?
check "5b: run with an argument that is not UTF-8 exits 0" 0 $rc
"$M" report -q -o l1run.html -f l1run.mhdb 2>err5; rc=$?
check "5b: ... and its profile reports" 0 $rc
# a trace cut inside its header chunk: the profile says it holds no trace
head -c 20 raw.mht >cut0.mht
"$M" import cut0.mht -o cut0.mhdb -q 2>/dev/null; rc=$?
check "5b: import of a trace cut inside its header exits 4" 4 $rc
"$M" info cut0.mhdb >/dev/null 2>err5; rc=$?
check "5b: ... and its profile says it is incomplete" 4 $rc

# ---- 6. a signal during an import removes its temporary file ----
"$M" synth -o huge.mht --shape all --warps 32 --blocks 16 --iters 32 || bad "6: synth huge"
tmps() { ls -A "$1" | grep '^\.' ; }
for sig in 15 1 2 3; do # SIGTERM, SIGHUP, SIGINT, SIGQUIT
    rm -rf sig6 && mkdir sig6
    if [ $sig = 2 ] || [ $sig = 3 ]; then # a script's background job ignores SIGINT and SIGQUIT: give it back its default
        command -v python3 >/dev/null || { echo "skip - 6: signal $sig (no python3)"; continue; }
        python3 -c 'import os,signal,sys; signal.signal(int(sys.argv[1]), signal.SIG_DFL); os.execv(sys.argv[2], sys.argv[2:])' \
            $sig "$M" import -q huge.mht -o sig6/p.mhdb &
    else
        "$M" import -q huge.mht -o sig6/p.mhdb &
    fi
    mp=$!
    i=0; while [ -z "$(tmps sig6)" ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
    [ -n "$(tmps sig6)" ] && ok "6: signal $sig: import is writing its temporary" || bad "6: signal $sig: no temporary seen"
    kill -$sig $mp; wait $mp; rc=$?
    check "6: signal $sig during memheat import: it dies of the signal" $((128 + sig)) $rc
    check "6: ... no temporary (or journal) left" "" "$(ls -A sig6)"
done
cat >prog6.sh <<PROG
#!/bin/sh
cp "$W/huge.mht" "\$MEMHEAT_TRACE"
PROG
chmod +x prog6.sh
rm -rf sig6 && mkdir sig6
MEMHEAT_LIB_DIR=$W/lib "$M" run -q --backend cuda --no-timing -o sig6/r -- ./prog6.sh 2>err6 &
mp=$!
i=0; while [ -z "$(tmps sig6)" ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
kill -TERM $mp; wait $mp; rc=$?
check "6: SIGTERM during memheat run's import: exit 143" 143 $rc
check "6: ... no temporary left" "" "$(tmps sig6)"
[ -s sig6/r.mht ] && ok "6: ... the trace is kept for memheat import" || bad "6: trace lost: $(ls -A sig6)"

# ---- 7. job control: SIGTSTP stops the program and memheat, SIGCONT continues both ----
state() { sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1; }
waitstate() { # waitstate PID STATE: up to 5 s
    i=0; while [ "$(state $1)" != "$2" ] && [ $i -lt 250 ]; do sleep 0.02; i=$((i + 1)); done
}
# The program counts with shell builtins alone (about a second): a stop
# signal that reaches a child between the shell's vfork and its exec leaves
# the shell itself in D until that child is continued, never stopped (a
# `sleep` loop here failed so, now and then, under a loaded ctest -j).
cat >prog7.sh <<PROG
#!/bin/sh
echo \$\$ >"$W/prog7.pid"
i=0; while [ \$i -lt 1000000 ]; do i=\$((i + 1)); done
cp "$W/raw.mht" "\$MEMHEAT_TRACE"
PROG
chmod +x prog7.sh
for how in memheat group; do
    rm -f prog7.pid jc.mhdb jc.mht
    MEMHEAT_LIB_DIR=$W/lib "$M" run -q --backend cuda --no-timing -o jc -- ./prog7.sh 2>err7 &
    mp=$!
    i=0; while [ ! -s prog7.pid ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    pp=$(cat prog7.pid)
    # memheat: kill -TSTP to memheat; group: what Ctrl-Z does (SIGTSTP to the program's group, the terminal's)
    if [ $how = memheat ]; then kill -TSTP $mp; else kill -TSTP -$pp; fi
    waitstate $mp T; waitstate $pp T
    check "7: SIGTSTP ($how): the program is stopped" T "$(state $pp)"
    check "7: SIGTSTP ($how): memheat is stopped" T "$(state $mp)"
    sleep 0.3
    check "7: ... and both stay stopped" TT "$(state $pp)$(state $mp)"
    kill -CONT $mp # the shell's fg/bg continues memheat's job
    wait $mp; rc=$?
    check "7: SIGCONT ($how): the run finishes normally" 0 $rc
    "$M" report -q -o jc.html -f jc.mhdb 2>/dev/null; rc=$?
    check "7: ... with a complete profile" 0 $rc
done
rm -f prog7.pid
rm -f jc.mhdb jc.mht
MEMHEAT_LIB_DIR=$W/lib "$M" run -q --backend cuda --no-timing -o jc -- ./prog7.sh 2>err7 &
mp=$!
i=0; while [ ! -s prog7.pid ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
pp=$(cat prog7.pid)
kill -STOP $pp; waitstate $pp T; sleep 0.2
check "7: a program stopped by SIGSTOP alone (a debugger) leaves memheat running" S "$(state $mp)"
kill -CONT $pp; wait $mp; rc=$?
check "7: ... and the run finishes" 0 $rc

echo "faults: $fails failure(s)"
exit $fails

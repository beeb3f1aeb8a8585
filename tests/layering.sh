#!/bin/sh
# tests/layering.sh - the shape of the tree (doc/ARCHITECTURE.md), read off
# the built objects so that it cannot drift from what is linked:
#   1. no cycle among product source files: with A -> B when A's object
#      uses a global symbol B's object defines, the graph sorts (tsort);
#      in particular no two files call each other;
#   2. lib/ parts depend downwards only: core on nothing, pci, chassis,
#      cgroup, httpd, advise and api on core; nothing in
#      lib/ uses a program's file (falcond/, falconctl/, prolog/, ncclcheck/,
#      plugin/, sim/), and no program uses another program's file (each
#      folder is a part of its own: what two programs share is a lib part);
#   3. spank_falcon.so and job_submit_falcon.so need no libcurl, libpci,
#      libmunge or libcrypto (readelf -d NEEDED);
#   4. no product function is over 150 lines (this tree's style: a
#      function's body opens with "{" and closes with "}" in column 0);
#   5. no include of a header from a room above: with X.c and X.h one
#      room, A -> B also when A.c or A.h includes B.h, the graph of calls
#      and includes together sorts (a header-only room is a room of its
#      own); read from the sources, every quoted include resolved as the
#      compiler does (the includer's folder, then the top and lib/).
#      Read in the programs' and plugins' folders; a lib part is one room
#      whose public header (chassis.h, redfish.h...) is its face, and
#      point 2 holds the parts to each other.  Read in lib/ too: no file
#      includes a header of another program's folder (nor lib/ a program's).
# Run from the build tree by `make check` (top_srcdir, top_builddir set);
# skips (77) without nm/readelf.  LAYERING_EDGES=FILE keeps the "user
# definer" file edges for a look.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=.}"
command -v nm >/dev/null && command -v readelf >/dev/null && command -v tsort >/dev/null ||
	{ echo "layering: SKIP: nm, readelf or tsort missing"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

cd "$top_builddir" || exit 1
ROOMS="lib falcond falconctl prolog ncclcheck plugin sim"
find $ROOMS -name '*.o' 2>/dev/null | sort >"$tmp/objs"
[ -s "$tmp/objs" ] || { echo "layering: SKIP: nothing built"; exit 77; }
# object -> its source, "dir/name.c" relative to top_srcdir; automake names
# per-target objects TARGET-name.o (TARGET canonicalized: no '-').  One nm
# over all objects and one awk (a fork per object made this test take 5
# minutes under test-all's load): the sources are those found in the
# tree, and an object whose source is not there is left out.
(cd "$top_srcdir" && find $ROOMS -name '*.c') >"$tmp/csrcs"
src_map='
	FNR == NR { have[$0] = 1; next }
	function src_of(o,   d, b, s) {
		if (o in memo) return memo[o]
		d = o; sub(/\/[^\/]*$/, "", d); sub(/^\.\//, "", d); sub(/\/\.libs$/, "", d)
		b = o; sub(/^.*\//, "", b); sub(/\.o$/, "", b)
		if (b ~ /-/) { s = b; sub(/^[^-]*-/, "", s); if ((d "/" s ".c") in have) b = s }
		return memo[o] = ((d "/" b ".c") in have) ? d "/" b ".c" : ""
	}
	{ o = $1; sub(/:$/, "", o); s = src_of(o) }
	s == "" { next }'
grep -v '/tests_[^/]*$' "$tmp/objs" >"$tmp/objs.p"
# nm -P -A: "OBJ: SYMBOL TYPE [VALUE SIZE]"
xargs nm -P -A --defined-only <"$tmp/objs.p" 2>/dev/null |
	awk "$src_map"' $3 ~ /^[TDBRVW]$/ && $2 != "main" { print $2, s }' "$tmp/csrcs" - >"$tmp/defs"
xargs nm -P -A -u <"$tmp/objs.p" 2>/dev/null |
	awk "$src_map"' { print $2, s }' "$tmp/csrcs" - >"$tmp/uses"
sort -u -k1,1 "$tmp/defs" >"$tmp/defs.s"
sort -u "$tmp/uses" | sort -k1,1 >"$tmp/uses.s"
# edges "user definer", each once, no self-edges
join "$tmp/uses.s" "$tmp/defs.s" | awk '$2 != $3 { print $2, $3 }' | sort -u >"$tmp/edges"

# 1. cycles
while read -r a b; do
	if grep -qx "$b $a" "$tmp/edges" && [ "$a" \< "$b" ]; then
		echo "layering: FAIL: $a and $b call each other:" \
			"$(join "$tmp/uses.s" "$tmp/defs.s" | awk -v a="$a" -v b="$b" \
			'($2 == a && $3 == b) || ($2 == b && $3 == a) { printf "%s ", $1 }')"
		fail=1
	fi
done <"$tmp/edges"
if ! tsort "$tmp/edges" >/dev/null 2>"$tmp/tsort"; then
	echo "layering: FAIL: the file dependency graph has a cycle:"
	sed 's/^/  /' "$tmp/tsort"
	fail=1
fi

# 2. parts: a lib part by its folder, a program by its own folder
part() {
	case $1 in
	lib/core/*) echo core ;; lib/pci/*) echo pci ;; lib/chassis/*) echo chassis ;;
	lib/api/*) echo api ;; lib/cgroup/*) echo cgroup ;; lib/httpd/*) echo httpd ;;
	lib/advise/*) echo advise ;; lib/*) echo "lib?" ;; *) echo "${1%%/*}/" ;;
	esac
}
is_program() { case $1 in */) return 0 ;; *) return 1 ;; esac; }
while read -r a b; do
	pa=$(part "$a"); pb=$(part "$b")
	if is_program "$pa"; then
		is_program "$pb" && [ "$pa" != "$pb" ] || continue
		echo "layering: FAIL: $a ($pa) uses $b ($pb): a program uses no other" \
			"program's file (what both need belongs in a lib part)"
		fail=1
		continue
	fi
	case "$pa>$pb" in
	core\>core | pci\>pci | pci\>core | chassis\>chassis | chassis\>core | \
	api\>api | api\>core | cgroup\>cgroup | cgroup\>core | \
	httpd\>httpd | httpd\>core | advise\>advise | advise\>core) ;;
	*) echo "layering: FAIL: $a ($pa) uses $b ($pb): lib parts depend downwards only" \
		"(core <- pci, cgroup, httpd, advise, chassis, api)"; fail=1 ;;
	esac
done <"$tmp/edges"

# 3. what the plugins load
for so in plugin/.libs/spank_falcon.so plugin/.libs/job_submit_falcon.so; do
	[ -f "$so" ] || continue
	bad=$(readelf -d "$so" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' |
		grep -E '^lib(curl|pci|munge|crypto)\.' | tr '\n' ' ')
	if [ -n "$bad" ]; then
		echo "layering: FAIL: $so needs $bad(it should need lib/core's dependencies only)"
		fail=1
	fi
done

# 4. long functions
for f in $(cd "$top_srcdir" && ls lib/*/*.c falcond/*.c falconctl/*.c prolog/*.c \
	ncclcheck/*.c plugin/*.c sim/*.c 2>/dev/null); do
	awk -v f="$f" -v max=150 '
		/^[A-Za-z_].*\(/ { name = $0 }
		/^\{/ { start = NR; sig = name }
		/^\}/ && start { n = NR - start + 1
			if (n > max) { printf "layering: FAIL: %s:%d: %d lines: %s\n", f, start, n, sig; bad = 1 }
			start = 0 }
		END { exit bad }' "$top_srcdir/$f" || fail=1
done

# 5. includes: room_of FILE = FILE's .c when there is one, else FILE
room_of() {
	r=${1%.h}.c
	[ -f "$top_srcdir/$r" ] && echo "$r" || echo "$1"
}
(cd "$top_srcdir" && ls falcond/*.[ch] falconctl/*.[ch] prolog/*.[ch] ncclcheck/*.[ch] \
	plugin/*.[ch] sim/*.[ch] 2>/dev/null) >"$tmp/srcs"
: >"$tmp/incl"
while read -r f; do
	a=$(room_of "$f")
	sed -n 's/^#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$top_srcdir/$f" | while read -r h; do
		# configure's config.h: in the source tree itself when built
		# there (the Debian package's build), a room of no part
		[ "$h" != config.h ] || continue
		for p in "$(dirname "$f")/$h" "$h" "lib/$h"; do
			[ -f "$top_srcdir/$p" ] || continue
			b=$(room_of "$p")
			[ "$a" = "$b" ] || echo "$a $b"
			break
		done
	done
done <"$tmp/srcs" | sort -u >"$tmp/incl"
# ... and no file includes a header of another program's folder (nor a
# lib part a program's), whatever the order of the rooms
(cd "$top_srcdir" && ls lib/*/*.[ch] 2>/dev/null) | while read -r f; do
	sed -n 's/^#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$top_srcdir/$f" | while read -r h; do
		[ "$h" != config.h ] || continue
		for p in "$(dirname "$f")/$h" "$h" "lib/$h"; do
			[ -f "$top_srcdir/$p" ] && { echo "$f $p"; break; }
		done
	done
done >"$tmp/libincl"
cat "$tmp/incl" "$tmp/libincl" | while read -r a b; do
	pa=$(part "$a"); pb=$(part "$b")
	is_program "$pb" && [ "$pa" != "$pb" ] || continue
	echo "layering: FAIL: $a includes a header of $pb (room $b): a header of" \
		"another program's folder (what both need belongs in a lib part)"
done >"$tmp/xincl"
if [ -s "$tmp/xincl" ]; then
	cat "$tmp/xincl"
	fail=1
fi
grep -v '^lib/' "$tmp/edges" | cat - "$tmp/incl" | sort -u >"$tmp/both"
if ! tsort "$tmp/both" >/dev/null 2>"$tmp/tsort2"; then
	echo "layering: FAIL: calls and includes together have a cycle (an include of a" \
		"header from a room above):"
	sed 's/^/  /' "$tmp/tsort2"
	grep -v '^tsort: -: input contains a loop:$' "$tmp/tsort2" | sed 's/^tsort: //' >"$tmp/loop"
	while read -r a b; do
		grep -qx "$a" "$tmp/loop" && grep -qx "$b" "$tmp/loop" && echo "  include: $a -> $b"
	done <"$tmp/incl"
	fail=1
fi

[ -n "${LAYERING_EDGES:-}" ] && cp "$tmp/edges" "$LAYERING_EDGES"
n=$(wc -l <"$tmp/edges")
[ $fail = 0 ] && echo "layering: ok ($n file dependencies, $(wc -l <"$tmp/incl") include arrows," \
	"acyclic together; lib parts downwards; plugins lean; functions <= 150 lines)"
exit $fail

#!/bin/sh
# tests/hardening.sh - the hardening configure asked for (m4/x_ac_hardening.m4,
# --disable-hardening turns it off), read off the built binaries with readelf,
# as Debian's blhc and lintian's hardening checks read them:
#   programs (falcond, falconctl, falcon-prolog, falcon-epilog, falcon-sim,
#   falcon-ncclcheck when built):
#     PIE             ELF type DYN (-fPIE -pie)
#     RELRO           a GNU_RELRO segment (-Wl,-z,relro)
#     BIND_NOW        BIND_NOW, or NOW in FLAGS/FLAGS_1 (-Wl,-z,now)
#     stack protector __stack_chk_fail imported (-fstack-protector-strong)
#     fortify         a __*_chk function imported (-D_FORTIFY_SOURCE)
#   Slurm plugins (spank_falcon.so, job_submit_falcon.so when built):
#     RELRO, and no BIND_NOW: a plugin uses symbols of the process that loads
#     it (srun, slurmd, slurmctld), so its unresolved ones must stay lazy
#     (unless the builder's own LDFLAGS ask for -z now, as Debian's
#     hardening=+all does).
# What configure found the compiler lacks is not asked for: each property is
# checked when its flag is in the Makefile's HARDEN_*, CPPFLAGS, CFLAGS or
# LDFLAGS.  Run from the build tree by `make check` (top_builddir set);
# skips (77) without readelf or with --disable-hardening.
set -u
: "${top_builddir:=.}"
cd "$top_builddir" || exit 1
command -v readelf >/dev/null || { echo "hardening: SKIP: no readelf"; exit 77; }
[ -f Makefile ] || { echo "hardening: SKIP: no Makefile in $top_builddir"; exit 77; }
var() { sed -n "s/^$1 = //p" Makefile | head -n 1; }
case " $(./config.status --config 2>/dev/null | tr -d "'") " in
*" --disable-hardening "* | *" --enable-hardening=no "*)
	echo "hardening: SKIP: configured with --disable-hardening"; exit 77 ;;
esac
flags=" $(var HARDEN_CFLAGS) $(var HARDEN_LDFLAGS) $(var HARDEN_PROG_LDFLAGS) $(var CPPFLAGS) $(var CFLAGS) $(var LDFLAGS) "
user_ld=" $(var LDFLAGS) "
has() { case $flags in *"$1"*) return 0 ;; *) return 1 ;; esac; }
fail=0
bad() { echo "hardening: FAIL: $*"; fail=1; }

# elf_of FILE - FILE itself, or libtool's real binary behind a wrapper script
elf_of() {
	if [ -f "$1" ] && head -c 4 "$1" | grep -q 'ELF'; then
		echo "$1"
	elif [ -f "$(dirname "$1")/.libs/$(basename "$1")" ]; then
		echo "$(dirname "$1")/.libs/$(basename "$1")"
	fi
}
bind_now() { readelf -dW "$1" | grep -Eq '\(BIND_NOW\)|\(FLAGS(_1)?\).* NOW'; }
relro() { readelf -lW "$1" | grep -q 'GNU_RELRO'; }
imports() { readelf --dyn-syms -W "$1" | awk '$7 == "UND" { print $8 }' | sed 's/@.*//'; }

checked=0
for p in falcond/falcond falconctl/falconctl prolog/falcon-prolog prolog/falcon-epilog \
	sim/falcon-sim ncclcheck/falcon-ncclcheck; do
	f=$(elf_of "$p")
	[ -n "$f" ] || continue
	checked=$((checked + 1))
	found=
	if has -pie; then
		readelf -hW "$f" | grep -Eq 'Type:[[:space:]]+DYN' && found="$found PIE" ||
			bad "$p is not PIE ($(readelf -hW "$f" | sed -n 's/.*Type:[[:space:]]*//p'))"
	fi
	if has relro; then
		relro "$f" && found="$found RELRO" || bad "$p has no GNU_RELRO segment"
	fi
	if has 'z,now'; then
		bind_now "$f" && found="$found BIND_NOW" || bad "$p is not linked with BIND_NOW"
	fi
	syms=$(imports "$f")
	if has -fstack-protector; then
		echo "$syms" | grep -qx '__stack_chk_fail' && found="$found stack-protector" ||
			bad "$p does not import __stack_chk_fail (no stack protector)"
	fi
	if has _FORTIFY_SOURCE; then
		chk=$(echo "$syms" | grep -E '^__[a-z_]+_chk$' | sort -u | tr '\n' ' ')
		[ -n "$chk" ] && found="$found fortify(${chk% })" ||
			bad "$p imports no __*_chk function (no _FORTIFY_SOURCE)"
	fi
	echo "hardening: $p:$found"
done
[ "$checked" -gt 0 ] || { echo "hardening: SKIP: no program built"; exit 77; }

for so in plugin/.libs/spank_falcon.so plugin/.libs/job_submit_falcon.so; do
	[ -f "$so" ] || continue
	found=
	if has relro; then
		relro "$so" && found="$found RELRO" || bad "$so has no GNU_RELRO segment"
	fi
	case $user_ld in
	*'z,now'* | *'z now'*) found="$found (BIND_NOW not checked: LDFLAGS ask for it)" ;;
	*) if bind_now "$so"; then
		bad "$so is linked with BIND_NOW: a plugin's symbols from the process that" \
			"loads it must stay lazy (PLUGIN_LDFLAGS)"
	   else
		found="$found lazy-binding"
	   fi ;;
	esac
	echo "hardening: $so:$found"
done
exit $fail

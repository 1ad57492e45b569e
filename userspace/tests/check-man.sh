#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# librxc's generated man pages render without a warning, and every
# function the library exports (lib/librxc.map) is named in the NAME
# section of a page.  Prints TAP; exits non-zero on any failure.
#
#   sh tests/check-man.sh BUILD_MAN_DIR     (from userspace/)
set -u
dir=${1:?generated man page directory}
n=0 failed=0
res() {	# res OK NAME [DETAIL]
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok - librxc man: $2"
	else echo "not ok - librxc man: $2"; [ -z "${3:-}" ] || echo "#   $3"
		failed=$((failed + 1)); fi
}

pages=$(ls "$dir"/*.[0-9] 2>/dev/null)
[ -n "$pages" ]
res $? "pages were generated in $dir"
for f in $pages; do
	w=$(MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null)
	[ -z "$w" ]
	res $? "$(basename "$f") renders without warnings" "$w"
done

# The NAME sections of all pages, as plain text.
names=$(for f in $pages; do
	awk '/^\.SH "NAME"/ { on = 1; next } /^\.SH / { on = 0 } on' "$f"
done | sed 's/\\f[BIR]//g')
for sym in $(sed -n 's/^[[:space:]]*\([a-z_][a-z_0-9]*\);$/\1/p' lib/librxc.map); do
	# The underscore form is the size-taking body of an inline wrapper.
	[ "$sym" = _ibv_query_comp_cntr_caps ] && sym=ibv_query_comp_cntr_caps
	echo "$names" | grep -qw "$sym"
	res $? "$sym has a man page"
done
echo "1..$n"
[ "$failed" -eq 0 ]

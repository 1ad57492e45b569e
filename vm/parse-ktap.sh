#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   vm/parse-ktap.sh DIR
#
# Turn the KUnit results in a VM run's kernel log into the bench's TAP lines
# ("ok - kunit: <module>: <suite>.<case>" ...), on stdout.
#
# tests/guest/t-kunit.sh brackets each test module load with
#   rxc-kunit: begin <module>   ...   rxc-kunit: end <module> rc=<status>
# and only KTAP between those markers counts.  Each test case (and each
# parameterised subtest) is one result; a suite line counts only when it
# failed without a failed case below it (e.g. its init failed).  A module
# whose load failed, that printed no plan, or that never reached its end
# marker (the kernel died) is one failure.
set -euo pipefail

dir=${1:?usage: parse-ktap.sh DIR}
log=$dir/dmesg.txt
[ -f "$log" ] || log=$dir/console.log
[ -f "$log" ] || exit 0

# Drop the "[  12.345678] " timestamps first: KTAP nesting is in the indent.
sed -E 's/\r$//; s/^\[[ 0-9.]+\] ?//' "$log" | awk '
function emit(st, name, dir) {
	print st " - kunit: " mod ": " name (dir != "" ? " # " dir : "")
}
/^rxc-kunit: begin / {
	mod = $3; inseg = 1; plan = 0
	delete sub_; delete cnt; delete nfail
	next
}
/^rxc-kunit: end / {
	if (!inseg) next
	rc = $4; sub(/^rc=/, "", rc)
	if (rc + 0 != 0) print "not ok - kunit: " mod ": load (modprobe exit status " rc ")"
	else if (!plan) print "not ok - kunit: " mod ": no KTAP plan in the kernel log"
	inseg = 0
	next
}
!inseg { next }
{
	match($0, /^[ \t]*/); ind = RLENGTH; line = substr($0, ind + 1)
}
line ~ /^# Subtest: / {
	sub(/^# Subtest: /, "", line); sub_[ind] = line
	for (k in sub_) if (k + 0 > ind) delete sub_[k]
	next
}
line ~ /^1\.\.[0-9]+/ { plan = 1; next }
line ~ /^(not )?ok [0-9]+ / {
	bad = (line ~ /^not ok/)
	rest = line; sub(/^(not )?ok [0-9]+ (- )?/, "", rest)
	directive = ""
	if (match(rest, / # /)) {
		directive = substr(rest, RSTART + 3); rest = substr(rest, 1, RSTART - 1)
	}
	# Results nested below this one since the last result at its level.
	kids = 0; kidfail = 0
	for (k in cnt) if (k + 0 > ind) { kids += cnt[k]; kidfail += nfail[k]; delete cnt[k]; delete nfail[k] }
	name = ""
	for (k = 0; k <= ind; k++) if (k in sub_) name = name sub_[k] "."
	name = name rest
	if (kids == 0) {
		skip = (toupper(directive) ~ /^SKIP/)
		emit(bad ? "not ok" : "ok", name, skip ? directive : "")
	} else if (bad && kidfail == 0) {
		emit("not ok", name, "")
	}
	cnt[ind]++; nfail[ind] += (bad || kidfail > 0)
	next
}
END {
	if (inseg) print "not ok - kunit: " mod ": did not finish (kernel crashed or hung?)"
}'

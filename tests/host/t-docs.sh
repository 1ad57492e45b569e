#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   tests/host/t-docs.sh
#
# Every reStructuredText file under Documentation/ parses with docutils
# without a warning: a table whose columns drift, or a broken literal,
# renders as an error block in the kernel's documentation build.  Debian's
# own python3, which python3-docutils (vm/install-deps.sh) is for.
#
# Prints TAP ("ok - ...", "not ok - ...") and exits non-zero on a failure.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
nfail=0

for f in "$repo"/Documentation/*.rst; do
	name=${f#"$repo"/}
	if out=$(/usr/bin/python3 - "$f" 2>&1 <<'PY'
import sys
import docutils.core

path = sys.argv[1]
with open(path, encoding='utf-8') as src:
    docutils.core.publish_doctree(
        src.read(), source_path=path,
        settings_overrides={'report_level': 2, 'halt_level': 2})
PY
	); then
		echo "ok - docs: $name parses without a docutils warning"
	else
		echo "not ok - docs: $name parses without a docutils warning"
		echo "$out" | head -n 3 | sed 's/^/# /'
		nfail=$((nfail + 1))
	fi
done
[ "$nfail" -eq 0 ]

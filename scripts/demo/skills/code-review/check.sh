#!/usr/bin/env bash
# Lists the files under the working directory that have trailing whitespace or a TODO left in.
set -u
grep -rIln --exclude-dir=.git --exclude-dir=node_modules -e '[[:space:]]$' -e 'TODO' . 2>/dev/null | sort | head -n 200

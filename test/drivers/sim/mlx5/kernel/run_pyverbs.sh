#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rdma-core v44's own pyverbs tests (Debian's python3-pyverbs, which ships them gzipped
# under /usr/share/doc/rdma-core/tests) on the kernel side, through devtools/sim-rdma.
# They are copied into a temporary directory and unpacked there, never into the tree.
# Prints passed / skipped / failed per test file; every listed file must pass.
#   run_pyverbs.sh <devtools/sim-rdma> <test module>...   e.g. test_device test_pd
set -u
sim_rdma=$1
shift
py=/usr/bin/python3   # Debian's, where pyverbs lives
src=/usr/share/doc/rdma-core/tests
if ! "$py" -c 'import pyverbs' 2>/dev/null || [ ! -f "$src/run_tests.py" ]; then
	echo "FAIL: pyverbs or its tests missing: devtools/setup.sh installs python3-pyverbs"
	exit 1
fi
# shellcheck source=kside_run_lib.sh
. "$(dirname "$0")/kside_run_lib.sh"
no_leak_check  # CPython frees little at exit
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src" "$work/tests" && gunzip -f "$work"/tests/*.gz || exit 1
failed=0
for m in "$@"; do
	log=$work/$m.log
	st=0
	# rdma-cm files fork their passive and active sides, which share the test's
	# port: that needs a machine-wide fabric (a name of this run's own)
	fabric=
	case $m in *rdmacm*) fabric="-a sim_fabric=pyverbs$$" ;; esac
	# shellcheck disable=SC2086 # $fabric is two words or none
	(cd "$work" && "$sim_rdma" $fabric "$py" tests/run_tests.py --dev mlx5_0 -v "tests.$m") \
		>"$log" 2>&1 </dev/null || st=$?
	# unittest's summary: "Ran N tests", then "OK (skipped=S)" or
	# "FAILED (failures=F, errors=E, skipped=S)"
	ran=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in .*/\1/p' "$log")
	sum=$(grep -E '^(OK|FAILED)( \(.*\))?$' "$log" | tail -n 1)
	num() { echo "$sum" | sed -n "s/.*$1=\([0-9]*\).*/\1/p"; }
	skip=$(num skipped) fails=$(num failures) errs=$(num errors)
	bad=$(( ${fails:-0} + ${errs:-0} ))
	ok=$(( ${ran:-0} - ${skip:-0} - bad ))
	skip=${skip:-0}
	echo "$m: ${ran:-0} tests, $ok passed, $skip skipped, $bad failed (exit $st)"
	if [ "$st" -ne 0 ] || [ -z "$ran" ] || [ -z "$sum" ] || [ "$bad" -ne 0 ]; then
		cat "$log"
		failed=$((failed + 1))
	fi
done
echo "$failed failed"
exit "$failed"

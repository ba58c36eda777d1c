#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The PMD carries no code of the software HCA: no model symbol, defined or undefined,
# in its dynamic or full symbol table, and no NEEDED entry for the model's library.
#   check_no_model.sh <librte_dma_mlx5.so> [<librte_common_mlx5_seam.so>]
set -u
pattern='mlx5sim|mlx5_sim_|sim_glue|Hca[A-Z]|librte_sim_mlx5'
passed=0
failed=0
check() { # description, command producing the text to search
	local what=$1
	shift
	local hits
	hits=$("$@" 2>/dev/null | grep -E "$pattern")
	if [ -n "$hits" ]; then
		echo "FAIL: $what"
		echo "$hits" | head -n 5
		failed=$((failed + 1))
	else
		echo "ok: $what"
		passed=$((passed + 1))
	fi
}
for lib in "$@"; do
	[ -f "$lib" ] || { echo "FAIL: $lib missing"; failed=$((failed + 1)); continue; }
	name=$(basename "$lib")
	check "$name: nm -D (dynamic symbols)" nm -D "$lib"
	check "$name: nm (every symbol)" nm "$lib"
	check "$name: NEEDED" readelf -d "$lib"
	# the check itself must be able to fail: the model's own library trips it
done
if [ -n "${MODEL_LIB:-}" ] && [ -f "$MODEL_LIB" ]; then
	if nm -D "$MODEL_LIB" | grep -qE "$pattern"; then
		echo "ok: the pattern finds model symbols in $(basename "$MODEL_LIB")"
		passed=$((passed + 1))
	else
		echo "FAIL: the pattern finds nothing in $(basename "$MODEL_LIB"): the check is blind"
		failed=$((failed + 1))
	fi
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dma_mlx5 against the newer DPDK LTS releases, each checked by its own tests: for each
# release, devtools/setup.sh --dpdk REL (its Debian chroot, build-dpdkREL/), then in the
# chroot the dmadev suite of that build: that release's stock /usr/bin/dpdk-test
# dmadev_autotest against the plugin (software HCA in inline and thread execution, both
# posting paths, SVA) and its stock /usr/bin/dpdk-test-dma-perf (dma_mlx5 against
# dma_skeleton, copies 64 B to 65407 B and SG, the tool's validation on). Then checks that
# no mount made for the chroots is visible on the host, during a run or after one that
# failed or was killed. Ends with "N passed, N failed" (devtools/test.sh adds them up).
#   devtools/test-dpdk-lts.sh [RELEASE...]     default: 24.11 25.11
# Environment: DMA_MLX5_CACHE (see devtools/dpdk-chroot.sh).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
cache=${DMA_MLX5_CACHE:-/var/cache/dma-mlx5}
releases=("$@")
[ ${#releases[@]} != 0 ] || releases=(24.11 25.11)

passed=0
failed=0
skipped=0
ok() { echo "test-dpdk-lts: ok: $*"; passed=$((passed + 1)); }
fail() { echo "test-dpdk-lts: FAILED: $*"; failed=$((failed + 1)); }
# nothing mounted at or below the cache, as the host sees it
no_mounts() {
	! findmnt -rn -o TARGET | awk -v d="$cache" '$0 == d || index($0, d "/") == 1' | grep -q .
}

for rel in "${releases[@]}"; do
	dir=build-dpdk$rel
	echo "=== DPDK $rel: setup (devtools/setup.sh --dpdk $rel) ==="
	start=$SECONDS
	# only what the suite runs (the plugins are built twice over otherwise: dma-perf
	# links the static libraries)
	if ! SETUP_TARGETS=dmadev-suite devtools/setup.sh --dpdk "$rel"; then
		fail "DPDK $rel: setup/build"
		continue
	fi
	echo "=== DPDK $rel: dmadev suite in $dir (set up and built in $((SECONDS - start)) s) ==="
	start=$SECONDS
	rm -f "$dir/meson-logs/testlog.json"
	devtools/dpdk-chroot.sh "$rel" -- /bin/sh -c 'ninja -C "$1" dmadev-suite &&
		meson test -C "$1" --no-rebuild --print-errorlogs --num-processes 1 --suite dmadev' \
		sh "$dir"
	# the dmadev_autotest case lines and the dma-perf results, for the record
	grep -a -E "^(test: |### Test|dma-perf )| TestCase | Tests (Passed|Failed|Skipped)" \
		"$dir/meson-logs/testlog.txt" | sed "s/^/[$rel] /"
	read -r p f s < <(python3 - "$dir/meson-logs/testlog.json" <<'PY'
import json, os, sys
p = f = s = 0
if not os.path.exists(sys.argv[1]):
    f = 1
for line in (open(sys.argv[1]) if not f else []):
    r = json.loads(line).get("result")
    if r in ("OK", "EXPECTEDFAIL"):
        p += 1
    elif r == "SKIP":
        s += 1
    else:
        f += 1
print(p, f, s)
PY
)
	# an empty suite (no dpdk-test in the chroot) is a failure, not a pass
	[ "$p" != 0 ] || f=$((f + 1))
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	echo "=== DPDK $rel: $p passed, $f failed in $((SECONDS - start)) s ==="
done

# Machine safety: the chroots' mounts live in a private mount namespace.
echo "=== mounts under $cache ==="
rel=${releases[0]}
if no_mounts; then ok "nothing mounted under $cache after the runs"; else
	fail "mounts left under $cache:"; findmnt -rn -o TARGET | grep -F "$cache"; fi
devtools/dpdk-chroot.sh "$rel" -- sh -c 'exit 3' >/dev/null 2>&1
[ $? = 3 ] && no_mounts && ok "a failing command: its status, no mount left" ||
	fail "a failing command in the chroot"
devtools/dpdk-chroot.sh "$rel" -- sh -c 'kill -KILL $$' >/dev/null 2>&1
no_mounts && ok "a command killed (SIGKILL) in the chroot: no mount left" ||
	fail "a killed command left mounts"
# two runs at once share the chroot
devtools/dpdk-chroot.sh "$rel" -- sh -c 'sleep 1' >/dev/null 2>&1 &
other=$!
devtools/dpdk-chroot.sh "$rel" -- sh -c 'sleep 1' >/dev/null 2>&1
mine=$?
wait "$other"
[ $? = 0 ] && [ "$mine" = 0 ] && no_mounts && ok "two runs at once: both ran, no mount left" ||
	fail "two runs at once"
# during a run: its /proc is mounted in the chroot, and the host sees no mount
setsid devtools/dpdk-chroot.sh "$rel" -- sh -c 'test -r /proc/self/status && sleep 30' \
	>/dev/null 2>&1 &
runner=$!
for _ in $(seq 50); do
	pgrep -f -s "$runner" "sleep 30" >/dev/null && break
	sleep 0.2
done
if pgrep -f -s "$runner" "sleep 30" >/dev/null && no_mounts; then
	ok "during a run the host sees no mount of it"
else
	fail "a running chroot's mounts are visible on the host (or it did not start)"
fi
kill -KILL -- -"$runner" 2>/dev/null
wait "$runner" 2>/dev/null
no_mounts && ok "the run's process group killed: no mount left" ||
	fail "mounts left after killing a run"

if [ "$skipped" -gt 0 ]; then
	echo "${passed} passed, ${failed} failed, ${skipped} skipped"
else
	echo "${passed} passed, ${failed} failed"
fi
[ "$failed" = 0 ]

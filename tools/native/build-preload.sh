#!/usr/bin/env bash
# Builds the ipvsadm/keepalived preload library (tools/native/jvs-ipvs-preload.c) into
# tools/target/libjvs-ipvs.so when it is missing or older than its source, and prints its path.
# Called by `tools/jvs with-ipvs` and by the tests; CC overrides the compiler (default cc).
set -euo pipefail

here="$(cd -P "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source="$here/jvs-ipvs-preload.c"
target_dir="$(dirname "$here")/target"
library="$target_dir/libjvs-ipvs.so"

if [[ ! -f $library || $source -nt $library ]]; then
    compiler="${CC:-cc}"
    command -v "$compiler" >/dev/null 2>&1 ||
        { echo "jvs: no C compiler ($compiler) to build $library: apt-get install gcc (tools/jvs setup)" >&2; exit 1; }
    mkdir -p "$target_dir"
    # Built beside and renamed, so that a concurrent build or a running program never sees half a library.
    partial="$(mktemp "$target_dir/.libjvs-ipvs.XXXXXX")"
    trap 'rm -f "$partial"' EXIT
    "$compiler" -shared -fPIC -O2 -Wall -Wextra -Werror -o "$partial" "$source" -ldl
    chmod 0755 "$partial"
    mv -f "$partial" "$library"
    trap - EXIT
fi
printf '%s\n' "$library"

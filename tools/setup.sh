# shellcheck shell=bash
# The Debian packages of tools/system-packages: which are missing, and installing them. Sourced (not run) by
# tools/jvs (setup, test, demo) and .ci/run; it only defines functions. Messages go to standard error.
#
# Test hook: JVS_SETUP_AS_USER=1 makes root behave as a user without root (print the command, install nothing).

# Reads a package list (lines `PACKAGE [COMMAND]`, text after # a comment) into the parallel arrays
# SETUP_PACKAGES and SETUP_COMMANDS (the command, or empty when only dpkg can tell). Returns 1, naming the
# file and line, on a line that is not of that form.
jvs_setup_read() {
    local list="$1" line fields number=0
    SETUP_PACKAGES=()
    SETUP_COMMANDS=()
    if [[ ! -r $list ]]; then
        printf 'jvs: cannot read the package list %s\n' "$list" >&2
        return 1
    fi
    while IFS= read -r line || [[ -n $line ]]; do
        number=$((number + 1))
        read -r -a fields <<<"${line%%#*}"
        if ((${#fields[@]} == 0)); then
            continue
        fi
        # Debian policy: a package name is lower case letters, digits, + - and ., at least two characters.
        if ((${#fields[@]} > 2)) || [[ ! ${fields[0]} =~ ^[a-z0-9][a-z0-9+.-]+$ ]]; then
            printf 'jvs: %s:%d: expected PACKAGE [COMMAND], got: %s\n' "$list" "$number" "$line" >&2
            return 1
        fi
        SETUP_PACKAGES+=("${fields[0]}")
        SETUP_COMMANDS+=("${fields[1]:-}")
    done <"$list"
}

# Sets SETUP_MISSING to the packages of the last list read that are not present: a package is present when
# its command is on PATH or in an sbin directory (a user's PATH may lack them), or when dpkg says it is
# installed. dpkg-query runs once, and only for the packages whose command was not found.
jvs_setup_missing() {
    local i name status search="$PATH:/usr/local/sbin:/usr/sbin:/sbin"
    local unsure=()
    local -A installed=()
    SETUP_MISSING=()
    for i in "${!SETUP_PACKAGES[@]}"; do
        if [[ -n ${SETUP_COMMANDS[i]} ]] && PATH="$search" command -v "${SETUP_COMMANDS[i]}" >/dev/null 2>&1; then
            continue
        fi
        unsure+=("${SETUP_PACKAGES[i]}")
    done
    if ((${#unsure[@]} == 0)); then
        return 0
    fi
    # A package dpkg has never heard of makes dpkg-query exit 1 after listing the others: that is expected.
    while read -r name status; do
        if [[ $status == installed ]]; then
            installed[$name]=1
        fi
    done < <(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${unsure[@]}" 2>/dev/null || true)
    for name in "${unsure[@]}"; do
        if [[ -z ${installed[$name]:-} ]]; then
            SETUP_MISSING+=("$name")
        fi
    done
}

jvs_setup_is_root() {
    ((EUID == 0)) && [[ ${JVS_SETUP_AS_USER:-} != 1 ]]
}

# apt-get ARGS as root (through sudo when not root), non-interactive, waiting up to a minute for the dpkg
# and apt locks another apt run may hold, and trying five times. Its output is shown only when it fails.
jvs_apt_get() {
    local attempt log
    local argv=(env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=60 -o Acquire::Retries=3 "$@")
    if ((EUID != 0)); then
        if ! command -v sudo >/dev/null 2>&1; then
            printf 'jvs: need root (or sudo) to run: apt-get %s\n' "$*" >&2
            return 1
        fi
        argv=(sudo "${argv[@]}")
    fi
    log="$(mktemp)"
    for attempt in 1 2 3 4 5; do
        if "${argv[@]}" </dev/null >"$log" 2>&1; then
            rm -f "$log"
            return 0
        fi
        tail -n 30 "$log" >&2
        if ((attempt < 5)); then
            printf 'jvs: apt-get %s failed (attempt %d of 5); retrying in %d s\n' "$1" "$attempt" $((attempt * 10)) >&2
            sleep $((attempt * 10))
        fi
    done
    rm -f "$log"
    printf 'jvs: apt-get %s kept failing (output above)\n' "$*" >&2
    return 1
}

# Makes sure every package of LIST is present. Nothing missing: returns 0 at once (no apt, no network).
# As root: one line naming what it installs, then apt-get update and install; returns 0 when all are present
# afterwards, else 1. Not root: prints the command to run and returns 2. SHOWN is how messages name LIST.
# SETUP_CHECKED tells whether it could check at all (not without dpkg-query, as off Debian and Ubuntu).
jvs_setup() {
    local list="$1" shown="${2:-$1}"
    local wanted=()
    SETUP_CHECKED=0
    jvs_setup_read "$list" || return 1
    if ! command -v dpkg-query >/dev/null 2>&1; then
        printf 'jvs: not checking %s: no dpkg-query here (not Debian or Ubuntu); install its packages yourself\n' \
            "$shown" >&2
        return 0
    fi
    SETUP_CHECKED=1
    jvs_setup_missing
    if ((${#SETUP_MISSING[@]} == 0)); then
        return 0
    fi
    if ! jvs_setup_is_root; then
        printf 'jvs: missing Debian packages (%s): %s; install them as root with:\n' "$shown" "${SETUP_MISSING[*]}" >&2
        printf '  sudo apt-get update && sudo apt-get install -y --no-install-recommends %s\n' "${SETUP_MISSING[*]}" >&2
        return 2
    fi
    wanted=("${SETUP_MISSING[@]}")
    printf 'jvs: installing Debian packages (%s): %s\n' "$shown" "${wanted[*]}" >&2
    jvs_apt_get update || return 1
    jvs_apt_get install -y --no-install-recommends "${wanted[@]}" || return 1
    jvs_setup_missing
    if ((${#SETUP_MISSING[@]} > 0)); then
        printf 'jvs: apt-get installed %s, yet these are still missing (command not found, dpkg: not installed): %s\n' \
            "${wanted[*]}" "${SETUP_MISSING[*]}" >&2
        return 1
    fi
}

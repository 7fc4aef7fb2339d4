#!/usr/bin/env bash
# System tools the set-up needs beyond Python packages: gettext (msgfmt, to compile the
# translations). Installed with apt-get when missing and we are root; otherwise say what to do.
set -euo pipefail
missing=()
command -v msgfmt >/dev/null 2>&1 || missing+=(gettext)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing system packages: ${missing[*]}"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "Please install: ${missing[*]} (e.g. sudo apt-get install ${missing[*]})" >&2
  exit 1
fi

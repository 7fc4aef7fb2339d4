#!/usr/bin/env bash
# System tools the set-up needs beyond Python packages: gettext (msgfmt, to compile the
# translations), Debian's chromium (the browser tests drive /usr/bin/chromium with Playwright)
# and poppler-utils (pdftoppm, to look at the PDFs). WeasyPrint's Pango comes with the base
# image (libpango-1.0-0, libpangoft2-1.0-0) and is installed here when missing.
# Installed with apt-get when missing and we are root; otherwise say what to do.
set -euo pipefail
missing=()
command -v msgfmt >/dev/null 2>&1 || missing+=(gettext)
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v pdftoppm >/dev/null 2>&1 || missing+=(poppler-utils)
if command -v ldconfig >/dev/null 2>&1; then
  ldconfig -p 2>/dev/null | grep -q 'libpangoft2-1.0.so.0' || missing+=(libpango-1.0-0 libpangoft2-1.0-0)
fi
fc-list 2>/dev/null | grep -qi 'DejaVu Sans' || missing+=(fonts-dejavu-core)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing system packages: ${missing[*]}"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "Please install: ${missing[*]} (e.g. sudo apt-get install ${missing[*]})" >&2
  exit 1
fi

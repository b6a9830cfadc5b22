#!/bin/sh
# What the tests need besides npm packages: Debian's Chromium, which the web UI's end-to-end tests
# drive through playwright-core (it downloads no browser of its own). Does nothing when present.
set -eu
if command -v chromium >/dev/null 2>&1; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium

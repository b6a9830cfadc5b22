#!/bin/sh
# What the tests need besides npm packages, from Debian: Chromium, which the web UI's end-to-end
# tests drive through playwright-core (it downloads no browser of its own), and nats-server, whose
# 3-server JetStream cluster the NATS event log's tests run against. Installs only what is missing.
set -eu
MISSING=""
command -v chromium >/dev/null 2>&1 || MISSING="$MISSING chromium"
command -v nats-server >/dev/null 2>&1 || MISSING="$MISSING nats-server"
if [ -z "$MISSING" ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $MISSING

#!/bin/sh
# Regenerates the C of Sources/WaylandProtocols from its protocol descriptions with
# wayland-scanner (Debian: libwayland-bin, which libwayland-dev brings). The output is
# committed, so a build needs only libwayland-dev.
set -eu
cd "$(dirname "$0")/../Sources/WaylandProtocols"
for xml in protocols/*.xml; do
    name=$(basename "$xml" .xml)
    wayland-scanner client-header "$xml" "include/$name-client.h"
    wayland-scanner private-code "$xml" "$name.c"
done

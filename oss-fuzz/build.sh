#!/bin/bash -eu
# OSS-Fuzz entry point: the repository's own build script builds every
# target, its seed corpus archive and its dictionary (see there).
exec "$SRC/agentwire/.clusterfuzzlite/build.sh"

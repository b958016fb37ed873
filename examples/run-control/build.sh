#!/bin/sh
# A stand-in for a slow build: prints progress, then succeeds.
echo "building for $1 s"
sleep "$1"
echo "build ok"

#!/usr/bin/env bash
# Rewrites the conformance manifests from a run of the current build: every backend test that
# fails now is listed with its failure message (edit the reason to explain it), listed skips and
# tolerances are kept. Review the diff before committing: a test that used to pass must not
# appear in it.
set -euo pipefail
cd "$(dirname "$0")/.."
data="${ONNXTRIM_TEST_DATA:-../shared/onnx-tests}"
build/tests/onnxtrim_conformance --data "$data" --manifest tests/conformance/manifest.txt \
  --write-manifest tests/conformance/manifest.txt | tail -1
build/tests/onnxtrim_conformance --infer --data "$data" --manifest tests/conformance/infer_manifest.txt \
  --write-manifest tests/conformance/infer_manifest.txt | tail -1

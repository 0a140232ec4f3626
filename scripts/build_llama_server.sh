#!/usr/bin/env bash
# Build llama.cpp's own `llama-server` (the C++ server) once and cache it.
#
# Why: the integration suite (tests/llama_server/) and the side-by-side benchmarks talk to the
# server people actually run. No prebuilt binary is on the registries we can reach, but the
# llama-cpp-python sdist carries llama.cpp's source, and its server target builds with cmake.
# The build takes 10-25 minutes on 2 cores, so the binary is cached under ~/.cache and reused.
#
# Prints the binary's path on the last line of stdout. Exit status 0 when the binary exists.
set -euo pipefail
VERSION="${RIFT_LLAMA_CPP_PYTHON_VERSION:-0.3.36}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/rift/llama-server/$VERSION"
BIN="$CACHE/bin/llama-server"
if [ -x "$BIN" ]; then
  echo "$BIN"
  exit 0
fi
PY="${PYTHON:-python3}"
WORK="$CACHE.build"
rm -rf "$WORK"
mkdir -p "$WORK" "$CACHE/bin"
cd "$WORK"
"$PY" -m pip download -q --no-deps --no-binary :all: "llama-cpp-python==$VERSION" -d . >&2
tar xzf "llama_cpp_python-$VERSION.tar.gz"
JOBS="${RIFT_BUILD_JOBS:-$(nproc)}"
cmake -S "llama_cpp_python-$VERSION/vendor/llama.cpp" -B build -DCMAKE_BUILD_TYPE=Release \
  -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON \
  -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_TESTS=OFF \
  -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF \
  -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF -DBUILD_SHARED_LIBS=OFF >&2
cmake --build build --target llama-server -j "$JOBS" >&2
# Copy to a temp name, then rename, so a build killed halfway never leaves a broken cached binary.
cp build/bin/llama-server "$BIN.tmp"
mv "$BIN.tmp" "$BIN"
cd /
rm -rf "$WORK"
echo "$BIN"

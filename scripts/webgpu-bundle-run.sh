#!/bin/sh
# The WebGPU bench with nothing installed (scripts/webgpu-bundle.mjs writes this beside what it
# unpacks): Node, the bench bundled into one file, Dawn's Node addon, and the Vulkan loader with
# libglvnd's libraries (which NVIDIA's Vulkan driver links against) as Debian packages. Everything
# goes into a temporary folder, removed on exit, and the bench runs there, so any working directory
# will do and nothing outside the folder is touched (the packages are not unpacked into /: that can
# break a system). Prints the bench's JSON on stdout, its progress on stderr.
#   run.sh                  the whole bench (on a GPU; about 5 minutes)
#   run.sh --counts         what decoding a token asks of WebGPU, on any adapter
#   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json run.sh --counts --shape tiny-qwen
# Needs only sh, tar, dpkg-deb (or python3) and xz (or python3), and a Vulkan driver.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/webgpu-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
say() { echo "[run.sh] $*" >&2; }

# xz's decompressor, or Python's where the system has no xz
unxz_to_stdout() {
  if command -v xz >/dev/null 2>&1; then
    xz -dc "$1"
  else
    python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$1"
  fi
}

# a .deb is an ar archive holding data.tar.*; Python reads both where dpkg-deb is missing
unpack_deb() {
  if command -v dpkg-deb >/dev/null 2>&1; then
    dpkg-deb -x "$1" "$2"
  else
    python3 - "$1" "$2" <<'PY'
import io, sys, tarfile
data = open(sys.argv[1], 'rb').read()
at = 8
while at < len(data):
    name, size = data[at:at + 16].decode().strip(), int(data[at + 48:at + 58])
    if name.startswith('data.tar'):
        safe = {'filter': 'data'} if hasattr(tarfile, 'data_filter') else {}
        tarfile.open(fileobj=io.BytesIO(data[at + 60:at + 60 + size])).extractall(sys.argv[2], **safe)
    at += 60 + size + (size & 1)
PY
  fi
}

started=$(date +%s)
unxz_to_stdout "$here/bench.tar.xz" | tar -x -C "$work"
unxz_to_stdout "$here/node.xz" >"$work/node"
chmod +x "$work/node"
mkdir -p "$work/dawn/dist/linux-x64" "$work/sys"
unxz_to_stdout "$here/dawn.node.xz" >"$work/dawn/dist/linux-x64/dawn.node"
for deb in "$here"/debs/*.deb; do unpack_deb "$deb" "$work/sys"; done
say "unpacked into $work in $(($(date +%s) - started)) s"

libs="$work/sys/usr/lib/x86_64-linux-gnu"
# NVIDIA's driver mounted but not registered (the lent machines keep it under /usr/local/nvidia)
for dir in /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do
  if [ -d "$dir" ]; then libs="$libs:$dir"; fi
done
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_ICD_FILENAMES:-}${VK_DRIVER_FILES:-}" ] && [ -f "$nvidia_icd" ]; then
  export VK_DRIVER_FILES="$nvidia_icd" VK_ICD_FILENAMES="$nvidia_icd"
fi
say "Vulkan driver: ${VK_DRIVER_FILES:-${VK_ICD_FILENAMES:-the loader's search}}"

export WEBGPU_BENCH_CHILD="$work/bench.mjs" WEBGPU_NODE_MODULE="$work/dawn/index.js"
export WEBGPU_BENCH_DEMO="$work/demo" WEBGPU_BENCH_WASM="$work/" WEBGPU_BENCH_INFO="$here/bundle.json"
cd "$work"
status=0
"$work/node" "$work/suite.mjs" "$@" || status=$?
say "done in $(($(date +%s) - started)) s"
exit "$status"

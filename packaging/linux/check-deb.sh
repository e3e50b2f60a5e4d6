#!/usr/bin/env bash
# Checks a built toolscope .deb: the files a desktop needs, the README and the user guide are in
# it, the desktop entry and the AppStream metadata validate, the binary runs from the package's
# layout, and apt installs it (its dependencies resolve) with the menu entry and icons in place.
# Usage: packaging/linux/check-deb.sh target/debian/toolscope_0.1.0-1_amd64.deb
set -euo pipefail
deb="$1"
id="io.github.toolscope.Toolscope"

listing="$(dpkg-deb --contents "$deb")"
expected=(
    ./usr/bin/toolscope
    "./usr/share/applications/$id.desktop"
    "./usr/share/metainfo/$id.metainfo.xml"
    "./usr/share/icons/hicolor/scalable/apps/$id.svg"
    ./usr/share/doc/toolscope/copyright
)
for size in 32 48 64 128 256 512; do
    expected+=("./usr/share/icons/hicolor/${size}x${size}/apps/$id.png")
done
# The README and every page of the user guide (docs/guide/), which Cargo.toml lists one by one.
expected+=(./usr/share/doc/toolscope/README.md)
for page in "$(dirname "${BASH_SOURCE[0]}")"/../../docs/guide/*.md; do
    expected+=("./usr/share/doc/toolscope/guide/$(basename "$page")")
done
for path in "${expected[@]}"; do
    grep -q " $path\$" <<<"$listing" || { echo "the package lacks $path" >&2; exit 1; }
done

unpacked="$(mktemp -d)"
trap 'rm -rf "$unpacked"' EXIT
dpkg-deb -x "$deb" "$unpacked"
desktop-file-validate "$unpacked/usr/share/applications/$id.desktop"
appstreamcli validate --no-net "$unpacked/usr/share/metainfo/$id.metainfo.xml"
"$unpacked/usr/bin/toolscope" --version

# Installed for real, then removed again (this machine is a CI runner).
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$(realpath "$deb")" >/dev/null
test -f "/usr/share/applications/$id.desktop"
test -f "/usr/share/icons/hicolor/256x256/apps/$id.png"
/usr/bin/toolscope --version
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq toolscope >/dev/null
echo "the package checks out: $(basename "$deb")"

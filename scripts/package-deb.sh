#!/bin/sh
# Builds switchscan_<version>_<arch>.deb from a release build with the Swift runtime linked in
# (--static-swift-stdlib: installing it needs no Swift toolchain), into the folder given
# (default: the current one); prints the package's path.
#
#   /usr/bin/switchscan                      the binary, stripped
#   /usr/share/switchscan/{Devices,Layouts,Words}   the bundled data (found beside bin/)
#   /usr/share/man/man1/switchscan.1.gz      the manual, made from the commands' help
#   /usr/lib/systemd/user/switchscan.service, switchscan-failed.service
#   /usr/share/applications/switchscan.desktop      the menu entry (no /etc/xdg/autostart:
#                                            starting at login is per user, 'autostart enable')
#   /usr/lib/udev/rules.d/70-switchscan.rules       the profiles' switch interfaces for the seated
#                                            user, /dev/uinput for the 'uinput' group (packaging/
#                                            postinst makes the group and applies the rule to what
#                                            is plugged in, postrm takes it away at once)
#
# The version is the one `switchscan --version` prints (Sources/CommandSupport/Version.swift);
# the dependencies are dpkg-shlibdeps' reading of the binary, and acl (setfacl), with which the
# maintainer scripts take back what an earlier version's udev rule let logind give.
set -eu
cd "$(dirname "$0")/.."
out=$(cd "${1:-.}" && pwd)

version=$(sed -n 's/^public let switchScanVersion = "\(.*\)"$/\1/p' Sources/CommandSupport/Version.swift)
[ -n "$version" ] || { echo "package-deb.sh: no version in Sources/CommandSupport/Version.swift" >&2; exit 1; }
arch=$(dpkg --print-architecture)
# The maintainer: whoever made the commit packaged.
maintainer=$(git log -1 --format='%an <%ae>' 2>/dev/null || true)
[ -n "$maintainer" ] || maintainer="SwitchScan maintainers <switchscan@example.org>"

# The build's messages go to stderr: stdout is the package's path alone.
# A build folder of its own, so that it can be made while tests run in .build (CI does).
swift build -c release --product switchscan --static-swift-stdlib --scratch-path .build-release >&2
bin="$(swift build -c release --static-swift-stdlib --scratch-path .build-release --show-bin-path)/switchscan"
[ "$("$bin" --version)" = "$version" ] || { echo "package-deb.sh: $bin --version does not say $version" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/switchscan_${version}_$arch"
umask 022
mkdir -p "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/switchscan" "$root/usr/share/man/man1" \
    "$root/usr/share/doc/switchscan" "$root/usr/share/applications" "$root/usr/lib/systemd/user" "$root/usr/lib/udev/rules.d"

install -m 0755 "$bin" "$root/usr/bin/switchscan"
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$root/usr/bin/switchscan"
for folder in Devices Layouts Words; do cp -R "$folder" "$root/usr/share/switchscan/"; done
# The word list's licence goes into the copyright file.
rm "$root/usr/share/switchscan/Words/LICENSE-en.txt"
find "$root/usr/share/switchscan" -type d -exec chmod 0755 {} + -o -type f -exec chmod 0644 {} +

exe=/usr/bin/switchscan
"$bin" autostart print unit --executable "$exe" >"$root/usr/lib/systemd/user/switchscan.service"
"$bin" autostart print failure-unit >"$root/usr/lib/systemd/user/switchscan-failed.service"
"$bin" autostart print application --executable "$exe" >"$root/usr/share/applications/switchscan.desktop"
install -m 0644 packaging/70-switchscan.rules "$root/usr/lib/udev/rules.d/70-switchscan.rules"
# The GNOME Shell extension; its extension.js is linked by the maintainer script to the entry
# point the installed GNOME Shell loads (pick-entry, run again when gnome-shell is upgraded).
ext="$root/usr/share/gnome-shell/extensions/switchscan@switchscan.org"
mkdir -p "$ext" "$root/usr/lib/switchscan"
for f in packaging/gnome-shell/switchscan@switchscan.org/*; do
    case "$f" in */extension.js) continue ;; esac
    install -m 0644 "$f" "$ext/"
done
install -m 0755 packaging/gnome-shell/pick-entry "$root/usr/lib/switchscan/gnome-shell-pick-entry"

# The manual: each command's --help, its sections as man sections, options as tagged paragraphs.
roff() {
    awk '
    function esc(s) { gsub(/\\/, "\\e", s); sub(/^[.'"'"']/, "\\\\\\&&", s); return s }
    function opt(s) { s = esc(s); gsub(/-/, "\\-", s); return s }
    /^  See .switchscan help/ { next }
    /^[A-Z]+:/ {
        head = $0; sub(/:.*/, "", head); rest = $0; sub(/^[A-Z]+: ?/, "", rest)
        print ".TP"; print "\\fB" head "\\fR"
        if (rest != "") print esc(rest)
        listing = (head == "OPTIONS" || head == "ARGUMENTS" || head == "SUBCOMMANDS")
        next
    }
    /^$/ { print ".IP"; next }
    listing && /^  [^ ]/ {
        line = substr($0, 3); name = line; desc = ""
        if (match(line, /   +/)) { name = substr(line, 1, RSTART - 1); desc = substr(line, RSTART + RLENGTH) }
        print ".TP"; print "\\fB" opt(name) "\\fR"
        if (desc != "") print esc(desc)
        next
    }
    { line = $0; sub(/^ +/, "", line); print esc(line) }
    '
}
subcommands() {  # the names listed under SUBCOMMANDS: in a help text
    awk '/^SUBCOMMANDS:/ { on = 1; next } /^[A-Z]+:/ { on = 0 } on && /^  [a-z]/ { print $1 }'
}
page() {  # one command's section, then its subcommands'
    help=$("$bin" help "$@" 2>&1)
    printf '.SS "switchscan %s"\n' "$*"
    printf '%s\n' "$help" | sed 's/^OVERVIEW: //' | roff
    for sub in $(printf '%s\n' "$help" | subcommands); do page "$@" "$sub"; done
}
top=$("$bin" --help)
abstract=$(printf '%s\n' "$top" | awk '/^OVERVIEW: / { sub(/^OVERVIEW: /, ""); s = $0; while ((getline l) > 0 && l != "") s = s " " l; print s; exit }')
{
    printf '.TH SWITCHSCAN 1 "" "switchscan %s" "User Commands"\n' "$version"
    printf '.SH NAME\nswitchscan \\- %s\n' "$abstract"
    printf '.SH SYNOPSIS\n.B switchscan\n.I command\n.RI [ options ]\n'
    printf '.SH DESCRIPTION\n'
    printf '%s\n' "$top" | awk '/^OVERVIEW: /{ skip = 1 } skip && /^$/ { skip = 0; next } !skip' | roff
    printf '.SH COMMANDS\n'
    for sub in $(printf '%s\n' "$top" | subcommands); do page "$sub"; done
    printf '.SH FILES\n'
    printf '.TP\n.I ~/.config/switchscan/settings.json\nThe settings (\\fBswitchscan settings\\fR).\n'
    printf '.TP\n.I ~/.local/share/switchscan/words.txt\nThe words learned from typing (\\fBswitchscan words\\fR).\n'
    printf '.TP\n.I ~/.config/switchscan/devices/\nDevice profiles of your own, over those in \\fI/usr/share/switchscan/Devices\\fR.\n'
    printf '.TP\n.I ~/.config/autostart/switchscan.desktop, ~/.config/systemd/user/switchscan.service\nStarting at login (\\fBswitchscan autostart\\fR).\n'
} >"$work/switchscan.1"
gzip -9n <"$work/switchscan.1" >"$root/usr/share/man/man1/switchscan.1.gz"

{
    printf 'switchscan (%s) unstable; urgency=medium\n\n  * Release %s.\n\n' "$version" "$version"
    printf ' -- %s  %s\n' "$maintainer" "$(date -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")"
} | gzip -9n >"$root/usr/share/doc/switchscan/changelog.gz"
{
    printf 'SwitchScan: switch access scanning for Linux.\n\n'
    printf 'The word list in /usr/share/switchscan/Words/en.words is made from wordfreq (CC BY-SA 4.0),\n'
    printf 'WordNet 3.0 and SCOWL; Words/README.md says how. Their licences follow.\n\n'
    cat Words/LICENSE-en.txt
} >"$root/usr/share/doc/switchscan/copyright"

# Dependencies: the shared libraries the binary links, as dpkg-shlibdeps finds their packages.
mkdir -p "$work/src/debian"
printf 'Source: switchscan\n\nPackage: switchscan\nArchitecture: any\n' >"$work/src/debian/control"
depends=$(cd "$work/src" && dpkg-shlibdeps -O "$root/usr/bin/switchscan" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "package-deb.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

cat >"$root/DEBIAN/control" <<EOF
Package: switchscan
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends, acl
Recommends: at-spi2-core, speech-dispatcher, fonts-dejavu-core
Section: misc
Priority: optional
Description: switch access scanning for the Linux desktop
 SwitchScan lets a person who cannot use a keyboard, mouse or touch screen
 drive the computer with one to a few switches: it highlights the items of the
 active window one after another (through the accessibility bus) and a press
 selects. It reads switches from the kernel (evdev), draws the highlight over
 the screen, speaks items, and types with a scanning keyboard.
 .
 'switchscan autostart enable' starts it at login.
EOF
install -m 0755 packaging/postinst "$root/DEBIAN/postinst"
install -m 0755 packaging/postrm "$root/DEBIAN/postrm"
install -m 0644 packaging/triggers "$root/DEBIAN/triggers"
(cd "$root" && find usr -type f -exec md5sum {} + | sort -k2) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

deb="$out/switchscan_${version}_$arch.deb"
dpkg-deb --root-owner-group -Zgzip --build "$root" "$deb" >/dev/null
echo "$deb"

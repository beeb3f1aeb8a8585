#!/bin/sh
# sim-host.sh - falcon-sim's host side read by real lspci/libpci
# (linux-sysfs method): the tree at start, attach + rescan makes a device
# appear behind the drawer switch with the right IDs and LnkSta, remove
# makes it disappear, a degraded link, a device that never appears,
# surprise removal (remove, stale, refuse), removing a bridge.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/sim-lib.sh"
command -v lspci >/dev/null 2>&1 || t_skip "lspci not found (pciutils)"

N1=$SIM_ROOT/node1/bus/pci
lsp() { lspci -A linux-sysfs -O "sysfs.path=$N1" "$@" 2>/dev/null; }

# poll_for COND... - poll a shell condition (the rescan is asynchronous)
# every 0.05 s, 10 s at most (finer than wait_for of scripts/lib.sh).
poll_for() {
	_n=0
	until "$@"; do
		_n=$((_n + 1))
		[ $_n -lt 200 ] || t_fail "timed out waiting for: $*"
		sleep 0.05
	done
}
present() { [ -d "$N1/devices/$1" ]; }
absent() { [ ! -e "$N1/devices/$1" ]; }
# rescan - write 1 and wait until falcon-sim has done the rescan: it empties
# the file, then rescans holding its lock, which GET /admin/state waits for.
rescan() {
	echo 1 >"$N1/rescan"
	poll_for eval '[ ! -s "$N1/rescan" ]'
	curl -s -m 20 -o /dev/null "$SIM_BASE/admin/state"
}
remove() { echo 1 >"$N1/devices/$1/remove"; }

sim_start

# At start: 8 local V100 SXM2, the local NVMe, two Falcon adapters with 8
# downstream ports each, no Falcon device.
[ "$(lsp -n | grep -c '10de:1db1')" = 8 ] || t_fail "8 local V100 SXM2 expected"
lsp -n -s 5e:00.0 | grep -q '8086:0a54' || t_fail "local NVMe"
[ "$(lsp -n | grep -c '1000:c010')" = 18 ] || t_fail "2 adapters + 16 downstream ports expected"
lsp -n | grep -q '10de:1db4' && t_fail "a Falcon GPU before any attach"
[ -f "$N1/rescan" ] || t_fail "no rescan file"
[ -d "$SIM_ROOT/node2/bus/pci/devices/0000:3b:00.0" ] || t_fail "node2's adapter"
t_ok "tree at start"

# Attach: staged, not on the bus until the rescan.
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body drawer1_slot1 drawer1_slot2)"
expect 200 "attach drawer1_slot1+2 to H1"
absent 0000:3d:00.0 || t_fail "device on the bus before the rescan"
req GET /admin/state
[ "$(jget '[x for x in d["devices"] if x["id"] == "drawer1_slot1"][0]["staged"]')" = True ] || t_fail "not staged"
req POST /admin/faults '{"degraded_links":{"drawer1_slot2":{"speed_gts":8,"width":8}}}'
expect 200 "slot 2 will train at Gen3 x8"
rescan
poll_for present 0000:3d:00.0
poll_for present 0000:3e:00.0
lsp -nn -s 3d:00.0 | grep -q '3D controller \[0302\]: .*\[10de:1db4\]' || t_fail "3d:00.0 IDs: $(lsp -nn -s 3d:00.0)"
lsp -vv -s 3d:00.0 | grep -q 'LnkSta:.*Speed 8GT/s.*Width x16' || t_fail "3d:00.0 LnkSta: $(lsp -vv -s 3d:00.0 | grep Lnk)"
lsp -vv -s 3e:00.0 | grep -q 'LnkCap:.*Speed 8GT/s.*Width x16' || t_fail "3e:00.0 LnkCap"
lsp -vv -s 3e:00.0 | grep -q 'LnkSta:.*Speed 8GT/s.*Width x8' || t_fail "3e:00.0 degraded LnkSta: $(lsp -vv -s 3e:00.0 | grep Lnk)"
lsp -vv -s 3c:00.0 | grep -q 'LnkSta:.*Speed 8GT/s.*Width x16' || t_fail "downstream port link up"
lsp -vv -s 3c:05.0 | grep -q 'LnkSta:.*Width x0' || t_fail "empty downstream port link down: $(lsp -vv -s 3c:05.0 | grep LnkSta)"
lsp -t | grep -q '3b\]---00.0-\[3c-44\]--+-00.0-\[3d\]----00.0' || t_fail "not behind the drawer switch: $(lsp -t)"
[ -f "$N1/rescan" ] && [ ! -s "$N1/rescan" ] || t_fail "rescan not recreated empty"
req GET /admin/state
[ "$(jget '[x for x in d["devices"] if x["id"] == "drawer1_slot1"][0]["present"]')" = True ] || t_fail "not present"
t_ok "attach + rescan: the devices appear with their IDs and LnkSta"

# Remove: the directory goes; the chassis still has it attached; a rescan
# brings it back.
remove 0000:3d:00.0
poll_for absent 0000:3d:00.0
lsp -n | grep -q '^3d:00.0' && t_fail "3d:00.0 still listed"
[ "$(owner drawer1_slot1)" = H1 ] || t_fail "remove detached in the chassis"
rescan
poll_for present 0000:3d:00.0
[ -f "$N1/devices/0000:3d:00.0/remove" ] || t_fail "no remove file"
t_ok "remove and rescan again"

# The proper teardown: remove on the host, then detach.
remove 0000:3e:00.0
poll_for absent 0000:3e:00.0
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body drawer1_slot1)"
expect 200 "detach drawer1_slot2 after its remove"
rescan
present 0000:3d:00.0 || t_fail "3d:00.0 gone"
absent 0000:3e:00.0 || t_fail "detached device came back"

# Surprise removal (default "remove", as pciehp): detach while on the bus.
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body)"
expect 200 "detach drawer1_slot1 while on the bus"
absent 0000:3d:00.0 || t_fail "surprise-removed device still there"
grep -q 'surprise removal: drawer1_slot1' "$t_tmp/sim.log" || t_fail "surprise removal not logged"

# A device that never appears; slot 4 appears in the same rescan.
req POST /admin/faults '{"no_appear":["drawer1_slot3"]}'
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body drawer1_slot3 drawer1_slot4)"
expect 200 "attach slots 3 and 4"
rescan
present 0000:40:00.0 || t_fail "slot 4 did not appear"
absent 0000:3f:00.0 || t_fail "no_appear device appeared"
req GET /admin/state
[ "$(jget '[x for x in d["devices"] if x["id"] == "drawer1_slot3"][0]["staged"]')" = True ] || t_fail "no_appear device not staged"
t_ok "a device that never appears"
req DELETE /admin/faults

# Removing the adapter takes its switch and devices; rescan restores them.
remove 0000:3b:00.0
poll_for absent 0000:3b:00.0
absent 0000:3c:03.0 || t_fail "downstream port left"
absent 0000:40:00.0 || t_fail "device below the adapter left"
rescan
poll_for present 0000:40:00.0
poll_for present 0000:3f:00.0
poll_for present 0000:3b:00.0
poll_for present 0000:3c:07.0
t_ok "remove a bridge, rescan"

# A local device: remove and rescan.
remove 0000:18:00.0
poll_for absent 0000:18:00.0
rescan
poll_for present 0000:18:00.0

# The NVMe in drawer 2 through H2 (same host, second adapter).
req POST "$RF/Systems/H2/Actions/ComputerSystem.AddResourceBlock" "$(block_body drawer2_slot5)"
expect 204 "compose the Falcon NVMe to H2"
rescan
poll_for present 0000:b5:00.0
lsp -nn -s b5:00.0 | grep -q 'Non-Volatile memory controller \[0108\]: .*\[8086:0a54\]' || t_fail "NVMe IDs"
lsp -vv -s b5:00.0 | grep -q 'LnkSta:.*Speed 8GT/s.*Width x4' || t_fail "NVMe LnkSta"
t_ok "Falcon NVMe via composition"

# lib/pci/topo (falconctl topo) reads the same tree: hybridGPUs + falconNVMe,
# the two Falcon GPUs (drawer 1 slots 3-4) under one switch (F-F PIX).
FALCONCTL=$top_builddir/falconctl/falconctl
if "$FALCONCTL" topo --help >/dev/null 2>&1; then
	"$FALCONCTL" topo --sysfs-root "$SIM_ROOT/node1" --adapter 0000:3b:00.0 \
		--adapter 0000:af:00.0 --json >"$t_tmp/body" 2>"$t_tmp/err" ||
		t_fail "falconctl topo: $(cat "$t_tmp/err")"
	[ "$(jget 'd["topology"]')" = hybridGPUs ] || t_fail "topology $(jget 'd["topology"]')"
	[ "$(jget 'd["storage"]')" = falconNVMe ] || t_fail "storage $(jget 'd["storage"]')"
	[ "$(jget 'len([g for g in d["gpus"] if g["location"] == "falcon"])')" = 2 ] || t_fail "2 Falcon GPUs"
	[ "$(jget 'len([g for g in d["gpus"] if g["location"] == "local"])')" = 8 ] || t_fail "8 local GPUs"
	[ "$(jget 'd["matrix"][4][5]')" = "F-F PIX" ] || t_fail "Falcon pair: $(jget 'd["matrix"][4][5]')"
	t_ok "falconctl topo sees hybridGPUs + falconNVMe"
fi
sim_stop

# surprise_removal "stale": the device stays with config space all-ones.
"$SIM" --dump-config | sed 's/"surprise_removal": "remove"/"surprise_removal": "stale"/' >"$t_tmp/stale.json"
sim_start --config "$t_tmp/stale.json"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body drawer1_slot1)"
rescan
poll_for present 0000:3d:00.0
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body)"
expect 200 "detach while on the bus (stale)"
present 0000:3d:00.0 || t_fail "stale device gone"
[ "$(od -An -tx1 -N4 "$N1/devices/0000:3d:00.0/config" | tr -d ' ')" = ffffffff ] || t_fail "config not all-ones"
remove 0000:3d:00.0
poll_for absent 0000:3d:00.0
t_ok "surprise removal: stale"
sim_stop

# surprise_removal "refuse": the chassis answers 409 until the host removed it.
"$SIM" --dump-config | sed 's/"surprise_removal": "remove"/"surprise_removal": "refuse"/' >"$t_tmp/refuse.json"
sim_start --config "$t_tmp/refuse.json"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body drawer1_slot1)"
rescan
poll_for present 0000:3d:00.0
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body)"
expect 409 "detach refused while on the bus"
[ "$(jget 'd["error"]["code"]')" = Falcon.1.0.DetachRefused ] || t_fail "refuse code"
remove 0000:3d:00.0
poll_for absent 0000:3d:00.0
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body)"
expect 200 "detach after remove"
sim_stop

# The drivers' view (#14): the nvidia driver's information file and
# /dev/nvidiaN of every NVIDIA GPU, lowest free minor first, freed at
# remove (the node kept); an NVMe controller's serial; BARs that lspci sizes from the
# resource file; a previous run's nodes cleared at start.
H1=$SIM_ROOT/node1
mkdir -p "$H1/dev" && : >"$H1/dev/nvidia42"
sim_start
[ ! -e "$H1/dev/nvidia42" ] || t_fail "a previous run's /dev/nvidia42 kept"
minor() { sed -n 's/^Device Minor: *\t* *//p' "$H1/proc/driver/nvidia/gpus/$1/information"; }
[ "$(ls "$H1/proc/driver/nvidia/gpus" | wc -l)" = 8 ] || t_fail "8 local GPUs in /proc: $(ls "$H1/proc/driver/nvidia/gpus")"
[ -c "$H1/dev/nvidia7" ] || [ "$(id -u)" != 0 ] || t_fail "no char device nvidia7"
grep -q "^GPU UUID: 	 GPU-[0-9a-f]\{8\}-" "$H1/proc/driver/nvidia/gpus/0000:18:00.0/information" ||
	t_fail "information: $(cat "$H1/proc/driver/nvidia/gpus/0000:18:00.0/information")"
ser=$(cat "$N1/devices/0000:5e:00.0/nvme/nvme0/serial")
[ "${#ser}" = 20 ] || t_fail "NVMe serial not the 20-byte SN field: '$ser'"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body drawer1_slot1 drawer1_slot2)"
rescan
poll_for present 0000:3e:00.0
[ "$(minor 0000:3d:00.0),$(minor 0000:3e:00.0)" = 8,9 ] || t_fail "minors $(minor 0000:3d:00.0),$(minor 0000:3e:00.0)"
lsp -vv -s 3d:00.0 | grep -q 'Region 1: Memory at .* (64-bit, prefetchable) \[size=16G\]' ||
	t_fail "BAR1: $(lsp -vv -s 3d:00.0 | grep Region)"
remove 0000:3d:00.0
poll_for absent 0000:3d:00.0
[ ! -e "$H1/proc/driver/nvidia/gpus/0000:3d:00.0" ] || t_fail "minor 8 not freed at remove"
# the node stays, as with the real driver (no driver removes /dev/nvidiaN)
[ -e "$H1/dev/nvidia8" ] || t_fail "/dev/nvidia8 removed with the GPU"
rescan
poll_for present 0000:3d:00.0
[ "$(minor 0000:3d:00.0)" = 8 ] || t_fail "the lowest free minor is 8, got $(minor 0000:3d:00.0)"
t_ok "drivers: minors 0-7 local, 8 and 9 hot-added, 8 freed and taken again; NVMe serial '$ser'"
sim_stop

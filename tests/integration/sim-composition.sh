#!/bin/sh
# sim-composition.sh - falcon-sim's CompositionService subset: the host
# port's expandable system grows with ComputerSystem.AddResourceBlock and
# shrinks with RemoveResourceBlock; CompositionState follows; the fabric
# zones see the same state; conflicts (409), mode limits and ETags (412).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/sim-lib.sh"

sim_start
ADD=$RF/Systems/H1/Actions/ComputerSystem.AddResourceBlock
REMOVE=$RF/Systems/H1/Actions/ComputerSystem.RemoveResourceBlock

req GET "$RF/Systems/H1"
expect 200 "expandable system H1"
[ "$(jget 'd["Composition"]["UseCases"][0]')" = ExpandableSystem ] || t_fail "UseCases"
[ "$(jget 'd["Actions"]["#ComputerSystem.AddResourceBlock"]["target"]')" = "$ADD" ] || t_fail "Add target"
[ "$(jget 'd["HostName"]')" = node1 ] || t_fail "HostName"
sys_etag=$(etag)
req GET "$RF/CompositionService/ResourceBlocks/drawer1_slot1/Processors/GPU"
[ "$(jget 'd["ProcessorType"]')" = GPU ] || t_fail "ProcessorType"
fn=$(jget 'd["Links"]["PCIeFunctions"][0]["@odata.id"]')
req GET "$fn"
expect 200 "the block's GPU links its PCIe function"
[ "$(jget 'd["DeviceId"]')" = 0x1db4 ] || t_fail "PCIe function DeviceId"
req GET "$RF/CompositionService/ResourceBlocks/drawer1_slot1"
[ "$(jget 'd["CompositionStatus"]["CompositionState"]')" = Unused ] || t_fail "Unused at start"
[ "$(jget 'd["CompositionStatus"]["SharingCapable"]')" = False ] || t_fail "SharingCapable"
[ "$(jget 'd["ResourceBlockType"][0]')" = Processor ] || t_fail "GPU block type"
req GET "$RF/CompositionService/ResourceBlocks/drawer1_slot3"
rb3_etag=$(etag)

req POST "$ADD" "$(block_body drawer1_slot1)"
expect 204 "AddResourceBlock drawer1_slot1 to H1"
req GET "$RF/CompositionService/ResourceBlocks/drawer1_slot1"
[ "$(jget 'd["CompositionStatus"]["CompositionState"]')" = Composed ] || t_fail "Composed"
[ "$(jget 'd["Links"]["ComputerSystems"][0]["@odata.id"]')" = "$RF/Systems/H1" ] || t_fail "block links H1"
req GET "$RF/Systems/H1"
[ "$(jget 'd["Links"]["ResourceBlocks"][0]["@odata.id"]')" = "$RF/CompositionService/ResourceBlocks/drawer1_slot1" ] ||
	t_fail "system links the block"
req GET "$RF/Fabrics/PCIe/Zones/H1"
jget 'd["Links"]["Endpoints"]' | grep -q drawer1_slot1 || t_fail "zone H1 does not show the composed block"

# Stale ETags: the header on the system, and the action's own parameters.
req POST "$ADD" "$(block_body drawer1_slot2)" -H "If-Match: $sys_etag"
expect 412 "stale If-Match on the system"
req POST "$ADD" "{\"ResourceBlock\":{\"@odata.id\":\"$RF/CompositionService/ResourceBlocks/drawer1_slot2\"},\"ComputerSystemETag\":$(printf '%s' "$sys_etag" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')}"
expect 412 "stale ComputerSystemETag"
req GET "$RF/CompositionService/ResourceBlocks/drawer1_slot2"
cur=$(etag)
req POST "$ADD" "{\"ResourceBlock\":{\"@odata.id\":\"$RF/CompositionService/ResourceBlocks/drawer1_slot2\"},\"ResourceBlockETag\":$(printf '%s' "$cur" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')}"
expect 204 "current ResourceBlockETag"
req POST "$ADD" "{\"ResourceBlock\":{\"@odata.id\":\"$RF/CompositionService/ResourceBlocks/drawer1_slot3\"},\"ResourceBlockETag\":$(printf '%s' "$rb3_etag" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')}"
expect 204 "ResourceBlockETag of an unchanged block is still current"

# Conflicts and limits.
req POST "$RF/Systems/H3/Actions/ComputerSystem.AddResourceBlock" "$(block_body drawer1_slot1)"
expect 409 "block composed to another system"
[ "$(jget 'd["error"]["@Message.ExtendedInfo"][0]["MessageId"]')" = Base.1.16.ResourceInUse ] || t_fail "MessageId"
req POST "$RF/Systems/H3/Actions/ComputerSystem.AddResourceBlock" "$(block_body drawer1_slot4)"
expect 409 "standard mode: H3 in H1's half"
req POST "$RF/Systems/H1/Actions/ComputerSystem.AddResourceBlock" "$(block_body drawer2_slot1)"
expect 409 "H1 not cabled to drawer 2"
req POST "$RF/Systems/H3/Actions/ComputerSystem.RemoveResourceBlock" "$(block_body drawer1_slot1)"
expect 409 "remove another system's block"
req POST "$ADD" '{"ResourceBlock":"drawer1_slot4"}'
expect 400 "ResourceBlock is not a link"
req POST "$ADD" "$(block_body drawer1_slot8)"
expect 400 "empty slot"
req POST "$ADD" '{"ResourceBlock":{"@odata.id":"/redfish/v1/CompositionService/ResourceBlocks/drawer1_slot4"},"Force":true}'
expect 400 "unknown action parameter"
req GET "$ADD"
expect 405 "GET on an action"
req POST "$RF/Systems/H9/Actions/ComputerSystem.AddResourceBlock" "$(block_body drawer1_slot4)"
expect 404 "no such system"

# Remove, CompositionState back to Unused, remove again is a no-op.
for s in 1 2 3; do
	req POST "$REMOVE" "$(block_body drawer1_slot$s)"
	expect 204 "RemoveResourceBlock drawer1_slot$s"
done
req GET "$RF/CompositionService/ResourceBlocks/drawer1_slot1"
[ "$(jget 'd["CompositionStatus"]["CompositionState"]')" = Unused ] || t_fail "Unused after remove"
[ "$(jget 'd["Links"]["ComputerSystems"]')" = "[]" ] || t_fail "no system after remove"
req POST "$REMOVE" "$(block_body drawer1_slot1)"
expect 204 "remove again"
req GET "$RF/CompositionService/ResourceZones/H2"
[ "$(jget 'len(d["Links"]["ResourceBlocks"])')" = 5 ] || t_fail "H2's resource zone: drawer 2's 5 blocks"
req GET "$RF/CompositionService/ResourceBlocks/drawer2_slot5"
[ "$(jget 'd["ResourceBlockType"][0]')" = Storage ] || t_fail "NVMe block type"
[ "$(jget 'd["Drives"][0]["@odata.id"]')" = "$RF/CompositionService/ResourceBlocks/drawer2_slot5/Drives/NVMe" ] ||
	t_fail "NVMe block drive link"

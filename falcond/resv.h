/*
 * resv.h - what Slurm sees of falcond's quarantine, and healing
 * without an administrator (issue 11):
 *
 *  - the reservation falcon-<chassis>-quarantine (Slurm licenses-only
 *    reservation, flag ANY_NODES, Users=root) holds <chassis>_gpu:Q and
 *    <chassis>_nvme:R, the quarantined devices of each type, so that a job
 *    asking for the whole pool pends instead of being handed a device that
 *    is not there, and, while the chassis has been unreachable for
 *    UnreachableHold= seconds, its free devices as well (issue 26: Slurm
 *    starts no job on a node whose chassis cannot serve it); made to match
 *    by a thread of its own (falcond_resv_kick), never by the compose path;
 *  - a quarantine that a later detach can clear (falcond_quarantine_healable)
 *    is cleared by reconcile once the chassis shows the device detached and
 *    healthy (falcond_resv_heal), with a history entry;
 *  - a node that falcon drained for a transient cause ("falcon: ..." naming
 *    an unreachable falcond or chassis) is resumed, and a job that Slurm
 *    held after a falcon prolog failure released, once every chassis
 *    answered a reconcile.
 *
 * Above the ledger and state and below nothing else of falcond's: it
 * calls the ledger, the history writer and libslurm.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_RESV_H
#define FALCOND_RESV_H

#include <stdbool.h>
#include <stddef.h>

#include "state.h"

#define FALCOND_RESV_FMT "falcon-%s-quarantine" /* the reservation's name, %s = ChassisName */
#define FALCOND_RELEASE_MAX 3 /* times one held job is released (a loop guard) */

/*
 * falcond_quarantine_healable - whether a quarantine of this reason clears
 * by itself once the chassis shows the device detached and healthy: the
 * reasons falcond and falcon-prolog/falcon-epilog write when a device would
 * not come off ("detach from PORT failed during ...", "falcon-prolog job
 * N: BDF still on HOST's bus after remove at rollback", "falcon-epilog job
 * N: BDF still on HOST's bus after remove...").  Every other reason (a
 * Redfish Critical event, a failed check or degraded link under
 * CheckAction=drain, an administrator's falconctl quarantine) stays until
 * falconctl unquarantine.  NULL is false.
 */
bool falcond_quarantine_healable(const char *reason);

/*
 * falcond_resv_heal - clear the healable quarantines of chassis ch whose
 * device inv shows free (no owner), Status.Health "OK" and no lease holds;
 * each is logged and appended to the history (falcond_history_append,
 * result "auto-cleared: REASON"), unless a change request on it ended
 * after generation since (the read inv began then: falcond_chassis_gen).
 * Takes st->lock; the caller commits the ledger.  Returns how many were
 * cleared.
 */
size_t falcond_resv_heal(struct falcond_state *st, const struct falcond_chassis *ch,
			 const struct falcon_inventory *inv, unsigned long long since);

/*
 * falcond_unreachable_held - whether chassis ch's reads have failed for
 * UnreachableHold= seconds or more at now_ms (falcon_now_ms clock): its
 * reservation then also holds the devices its last inventory shows free,
 * so that Slurm starts no job on a node whose chassis cannot serve it; a
 * read that works ends it (the next reservation pass gives them back).
 * UnreachableHold=0 is never.  st->lock held.
 */
bool falcond_unreachable_held(const struct falcond_state *st, const struct falcond_chassis *ch,
			      long long now_ms);

/*
 * falcond_resv_kick - ask the reservation thread (started on the first
 * call, when st->use_slurm) to make Slurm match the quarantine list;
 * all_chassis_ok (a reconcile that read every chassis) also lets it resume
 * falcon's transient drains and release the held jobs (see above).
 * Returns at once: never waits for Slurm.  A pass that fails (slurmctld
 * unreachable) is retried at the next kick (every reconcile kicks).
 */
void falcond_resv_kick(struct falcond_state *st, bool all_chassis_ok);

/*
 * falcond_transient_drain - whether a node's drain reason is falcon's for a
 * cause that goes away by itself: it starts "falcon:" and names an
 * unreachable falcond or chassis ("connection failed", "timed out",
 * "unreachable", "falcond is reconciling").  NULL is false.
 */
bool falcond_transient_drain(const char *reason);

#endif /* FALCOND_RESV_H */

/*
 * desc.h - device descriptions kept between inventories and across restarts
 * (desc.c).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_DESC_H
#define FALCOND_DESC_H

#include "state.h"

/*
 * Device descriptions kept between inventories (desc.c; see
 * falcon_chassis_keep_descriptions() in lib/chassis/chassis.h and
 * InventoryRefresh in falcon.conf(5)), kept across restarts in
 * StateDir/chassis-<name>.json.
 *
 * falcond_desc_open - ch's reader was just opened (ch->read_lock held): keep
 * descriptions for InventoryRefresh seconds and take those of the file (a
 * file that cannot be read or parsed is logged with its reason and
 * ignored: every device is then read).
 */
void falcond_desc_open(struct falcond_state *st, struct falcond_chassis *ch);

/* falcond_desc_forget - have the next read of ch read device dev_id (NULL:
 * every device) in full (st->lock held). */
void falcond_desc_forget(struct falcond_chassis *ch, const char *dev_id);

/* falcond_desc_before_read - apply what falcond_desc_forget() asked, and
 * forget everything when ch is down (it may have been serviced)
 * (ch->read_lock held; takes st->lock). */
void falcond_desc_before_read(struct falcond_state *st, struct falcond_chassis *ch);

/* falcond_desc_after_read - write the file again when a description
 * changed (ch->read_lock held; a failed write is logged, nothing else). */
void falcond_desc_after_read(struct falcond_state *st, struct falcond_chassis *ch);

#endif /* FALCOND_DESC_H */

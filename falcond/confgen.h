/*
 * confgen.h - the configuration generations of falcond (confgen.c): the
 * falcon.conf files a SIGHUP swaps, kept while a reader may still read
 * them.  One struct falcond_confgen lives in main()'s state
 * (state.h: st->confgen), beside the current one (st->conf).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_CONFGEN_H
#define FALCOND_CONFGEN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/conf.h"

/*
 * Configuration generations: gens[0..n) in load order, the last one
 * current (*cur), gens[0] numbered base.  A reader takes a reference on
 * the current one (falcond_conf_hold) and may then read *cur, which is
 * that one or a later one.  Generation k is freed once it is not current
 * and no reference on it nor on an older one is left: a reader holding an
 * older generation may have read *cur while k was current.  The start-up
 * conf (pinned) is never freed before exit: the chassis table
 * (st->ch[].cc) points into it, and a reload cannot change what it points
 * at (main.c, restart_only_change).
 */
struct falcond_confgen {
	pthread_mutex_t lock;        /* made by falcond_conf_pin */
	struct falcond_conf_gen {
		struct falcon_conf *conf;
		unsigned refs;
	} *gens;
	size_t n;
	unsigned base;
	struct falcon_conf *pinned;
};

/*
 * falcond_conf_hold - a reference on g's current configuration (*cur of
 * falcond_conf_pin/_publish, st->conf): while it is held, st->conf may be
 * read and what it points to stays valid, whatever SIGHUP reloads
 * meanwhile.  Returns its generation number, for falcond_conf_release(),
 * which drops the reference (an old configuration is freed by the last
 * release that may read it).  Both take g->lock for a few instructions.
 */
unsigned falcond_conf_hold(struct falcond_confgen *g);
void falcond_conf_release(struct falcond_confgen *g, unsigned gen);
/*
 * falcond_conf_pin - g made (zeroed before, by its owner), first (the
 * start-up conf, owned from now on) becomes *cur and generation 0; it is
 * freed only by falcond_conf_free_all(): the chassis table points into
 * it.  falcond_conf_publish - n (owned from now on) becomes *cur (an
 * atomic store); the previous one is freed when the last reference that
 * may read it is released.  Both false when out of memory (nothing
 * changed, n still the caller's).  falcond_conf_free_all - at exit, once
 * no reader is left: every generation, and g's lock.
 */
bool falcond_conf_pin(struct falcond_confgen *g, struct falcon_conf **cur,
		      struct falcon_conf *first);
bool falcond_conf_publish(struct falcond_confgen *g, struct falcon_conf **cur,
			  struct falcon_conf *n);
void falcond_conf_free_all(struct falcond_confgen *g);

#endif /* FALCOND_CONFGEN_H */

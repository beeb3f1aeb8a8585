/*
 * confgen.h - the configuration generations of falcond (confgen.c).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_CONFGEN_H
#define FALCOND_CONFGEN_H

#include <stdbool.h>

#include "core/conf.h"

/*
 * falcond_conf_hold - a reference on the current configuration (st->conf):
 * while it is held, st->conf may be read and what it points to stays
 * valid, whatever SIGHUP reloads meanwhile.  Returns its generation number,
 * for falcond_conf_release(), which drops the reference (an old
 * configuration is freed by the last release that may read it).  Both
 * take a mutex for a few instructions; falcond.c.
 */
unsigned falcond_conf_hold(void);
void falcond_conf_release(unsigned gen);
/*
 * falcond_conf_pin - first (the start-up conf, owned from now on) becomes
 * *cur and generation 0; it is freed only by falcond_conf_free_all(): the
 * chassis table points into it.  falcond_conf_publish - n (owned from now
 * on) becomes *cur (an atomic store); the previous one is freed when the
 * last reference that may read it is released.  Both false when out of
 * memory (nothing changed, n still the caller's).  falcond_conf_free_all -
 * at exit, once no reader is left: every generation.
 */
bool falcond_conf_pin(struct falcon_conf **cur, struct falcon_conf *first);
bool falcond_conf_publish(struct falcon_conf **cur, struct falcon_conf *n);
void falcond_conf_free_all(void);

#endif /* FALCOND_CONFGEN_H */
